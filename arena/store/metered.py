"""A Redis client that times its round trips and counts its failures for the metrics (arena.metrics).

Only the node's command client is metered: its blocking reads (XREAD BLOCK, on a client of their
own) wait for data by design, and would make the latency histogram say nothing."""

from __future__ import annotations

import time
from typing import Any

import redis.exceptions
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from arena import metrics
from arena.store.outage import UNREACHABLE


def _failed(error: BaseException) -> None:
    kind = "unreachable" if isinstance(error, UNREACHABLE) else "reply"
    metrics.REDIS_ERRORS.labels(kind).inc()


class MeteredPipeline(Pipeline):
    async def execute(self, raise_on_error: bool = True) -> list[Any]:
        started = time.perf_counter()
        try:
            return await super().execute(raise_on_error)
        except (*UNREACHABLE, redis.exceptions.RedisError) as error:
            _failed(error)
            raise
        finally:
            metrics.REDIS_SECONDS.observe(time.perf_counter() - started)


class MeteredRedis(Redis):
    async def execute_command(self, *args: Any, **options: Any) -> Any:
        started = time.perf_counter()
        try:
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except (*UNREACHABLE, redis.exceptions.RedisError) as error:
            _failed(error)
            raise
        finally:
            metrics.REDIS_SECONDS.observe(time.perf_counter() - started)

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> MeteredPipeline:
        return MeteredPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)
