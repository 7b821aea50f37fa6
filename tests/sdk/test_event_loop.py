"""The SDK's event loop and stream: uvloop's loop where it is installed, answers sent by their own task in
order while the next requests are read; real bots play on them without a strike."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sdk import Bot, Turn
from arena.sdk.client import run_loop
from arena.v1 import bot_service_pb2 as bot_pb
from tests.server.conftest import Arena

ROOT = Path(__file__).resolve().parents[2]


def test_run_loop_runs_the_bot_on_uvloop_when_it_is_installed() -> None:
    uvloop = pytest.importorskip("uvloop")
    seen: list[type[asyncio.AbstractEventLoop]] = []

    async def main() -> None:
        seen.append(type(asyncio.get_running_loop()))

    run_loop(main())
    assert seen == [uvloop.Loop]


def test_run_loop_passes_the_bots_errors_on() -> None:
    async def main() -> None:
        raise ValueError("the bot's own error")

    with pytest.raises(ValueError, match="the bot's own error"):
        run_loop(main())


@pytest.mark.asyncio
async def test_a_sample_bot_program_plays_matches_to_their_end_on_its_event_loop(arena: Arena) -> None:
    tokens = await arena.bots("sample")
    script = ROOT / "sample_bots" / "python" / "random_bot.py"
    bot = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        "--server",
        arena.address,
        "--token",
        tokens["sample"],
        "--matches",
        "2",
        "--max-matches",
        "2",
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(200):
            if "sample" in arena.server.sessions.connected():
                break
            await asyncio.sleep(0.05)
        seats = ["sample", "builtin:random", "builtin:random", "builtin:random"]
        matches = [await arena.create_match("friday13", seats) for _ in range(2)]
        for match_id in matches:
            summary, record = await arena.finished(match_id)
            assert summary.termination == 1 and record["forfeited"] == []
        # The bot stops by itself after its two matches, with no error and no strike reported to it.
        _, errors = await asyncio.wait_for(bot.communicate(), 30)
        assert bot.returncode == 0, errors.decode()
        assert b"arena error" not in errors, errors.decode()
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()


REPORTED: list[bot_pb.Error] = []


class Recorder(Bot):
    """Plays the first legal action and keeps every error the arena reports."""

    def act(self, turn: Turn) -> int:
        return turn.legal_actions[0]

    def on_error(self, error: bot_pb.Error) -> None:
        REPORTED.append(error)


@pytest.mark.asyncio
async def test_one_sdk_session_in_four_matches_at_once_answers_every_request_in_time(arena: Arena) -> None:
    REPORTED.clear()
    tokens = await arena.bots("busy")
    client = await arena.connect(Recorder, tokens["busy"], max_matches=4, matches=4)
    seats = ["busy", "builtin:random", "builtin:random"]
    matches = [await arena.create_match("friday13", seats) for _ in range(4)]
    for match_id in matches:
        summary, record = await arena.finished(match_id)
        assert summary.termination == 1 and record["forfeited"] == []
    assert REPORTED == []
    assert sorted(ended.match_id for ended in client.ended) == sorted(matches)
