"""Scenarios: the layout of one board13 game, read from a TOML file and checked field by field.

The cards of the original 13 games are not available, so each game's layout is data. A
scenario gives the kind of every field, the decoration, the fixed stones and monuments, the
reserves, whether capture works diagonally, the goal and the ply limit. docs/BOARD13.md describes
the file format; `scenarios/` holds the shipped ones. Reading those files is the only I/O of
this package. Every problem is reported as one line: `FILE: KEY: what is wrong and what to write`.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from arena.games.base import InvalidParameters
from arena.games.board13.board import (
    BLACK_MONUMENT,
    BLACK_STONE,
    EMPTY,
    FIELDS,
    FIXED,
    MONUMENT,
    NAMES,
    NEUTRAL_MONUMENT,
    OWNER,
    SIDES,
    WHITE_MONUMENT,
    WHITE_STONE,
    parse_field,
)

GOALS = ("enemy_monuments", "neutral_monuments")
"""Topple every enemy monument, or a majority of the neutral monuments."""
DEFAULT_PLY_LIMIT = 200
MAX_PLY_LIMIT = 10_000
HIGHLIGHTED_COUNT = 13
"""The original boards highlight (tilt) 13 fields; a scenario lists all of them or none."""

NEUTRAL_FIELD = 0
BLACK_FIELD = 1
WHITE_FIELD = 2
KIND_NAMES = ("neutral", "black", "white")
"""Field kinds: anyone's, black's only, white's only (the value equals the side's owner bits)."""
DECORATIONS = ("light_green", "dark_green", "red")
"""Colours of the square neutral fields of the original boards; they do not change the rules."""

TOP_KEYS = ("name", "description", "goal", "capture_diagonal", "ply_limit", "reserve", "fields", "stones", "monuments")
FIELD_KEYS = ("black", "white", *DECORATIONS, "highlighted")
SIDE_KEYS = ("black", "white")
MONUMENT_KEYS = ("black", "white", "neutral", "movable")
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")

SCENARIO_PACKAGE = "arena.games.board13"
SCENARIO_DIRECTORY = "scenarios"


class ScenarioError(InvalidParameters):
    """A scenario that cannot be used: unknown name, unreadable or invalid file."""


@dataclass(frozen=True)
class Scenario:
    """One game's layout and special rules, already checked.

    `board` holds the piece code of every field at the start (see `board.py`), `kinds` the kind
    of every field (NEUTRAL_FIELD, BLACK_FIELD, WHITE_FIELD) and `colours` the decoration of the
    neutral ones ("" for a plain round field).
    """

    name: str
    description: str
    goal: str
    board: tuple[int, ...]
    kinds: tuple[int, ...] = (NEUTRAL_FIELD,) * FIELDS
    reserves: tuple[int, int] = (0, 0)
    capture_diagonal: bool = False
    ply_limit: int = DEFAULT_PLY_LIMIT
    colours: tuple[str, ...] = ("",) * FIELDS
    highlighted: frozenset[int] = frozenset()
    source: str = field(default="", compare=False)
    """Where the scenario was read from, for messages."""

    @cached_property
    def allowed(self) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
        """allowed[side][field]: whether that side's pieces may land on the field."""
        return (
            tuple(kind != WHITE_FIELD for kind in self.kinds),
            tuple(kind != BLACK_FIELD for kind in self.kinds),
        )

    @cached_property
    def neutral_monuments(self) -> int:
        return self.board.count(NEUTRAL_MONUMENT)

    @cached_property
    def monuments(self) -> tuple[int, int]:
        """How many partisan monuments each side starts with."""
        first, second = (sum(1 for code in self.board if code & MONUMENT and code & OWNER == bit) for bit in (1, 2))
        return first, second

    def to_dict(self) -> dict[str, Any]:
        """The scenario as the TOML file would hold it (JSON-ready); `scenario_from_dict` reads it back."""

        def where(test: Any) -> list[str]:
            return [NAMES[f] for f in range(FIELDS) if test(f)]

        board = self.board
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "goal": self.goal,
            "capture_diagonal": self.capture_diagonal,
            "ply_limit": self.ply_limit,
            "reserve": {"black": self.reserves[0], "white": self.reserves[1]},
            "fields": {
                "black": where(lambda f: self.kinds[f] == BLACK_FIELD),
                "white": where(lambda f: self.kinds[f] == WHITE_FIELD),
                **{colour: where(lambda f, c=colour: self.colours[f] == c) for colour in DECORATIONS},
                "highlighted": [NAMES[f] for f in sorted(self.highlighted)],
            },
            "stones": {
                "black": where(lambda f: board[f] == BLACK_STONE),
                "white": where(lambda f: board[f] == WHITE_STONE),
            },
            "monuments": {
                "black": where(lambda f: board[f] & (MONUMENT | OWNER) == MONUMENT | 1),
                "white": where(lambda f: board[f] & (MONUMENT | OWNER) == MONUMENT | 2),
                "neutral": where(lambda f: board[f] == NEUTRAL_MONUMENT),
                "movable": where(lambda f: board[f] & MONUMENT and not board[f] & FIXED),
            },
        }
        return data


