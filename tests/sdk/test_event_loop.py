"""The event loop a bot program runs on: uvloop's where it is installed, and a real bot plays on it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sdk.client import run_loop
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
        # The bot stops by itself after its two matches, with no error.
        _, errors = await asyncio.wait_for(bot.communicate(), 30)
        assert bot.returncode == 0, errors.decode()
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
