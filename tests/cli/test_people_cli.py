"""The people's commands, run as processes against a real server on a real Redis."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import pytest

from tests.conftest import free_port
from tests.server.conftest import ADMIN, Arena, RandomBot

pytestmark = pytest.mark.asyncio


async def cli(arena: Arena | str, *args: str, token: str = "") -> tuple[int, str, str]:
    """Run `arena ARGS --server ...` with ARENA_TOKEN set to `token`; (exit code, stdout, stderr)."""
    server = arena if isinstance(arena, str) else arena.address
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    if token:
        env["ARENA_TOKEN"] = token
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arena.cli",
        *args,
        "--server",
        server,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def ok_json(arena: Arena, *args: str, token: str = "") -> Any:
    code, out, err = await cli(arena, *args, "--json", token=token)
    assert code == 0, err
    return json.loads(out)


async def test_owner_bot_leaderboard_match_queue_and_recompute_from_the_command_line(arena: Arena) -> None:
    created = await ok_json(arena, "owner", "create", "olga", token=ADMIN)
    owner_token = created["token"]
    assert created["name"] == "olga" and owner_token.startswith("ato_")
    registered = await ok_json(
        arena, "bot", "register", "bobby", "--game", "friday13", "--language", "python", token=owner_token
    )
    assert registered["bot"]["games"] == ["friday13"]
    await arena.connect(RandomBot, registered["token"], ladder=True, games=("friday13",))
    listed = await ok_json(arena, "bot", "list")
    assert [(bot["name"], bot["owner"], bot["connected"]) for bot in listed] == [("bobby", "olga", True)]

    match_id = await arena.create_match("friday13", ["bobby", "builtin:random", "builtin:heuristic"])
    await arena.finished(match_id)
    for _ in range(100):
        board = await ok_json(arena, "leaderboard", "friday13")
        if board:
            break
        await asyncio.sleep(0.05)
    assert sorted(row["bot"] for row in board) == ["bobby", "builtin:heuristic", "builtin:random"]
    assert [row["rank"] for row in board] == [1, 2, 3]

    code, out, _ = await cli(arena, "leaderboard", "friday13")
    assert code == 0 and "bobby" in out and "mu - 3 sigma" in out
    shown = await ok_json(arena, "bot", "show", "bobby")
    assert shown["ratings"]["friday13"]["games"] == 1
    summary = await ok_json(arena, "match", "show", match_id)
    assert summary["seats"] == ["bobby", "builtin:random", "builtin:heuristic"] and summary["ended_ms"]
    code, out, _ = await cli(arena, "match", "show", match_id)
    assert code == 0 and "builtin:heuristic" in out
    code, out, err = await cli(arena, "match", "export", match_id)
    assert code == 0, err
    record = json.loads(out)
    assert record["seed"] and record["game"] == "friday13"

    queue = await ok_json(arena, "queue", "friday13")
    assert queue[0]["game"] == "friday13" and {entry["bot"] for entry in queue[0]["entries"]} == {"bobby"}
    code, out, _ = await cli(arena, "queue")
    assert code == 0 and "bobby" in out

    recomputed = await ok_json(arena, "ratings", "recompute", "friday13", "--param", "beta=5", token=ADMIN)
    assert recomputed["results"] == 1 and recomputed["bots"] == 3 and recomputed["parameters"]["beta"] == 5
    history = await ok_json(arena, "ratings", "history", "bobby", "friday13")
    assert [point["match_id"] for point in history] == [match_id]

    rotated = await ok_json(arena, "bot", "rotate-token", "bobby", token=owner_token)
    assert rotated["token"].startswith("atb_") and rotated["token"] != registered["token"]


@pytest.mark.parametrize(
    ("args", "token", "message"),
    [
        (("leaderboard", "chess"), "", "unknown game 'chess'"),
        (("ratings", "recompute", "friday13"), "", "this needs the admin token: pass --token or set ARENA_TOKEN"),
        (("ratings", "recompute", "friday13", "--param", "beta"), ADMIN, "--param 'beta': write NAME=NUMBER"),
        (("ratings", "recompute", "friday13", "--param", "gamma=1"), ADMIN, "unknown rating parameter 'gamma'"),
        (("owner", "create", "bad name!"), ADMIN, "owner name 'bad name!' must be"),
        (("match", "show", "m999999"), "", "no match 'm999999'"),
        (("bot", "show", "nobody"), "", "no bot named 'nobody'"),
        (("queue", "chess"), "", "unknown game 'chess'"),
    ],
)
async def test_bad_input_gives_one_line_and_exit_code_2(
    arena: Arena, args: tuple[str, ...], token: str, message: str
) -> None:
    code, out, err = await cli(arena, *args, token=token)
    assert code == 2 and out == ""
    assert err.startswith("arena: error: ") and message in err and err.count("\n") == 1


async def test_a_server_that_cannot_be_reached_is_named() -> None:
    where = f"127.0.0.1:{free_port()}"
    code, _, err = await cli(where, "leaderboard", "friday13")
    assert code == 2
    assert err == f"arena: error: cannot reach the arena at {where} (is `arena serve` running?)\n"


async def test_serve_refuses_a_ladder_size_outside_the_game_limits() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arena.cli",
        "serve",
        "--port",
        "0",
        "--ladder-size",
        "friday13=9",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    assert err.decode() == "arena: error: --ladder-size 'friday13=9': friday13 ladder tables have 3 to 6 seats\n"
