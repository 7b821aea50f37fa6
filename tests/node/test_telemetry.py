"""The node's metrics (arena.node.telemetry): the Sampler's gauges from the node's registries and from a real
Redis, the counts of a match's end, and sampling that goes on while Redis is unreachable."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from prometheus_client import REGISTRY
from redis.asyncio import Redis

from arena import metrics
from arena.games import make_game
from arena.games.base import Termination
from arena.match import Clock
from arena.node.builtin_pool import BuiltinPool, PoolConfig, PooledBotSeat
from arena.node.matches import MatchHost
from arena.node.sessions import Limits, SessionRegistry
from arena.node.telemetry import Sampler, match_ended
from arena.ratings import ResultRecord
from arena.store import Store, keys
from arena.store.work import MatchOrder, WorkQueue
from tests.conftest import free_port
from tests.node.conftest import SLACK, BotDriver, hello
from tests.waiting import until

pytestmark = pytest.mark.asyncio

GAMES = ("friday13", "amigo13")


def sample(name: str, **labels: str) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


@pytest_asyncio.fixture
async def host(redis: Redis) -> AsyncIterator[MatchHost]:
    made = MatchHost(Store(redis), SessionRegistry(Limits(grace=60.0)), Clock(), BuiltinPool(PoolConfig(workers=1)))
    try:
        yield made
    finally:
        await made.shutdown()


async def test_the_node_gauges_count_attached_sessions_and_running_matches_per_game(
    redis: Redis, host: MatchHost
) -> None:
    registry = host.sessions
    bots = [BotDriver(registry, registry.open(name, hello())[0]).connect() for name in ("ann", "bob", "cy")]
    game = make_game("friday13", players=3)
    live = host.prepare("m1", game, ["ann", "builtin:random", "builtin:random"], b"seed")
    sampler = Sampler(redis, registry, host, GAMES)
    sampler.sample_node()
    assert sample("arena_sessions_connected") == 3
    assert sample("arena_matches_running", game="friday13") == 1
    assert sample("arena_matches_running", game="amigo13") == 0

    bots[2].disconnect()  # waiting out its grace: a session still, not a connected one
    del host.live["m1"]
    sampler.sample_node()
    assert sample("arena_sessions_connected") == 2 and len(registry.by_id) == 3
    assert sample("arena_matches_running", game="friday13") == 0
    for seat in live.runner.seats:
        if isinstance(seat, PooledBotSeat):
            seat.release()
    for bot in bots:
        await bot.stop()


async def test_the_arena_gauges_read_the_ladder_queues_and_the_work_stream_from_redis(
    redis: Redis, host: MatchHost
) -> None:
    sampler = Sampler(redis, host.sessions, host, GAMES)
    metrics.WORK_PENDING.set(99)
    await sampler.sample_redis()  # no work stream yet: nothing waits, nothing is pending
    assert [sample(name) for name in ("arena_work_pending", "arena_work_waiting")] == [0, 0]
    assert sample("arena_work_oldest_pending_seconds") == 0

    await redis.hset(keys.ladder_queue("friday13"), mapping={"ticket-1": "ann", "ticket-2": "bob"})
    queue = WorkQueue(redis, "node-a#1")
    await queue.ensure_group()
    await queue.submit(MatchOrder(f"m{n}", "friday13", {"players": 3}, ("a", "b", "c"), "00") for n in range(3))
    (taken,) = await queue.read(1, block_ms=10)
    await sampler.sample_redis()
    assert sample("arena_ladder_waiting", game="friday13") == 2
    assert sample("arena_ladder_waiting", game="amigo13") == 0
    assert sample("arena_work_pending") == 1, "taken by a node and not acknowledged"
    assert sample("arena_work_waiting") == 2, "not taken yet"

    async def aged() -> bool:
        await sampler.sample_redis()
        return (sample("arena_work_oldest_pending_seconds") or 0) > 0

    await until(aged, "the oldest pending order ages", timeout=SLACK)
    await queue.ack(taken)
    await sampler.sample_redis()
    assert [sample(name) for name in ("arena_work_pending", "arena_work_waiting")] == [0, 2]
    assert sample("arena_work_oldest_pending_seconds") == 0


async def test_a_match_end_counts_its_termination_and_each_forfeiting_seat() -> None:
    def finished(termination: str) -> float:
        return sample("arena_matches_finished_total", game="amigo13", termination=termination) or 0.0

    before = (finished("normal"), finished("forfeit"), sample("arena_forfeits_total", game="amigo13") or 0.0)
    order = MatchOrder("m1", "amigo13", {"players": 3}, ("a", "b", "c"), "00")
    await match_ended(order, ResultRecord("m1", ("a", "b", "c"), (1, 2, 3), (1, 2, 3)))
    forfeit = ResultRecord("m2", ("a", "b", "c"), (1, 2, 3), (2, 1, 3), Termination.FORFEIT, forfeited=(0, 2))
    await match_ended(order, forfeit)
    after = (finished("normal"), finished("forfeit"), sample("arena_forfeits_total", game="amigo13") or 0.0)
    assert [a - b for a, b in zip(after, before, strict=True)] == [1, 1, 2]


async def test_the_sampler_goes_on_sampling_the_node_while_redis_is_unreachable(host: MatchHost) -> None:
    unreachable = Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=0.2)
    sampler = Sampler(unreachable, host.sessions, host, GAMES, interval=0.02)
    metrics.WORK_PENDING.set(7)
    running = asyncio.create_task(sampler.run())
    try:
        bot = BotDriver(host.sessions, host.sessions.open("ann", hello())[0]).connect()

        async def counted() -> bool:
            return sample("arena_sessions_connected") == 1

        # Sampled after the session opened: the loop went on through the failed reads.
        await until(counted, "the sampler counts the new session", timeout=SLACK)
        assert not running.done()
        assert sample("arena_work_pending") == 7, "a failed read leaves the old value"
        await bot.stop()
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await unreachable.aclose()