class _Checker:
    """Reads one scenario mapping, raising ScenarioError(`source: key: problem`) at the first fault."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.board = [EMPTY] * FIELDS
        self.placed_by = [""] * FIELDS
        """Which key put a piece on each field, for 'two things on one field' messages."""

    def fail(self, key: str, problem: str) -> ScenarioError:
        return ScenarioError(f"{self.source}: {key}: {problem}")

    def table(self, data: Mapping[str, Any], key: str, known: Sequence[str]) -> Mapping[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            raise self.fail(key, f"must be a table ([{key}]), not {_kind(value)}")
        self.known_keys(value, known, f"{key}.")
        return value

    def known_keys(self, data: Mapping[str, Any], known: Sequence[str], prefix: str = "") -> None:
        for key in data:
            if key not in known:
                raise self.fail(f"{prefix}{key}", f"unknown key; known keys here are: {', '.join(known)}")

    def text(self, data: Mapping[str, Any], key: str, example: str) -> str:
        if key not in data:
            raise self.fail(key, f"missing; write {key} = {example}")
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"must be a non-empty string, e.g. {key} = {example}")
        if "\n" in value:
            raise self.fail(key, "must be a single line")
        return value.strip()

    def integer(self, data: Mapping[str, Any], key: str, default: int, low: int, high: int, path: str) -> int:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(path, f"must be a whole number from {low} to {high}, not {value!r}")
        return value

    def fields(self, data: Mapping[str, Any], key: str, path: str) -> list[int]:
        value = data.get(key, [])
        if not isinstance(value, list):
            raise self.fail(path, f'must be a list of fields such as ["a1", "d4"], not {_kind(value)}')
        fields = []
        for item in value:
            found = parse_field(item) if isinstance(item, str) else None
            if found is None:
                raise self.fail(path, f"{item!r} is not a field of the 7x7 board; write a1 to g7")
            if found in fields:
                raise self.fail(path, f"{NAMES[found]} is listed twice")
            fields.append(found)
        return fields

    def put(self, fields: list[int], code: int, path: str) -> None:
        for spot in fields:
            if self.board[spot] != EMPTY:
                raise self.fail(path, f"{NAMES[spot]} is already taken by {self.placed_by[spot]}; one piece per field")
            self.board[spot] = code
            self.placed_by[spot] = path


def _kind(value: Any) -> str:
    return {str: "a string", int: "a number", bool: "true/false", list: "a list", float: "a number"}.get(
        type(value), "a table"
    )


def scenario_from_dict(data: Mapping[str, Any], source: str = "<scenario>") -> Scenario:
    """Check a scenario given as data (the parsed TOML) and build it; raises ScenarioError."""
    check = _Checker(source)
    if not isinstance(data, Mapping):
        raise ScenarioError(f"{source}: the scenario must be a table of keys")
    check.known_keys(data, TOP_KEYS)
    name = check.text(data, "name", '"my-scenario"')
    if not NAME_PATTERN.fullmatch(name):
        raise check.fail(
            "name", f"{name!r}: use 1 to 40 lower-case letters, digits, - and _, starting with a letter or digit"
        )
    description = check.text(data, "description", '"what this game is about, in one line"')
    if "goal" not in data:
        raise check.fail("goal", f'missing; write goal = "{GOALS[0]}" or goal = "{GOALS[1]}"')
    goal = data["goal"]
    if goal not in GOALS:
        raise check.fail("goal", f'{goal!r} is not a goal; write "{GOALS[0]}" or "{GOALS[1]}"')
    diagonal = data.get("capture_diagonal", False)
    if not isinstance(diagonal, bool):
        raise check.fail("capture_diagonal", f"must be true or false, not {diagonal!r}")
    ply_limit = check.integer(data, "ply_limit", DEFAULT_PLY_LIMIT, 1, MAX_PLY_LIMIT, "ply_limit")

    reserve = check.table(data, "reserve", SIDE_KEYS)
    reserves = (
        check.integer(reserve, "black", 0, 0, FIELDS, "reserve.black"),
        check.integer(reserve, "white", 0, 0, FIELDS, "reserve.white"),
    )

    fields = check.table(data, "fields", FIELD_KEYS)
    kinds = [NEUTRAL_FIELD] * FIELDS
    colours = [""] * FIELDS
    coloured_by = [""] * FIELDS
    for key, kind in (("black", BLACK_FIELD), ("white", WHITE_FIELD), *((c, NEUTRAL_FIELD) for c in DECORATIONS)):
        path = f"fields.{key}"
        for spot in check.fields(fields, key, path):
            if coloured_by[spot]:
                raise check.fail(
                    path, f"{NAMES[spot]} is already coloured by {coloured_by[spot]}; a field has one colour"
                )
            coloured_by[spot] = path
            kinds[spot] = kind
            colours[spot] = key
    highlighted = check.fields(fields, "highlighted", "fields.highlighted")
    if highlighted and len(highlighted) != HIGHLIGHTED_COUNT:
        raise check.fail(
            "fields.highlighted",
            f"lists {len(highlighted)} fields; the boards highlight exactly {HIGHLIGHTED_COUNT} (or leave it out)",
        )

    stones = check.table(data, "stones", SIDE_KEYS)
    monuments = check.table(data, "monuments", MONUMENT_KEYS)
    for key, code in (("black", BLACK_STONE), ("white", WHITE_STONE)):
        check.put(check.fields(stones, key, f"stones.{key}"), code, f"stones.{key}")
    for key, code in (("black", BLACK_MONUMENT), ("white", WHITE_MONUMENT), ("neutral", NEUTRAL_MONUMENT)):
        check.put(check.fields(monuments, key, f"monuments.{key}"), code, f"monuments.{key}")
    board = check.board
    for spot in check.fields(monuments, "movable", "monuments.movable"):
        if board[spot] == NEUTRAL_MONUMENT:
            raise check.fail(
                "monuments.movable",
                f"{NAMES[spot]} is a neutral monument, which no side may move; only black or white monuments can be movable",
            )
        if not board[spot] & MONUMENT:
            raise check.fail(
                "monuments.movable", f"{NAMES[spot]} holds no black or white monument; list only monuments' fields"
            )
        board[spot] &= ~FIXED
    for spot in range(FIELDS):
        owner = board[spot] & OWNER
        if owner and kinds[spot] not in (NEUTRAL_FIELD, owner):
            raise check.fail(
                check.placed_by[spot],
                f"{NAMES[spot]} is a {KIND_NAMES[kinds[spot]]}-only field; a {SIDES[owner - 1]} piece cannot stand there",
            )

    scenario = Scenario(
        name=name,
        description=description,
        goal=goal,
        board=tuple(board),
        kinds=tuple(kinds),
        reserves=reserves,
        capture_diagonal=diagonal,
        ply_limit=ply_limit,
        colours=tuple(colours),
        highlighted=frozenset(highlighted),
        source=source,
    )
    _check_playable(scenario, check)
    return scenario


def _check_playable(scenario: Scenario, check: _Checker) -> None:
    if scenario.goal == "enemy_monuments":
        for side, count in zip(SIDES, scenario.monuments, strict=True):
            if not count:
                raise check.fail(f"monuments.{side}", f'goal "enemy_monuments" needs at least one {side} monument')
    elif not scenario.neutral_monuments:
        raise check.fail("monuments.neutral", 'goal "neutral_monuments" needs at least one neutral monument')
    pieces = sum(1 for code in scenario.board if code != EMPTY)
    if pieces + sum(scenario.reserves) > FIELDS:
        raise check.fail(
            "reserve",
            f"{pieces} pieces on the board and {sum(scenario.reserves)} in reserve do not fit on {FIELDS} fields",
        )
    for seat, colour in enumerate(SIDES):
        movable = any(code & OWNER == seat + 1 and not code & FIXED for code in scenario.board)
        if not movable and not scenario.reserves[seat]:
            raise check.fail(
                f"reserve.{colour}",
                f"{colour} has no stone, no movable monument and no reserve; give it something to play",
            )


def parse_scenario(text: str, source: str) -> Scenario:
    """Check a scenario given as TOML text; raises ScenarioError naming `source`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{source}: not valid TOML: {error}") from None
    return scenario_from_dict(data, source)


