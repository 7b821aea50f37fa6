"""Ratings in a real Redis: exactly once, leaderboard order, history, recompute."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from arena.games import Termination
from arena.ratings import RatingBook, RatingModel, ResultRecord
from arena.store import keys
from arena.store.ratings import APPLIED, DUPLICATE, RatingStore

pytestmark = pytest.mark.asyncio

GAME = "friday13"


@pytest_asyncio.fixture
async def store(redis_url: str) -> AsyncIterator[RatingStore]:
    redis = Redis.from_url(redis_url)
    try:
        yield RatingStore(redis)
    finally:
        await redis.aclose()


def result(match_id: str, seats: tuple[str, ...], ranks: tuple[int, ...], **extra: object) -> ResultRecord:
    return ResultRecord(match_id, seats, tuple(10 * r for r in ranks), ranks, finished_at=1000.0, **extra)  # type: ignore[arg-type]


RESULTS = [
    result("m1", ("a", "b", "c"), (1, 2, 3)),
    result("m2", ("b", "c", "d"), (1, 1, 3)),
    result("m3", ("a", "d", "c"), (3, 2, 1)),
    result("m4", ("a", "b", "d"), (1, 2, 3), termination=Termination.FORFEIT, forfeited=(2,)),
    ResultRecord("m5", ("a", "b", "c"), (0, 0, 0), (1, 1, 1), termination=Termination.ABORTED),
]


def expected() -> RatingBook:
    book = RatingBook(RatingModel())
    for one in RESULTS:
        book.apply(one)
    return book


async def stored_state(store: RatingStore) -> tuple[object, ...]:
    board = await store.leaderboard(GAME)
    history = {bot: await store.history(GAME, bot) for bot in "abcd"}
    return tuple((row.bot, row.mu, row.sigma, row.games) for row in board), history


async def test_results_applied_in_order_match_the_pure_rating_book(store: RatingStore) -> None:
    for one in RESULTS:
        await store.apply(GAME, one)
    book = expected()
    board = await store.leaderboard(GAME)
    assert [(row.bot, row.mu, row.sigma, row.games) for row in board] == [
        (row.bot, row.mu, row.sigma, row.games) for row in book.leaderboard()
    ]
    assert [row.rank for row in board] == [1, 2, 3, 4]
    assert board[0].last_ms == 1_000_000
    assert [entry.match_id for entry in await store.history(GAME, "a")] == ["m1", "m3", "m4"]
    assert await store.results(GAME) == RESULTS
    assert await store.is_applied(GAME, "m5")


async def test_a_result_delivered_twice_changes_the_ratings_once(store: RatingStore) -> None:
    for one in RESULTS:
        assert await store.apply(GAME, one) is not None
        assert await store.apply(GAME, one) is None
    once = await stored_state(store)
    assert await store.redis.llen(keys.results(GAME)) == len(RESULTS)
    book = expected()
    assert once[0] == tuple((row.bot, row.mu, row.sigma, row.games) for row in book.leaderboard())


async def test_concurrent_deliveries_of_one_result_apply_it_once(store: RatingStore) -> None:
    outcomes = await asyncio.gather(*(store.apply(GAME, RESULTS[0]) for _ in range(8)))
    assert sum(outcome is not None for outcome in outcomes) == 1
    assert [entry.match_id for entry in await store.history(GAME, "a")] == ["m1"]


async def test_concurrent_results_of_the_same_bots_lose_no_update(store: RatingStore) -> None:
    many = [result(f"x{i}", ("a", "b"), (1, 2)) for i in range(20)]
    await asyncio.gather(*(store.apply(GAME, one) for one in many))
    rows = await store.ratings(GAME, ["a", "b"])
    assert rows["a"].games == rows["b"].games == 20
    assert len(await store.history(GAME, "a")) == 20


async def test_a_node_dying_between_computing_and_writing_leaves_the_result_applied_once(store: RatingStore) -> None:
    await store.apply(GAME, RESULTS[0])
    # The node computed the update of m2, then died before its write: nothing of it is stored.
    lost = await store.prepare(GAME, RESULTS[1])
    assert lost is not None
    del lost
    # The result is delivered again (to this or another node) and applied.
    assert await store.apply(GAME, RESULTS[1]) is not None
    for one in RESULTS[2:]:
        await store.apply(GAME, one)
    book = expected()
    assert (await stored_state(store))[0] == tuple((r.bot, r.mu, r.sigma, r.games) for r in book.leaderboard())


async def test_a_stale_computation_is_refused_when_the_result_was_applied_meanwhile(store: RatingStore) -> None:
    slow = await store.prepare(GAME, RESULTS[0])
    assert slow is not None
    assert await store.apply(GAME, RESULTS[0]) is not None
    before = await stored_state(store)
    assert await store.commit(slow) == DUPLICATE
    assert await stored_state(store) == before


async def test_a_computation_from_ratings_that_changed_meanwhile_is_refused_and_redone(store: RatingStore) -> None:
    slow = await store.prepare(GAME, RESULTS[1])
    assert slow is not None
    await store.apply(GAME, RESULTS[0])
    assert await store.commit(slow) != APPLIED
    await store.apply(GAME, RESULTS[1])
    book = RatingBook(RatingModel())
    book.apply(RESULTS[0])
    book.apply(RESULTS[1])
    rows = await store.ratings(GAME, "abcd")
    assert {name: (row.mu, row.sigma) for name, row in rows.items()} == {
        name: (row.mu, row.sigma) for name, row in book.ratings.items()
    }


async def test_an_aborted_match_is_recorded_as_seen_and_not_rated(store: RatingStore) -> None:
    update = await store.apply(GAME, RESULTS[4])
    assert update is not None and not update.rated
    assert await store.leaderboard(GAME) == []
    assert await store.apply(GAME, RESULTS[4]) is None


async def test_recompute_rebuilds_the_same_ratings_and_new_parameters_change_them(store: RatingStore) -> None:
    for one in RESULTS:
        await store.apply(GAME, one)
    before = await stored_state(store)
    await store.redis.delete(keys.rating(GAME, "a"), keys.leaderboard(GAME))
    await store.recompute(GAME)
    assert await stored_state(store) == before
    wider = RatingModel(beta=6.0)
    await store.recompute(GAME, wider)
    assert (await store.model(GAME)).beta == 6.0
    changed = await stored_state(store)
    assert changed != before
    book = RatingBook(wider)
    for one in RESULTS:
        book.apply(one)
    assert changed[0] == tuple((r.bot, r.mu, r.sigma, r.games) for r in book.leaderboard())
    # Results applied later use the stored parameters, and count once.
    assert await store.apply(GAME, RESULTS[0]) is None
    later = result("m6", ("c", "a", "d"), (1, 2, 3))
    await store.apply(GAME, later)
    book.apply(later)
    assert (await stored_state(store))[0] == tuple((r.bot, r.mu, r.sigma, r.games) for r in book.leaderboard())


CRASHING_NODE = """
import asyncio, sys
from redis.asyncio import Redis
from arena.ratings import ResultRecord
from arena.store.ratings import RatingStore

