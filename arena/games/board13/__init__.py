"""board13: the 13thg board games for two on a 7x7 board, each game's layout read from a scenario file.

`make_game("board13", scenario="duel")` plays a shipped scenario; `scenario` may also be the path of
a TOML file (format in docs/BOARD13.md).
"""

from arena.games.base import register
from arena.games.board13.board import SIDES, field_name, parse_field
from arena.games.board13.kit import Board13Kit
from arena.games.board13.render import board_layout, render_text
from arena.games.board13.rules import (
    DEFAULT_SCENARIO,
    MOVE_BASE,
    NAME,
    PASS,
    Board13,
    Board13Observation,
    Board13State,
    move_action,
    place_action,
)
from arena.games.board13.scenario import (
    Scenario,
    ScenarioError,
    load_scenario,
    parse_scenario,
    scenario_from_dict,
    scenario_names,
)

register(NAME, Board13, Board13Kit())

__all__ = [
    "DEFAULT_SCENARIO",
    "MOVE_BASE",
    "NAME",
    "PASS",
    "SIDES",
    "Board13",
    "Board13Observation",
    "Board13State",
    "Scenario",
    "ScenarioError",
    "board_layout",
    "field_name",
    "load_scenario",
    "move_action",
    "parse_field",
    "parse_scenario",
    "place_action",
    "render_text",
    "scenario_from_dict",
    "scenario_names",
]
