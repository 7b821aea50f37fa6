"""`arena test A B --server`: SPRT A/B tests between an arena's bots, on its real server."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from arena.cli.remote_abtest import ServerProblem, play_deals_on_server
from arena.client import ArenaClient, Connection
from arena.games import make_game
from arena.match.abtest import ABTest, Hypotheses
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import ADMIN, Arena, HeuristicBot, RandomBot

pytestmark = pytest.mark.asyncio


@pytest.mark.slow  # plays deals until the SPRT decides: about a minute (the slow tier)
async def test_registered_bots_are_tested_on_seat_fair_deals_until_the_sprt_decides(arena: Arena) -> None:
    tokens = await arena.bots("sharp", "dull")
    await arena.connect(HeuristicBot, tokens["sharp"], max_matches=2)
    await arena.connect(RandomBot, tokens["dull"], max_matches=2)
    game = make_game("amigo13", players=3)
    test = ABTest(game, "sharp", "dull", Hypotheses(margin=2.0), field_bot="builtin:random", seatings=3, seed="ab")
    # Three matches of a deal at once against two free slots each: the refused one is asked for again.
    async with ArenaClient(Connection(arena.address, ADMIN)) as client:
        await play_deals_on_server(test, 60, client, parallel=3)
    assert test.sprt.verdict == "H1"
    assert test.sprt.interval.low > 2
    listed = await arena.api.ListMatches(api_pb.ListMatchesRequest(bot="sharp", limit=500))
    seats = [tuple(match.seats) for match in listed.matches]
    assert len(seats) == test.sprt.n * 3
    # Every deal put each entry in each seat once: sharp held seats 0, 1 and 2 equally often.
    assert {seat: sum(1 for s in seats if s.index("sharp") == seat) for seat in range(3)} == dict.fromkeys(
        range(3), test.sprt.n
    )


async def test_a_bot_not_connected_ends_the_test_with_a_one_line_reason(arena: Arena) -> None:
    await arena.bots("absent")
    game = make_game("amigo13", players=3)
    test = ABTest(game, "absent", "builtin:random", Hypotheses(margin=1.0), field_bot="builtin:random", seatings=3)
    loop_started = asyncio.get_running_loop().time()
    with pytest.raises(ServerProblem, match="absent") as refused:
        async with ArenaClient(Connection(arena.address, ADMIN)) as client:
            await play_deals_on_server(test, 5, client)
    assert "\n" not in str(refused.value)
    # A bot that is not connected gets a few seconds to reconnect, not the minute a busy one gets.
    assert asyncio.get_running_loop().time() - loop_started < 30


async def test_the_command_line_tests_built_in_bots_on_a_server_and_refuses_without_a_token(arena: Arena) -> None:
    command = [
        sys.executable,
        "-m",
        "arena.cli",
        "test",
        "builtin:heuristic",
        "builtin:random",
        "--game",
        "amigo13",
        "--players",
        "3",
        "--seatings",
        "3",
        "--margin",
        "2",
        "--server",
        arena.address,
    ]
    done = await asyncio.to_thread(
        subprocess.run, [*command, "--token", ADMIN], capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "H1 accepted: A (builtin:heuristic) is better than B (builtin:random)" in done.stdout
    refused = await asyncio.to_thread(
        subprocess.run,
        command,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert refused.returncode == 2
    assert "--server needs the admin token" in refused.stderr
