"""The node's Redis client counts its round trips and its failures for the metrics."""

from __future__ import annotations

import pytest
import redis.exceptions
from prometheus_client import REGISTRY

from arena.store.embedded import client
from tests.conftest import free_port

pytestmark = pytest.mark.asyncio


def count(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, labels)
    return 0.0 if value is None else value


async def test_round_trips_and_error_replies_are_counted(redis_url: str) -> None:
    metered = client(redis_url, connections=8)
    try:
        trips, replies = count("arena_redis_seconds_count"), count("arena_redis_errors_total", kind="reply")
        await metered.set("metered", 1)
        pipe = metered.pipeline(transaction=False)
        pipe.get("metered")
        pipe.incr("metered")
        assert await pipe.execute() == [b"1", 2]
        with pytest.raises(redis.exceptions.ResponseError):
            await metered.execute_command("NO-SUCH-COMMAND")  # type: ignore[no-untyped-call]
        # Three round trips: the SET, the pipeline (one, however many commands) and the refused one.
        assert count("arena_redis_seconds_count") - trips == 3
        assert count("arena_redis_errors_total", kind="reply") - replies == 1
    finally:
        await metered.aclose()


async def test_an_unreachable_redis_is_counted_as_such() -> None:
    nowhere = client(f"redis://127.0.0.1:{free_port()}/0", connections=8)
    try:
        before = count("arena_redis_errors_total", kind="unreachable")
        with pytest.raises(redis.exceptions.ConnectionError):
            await nowhere.ping()
        assert count("arena_redis_errors_total", kind="unreachable") - before >= 1
    finally:
        await nowhere.aclose()
