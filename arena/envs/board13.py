"""The 13thg board games as a PettingZoo AEC environment: `board13.env(scenario="duel")`."""

from __future__ import annotations

from typing import Any

from arena.envs.aec import ArenaEnv, wrap
from arena.games.board13 import DEFAULT_SCENARIO, NAME


def raw_env(players: int = 2, scenario: str = DEFAULT_SCENARIO, render_mode: str | None = None) -> ArenaEnv:
    """The environment without wrappers: an illegal action raises IllegalAction."""
    return ArenaEnv(NAME, render_mode, players=players, scenario=scenario)


def env(players: int = 2, scenario: str = DEFAULT_SCENARIO, render_mode: str | None = None) -> Any:
    """The environment in PettingZoo's usual wrappers (a shipped scenario's name or a TOML file's path)."""
    return wrap(raw_env(players, scenario, render_mode))
