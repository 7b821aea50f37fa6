"""Waiting out a Redis outage: retry an idempotent store operation with backoff and jitter.

A node keeps its matches going while Redis is away (moves between seats of one node need no
Redis), and what must reach Redis (event batches, a match's result, a relayed move) waits here
until Redis is back, up to `OUTAGE_LIMIT` seconds. Only operations that may run twice are
retried: a lost reply does not tell whether Redis applied the command.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis.exceptions

log = logging.getLogger(__name__)

OUTAGE_LIMIT = 60.0
"""Seconds a node waits for Redis to come back before it gives an operation up."""
UNREACHABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)
"""What an unreachable Redis raises (a full connection pool's wait ends in a ConnectionError too)."""
T = TypeVar("T")


async def patiently(
    operation: Callable[[], Awaitable[T]],
    what: str,
    limit: float = OUTAGE_LIMIT,
    first_delay: float = 0.05,
    on_wait: Callable[[float], None] | None = None,
) -> tuple[T, float]:
    """Run `operation` until it gets through; returns its value and the seconds lost to Redis being away.

    The time lost is what failed attempts and the pauses between them took, not the successful
    attempt's own time (a blocking read that waited 5 s for data lost nothing). `on_wait` is told
    of the time lost as it is lost, before each pause, so that a clock can stand still during an
    outage rather than run out in it. Backoff doubles from `first_delay` to 2 s, each pause
    jittered by up to half of it so that the nodes and matches that lost Redis together do not
    come back in step. After `limit` seconds of failures the last error is raised.
    """
    started = time.monotonic()
    told = started
    delay = first_delay
    warned = False
    while True:
        attempt = time.monotonic()
        try:
            value = await operation()
        except UNREACHABLE as error:
            now = time.monotonic()
            if now - started >= limit:
                raise
            if not warned:
                log.warning("Redis is unreachable (%s): %s waits for it, up to %.0f s", error, what, limit)
                warned = True
            pause = min(delay, limit - (now - started)) * (0.5 + random.random() / 2)
            if on_wait is not None:
                on_wait(now + pause - told)  # this attempt, and the pause to come
                told = now + pause
            await asyncio.sleep(pause)
            delay = min(2.0, delay * 2)
            continue
        if on_wait is not None and attempt > told:
            on_wait(attempt - told)
        return value, attempt - started
