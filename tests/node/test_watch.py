"""Watching a match another node plays (arena.node.watch): the public view rebuilt from the match's event
stream in a real Redis, batch by batch, to the stored end."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from arena.games import make_game
from arena.games.base import Termination
from arena.node.matches import Update
from arena.node.watch import follow
from arena.ratings import ResultRecord
from arena.store import MatchRecord, Store
from arena.store.work import EventBatch, MatchOrder, WorkQueue
from arena.wire import convert
from tests.node.conftest import SLACK
from tests.waiting import until

pytestmark = pytest.mark.asyncio

GAME = make_game("friday13", players=3)
SEED = "0a0b0c"


async def test_a_watcher_sees_the_public_view_after_each_batch_of_moves_and_the_end_once_stored(redis: Redis) -> None:
    queue = WorkQueue(redis, "node-a#1")
    await queue.ensure_group()
    order = MatchOrder("m1", "friday13", {"players": 3}, ("ann", "bob", "cy"), SEED)
    await queue.submit([order])
    (delivery,) = await queue.read(1, block_ms=10)
    record = MatchRecord("m1", "friday13", {"players": 3}, ["ann", "bob", "cy"], 1)
    await queue.started(delivery, record, SEED, fresh=True)

    updates = follow(Store(redis), record, poll=0.01)

    async def next_update() -> Update:
        return await asyncio.wait_for(anext(updates), SLACK)

    state = GAME.new_match(bytes.fromhex(SEED))
    encoder = convert.encoder_for(GAME)
    first = await next_update()
    assert (first.view, first.last_move, first.ended) == (encoder.encode(state.public_observation()), "", False)

    # The watcher waits for the next update while the match's first seat thinks: the view it has stays.
    waiting = asyncio.create_task(next_update())
    looked = await polls(redis)

    async def looked_twice() -> bool:
        return waiting.done() or await polls(redis) >= looked + 2

    await until(looked_twice, "the watcher looks at the event stream twice more", timeout=SLACK)
    assert not waiting.done(), "no update until a move is made"
    batch = []
    for _ in range(3):
        seat, action = state.current_player(), state.legal_actions()[0]
        batch.append(action)
        state.apply(action)
    await queue.append_events({"m1": EventBatch(delivery.entry_id, delivery.token, 0, batch)})
    moved = await waiting
    assert moved.view == encoder.encode(state.public_observation()) and not moved.ended
    assert moved.last_move == f"seat {seat} played {GAME.action_text(batch[-1])}", "the batch's last move"
    assert list(moved.view.cards.hand) == [] and sum(moved.view.cards.hand_sizes) > 0, "no hand leaves: sizes only"

    result = ResultRecord("m1", order.seats, (1, 2, 3), (1, 2, 3), Termination.ABORTED)
    await queue.store_result(delivery, record, None, result)
    last = await next_update()
    assert last.ended and last.view == moved.view
    with pytest.raises(StopAsyncIteration):
        await next_update()


async def polls(redis: Redis) -> int:
    """Reads of event streams the Redis server has answered (each look of a watcher is one)."""
    stats = await redis.info("commandstats")
    return int(stats.get("cmdstat_xrange", {}).get("calls", 0))


async def test_a_match_that_never_started_has_nothing_to_watch(redis: Redis) -> None:
    record = MatchRecord("m-none", "friday13", {"players": 3}, ["ann", "bob", "cy"], 1)
    assert [update async for update in follow(Store(redis), record, poll=0.01)] == []
