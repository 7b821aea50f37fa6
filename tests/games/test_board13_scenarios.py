"""board13 scenarios: the shipped files, loading by name or path, and one-line errors for bad files."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from arena.games import InvalidParameters, make_game
from arena.games.board13 import (
    Board13,
    ScenarioError,
    board_layout,
    load_scenario,
    parse_scenario,
    render_text,
    scenario_from_dict,
    scenario_names,
)
from arena.games.board13.board import NEUTRAL_MONUMENT, distance
from arena.games.board13.scenario import BLACK_FIELD, WHITE_FIELD

SCENARIOS = Path(__file__).parents[2] / "arena" / "games" / "board13" / "scenarios"
DOCS = Path(__file__).parents[2] / "docs" / "BOARD13.md"

MINIMAL = """
name = "tiny"
description = "a test"
goal = "enemy_monuments"
[stones]
black = ["a1"]
white = ["g7"]
[monuments]
black = ["d1"]
white = ["d7"]
"""


def board13(scenario: str) -> Board13:
    game = make_game("board13", scenario=scenario)
    assert isinstance(game, Board13)
    return game


@pytest.mark.parametrize("name", scenario_names())
def test_every_shipped_scenario_loads_under_its_file_name(name: str) -> None:
    scenario = load_scenario(name)
    assert scenario.name == name
    assert (SCENARIOS / f"{name}.toml").is_file()
    assert scenario.description and "\n" not in scenario.description
    game = board13(name)
    assert game.params() == {"players": 2, "scenario": name}
    assert game.new_match(b"").legal_actions()


@pytest.mark.parametrize("name", scenario_names())
def test_a_scenario_survives_the_round_trip_through_its_record_form(name: str) -> None:
    scenario = load_scenario(name)
    assert scenario_from_dict(scenario.to_dict(), "again") == scenario


def test_the_default_game_plays_the_duel() -> None:
    game = make_game("board13")
    assert game.params() == {"players": 2, "scenario": "duel"}


def test_the_shipped_scenarios_cover_every_feature() -> None:
    scenarios = [load_scenario(name) for name in scenario_names()]
    assert len(scenarios) >= 4
    assert {s.goal for s in scenarios} == {"enemy_monuments", "neutral_monuments"}
    assert any(any(s.monuments) for s in scenarios), "partisan monuments"
    centre = 3 * 7 + 3
    assert any(
        any(code == NEUTRAL_MONUMENT and distance(spot, centre) <= 1 for spot, code in enumerate(s.board))
        for s in scenarios
    ), "neutral monuments in the centre"
    assert any(s.reserves[0] and not any(code in (1, 2) for code in s.board) for s in scenarios), "free placement"
    assert any(BLACK_FIELD in s.kinds and WHITE_FIELD in s.kinds for s in scenarios), "colour-reserved fields"
    assert any(s.capture_diagonal for s in scenarios), "diagonal capture"
    assert any(code & 4 and not code & 8 for s in scenarios for code in s.board), "movable monuments"


def test_a_scenario_file_can_be_given_by_path(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(MINIMAL)
    game = board13(str(path))
    assert game.scenario.name == "tiny"
    assert game.params()["scenario"] == str(path)
    state = game.new_match(b"")
    state.playout(random.Random(0))
    assert game.replay(state.record(["a", "b"])).outcome() == state.outcome()


def test_an_unknown_name_lists_the_shipped_scenarios() -> None:
    with pytest.raises(InvalidParameters, match=r"unknown board13 scenario 'nope'; shipped scenarios are: .*duel"):
        make_game("board13", scenario="nope")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone.toml")
    with pytest.raises(ScenarioError, match=re.escape(f"{missing}: no such scenario file")):
        make_game("board13", scenario=missing)


def test_a_bad_file_given_by_path_names_the_file_the_key_and_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(MINIMAL.replace('white = ["g7"]', 'white = ["g9"]'))
    with pytest.raises(InvalidParameters) as bad:
        make_game("board13", scenario=str(path))
    assert str(bad.value) == f"{path}: stones.white: 'g9' is not a field of the 7x7 board; write a1 to g7"


BAD_FILES = [
    ("colour = 3", "colour: unknown key; known keys here are: name, description, goal"),
    ("[fields]\nblue = []", "fields.blue: unknown key; known keys here are: black, white, light_green"),
    ("[reserve]\ngrey = 2", "reserve.grey: unknown key"),
    ('[stones]\nblack = ["a1", "h3"]', "stones.black: 'h3' is not a field of the 7x7 board; write a1 to g7"),
    ('[stones]\nblack = ["a1", "a1"]', "stones.black: a1 is listed twice"),
    ('[stones]\nblack = ["a1", "d7"]', "monuments.white: d7 is already taken by stones.black; one piece per field"),
    ('[stones]\nblack = "a1"', 'stones.black: must be a list of fields such as ["a1", "d4"], not a string'),
    ('[monuments]\nneutral = ["d4"]\nmovable = ["d4"]', "monuments.movable: d4 is a neutral monument"),
    ('[monuments]\nmovable = ["c3"]', "monuments.movable: c3 holds no black or white monument"),
    ('[fields]\nwhite = ["a1"]', "stones.black: a1 is a white-only field; a black piece cannot stand there"),
    ('[fields]\nblack = ["b1"]\nred = ["b1"]', "fields.red: b1 is already coloured by fields.black"),
    ('[fields]\nhighlighted = ["a1", "a2"]', "fields.highlighted: lists 2 fields; the boards highlight exactly 13"),
    ("[reserve]\nblack = -1", "reserve.black: must be a whole number from 0 to 49, not -1"),
    ("[reserve]\nblack = 40\nwhite = 6", "reserve: 4 pieces on the board and 46 in reserve do not fit on 49 fields"),
    ("ply_limit = 0", "ply_limit: must be a whole number from 1 to 10000, not 0"),
    ('capture_diagonal = "yes"', "capture_diagonal: must be true or false"),
    ("reserve = 3", "reserve: must be a table ([reserve]), not a number"),
]


@pytest.mark.parametrize(("extra", "message"), BAD_FILES, ids=[m.split(":")[0] for _, m in BAD_FILES])
def test_a_bad_scenario_is_refused_in_one_line_naming_the_key(extra: str, message: str) -> None:
    text = _merge(MINIMAL, extra)
    with pytest.raises(ScenarioError) as bad:
        parse_scenario(text, "my.toml")
    assert str(bad.value).startswith(f"my.toml: {message}")
    assert "\n" not in str(bad.value)


def _merge(base: str, extra: str) -> str:
    """`base` with the keys of `extra` added, replacing tables or keys of the same name."""
    lines = base.strip().splitlines()
    table = ""
    for line in extra.splitlines():
        if line.startswith("["):
            table = line
            if table not in lines:
                lines.append(table)
            continue
        key = line.split("=")[0].strip()
        start = lines.index(table) + 1 if table else 0
        end = next((i for i in range(start, len(lines)) if lines[i].startswith("[")), len(lines))
        for i in range(start, end):
            if lines[i].split("=")[0].strip() == key:
                lines[i] = line
                break
        else:
            lines.insert(end, line)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'name = "x"\ndescription = "d"',
            'goal: missing; write goal = "enemy_monuments" or goal = "neutral_monuments"',
        ),
        ('name = "x"\ndescription = "d"\ngoal = "win"', "goal: 'win' is not a goal"),
        ('description = "d"\ngoal = "enemy_monuments"', 'name: missing; write name = "my-scenario"'),
        ('name = "My Game"\ndescription = "d"\ngoal = "enemy_monuments"', "name: 'My Game': use 1 to 40 lower-case"),
        ('name = "x"\ngoal = "enemy_monuments"', "description: missing"),
        ('name = "x"\ndescription = "d"\ngoal = "enemy_monuments"', 'monuments.black: goal "enemy_monuments" needs'),
        (
            'name = "x"\ndescription = "d"\ngoal = "neutral_monuments"',
            'monuments.neutral: goal "neutral_monuments" needs',
        ),
        ("name = ", "not valid TOML: "),
    ],
)
def test_missing_or_wrong_top_level_keys_are_named(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as bad:
        parse_scenario(text, "f.toml")
    assert str(bad.value).startswith(f"f.toml: {message}")
    assert "\n" not in str(bad.value)


def test_a_side_with_nothing_to_play_is_refused() -> None:
    text = MINIMAL.replace('white = ["g7"]\n', "")
    with pytest.raises(ScenarioError, match=r"reserve\.white: white has no stone, no movable monument and no reserve"):
        parse_scenario(text, "f.toml")


def test_the_commented_example_in_the_docs_is_the_shipped_gardens_file() -> None:
    text = DOCS.read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, flags=re.DOTALL)
    example = next(block for block in blocks if 'name = "gardens"' in block)
    assert example == (SCENARIOS / "gardens.toml").read_text()
    assert parse_scenario(example, "docs") == load_scenario("gardens")


def test_the_text_board_shows_pieces_and_reserved_fields() -> None:
    game = board13("gardens")
    text = render_text(game.new_match(b"").public_observation())
    lines = text.splitlines()
    assert lines[0] == "board13 gardens: ply 0/200, black to move"
    assert lines[1].split() == list("abcdefg")
    assert lines[2].split() == ["7", ".", ".", "-", ".", "-", ".", ".", "7"]
    assert lines[3].split() == ["6", ".", "w", "w", "W", "w", "w", ".", "6"]
    assert lines[6].split() == ["3", "+", ".", ".", ".", ".", ".", "+", "3"]
    assert lines[8].split() == ["1", ".", ".", "+", ".", "+", ".", ".", "1"]


def test_the_viewer_layout_gives_every_field_its_kind_colour_shape_and_piece() -> None:
    layout = board_layout(load_scenario("gardens"))
    fields = {entry["field"]: entry for entry in layout["fields"]}
    assert len(fields) == 49
    assert sum(entry["highlighted"] for entry in fields.values()) == 13
    assert fields["c1"]["kind"] == "black" and fields["c1"]["shape"] == "square"
    assert fields["d4"]["colour"] == "red"
    assert fields["a1"] == {
        "field": "a1",
        "kind": "neutral",
        "colour": "board",
        "shape": "round",
        "highlighted": False,
        "piece": None,
    }
    assert fields["d6"]["piece"] == {"name": "white_monument", "side": "white", "monument": True, "movable": False}


@pytest.mark.slow
@pytest.mark.parametrize("name", scenario_names())
def test_random_play_keeps_the_first_player_between_40_and_60_percent(name: str) -> None:
    game = board13(name)
    rng = random.Random(f"balance-{name}")
    points = 0
    for _ in range(1000):
        state = game.new_match(b"")
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
        points += state.outcome().scores[0]
    assert 0.40 <= points / 2000 <= 0.60
