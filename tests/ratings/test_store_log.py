"""The rating log in a real Redis: new versions go through it, and a recompute reproduces every stored
rating, leaderboard score and history point bit for bit."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from arena.ratings import NewVersion, RatingModel, ResultRecord, version_ratings
from arena.store import keys
from arena.store.codec import text_fields, texts
from arena.store.ratings import RatingStore

pytestmark = pytest.mark.asyncio

GAME = "friday13"
BOTS = ("ann", "bob", "cy", "dee", "eve")


@pytest_asyncio.fixture
async def store(redis_url: str) -> AsyncIterator[RatingStore]:
    redis = Redis.from_url(redis_url)
    try:
        yield RatingStore(redis)
    finally:
        await redis.aclose()


def result(match_id: str, seats: tuple[str, ...], ranks: tuple[int, ...], at: float = 1000.0) -> ResultRecord:
    return ResultRecord(match_id, seats, tuple(10 * rank for rank in ranks), ranks, finished_at=at)


async def raw_state(store: RatingStore) -> tuple[object, ...]:
    """Everything the ratings of the game consist of, as the stored text: bit for bit."""
    redis = store.redis
    rows = {bot: text_fields(await redis.hgetall(keys.rating(GAME, bot))) for bot in BOTS}
    scored: list[tuple[bytes, float]] = cast(Any, await redis.zrange(keys.leaderboard(GAME), 0, -1, withscores=True))
    board = [(texts([name])[0], score) for name, score in scored]
    history = {}
    for bot in BOTS:
        stream: list[tuple[bytes, dict[bytes, bytes]]] = cast(Any, await redis.xrange(keys.history(GAME, bot)))
        history[bot] = [text_fields(fields) for _, fields in stream]
    return rows, board, history


async def test_a_new_version_is_widened_through_the_log_and_a_recompute_repeats_it(store: RatingStore) -> None:
    orders = [(1, 2, 3), (2, 1, 3), (3, 1, 2), (1, 3, 2)]
    for number in range(24):
        await store.apply(GAME, result(f"m{number}", ("ann", "bob", "cy"), orders[number % 4], at=1000.0 + number))
    settled = (await store.ratings(GAME, ["ann"]))["ann"]
    widened = await store.widen(GAME, "ann", "2")
    assert widened is not None
    assert (widened.mu, widened.games) == (settled.mu, settled.games)
    assert widened.sigma >= RatingModel().sigma / 2 > 2 * settled.sigma
    assert await store.widen(GAME, "ann", "2") is None, "a version label counts once"
    assert await store.widen(GAME, "nobody", "1") is None, "a bot without a rating has nothing to widen"
    (row,) = [row for row in await store.leaderboard(GAME) if row.bot == "ann"]
    assert row.sigma == widened.sigma
    assert row.last_ms == 1_023_000, "a new version is not a match played"
    assert row.version == "2", "the leaderboard shows the active version"
    await store.apply(GAME, result("after", ("ann", "bob", "cy"), (3, 1, 2), at=2000.0))

    entries = await store.entries(GAME)
    assert [entry.match_id for entry in entries][-2:] == ["version:ann:2", "after"]
    assert isinstance(entries[-2], NewVersion)
    assert [one.match_id for one in await store.results(GAME)] == [f"m{n}" for n in range(24)] + ["after"]
    points = await store.history(GAME, "ann")
    assert [(p.match_id, p.played) for p in points[-2:]] == [("version:ann:2", False), ("after", True)]

    spans = version_ratings(points)
    assert [(span.version, span.matches) for span in spans] == [("", 24), ("2", 1)]
    assert (spans[0].end.mu, spans[0].end.sigma) == (settled.mu, settled.sigma), "what the earlier version reached"

    before = await raw_state(store)
    await store.redis.delete(*(keys.rating(GAME, bot) for bot in BOTS), keys.leaderboard(GAME))
    await store.recompute(GAME)
    assert await raw_state(store) == before
    assert [row.version for row in await store.leaderboard(GAME) if row.bot == "ann"] == ["2"]


async def test_recompute_reproduces_concurrently_applied_results_and_versions_bit_for_bit(store: RatingStore) -> None:
    rng = random.Random(7)
    batches = []
    for batch in range(12):
        entries: list[ResultRecord | NewVersion] = []
        for number in range(4):
            seats = tuple(rng.sample(BOTS, rng.randint(2, 4)))
            ranks = tuple(rng.randint(1, len(seats)) for _ in seats)
            entries.append(result(f"b{batch}-{number}", seats, ranks, at=1000.0 + batch))
        if batch % 4 == 3:
            entries.append(NewVersion(rng.choice(BOTS), f"v{batch}", finished_at=1000.0 + batch))
        batches.append(entries)
    for entries in batches:
        # Results of the same bots arriving at once: each is applied once, in some order, which the log keeps.
        await asyncio.gather(*(store.apply(GAME, entry) for entry in entries))
    assert len(await store.entries(GAME)) == sum(len(entries) for entries in batches)
    before = await raw_state(store)
    await store.recompute(GAME)
    assert await raw_state(store) == before
