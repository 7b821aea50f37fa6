"""The SDK says what it does: one line when connected, one per attempt to reconnect with its reason, and a
clear line when it gives up; a bot pointed at a dead port says so at once."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.node.sessions import Session
from arena.sdk import BotGaveUp, Client
from tests.server.conftest import Arena, RandomBot
from tests.waiting import until

pytestmark = pytest.mark.asyncio
REPO = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def dead_port() -> Iterator[str]:
    """An address nobody listens on (the port stays bound, so no one else takes it meanwhile)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{probe.getsockname()[1]}"


async def test_a_bot_pointed_at_a_dead_port_says_so_at_once_retries_visibly_and_gives_up() -> None:
    lines: list[tuple[float, str]] = []
    with dead_port() as address:
        client = Client(
            RandomBot,
            address,
            "atb_x",
            backoff=0.05,
            max_attempts=4,
            say=lambda line: lines.append((time.monotonic(), line)),
        )
        started = time.monotonic()
        with pytest.raises(BotGaveUp) as gave_up:
            await asyncio.wait_for(client.run(), 30)
    assert lines and lines[0][0] - started < 2.0, "the first failure is told within 2 s"
    texts = [line for _, line in lines]
    assert len(texts) == 3, texts
    for attempt, text in enumerate(texts, start=2):
        assert text.startswith(f"cannot connect to {address}: connection refused (UNAVAILABLE); retrying at {address}")
        assert text.endswith(f"(attempt {attempt} of 4)")
    assert str(gave_up.value).startswith("giving up after 4 attempts in ")
    assert f"cannot connect to {address}: connection refused" in str(gave_up.value)


async def test_a_bot_gives_up_after_its_time_limit_too() -> None:
    with dead_port() as address:
        client = Client(
            RandomBot, address, "atb_x", backoff=0.05, max_attempts=0, give_up_after=0.5, say=lambda _: None
        )
        started = time.monotonic()
        with pytest.raises(BotGaveUp, match="without a Welcome"):
            await asyncio.wait_for(client.run(), 30)
    assert time.monotonic() - started >= 0.5


async def test_a_host_that_never_answers_is_an_attempt_that_ends_after_the_connect_timeout() -> None:
    with socket.socket() as silent:  # accepts TCP connections (the kernel does) and never speaks HTTP/2
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        lines: list[str] = []
        client = Client(RandomBot, address, "atb_x", connect_timeout=0.5, max_attempts=2, say=lines.append)
        with pytest.raises(BotGaveUp, match=r"no Welcome within 0\.5 s"):
            await asyncio.wait_for(client.run(), 30)
    assert lines == [
        f"cannot connect to {address}: no Welcome within 0.5 s; retrying at {address} in 0.1 s (attempt 2 of 2)"
    ]


async def test_a_connected_bot_says_where_as_whom_and_its_session_and_each_reconnect(arena: Arena) -> None:
    tokens = await arena.bots("chatty")
    lines: list[str] = []
    client = await arena.connect(RandomBot, tokens["chatty"], say=lines.append)
    assert lines == [f"connected to {arena.address} as chatty, session {client.session_id}"]
    session: Session = arena.server.sessions.by_id[client.session_id]
    session.hang_up(session.stream, "dropped by the test")

    async def resumed() -> bool:
        return len(lines) >= 3

    await until(resumed, "the bot's lines after its stream was dropped", timeout=30)
    assert lines[1].startswith(f"lost the stream to {arena.address}: ") and "(RESOURCE_EXHAUSTED)" in lines[1]
    assert lines[1].endswith(f"retrying at {arena.address} in 0.1 s (attempt 2 of 20)")
    assert lines[2] == f"connected to {arena.address} as chatty, session {client.session_id}, resumed"


async def test_the_bot_program_prints_its_lines_on_stderr_and_exits_1_when_it_gives_up() -> None:
    with dead_port() as address:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(REPO / "sample_bots" / "python" / "random_bot.py"),
            "--server",
            address,
            "--token",
            "atb_x",
            "--max-attempts",
            "2",
            stderr=asyncio.subprocess.PIPE,
        )
        # Its two attempts take a fraction of a second; starting Python on a busy machine takes longer.
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    lines = stderr.decode().splitlines()
    assert process.returncode == 1, lines
    assert lines[0].startswith(f"arena-sdk: cannot connect to {address}: connection refused"), lines
    assert lines[-1].startswith("arena-sdk: giving up after 2 attempts in ") and len(lines) == 2, lines
