"""Listing matches: every filter is applied before the limit, through an index per tournament."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from arena.games import Termination
from arena.store import MatchRecord, Store, keys
from arena.store.store import LIST_PAGE, NotFound, StoreError
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio


async def play(
    store: Store,
    match_id: str,
    started_ms: int,
    game: str = "friday13",
    seats: tuple[str, ...] = ("ann", "bob", "cy"),
    tournament: str = "",
) -> None:
    """A match listed at its start and stored at its end, as the match host does it."""
    record = MatchRecord(match_id, game, {"players": len(seats)}, list(seats), started_ms, tournament_id=tournament)
    await store.match_started(record)
    record.scores, record.ranks, record.termination, record.ended_ms = (
        [0] * len(seats),
        [1] * len(seats),
        Termination.NORMAL,
        1,
    )
    await store.match_ended(record, {"format": "arena-replay/1"})


async def cup_then_others(store: Store, others: int) -> None:
    """Three matches of tournament "cup", then `others` newer matches of no tournament."""
    for number in range(3):
        await play(store, f"cup-{number + 1}", 1_000 + number, tournament="cup")
    for number in range(others):
        await play(store, f"m{number:06d}", 2_000 + number)


async def test_a_tournaments_older_matches_are_listed_however_many_newer_matches_there_are(redis: Redis) -> None:
    store = Store(redis)
    await cup_then_others(store, others=6)
    listed = await store.list_matches(tournament="cup", limit=4)
    assert [record.match_id for record in listed] == ["cup-3", "cup-2", "cup-1"]
    assert [record.match_id for record in await store.list_matches(tournament="cup", limit=2)] == ["cup-3", "cup-2"]
    assert await store.list_matches(tournament="no-such-cup") == []


async def test_list_matches_over_grpc_finds_a_tournaments_matches_behind_the_limit(arena: Arena) -> None:
    store = arena.server.store
    await cup_then_others(store, others=6)
    response = await arena.api.ListMatches(api_pb.ListMatchesRequest(tournament_id="cup", limit=4))
    assert [match.match_id for match in response.matches] == ["cup-3", "cup-2", "cup-1"]
    assert all(match.tournament_id == "cup" for match in response.matches)
    response = await arena.api.ListMatches(api_pb.ListMatchesRequest(tournament_id="no-such-cup", limit=4))
    assert list(response.matches) == []


async def test_every_filter_is_applied_before_the_limit_even_past_a_page_of_matches(redis: Redis) -> None:
    store = Store(redis)
    await play(store, "amigo-old", 10, game="amigo13")
    await play(store, "amigo-cup", 11, game="amigo13", tournament="cup")
    await play(store, "friday-cup", 12, tournament="cup")
    await play(store, "amigo-without-ann", 13, game="amigo13", seats=("bob", "cy", "dee"), tournament="cup")
    for number in range(LIST_PAGE + 5):
        await play(store, f"new-{number}", 1_000 + number)
    assert [record.match_id for record in await store.list_matches("amigo13", "ann", 5)] == ["amigo-cup", "amigo-old"]
    both = await store.list_matches("amigo13", "ann", 5, tournament="cup")
    assert [record.match_id for record in both] == ["amigo-cup"]
    assert [record.match_id for record in await store.list_matches(bot="ann", limit=1)] == [f"new-{LIST_PAGE + 4}"]
    assert len(await store.list_matches(limit=LIST_PAGE + 9)) == LIST_PAGE + 9


async def test_matches_stored_before_the_tournament_index_are_indexed_once_on_first_listing(redis: Redis) -> None:
    earlier = Store(redis)
    await cup_then_others(earlier, others=3)
    # As an arena without the index left them: no tournament index, no mark.
    await redis.delete(keys.matches_of_tournament("cup"), keys.MATCHES_TOURNAMENT_INDEXED)
    store = Store(redis)
    assert [record.match_id for record in await store.list_matches(tournament="cup")] == ["cup-3", "cup-2", "cup-1"]
    assert await redis.exists(keys.MATCHES_TOURNAMENT_INDEXED)
    # Once marked, no node scans again: a match missing from the index stays missing.
    await redis.zrem(keys.matches_of_tournament("cup"), "cup-1")
    assert [record.match_id for record in await Store(redis).list_matches(tournament="cup")] == ["cup-3", "cup-2"]


async def test_pages_from_a_cursor_walk_the_whole_list_both_ways_past_a_page_of_unwanted_matches(
    redis: Redis,
) -> None:
    store = Store(redis)
    # Ann's amigo13 matches, with more than a read page of other matches between two of them.
    for number in range(7):
        await play(store, f"ann-{number}", 10 + number, game="amigo13")
    for number in range(LIST_PAGE + 3):
        await play(store, f"other-{number}", 100 + number, seats=("bob", "cy", "dee"))
    for number in range(7, 12):
        await play(store, f"ann-{number}", 10_000 + number, game="amigo13")
    everything = [record.match_id for record in await store.list_matches("amigo13", "ann", 100)]
    assert everything == [f"ann-{number}" for number in reversed(range(12))]
    # Older, page after page of 5, each from the last one's oldest match.
    pages, cursor = [], ""
    for _ in range(10):  # bounded: a cursor that does not move on would page forever
        if not (page := [record.match_id for record in await store.list_matches("amigo13", "ann", 5, before=cursor)]):
            break
        pages.append(page)
        cursor = page[-1]
    assert pages == [everything[0:5], everything[5:10], everything[10:12]]
    # Newer, from the oldest back to the newest, still newest first within a page.
    pages, cursor = [], everything[-1]
    for _ in range(10):
        if not (page := [record.match_id for record in await store.list_matches("amigo13", "ann", 5, after=cursor)]):
            break
        pages.append(page)
        cursor = page[0]
    assert pages == [everything[6:11], everything[1:6], everything[0:1]]
    # A match that arrives meanwhile does not shift an older page.
    await play(store, "ann-new", 20_000, game="amigo13")
    assert [record.match_id for record in await store.list_matches("amigo13", "ann", 5, before="ann-7")] == everything[
        5:10
    ]


async def test_a_cursor_outside_the_list_is_refused_with_what_to_do(redis: Redis) -> None:
    store = Store(redis)
    await cup_then_others(store, others=2)
    with pytest.raises(NotFound, match="no match 'm000001' in this list to page from; start again at the newest"):
        await store.list_matches(tournament="cup", before="m000001")
    with pytest.raises(StoreError, match="not both"):
        await store.list_matches(before="cup-1", after="cup-2")
