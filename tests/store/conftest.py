"""The store tests' fixtures: a client of the session's Redis (emptied for each test), and the
server fixtures of tests/server for tests that run the store through a real server."""

from collections.abc import AsyncIterator

import pytest_asyncio
from redis.asyncio import Redis

from tests.server.conftest import arena

__all__ = ["arena", "redis"]


@pytest_asyncio.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()
