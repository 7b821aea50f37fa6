"""How sure a leaderboard is: established neighbours and since when, provisional bots."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from arena.ratings import (
    PROVISIONAL_MATCHES,
    PROVISIONAL_SIGMA,
    Z95,
    BotRating,
    HistoryEntry,
    NeighbourOrder,
    Rating,
    RatingBook,
    RatingModel,
    ResultRecord,
    Since,
    established_since,
    is_established,
    is_provisional,
    neighbour_orders,
    order_z,
)
from arena.store.ratings import RatingStore

GAME = "friday13"


def point(bot: str, games: int, mu: float, sigma: float, at: float, match_id: str = "") -> HistoryEntry:
    return HistoryEntry(bot, match_id or f"m{at:g}", mu, sigma, games, at)


def test_an_order_is_established_when_the_mu_gap_exceeds_196_standard_deviations() -> None:
    assert order_z(Rating(30.0, 3.0), Rating(25.0, 4.0)) == pytest.approx(1.0)
    assert not is_established(Rating(30.0, 3.0), Rating(25.0, 4.0))
    assert is_established(Rating(30.0, 1.0), Rating(27.0, 1.0))
    assert round(Z95, 6) == 1.959964
    # Ordered by mu - 3 sigma a sure bot may sit above a newcomer whose mu is higher: z is negative.
    assert order_z(Rating(20.0, 0.5), Rating(26.0, 6.0)) < 0


def test_few_matches_or_a_wide_sigma_make_a_bot_provisional() -> None:
    assert is_provisional(BotRating("a", 30.0, 1.0, PROVISIONAL_MATCHES - 1))
    assert not is_provisional(BotRating("a", 30.0, 1.0, PROVISIONAL_MATCHES))
    widened = RatingModel().widened(Rating(30.0, 1.0))
    assert widened.sigma > PROVISIONAL_SIGMA
    assert is_provisional(BotRating("a", widened.mu, widened.sigma, 500)), "a new version starts provisional"


def test_established_since_is_where_the_last_unbroken_run_of_established_began() -> None:
    upper = [
        point("u", 1, 26.0, 6.0, 1),
        point("u", 2, 29.0, 3.0, 2),
        point("u", 3, 28.0, 2.0, 4),
        point("u", 4, 30.0, 1.0, 5),
    ]
    lower = [
        point("l", 1, 24.0, 6.0, 1),
        point("l", 2, 21.0, 3.0, 2),
        point("l", 3, 26.0, 2.0, 3),
        point("l", 4, 25.0, 1.0, 5),
    ]
    # z after each step: 0.24, 1.89 (8 / 4.24, short of 1.96), 0.83, 0.71, then 3.54 from the 4th matches on.
    assert established_since(upper, lower) == Since(4, earlier=False)
    assert established_since(upper[:2], lower[:2]) is None, "not established at the end"
    assert established_since(upper, []) is None


def test_an_order_established_throughout_a_trimmed_history_began_at_its_start_or_earlier() -> None:
    upper = [point("u", 500, 30.0, 0.5, 1), point("u", 501, 30.1, 0.5, 2)]
    lower = [point("l", 400, 25.0, 0.5, 1), point("l", 401, 25.1, 0.5, 2)]
    assert established_since(upper, lower) == Since(400, earlier=True)
    # The same with a break inside the points read: the run after it is known.
    lower[0] = point("l", 400, 29.9, 0.5, 1)
    assert established_since(upper, lower) == Since(401, earlier=False)


def test_both_bots_changes_in_one_match_are_judged_together() -> None:
    # Judged between the two halves of match m2 the pair would look established at game 2.
    upper = [point("u", 1, 25.0, 2.0, 1, "m1"), point("u", 2, 40.0, 2.0, 2, "m2")]
    lower = [point("l", 1, 25.0, 2.0, 1, "m1"), point("l", 2, 39.0, 2.0, 2, "m2")]
    assert established_since(upper, lower) is None


def test_neighbour_orders_follow_the_board_and_read_since_from_the_histories() -> None:
    book = RatingBook(RatingModel())
    orders = [(1, 2, 3), (1, 3, 2), (2, 1, 3), (1, 2, 3)]
    for number in range(60):
        book.apply(
            ResultRecord(f"m{number}", ("top", "mid", "low"), (0, 0, 0), orders[number % 4], finished_at=float(number))
        )
    board = book.leaderboard()
    histories = {bot: [entry for entry in book.history if entry.bot == bot] for bot in book.ratings}
    pairs = neighbour_orders(board, histories)
    assert [(pair.upper, pair.lower) for pair in pairs] == [("top", "mid"), ("mid", "low")]
    for pair in pairs:
        assert pair.established == (pair.z > Z95)
        if pair.established:
            since = established_since(histories[pair.upper], histories[pair.lower])
            assert since is not None and 1 <= since.games <= 60 and not since.earlier
            assert (pair.since_games, pair.since_earlier) == since
        assert pair.to_dict()["upper"] == pair.upper
    assert pairs[0].established


@pytest_asyncio.fixture
async def store(redis_url: str) -> AsyncIterator[RatingStore]:
    redis = Redis.from_url(redis_url)
    try:
        yield RatingStore(redis)
    finally:
        await redis.aclose()


async def judged_from_scratch(store: RatingStore, model: RatingModel) -> list[NeighbourOrder]:
    """The certainty a reader with every history point from the start would give."""
    book = RatingBook(model)
    for entry in await store.entries(GAME):
        book.apply(entry)
    histories = {bot: [entry for entry in book.history if entry.bot == bot] for bot in book.ratings}
    return neighbour_orders(book.leaderboard(), histories)


@pytest.mark.asyncio
async def test_the_store_gives_the_boards_certainty_and_follows_it_as_results_come(store: RatingStore) -> None:
    # The twins' places mirror each other: neither is better.
    orders = [(1, 2, 3, 4), (1, 3, 2, 4), (2, 1, 3, 4), (2, 3, 1, 4), (1, 2, 4, 3), (1, 4, 2, 3)]
    seats = ("top", "twin1", "twin2", "low")
    for number in range(42):
        await store.apply(GAME, ResultRecord(f"m{number}", seats, (0,) * 4, orders[number % 6], finished_at=number))
    await store.apply(GAME, ResultRecord("late", ("late", "low"), (0, 0), (1, 2), finished_at=99.0))
    rows = await store.leaderboard(GAME)
    pairs = await store.certainty(GAME, rows)
    assert pairs == await judged_from_scratch(store, RatingModel())
    assert [row.bot for row in rows][:3] in (["top", "twin1", "twin2"], ["top", "twin2", "twin1"])
    assert [pair.established for pair in pairs[:2]] == [True, False], "the twins' order is not established"
    assert pairs[0].since_games is not None and pairs[0].since_games < 42 and not pairs[0].since_earlier
    assert {row.bot for row in rows if row.provisional} == {"late"}
    assert await store.certainty(GAME, rows) == pairs, "nothing new: the same answer"

    # Followed from call to call: new results, a new version, a recompute under other parameters.
    await store.widen(GAME, "top", "2")
    rows = await store.leaderboard(GAME)
    assert "top" in {row.bot for row in rows if row.provisional}
    assert await store.certainty(GAME, rows) == await judged_from_scratch(store, RatingModel())
    for number in range(42, 60):
        await store.apply(GAME, ResultRecord(f"m{number}", seats, (0,) * 4, orders[number % 6], finished_at=number))
    assert await store.certainty(GAME, await store.leaderboard(GAME)) == await judged_from_scratch(store, RatingModel())
    wider = RatingModel(beta=6.0)
    await store.recompute(GAME, wider)
    judged = await store.certainty(GAME, await store.leaderboard(GAME))
    assert judged == await judged_from_scratch(store, wider)
    assert any(pair.established for pair in judged)