async def main():
    store = RatingStore(Redis.from_url(sys.argv[1]))
    result = ResultRecord("m2", ("b", "c", "d"), (10, 10, 30), (1, 1, 3), finished_at=1000.0)
    assert await store.prepare("friday13", result) is not None
    print("computed", flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


async def test_a_node_process_killed_after_computing_leaves_no_trace_and_redelivery_applies_once(
    store: RatingStore, redis_url: str
) -> None:
    await store.apply(GAME, RESULTS[0])
    node = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CRASHING_NODE, redis_url, stdout=asyncio.subprocess.PIPE
    )
    assert node.stdout is not None
    assert (await asyncio.wait_for(node.stdout.readline(), 30)).strip() == b"computed"
    node.kill()
    await node.wait()
    assert not await store.is_applied(GAME, "m2")
    for one in RESULTS[1:]:
        assert await store.apply(GAME, one) is not None
        assert await store.apply(GAME, one) is None
    assert (await stored_state(store))[0] == tuple((r.bot, r.mu, r.sigma, r.games) for r in expected().leaderboard())


async def test_each_bots_history_keeps_its_latest_entries_when_applied_and_when_recomputed(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        store = RatingStore(redis, history_kept=6)
        many = [result(f"h{i:02d}", ("a", "b") if i % 3 else ("a", "c"), (1, 2)) for i in range(20)]
        for one in many:
            await store.apply(GAME, one)
        latest_a = [one.match_id for one in many][-6:]
        latest_c = [one.match_id for one in many if "c" in one.seats][-6:]
        assert [entry.match_id for entry in await store.history(GAME, "a")] == latest_a
        assert await redis.xlen(keys.history(GAME, "a")) == 6
        assert [entry.match_id for entry in await store.history(GAME, "c")] == latest_c
        applied = await store.history(GAME, "a")
        # The rating itself still counts every match; only the plot's points are bounded.
        assert (await store.ratings(GAME, ["a"]))["a"].games == 20
        await store.recompute(GAME)
        assert await redis.xlen(keys.history(GAME, "a")) == 6
        assert [(entry.match_id, entry.mu) for entry in await store.history(GAME, "a")] == [
            (entry.match_id, entry.mu) for entry in applied
        ]
        assert [entry.match_id for entry in await store.history(GAME, "c")] == latest_c
    finally:
        await redis.aclose()
