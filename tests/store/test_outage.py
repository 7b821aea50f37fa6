"""Waiting out an outage: what counts as time lost, and when a clock hears of it."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis.exceptions

from arena.store.outage import patiently

pytestmark = pytest.mark.asyncio


async def test_only_failed_attempts_and_pauses_count_as_lost_and_the_clock_hears_of_them_as_they_pass() -> None:
    attempts = 0
    told: list[tuple[float, float]] = []
    started = time.monotonic()

    async def flaky() -> str:
        nonlocal attempts
        attempts += 1
        if attempts <= 3:
            raise redis.exceptions.ConnectionError("Connection refused")
        await asyncio.sleep(0.3)  # a blocking read that waited for its data: not lost time
        return "ok"

    value, lost = await patiently(flaky, "a test", on_wait=lambda seconds: told.append((time.monotonic(), seconds)))
    assert value == "ok" and attempts == 4
    assert 0.05 < lost < 0.5, lost
    # Told before each pause, not only at the end: a clock can stand still during the outage.
    assert len(told) >= 3 and told[0][0] - started < 0.05  # (the last: what a pause overran by)
    assert sum(seconds for _, seconds in told) == pytest.approx(lost, abs=0.02)


async def test_a_call_that_gets_through_at_once_lost_nothing_however_long_it_took() -> None:
    async def slow() -> int:
        await asyncio.sleep(0.2)
        return 7

    told: list[float] = []
    value, lost = await patiently(slow, "a test", on_wait=told.append)
    assert value == 7 and lost < 0.01
    assert sum(told) < 0.01


async def test_past_the_limit_the_last_error_is_raised() -> None:
    async def down() -> None:
        raise redis.exceptions.ConnectionError("Connection refused")

    with pytest.raises(redis.exceptions.ConnectionError):
        await patiently(down, "a test", limit=0.2)
