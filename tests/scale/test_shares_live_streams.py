"""Many live-page streams of one match cost the node one reader, not one each.

1,000 Server-Sent Events streams (no token needed) of one running match once slowed a match
beside them from 0.2 s to 11 s: each stream read the match four times a second.
"""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest

from arena.match import Clock
from arena.v1 import messages_pb2 as pb
from arena.web.guard import WebLimits
from tests.server.conftest import Arena, RandomBot, RawBot, start_arena

pytestmark = pytest.mark.asyncio

STREAMS = 400
MANY = WebLimits(connections_per_address=STREAMS + 50, streams_per_address=STREAMS, streams=STREAMS)


async def honest_match_seconds(arena: Arena, seats: list[str]) -> float:
    started = time.perf_counter()
    match_id = await arena.create_match("friday13", seats)
    summary, _ = await arena.finished(match_id, timeout=300)
    assert summary.termination == pb.TERMINATION_NORMAL
    return time.perf_counter() - started


async def open_stream(port: int, path: str) -> tuple[asyncio.StreamWriter, asyncio.Task[None]]:
    """A live page's stream, read (and dropped) as it comes, as a browser would."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nhost: arena\r\n\r\n".encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    assert head.startswith(b"HTTP/1.1 200"), head

    async def drain() -> None:
        while await reader.read(65536):
            pass

    return writer, asyncio.create_task(drain())


async def test_an_honest_match_is_not_slowed_by_hundreds_of_streams_of_another(redis_url: str) -> None:
    async with start_arena(redis_url, http_port=0, web=MANY) as arena:
        assert arena.server.web is not None
        tokens = await arena.bots("h1", "h2", "h3", "slow")
        for name in ("h1", "h2", "h3"):
            await arena.connect(RandomBot, tokens[name])
        slow = RawBot(arena, tokens["slow"])
        await slow.connect()
        watched = await arena.create_match("board13", ["slow", "builtin:random"], seed="01", clock=Clock(120, 0))
        honest = ["h1", "h2", "h3"]
        alone = statistics.median([await honest_match_seconds(arena, honest) for _ in range(3)])
        streams = [await open_stream(arena.server.web.port, f"/api/matches/{watched}/stream") for _ in range(STREAMS)]
        beside = statistics.median([await honest_match_seconds(arena, honest) for _ in range(3)])
        # Generous: the streams are open and read in this same process and event loop.
        assert beside < 3 * alone + 0.5, f"alone {alone:.3f} s, beside {STREAMS} streams {beside:.3f} s"
        assert len(arena.server.web.streams.feeds) == 1
        for writer, drain in streams:
            writer.close()
            drain.cancel()
        await asyncio.gather(*(drain for _, drain in streams), return_exceptions=True)
        await slow.close()
