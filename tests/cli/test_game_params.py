"""Game parameters on the command line come from the games' kits: `arena games` lists them and
--param NAME=VALUE sets one, locally and on a server, with one-line errors for bad ones."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from arena.games import game_names, kit_of
from tests.cli.test_people_cli import cli
from tests.server.conftest import ADMIN, Arena

ARENA = [sys.executable, "-m", "arena.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=120, check=False)


def test_arena_games_lists_every_game_with_the_parameters_its_kit_declares() -> None:
    listed = json.loads(run("games", "--json").stdout)
    assert [row["game"] for row in listed] == list(game_names())
    for row in listed:
        declared = kit_of(row["game"]).parameters
        assert [parameter["name"] for parameter in row["parameters"]] == [parameter.name for parameter in declared]
        assert [tuple(parameter["choices"]) for parameter in row["parameters"]] == [p.choices for p in declared]
    shown = run("games").stdout
    assert "edition" in shown and "scenario" in shown


def test_param_sets_a_game_parameter_for_local_play() -> None:
    played = run(
        "play", "friday13", "--bots", "heuristic,random,random", "--games", "3", "--param", "edition=de", "--json"
    )
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["params"]["edition"] == "de"
    default = run("play", "friday13", "--bots", "heuristic,random,random", "--games", "3", "--json")
    assert json.loads(default.stdout)["params"]["edition"] == "en"


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("edition", "arena: error: --param 'edition': write NAME=VALUE, e.g. --param edition=de"),
        ("colour=red", "arena: error: friday13 has no parameter 'colour'"),
        ("edition=fr", "arena: error: "),
    ],
)
def test_a_bad_param_is_one_line_with_exit_code_2(param: str, message: str) -> None:
    played = run("play", "friday13", "--bots", "heuristic,random,random", "--games", "1", "--param", param)
    assert played.returncode == 2
    assert played.stderr.startswith(message) and played.stderr.count("\n") == 1, played.stderr


@pytest.mark.asyncio
async def test_param_reaches_a_match_created_on_a_server(arena: Arena) -> None:
    seats = "builtin:random,builtin:random,builtin:random"
    code, out, err = await cli(
        arena, "match", "create", "friday13", "--seats", seats, "--param", "edition=de", token=ADMIN
    )
    assert code == 0, err
    match_id = out.strip()
    for _ in range(200):
        code, out, err = await cli(arena, "match", "show", match_id, "--json")
        assert code == 0, err
        if json.loads(out)["ended_ms"]:
            break
        await asyncio.sleep(0.05)
    code, out, err = await cli(arena, "match", "export", match_id)
    assert code == 0, err
    assert json.loads(out)["params"]["edition"] == "de"
    code, _, err = await cli(
        arena, "match", "create", "friday13", "--seats", seats, "--param", "colour=red", token=ADMIN
    )
    assert code == 2 and "colour" in err and err.count("\n") == 1, err
