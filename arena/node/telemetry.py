"""The node's side of the metrics (arena.metrics): gauges sampled every few seconds, and what a match
tells as it ends.

Gauges that describe this node (sessions, running matches) come from its own registries; gauges
that describe the whole arena (ladder queues, the work stream) are read from Redis, so that every
node reports the same values and a dashboard may take any of them. A failed read leaves the old
values and counts a Redis error: metrics never stop a node.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence

import redis.exceptions
from redis.asyncio import Redis

from arena import metrics
from arena.node.matches import MatchHost
from arena.node.sessions import SessionRegistry
from arena.node.tasks import stop_if_cancelled
from arena.ratings.results import ResultRecord
from arena.store import keys
from arena.store.outage import UNREACHABLE
from arena.store.work import MatchOrder

log = logging.getLogger(__name__)

INTERVAL = 2.0
"""Seconds between samples: below Prometheus's usual 15 s scrape, a few cheap Redis reads each."""


class Sampler:
    """Sets the gauges from this node's registries and from Redis, every `interval` seconds."""

    def __init__(
        self, redis: Redis, sessions: SessionRegistry, host: MatchHost, games: Sequence[str], interval: float = INTERVAL
    ) -> None:
        self.redis = redis
        self.sessions = sessions
        self.host = host
        self.games = tuple(games)
        self.interval = interval

    def sample_node(self) -> None:
        metrics.SESSIONS.set(sum(1 for session in self.sessions.by_id.values() if session.attached))
        running = Counter(live.record.game for live in self.host.live.values())
        for game in self.games:
            metrics.MATCHES_RUNNING.labels(game).set(running.get(game, 0))

    async def sample_redis(self) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for game in self.games:
            pipe.hlen(keys.ladder_queue(game))
        pipe.xlen(keys.WORK)
        pipe.xpending(keys.WORK, keys.WORK_GROUP)
        # The oldest order taken and not acknowledged, with how long ago it was delivered.
        pipe.xpending_range(keys.WORK, keys.WORK_GROUP, min="-", max="+", count=1)
        try:
            *queues, stream_length, summary, oldest = await pipe.execute()
            pending = summary["pending"]
        except redis.exceptions.ResponseError as error:
            if "NOGROUP" not in str(error):
                raise
            queues, stream_length, oldest, pending = [0] * len(self.games), 0, [], 0
        for game, waiting in zip(self.games, queues, strict=True):
            metrics.LADDER_WAITING.labels(game).set(waiting)
        metrics.WORK_PENDING.set(pending)
        metrics.WORK_WAITING.set(max(0, int(stream_length) - int(pending)))
        metrics.WORK_OLDEST_SECONDS.set(int(oldest[0]["time_since_delivered"]) / 1000 if oldest else 0)

    async def run(self) -> None:
        while True:
            stop_if_cancelled()
            self.sample_node()
            try:
                await self.sample_redis()
            except (*UNREACHABLE, redis.exceptions.RedisError) as error:
                log.debug("metrics: Redis read failed: %s", error)
            await asyncio.sleep(self.interval)


def count_ended(game: str, result: ResultRecord) -> None:
    metrics.MATCHES_FINISHED.labels(game, str(result.termination)).inc()
    if result.forfeited:
        metrics.FORFEITS.labels(game).inc(len(result.forfeited))


async def match_ended(order: MatchOrder, result: ResultRecord) -> None:
    """A result hook of the work host, which every match ends through. A node that dies
    between storing a result and acknowledging its order leaves the hooks to run again elsewhere:
    such a match may be counted twice."""
    count_ended(order.game, result)