def scenario_names() -> list[str]:
    """The names of the shipped scenarios."""
    folder = resources.files(SCENARIO_PACKAGE) / SCENARIO_DIRECTORY
    return sorted(entry.name[: -len(".toml")] for entry in folder.iterdir() if entry.name.endswith(".toml"))


@cache
def shipped_scenario(name: str) -> Scenario:
    """A shipped scenario by name (read once); raises ScenarioError for an unknown name."""
    if name not in scenario_names():
        raise ScenarioError(
            f"unknown board13 scenario {name!r}; shipped scenarios are: {', '.join(scenario_names())} (or give the path of a .toml file)"
        )
    resource = resources.files(SCENARIO_PACKAGE) / SCENARIO_DIRECTORY / f"{name}.toml"
    return parse_scenario(resource.read_text(encoding="utf-8"), f"{SCENARIO_DIRECTORY}/{name}.toml")


def load_scenario(spec: str) -> Scenario:
    """A scenario by shipped name, or from the TOML file at the path `spec` (read every time)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ScenarioError(f"the board13 scenario must be a shipped name or a file path, not {spec!r}")
    if not (spec.endswith(".toml") or "/" in spec or "\\" in spec):
        return shipped_scenario(spec)
    path = Path(spec)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{spec}: no such scenario file; give an existing .toml file or a shipped name") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"{spec}: cannot read the scenario file: {error}") from None
    return parse_scenario(text, spec)
