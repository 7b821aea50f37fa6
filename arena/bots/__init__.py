"""In-process policies, used by `arena play`, by the server's default moves and by the SDK."""

from __future__ import annotations

from arena.bots import board13_policies as board13_policies
from arena.bots.base import Bot, StaticTurn, Turn
from arena.bots.heuristic import HeuristicBot
from arena.bots.montecarlo import MonteCarloBot
from arena.bots.random_bot import RandomBot
from arena.games.base import Game

BOTS: dict[str, type[Bot]] = {bot.name: bot for bot in (RandomBot, HeuristicBot, MonteCarloBot)}


class UnknownBot(ValueError):
    """A bot name that is not built in."""


def bot_names() -> list[str]:
    return list(BOTS)


def make_bot(name: str, game: Game, seat: int, seed: int = 0) -> Bot:
    """A fresh built-in bot for one seat of one match; raises UnknownBot or ValueError."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise UnknownBot(f"unknown bot {name!r}; built-in bots are: {', '.join(BOTS)}") from None
    return cls(game, seat, seed)


__all__ = ["BOTS", "Bot", "StaticTurn", "Turn", "UnknownBot", "bot_names", "make_bot"]
