"""13 (AMIGO) as a PettingZoo AEC environment: `amigo13.env(players=4)`."""

from __future__ import annotations

from typing import Any

from arena.envs.aec import ArenaEnv, wrap
from arena.games.amigo13 import NAME


def raw_env(players: int = 4, render_mode: str | None = None) -> ArenaEnv:
    """The environment without wrappers: an illegal action raises IllegalAction."""
    return ArenaEnv(NAME, render_mode, players=players)


def env(players: int = 4, render_mode: str | None = None) -> Any:
    """The environment in PettingZoo's usual wrappers (3-6 players)."""
    return wrap(raw_env(players, render_mode))
