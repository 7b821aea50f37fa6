"""Tournaments in Redis: the spec (JSON), how far the schedule is planned, and the results.

Creating a tournament and queueing its first matches is one transaction, and so is planning a
later Swiss round: the round number is compared and set under WATCH, so when two nodes finish
the last matches of a round at once, only one of them queues the next.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from arena.ratings import ResultRecord
from arena.store import keys
from arena.store.store import NameTaken, now_ms
from arena.store.work import MatchOrder, WorkQueue
from arena.tournaments import TournamentSpec


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class TournamentState:
    """A stored tournament: its spec, who made it, when, and the rounds queued so far."""

    spec: TournamentSpec
    created_by: str
    created_ms: int
    rounds_planned: int
    finished_ms: int = 0


class TournamentStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.queue = WorkQueue(redis)

    async def create(self, spec: TournamentSpec, created_by: str, orders: Sequence[MatchOrder], rounds: int) -> None:
        """Store the spec and queue `orders` (the first `rounds` rounds) at once; NameTaken if the name is used."""
        key = keys.tournament(spec.name)
        async with self.redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(key)
                if await pipe.exists(key):
                    raise NameTaken(f"a tournament named {spec.name!r} exists already; choose another name")
                pipe.multi()  # type: ignore[no-untyped-call]
                created = now_ms()
                pipe.hset(
                    key,
                    mapping={
                        "spec": json.dumps(spec.to_dict(), separators=(",", ":")),
                        "created_by": created_by,
                        "created_ms": created,
                        "rounds_planned": rounds,
                    },
                )
                pipe.zadd(keys.TOURNAMENTS, {spec.name: created})
                await self.queue.submit(orders, pipe)
                await pipe.execute()
            except WatchError:
                raise NameTaken(f"a tournament named {spec.name!r} was just created; choose another name") from None

    async def get(self, name: str) -> TournamentState | None:
        data = {_text(k): _text(v) for k, v in (await self.redis.hgetall(keys.tournament(name))).items()}
        if not data:
            return None
        return TournamentState(
            spec=TournamentSpec.from_dict(json.loads(data["spec"])),
            created_by=data.get("created_by", ""),
            created_ms=int(data.get("created_ms", "0")),
            rounds_planned=int(data.get("rounds_planned", "0")),
            finished_ms=int(data.get("finished_ms", "0")),
        )

    async def names(self, limit: int = 100) -> list[str]:
        """Tournament names, newest first."""
        names: list[Any] = await self.redis.zrevrange(keys.TOURNAMENTS, 0, limit - 1)
        return [_text(name) for name in names]

    async def results(self, name: str) -> list[ResultRecord]:
        """The tournament's stored results, in match number order."""
        stored = await self.redis.hgetall(keys.tournament_results(name))
        records = [ResultRecord.from_dict(json.loads(text)) for text in stored.values()]
        return sorted(records, key=lambda record: _number(record.match_id))

    async def plan(self, name: str, planned: int, orders: Sequence[MatchOrder]) -> bool:
        """Queue round `planned` (0-based) if nobody did; False when another node was first."""
        key = keys.tournament(name)
        async with self.redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(key)
                if int(await pipe.hget(key, "rounds_planned") or 0) != planned:
                    return False
                pipe.multi()  # type: ignore[no-untyped-call]
                pipe.hset(key, "rounds_planned", planned + 1)
                await self.queue.submit(orders, pipe)
                await pipe.execute()
            except WatchError:
                return False
        return True

    async def mark_finished(self, name: str) -> None:
        await self.redis.hsetnx(keys.tournament(name), "finished_ms", now_ms())


def _number(match_id: str) -> int:
    tail = match_id.rpartition("-")[2]
    return int(tail) if tail.isdigit() else 0
