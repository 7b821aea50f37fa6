"""Friday the 13th as a PettingZoo AEC environment: `friday13.env(players=4, edition="en")`."""

from __future__ import annotations

from typing import Any

from arena.envs.aec import ArenaEnv, wrap
from arena.games.friday13 import NAME


def raw_env(players: int = 4, edition: str = "en", render_mode: str | None = None) -> ArenaEnv:
    """The environment without wrappers: an illegal action raises IllegalAction."""
    return ArenaEnv(NAME, render_mode, players=players, edition=edition)


def env(players: int = 4, edition: str = "en", render_mode: str | None = None) -> Any:
    """The environment in PettingZoo's usual wrappers (3-6 players; edition en or de)."""
    return wrap(raw_env(players, edition, render_mode))
