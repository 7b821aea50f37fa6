"""The work stream in a real Redis: delivery through the consumer group, take-over, results counted once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis import exceptions as redis_exceptions
from redis.asyncio import Redis

from arena.node.work import EventWriter
from arena.ratings import ResultRecord
from arena.store import MatchRecord, keys
from arena.store.codec import text
from arena.store.work import Delivery, EventBatch, LostOrder, MatchOrder, WorkQueue


@pytest_asyncio.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def order(match_id: str) -> MatchOrder:
    return MatchOrder(match_id, "friday13", {"players": 3}, ("a", "b", "c"), "00ff")


def batch(delivery: Delivery, at: int, actions: list[int]) -> EventBatch:
    return EventBatch(delivery.entry_id, delivery.token, at, actions)


def result(match_id: str) -> ResultRecord:
    return ResultRecord(match_id, ("a", "b", "c"), (1, 2, 3), (1, 2, 3))


@pytest.mark.asyncio
async def test_each_order_goes_to_one_node_and_a_dead_nodes_order_is_taken_over(redis: Redis) -> None:
    first, second = WorkQueue(redis, "node-a"), WorkQueue(redis, "node-b")
    await first.ensure_group()
    await second.ensure_group()
    await first.submit([order("m1"), order("m2")])
    got_first = await first.read(1, block_ms=100)
    got_second = await second.read(5, block_ms=100)
    assert [d.order.match_id for d in got_first] == ["m1"]
    assert [d.order.match_id for d in got_second] == ["m2"]
    assert got_first[0].order == order("m1")
    assert await second.claim_stale(min_idle_ms=60_000) == []
    # m1 idles past the claim delay, m2 is kept just before the claim: the delay leaves a loaded machine half a
    # second between the keep and the claim, which 100 ms did not.
    await asyncio.sleep(1.0)
    assert await second.keep([got_second[0].entry_id]) == set()
    taken = await second.claim_stale(min_idle_ms=500)
    assert [d.order.match_id for d in taken] == ["m1"]
    assert await first.keep([got_first[0].entry_id]) == {got_first[0].entry_id}, "node a learns it was taken over"


@pytest.mark.asyncio
async def test_a_result_is_stored_once_and_the_order_stays_until_acknowledged(redis: Redis) -> None:
    queue = WorkQueue(redis, "node-a")
    await queue.ensure_group()
    await queue.submit([order("m1")])
    (delivery,) = await queue.read(1, block_ms=100)
    record = MatchRecord("m1", "friday13", {"players": 3}, ["a", "b", "c"], 1)
    await queue.started(delivery, record, "00ff", fresh=True)
    assert await queue.append_events({"m1": batch(delivery, 0, [7, 9])}) == set()
    assert await queue.append_events({"m1": batch(delivery, 2, [4])}) == set()
    events = await queue.events("m1")
    assert (events.seed, events.actions) == ("00ff", [7, 9, 4])
    assert await queue.store_result(delivery, record, None, result("m1"))
    assert not await queue.store_result(delivery, record, None, result("m1"))
    assert await queue.result("m1") == result("m1")
    assert await queue.backlog() == 1
    await queue.ack(delivery)
    assert await queue.backlog() == 0
    assert await queue.claim_stale(min_idle_ms=0) == []


@pytest.mark.asyncio
async def test_a_batch_written_twice_reads_once_and_a_failed_write_keeps_its_moves_in_order(redis: Redis) -> None:
    queue = WorkQueue(redis, "node-a")
    await queue.ensure_group()
    await queue.submit([order("m2")])
    (delivery,) = await queue.read(1, block_ms=100)
    record = MatchRecord("m2", "friday13", {"players": 3}, ["a", "b", "c"], 1)
    await queue.started(delivery, record, "00ff", fresh=True)
    await queue.append_events({"m2": batch(delivery, 0, [1, 2])})
    await queue.append_events({"m2": batch(delivery, 0, [1, 2])})  # the same batch again: its first reply was lost
    await queue.append_events({"m2": batch(delivery, 2, [3])})
    assert (await queue.events("m2")).actions == [1, 2, 3]

    # A writer whose store fails keeps the batch, ahead of the moves added meanwhile.
    broken = WorkQueue(Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2), "node-b")
    writer = EventWriter(broken, 0.1)
    writer.begin(delivery, 3)
    writer.add("m2", 4)
    with pytest.raises(redis_exceptions.ConnectionError):
        await writer.flush()
    writer.add("m2", 5)
    writer.queue = queue
    await writer.flush()
    assert (await queue.events("m2")).actions == [1, 2, 3, 4, 5]
    await broken.redis.aclose()


@pytest.mark.asyncio
async def test_a_node_whose_order_was_taken_over_writes_nothing_for_its_match(redis: Redis) -> None:
    """A node paused past its claim delay comes back: its events, its start and its result are refused."""
    paused, living = WorkQueue(redis, "node-a#1"), WorkQueue(redis, "node-b#1")
    await paused.ensure_group()
    await paused.submit([order("m3")])
    (stale,) = await paused.read(1, block_ms=100)
    record = MatchRecord("m3", "friday13", {"players": 3}, ["a", "b", "c"], 1)
    await paused.started(stale, record, "00ff", fresh=True)
    assert await paused.append_events({"m3": batch(stale, 0, [1, 2])}) == set()
    await asyncio.sleep(0.15)
    (claimed,) = await living.claim_stale(min_idle_ms=100)
    assert claimed.token == stale.token + 1, "the claim is a new fencing token"
    assert await living.append_events({"m3": batch(claimed, 2, [3])}) == set()
    # The paused node resumes and goes on as if nothing happened: every write is refused.
    assert await paused.append_events({"m3": batch(stale, 2, [7, 7])}) == {"m3"}
    with pytest.raises(LostOrder):
        await paused.started(stale, record, "00ff", fresh=True)
    with pytest.raises(LostOrder):
        await paused.store_result(stale, record, None, result("m3"))
    assert (await paused.events("m3")).actions == [1, 2, 3], "the seed and the living node's moves stand"
    assert await living.store_result(claimed, record, None, ResultRecord("m3", ("a", "b", "c"), (3, 2, 1), (3, 2, 1)))
    assert (await living.result("m3")) != result("m3")
    # The same node claiming its own order again (a new incarnation would too) holds a new token.
    await asyncio.sleep(0.15)
    (again,) = await paused.claim_stale(min_idle_ms=100)
    assert again.token == claimed.token + 1
    assert await living.append_events({"m3": batch(claimed, 3, [4])}) == {"m3"}


@pytest.mark.asyncio
async def test_consumers_of_dead_incarnations_are_forgotten_unless_they_hold_an_order(redis: Redis) -> None:
    living, holding, gone = WorkQueue(redis, "n#3"), WorkQueue(redis, "n#2"), WorkQueue(redis, "n#1")
    await living.ensure_group()
    await living.submit([order("m4"), order("m5")])
    (done,) = await gone.read(1, block_ms=100)
    await gone.ack(done)  # an incarnation that played a match and then died: idle, holding nothing
    (held,) = await holding.read(1, block_ms=100)
    assert held.order.match_id == "m5"
    await asyncio.sleep(0.2)
    assert await living.forget_idle_consumers(idle_ms=100) == ["n#1"]
    names = {text(c["name"]) for c in await redis.xinfo_consumers(keys.WORK, keys.WORK_GROUP)}
    assert names == {"n#2"}, "the one holding an order stays (and the caller has not read yet)"
    assert await living.forget_idle_consumers(idle_ms=60_000) == []
