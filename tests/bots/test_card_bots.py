"""The built-in bots play legal moves in every card game, and the better ones score better."""

from __future__ import annotations

import asyncio

import pytest

from arena.bots import BOTS, UnknownBot, make_bot
from arena.bots.base import StaticTurn
from arena.bots.montecarlo import MonteCarloBot
from arena.games import make_game
from arena.games.base import Game
from arena.games.cards import CardGame
from arena.match.local import play_series, schedule
from arena.standings import standings
from tests.games.cardkit import arrange


def play_match(game: Game, names: list[str], seed: bytes) -> tuple[int, ...]:
    state = game.new_match(seed)
    bots = [make_bot(name, game, seat, seed=seat) for seat, name in enumerate(names)]
    for bot in bots:
        if isinstance(bot, MonteCarloBot):
            bot.samples = 40
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat].act(StaticTurn(seat, legal, state.observation(seat)))
        assert action in legal
        state.apply(action)
    return state.outcome().scores


@pytest.mark.parametrize(("name", "players"), [("friday13", 3), ("friday13", 5), ("amigo13", 4)])
def test_every_bot_plays_only_legal_moves(name: str, players: int) -> None:
    game = make_game(name, players=players)
    names = [list(BOTS)[seat % len(BOTS)] for seat in range(players)]
    scores = play_match(game, names, b"legal")
    assert len(scores) == players


def test_an_unknown_bot_is_refused_by_name() -> None:
    with pytest.raises(UnknownBot, match="built-in bots are: random, heuristic, mc"):
        make_bot("deep-blue", make_game("friday13"), 0)


def test_the_heuristic_beats_random_over_duplicate_deals() -> None:
    game = make_game("friday13", players=3)
    pairings = schedule(["heuristic", "random", "random"], 30, duplicate=True)
    results = asyncio.run(play_series(game, pairings, "strength"))
    table = {row.bot: row for row in standings((r.seats, r.scores, r.ranks) for r in results)}
    assert table["heuristic"].mean_score + table["heuristic"].ci95 < table["random"].mean_score - table["random"].ci95


def test_the_heuristic_takes_the_cheapest_pile_when_it_must_take_one() -> None:
    game = make_game("friday13", players=3)
    assert isinstance(game, CardGame)
    state = arrange(
        game,
        ["cat:7 mirror:7", "ladder:1", "ladder:2"],
        piles=["cat:5 cat:5 friday:4", "mirror:7", ""],
    )
    bot = make_bot("heuristic", game, 0)
    action = bot.act(StaticTurn(0, state.legal_actions(), state.observation(0)))
    assert game.action_text(action) == "mirror:7", "one mirror card costs less than two cats and a Friday card"
