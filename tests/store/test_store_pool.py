"""The node's Redis clients under more concurrent commands than connections: they wait, they do not fail."""

from __future__ import annotations

import asyncio

import pytest

from arena.store.embedded import CONNECTIONS, POOL_WAIT, READ_CHUNK, SOCKET_TIMEOUT, blocking_client, client

pytestmark = pytest.mark.asyncio


async def test_more_commands_than_connections_wait_for_one_instead_of_failing(redis_url: str) -> None:
    assert client(redis_url).connection_pool.max_connections == CONNECTIONS
    # A small pool, the same client otherwise: opening the default pool's 128 connections at once can
    # take longer than the connect timeout on a starved machine, which is not what this test is about.
    redis = client(redis_url, connections=4)
    try:
        # Each holds its connection for 0.2 s: 3x the pool at once must queue, and all succeed.
        replies = await asyncio.gather(*(redis.blpop([f"nothing-{n}"], timeout=0.2) for n in range(3 * 4)))
        assert replies == [None] * (3 * 4)
        assert redis.connection_pool.max_connections == 4
    finally:
        await redis.aclose()


async def test_blocking_reads_have_connections_of_their_own_and_never_outlast_the_socket_timeout(
    redis_url: str,
) -> None:
    redis = client(redis_url)
    reads = blocking_client(redis)
    try:
        assert reads.connection_pool is not redis.connection_pool
        assert READ_CHUNK < SOCKET_TIMEOUT and POOL_WAIT < SOCKET_TIMEOUT
        # A read blocking the longest allowed time comes back empty, not cut off by the socket timeout.
        reply = await reads.xread({"empty-stream": "0-0"}, block=int(READ_CHUNK * 1000))
        assert reply == [] or reply is None or reply == {}
        await redis.ping()
    finally:
        await reads.aclose()
        await redis.aclose()
