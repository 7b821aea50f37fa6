"""The gRPC health status follows the store: NOT_SERVING while Redis is unreachable, SERVING once it is back.

A node without its Redis can finish the moves of matches it hosts but can start, store or rate
nothing, so a load balancer or an orchestrator's readiness probe should send new bots elsewhere
meanwhile. The check is a PING every `interval` seconds with a short timeout of its own.
"""

from __future__ import annotations

import asyncio
import logging

from grpc_health.v1 import health_pb2
from grpc_health.v1.health import aio as health_aio
from redis.asyncio import Redis

from arena.node.tasks import stop_if_cancelled
from arena.store.outage import UNREACHABLE

log = logging.getLogger(__name__)

INTERVAL = 1.0
"""Seconds between two PINGs."""
TIMEOUT = 2.0
"""How long one PING may take before the store counts as unreachable."""
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class StoreHealth:
    """Keeps the health status of `services` ("" is the whole server) in step with the store."""

    def __init__(
        self, health: health_aio.HealthServicer, redis: Redis, services: tuple[str, ...], interval: float = INTERVAL
    ) -> None:
        self.health = health
        self.redis = redis
        self.services = services
        self.interval = interval
        self.serving = True

    async def set(self, serving: bool) -> None:
        self.serving = serving
        for name in self.services:
            await self.health.set(name, SERVING if serving else NOT_SERVING)

    async def run(self) -> None:
        """Follow the store (the caller set the first status)."""
        while True:
            stop_if_cancelled()
            await asyncio.sleep(self.interval)
            try:
                await asyncio.wait_for(self.redis.ping(), TIMEOUT)
                reachable = True
            except (*UNREACHABLE, TimeoutError) as error:
                reachable = False
                if self.serving:
                    log.warning("Redis is unreachable (%s): health NOT_SERVING until it is back", error)
            if reachable != self.serving:
                if reachable:
                    log.info("Redis is back: health SERVING")
                await self.set(reachable)
