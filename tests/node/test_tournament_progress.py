"""The tournament hook at its own level: it marks a tournament finished only once its results are final.

Each match's result is stored by the result script and rated after it, each on its own node or slot,
so the hook of the last match stored can run while an earlier match's rating is still on its way; a
"finished" tournament must show the standings and ratings its watchers will read afterwards.
"""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from arena.games.base import Termination
from arena.node.tournaments import TournamentProgress, create_tournament
from arena.ratings import ResultRecord
from arena.store import Store, keys
from arena.store.codec import compact_json
from arena.store.ratings import RatingStore
from arena.store.store import now_ms
from arena.store.tournaments import TournamentState, TournamentStore
from arena.store.work import MatchOrder
from arena.tournaments import TournamentSpec
from arena.tournaments.progress import Progress

ENTRANTS = ("builtin:random", "builtin:heuristic", "builtin:mc")


async def two_matches(redis: Redis, name: str, rated: bool) -> tuple[TournamentSpec, list[MatchOrder]]:
    spec = TournamentSpec(name, "friday13", ENTRANTS, table_size=3, rounds=2, rated=rated, seed="s")
    await create_tournament(Store(redis), spec, "admin", admin=True)
    orders = [
        MatchOrder(spec.match_id(number), "friday13", {"players": 3}, ENTRANTS, "", tournament=name, rated=rated)
        for number in range(2)
    ]
    return spec, orders


async def stored(redis: Redis, order: MatchOrder, ranks: tuple[int, ...]) -> ResultRecord:
    """The result as the result script stores it for a tournament match (not rated yet)."""
    result = ResultRecord(
        order.match_id, order.seats, (10, 20, 30), ranks, Termination.NORMAL, finished_at=now_ms() / 1000
    )
    await redis.hset(keys.tournament_results(order.tournament), order.match_id, compact_json(result.to_dict()))
    return result


async def finished(redis: Redis, name: str) -> bool:
    state = await TournamentStore(redis).get(name)
    assert state is not None
    return bool(state.finished_ms)


@pytest.mark.asyncio
async def test_a_rated_tournament_is_finished_by_the_hook_that_runs_after_the_last_rating(redis: Redis) -> None:
    spec, (first, second) = await two_matches(redis, "rated-race", rated=True)
    hook, ratings = TournamentProgress(Store(redis)), RatingStore(redis)
    first_result = await stored(redis, first, (1, 2, 3))
    second_result = await stored(redis, second, (3, 2, 1))
    # The second match's node rates it and runs its hook while the first's rating is still on its way.
    await ratings.apply("friday13", second_result)
    await hook(second, second_result)
    assert not await finished(redis, spec.name), "finished with a rating still to come"
    await ratings.apply("friday13", first_result)
    await hook(first, first_result)
    assert await finished(redis, spec.name)
    board = {row.bot: row.games for row in await ratings.leaderboard("friday13")}
    assert board == dict.fromkeys(ENTRANTS, 2)


@pytest.mark.asyncio
async def test_a_result_whose_rating_failed_does_not_keep_its_tournament_open(redis: Redis) -> None:
    spec, (first, second) = await two_matches(redis, "rating-failed", rated=True)
    hook, ratings = TournamentProgress(Store(redis)), RatingStore(redis)
    first_result = await stored(redis, first, (1, 2, 3))
    await ratings.apply("friday13", first_result)
    await hook(first, first_result)
    assert not await finished(redis, spec.name), "finished with a match unplayed"
    # The last match's rating raised (logged by its node); its own hook runs after it and ends the tournament.
    second_result = await stored(redis, second, (3, 2, 1))
    await hook(second, second_result)
    assert await finished(redis, spec.name)


@pytest.mark.asyncio
async def test_an_unrated_tournament_is_finished_once_its_results_are_stored(redis: Redis) -> None:
    spec, (first, second) = await two_matches(redis, "unrated", rated=False)
    hook = TournamentProgress(Store(redis))
    await stored(redis, first, (1, 2, 3))
    second_result = await stored(redis, second, (3, 2, 1))
    await hook(second, second_result)
    assert await finished(redis, spec.name)
    assert not await redis.exists(keys.results_applied("friday13")), "nothing was rated, nothing waited for"


@pytest.mark.asyncio
async def test_the_hook_reads_every_result_only_once_a_round_robin_may_have_ended(redis: Redis) -> None:
    spec = TournamentSpec("counted", "friday13", ENTRANTS, table_size=3, rounds=5, seed="s")
    await create_tournament(Store(redis), spec, "admin", admin=True)
    hook = TournamentProgress(Store(redis))
    reads = 0
    progress = hook.tournaments.progress

    async def counted(state: TournamentState) -> tuple[Progress, list[ResultRecord]]:
        nonlocal reads
        reads += 1
        return await progress(state)

    hook.tournaments.progress = counted  # type: ignore[method-assign]
    for number in range(spec.total_matches):
        order = MatchOrder(spec.match_id(number), "friday13", {"players": 3}, ENTRANTS, "", tournament=spec.name)
        await hook(order, await stored(redis, order, (1, 2, 3)))
        # A match without a result of its own is counted, not read: n matches would cost n^2 parsed results.
        assert reads == (1 if number == spec.total_matches - 1 else 0), f"results read after match {number}"
        assert await finished(redis, spec.name) == (number == spec.total_matches - 1)
