"""The baseline: a uniformly random legal action."""

from __future__ import annotations

from arena.bots.base import Bot, Turn
from arena.games.base import Action


class RandomBot(Bot):
    name = "random"
    description = "plays a uniformly random legal action"

    def act(self, turn: Turn) -> Action:
        actions = turn.legal_actions
        return actions[int(self.rng.random() * len(actions))]
