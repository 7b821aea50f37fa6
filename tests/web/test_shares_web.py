"""The web UI's fair shares: connections and live streams per client address, silent connections closed,
and one reader per live page whatever the number of its streams.

The web UI listens on :: (IPv6 and IPv4), so that clients reach it from two loopback addresses
(127.0.0.1 and ::1) and the limits of one can be seen to leave the other alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from prometheus_client import REGISTRY

from arena.match import Clock
from arena.web.guard import WebLimits
from tests.server.conftest import Arena, RawBot, start_arena


def in_a_thread(check: Coroutine[Any, Any, None]) -> None:
    """Run `check` in an event loop of its own: the browser tests beside these hold this thread's loop."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, check).result()


LIMITS = WebLimits(connections_per_address=4, streams_per_address=2, streams=3, head_timeout=0.5, keep_alive=1.0)


def refusals(limit: str) -> float:
    return REGISTRY.get_sample_value("arena_limit_refusals_total", {"limit": limit}) or 0.0


@contextlib.asynccontextmanager
async def web_arena(redis_url: str, limits: WebLimits = LIMITS) -> AsyncIterator[Arena]:
    async with start_arena(redis_url, http_host="::", http_port=0, web=limits) as arena:
        yield arena


def port_of(arena: Arena) -> int:
    assert arena.server.web is not None
    return arena.server.web.port


async def open_from(arena: Arena, host: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection(host, port_of(arena))


async def response_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)).decode()
    status_line, *lines = head.strip().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines)
    return int(status_line.split()[1]), headers


async def get(arena: Arena, host: str, path: str) -> tuple[int, Any, asyncio.StreamReader, asyncio.StreamWriter]:
    """GET `path` from `host` on a new connection: the status, the JSON body (None for a stream), the connection."""
    reader, writer = await open_from(arena, host)
    writer.write(f"GET {path} HTTP/1.1\r\nhost: arena\r\n\r\n".encode())
    status, headers = await response_head(reader)
    body = None
    if "content-length" in headers:
        body = json.loads(await reader.readexactly(int(headers["content-length"])))
    return status, body, reader, writer


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """Whether the server closes the connection within `seconds` (reading whatever it sends first)."""
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(4096):
                pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


async def running_match(arena: Arena) -> tuple[str, RawBot]:
    """A match that stays running: its bot never answers within a minute's clock."""
    tokens = await arena.bots("slow")
    slow = RawBot(arena, tokens["slow"])
    await slow.connect()
    match_id = await arena.create_match("board13", ["slow", "builtin:random"], seed="01", clock=Clock(60, 0))
    return match_id, slow


def test_a_connection_that_never_sends_a_request_head_is_closed(redis_url: str) -> None:
    in_a_thread(_a_connection_that_never_sends_a_request_head_is_closed(redis_url))


async def _a_connection_that_never_sends_a_request_head_is_closed(redis_url: str) -> None:
    """21,000 such connections once took a node to its file descriptor limit."""
    async with web_arena(redis_url) as arena:
        before = refusals("web_idle")
        silent = [await open_from(arena, "127.0.0.1") for _ in range(2)]
        cut_short = await open_from(arena, "127.0.0.1")
        cut_short[1].write(b"GET /api/games HTTP/1.1\r\nhost: ar")
        # Closed within the head timeout (0.5 s) and its timer's slack, not kept for ever.
        for reader, _ in (*silent, cut_short):
            assert await closed_within(reader, LIMITS.head_timeout + 5)
        assert refusals("web_idle") == before + 3
        # A connection that asks gets its answer, and is kept alive between requests.
        status, body, reader, writer = await get(arena, "127.0.0.1", "/api/games")
        assert status == 200 and body
        writer.write(b"GET /api/games HTTP/1.1\r\nhost: arena\r\n\r\n")
        assert (await response_head(reader))[0] == 200
        writer.close()
        for _, silent_writer in (*silent, cut_short):
            silent_writer.close()


def test_an_address_holds_its_share_of_connections_and_another_address_gets_in(redis_url: str) -> None:
    in_a_thread(_an_address_holds_its_share_of_connections_and_another_address_gets_in(redis_url))


async def _an_address_holds_its_share_of_connections_and_another_address_gets_in(redis_url: str) -> None:
    async with web_arena(redis_url, WebLimits(connections_per_address=4)) as arena:
        before = refusals("web_address")
        held = [await open_from(arena, "127.0.0.1") for _ in range(4)]
        reader, refused = await open_from(arena, "127.0.0.1")
        status, headers = await response_head(reader)
        detail = json.loads(await reader.readexactly(int(headers["content-length"])))["detail"]
        assert status == 429 and "maximum of 4 connections" in detail and "\n" not in detail
        assert await closed_within(reader, 5)
        assert refusals("web_address") == before + 1
        status, _, _, other = await get(arena, "::1", "/api/games")
        assert status == 200
        # A connection given back makes room again.
        held[0][1].close()
        await closed_within(held[0][0], 5)
        deadline = asyncio.get_running_loop().time() + 5
        while True:
            status, _, _, again = await get(arena, "127.0.0.1", "/api/games")
            again.close()
            if status == 200:
                break
            assert asyncio.get_running_loop().time() < deadline, "a closed connection gives its place back"
            await asyncio.sleep(0.05)
        for _, held_writer in held:
            held_writer.close()
        other.close()
        refused.close()


def test_live_streams_are_capped_per_address_and_in_total_and_share_one_reader(redis_url: str) -> None:
    in_a_thread(_live_streams_are_capped_per_address_and_in_total_and_share_one_reader(redis_url))


async def _live_streams_are_capped_per_address_and_in_total_and_share_one_reader(redis_url: str) -> None:
    """1,000 streams of one match once read it 4,000 times a second, and a match beside them slowed 50-fold."""
    async with web_arena(redis_url) as arena:
        match_id, slow = await running_match(arena)
        path = f"/api/matches/{match_id}/stream"
        before = refusals("streams_address"), refusals("streams_total")
        streams = []
        for host in ("127.0.0.1", "127.0.0.1", "::1"):
            status, _, reader, writer = await get(arena, host, path)
            assert status == 200
            assert b"event: update" in await asyncio.wait_for(reader.readuntil(b"\n\n"), 5)  # in its HTTP chunk
            streams.append((reader, writer))
        assert arena.server.web is not None
        feeds = arena.server.web.streams.feeds
        assert len(feeds) == 1, "every stream of a page is fed by one reader"
        status, body, _, refused = await get(arena, "127.0.0.1", path)
        assert status == 429 and "maximum of 2 live streams" in body["detail"]
        status, body, _, refused_total = await get(arena, "::1", path)
        assert status == 503 and "maximum of 3 live streams" in body["detail"]
        assert (refusals("streams_address"), refusals("streams_total")) == (before[0] + 1, before[1] + 1)
        for _, writer in streams:
            writer.close()
        deadline = asyncio.get_running_loop().time() + 5
        while len(feeds) or arena.server.web.streams.counts.held():
            assert asyncio.get_running_loop().time() < deadline, "the last stream to leave stops its reader"
            await asyncio.sleep(0.02)
        refused.close()
        refused_total.close()
        await slow.close()
