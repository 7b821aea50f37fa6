"""The ladder through a real server and Redis: queues, tables, rated matches, the matchmaker lock."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from arena.matchmaking import QualitySchedule
from arena.node.ladder import LadderConfig, LadderError, default_sizes, parse_sizes
from arena.node.tournaments import create_tournament
from arena.node.work import WorkConfig
from arena.store import Store, keys
from arena.store.ladder import LadderStore
from arena.store.store import now_ms
from arena.store.tournaments import TournamentStore
from arena.store.work import MatchOrder
from arena.tournaments import TournamentSpec
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import Arena, RandomBot, start_arena

pytestmark = pytest.mark.asyncio

FAST = LadderConfig(sizes={"friday13": 3}, interval=0.05)


@pytest_asyncio.fixture
async def ladder_arena(redis_url: str) -> AsyncIterator[Arena]:
    async with start_arena(redis_url, ladder=FAST) as started:
        yield started


async def until(condition: object, timeout: float = 20) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def ladder_matches(arena: Arena) -> list[object]:
    listed = await arena.api.ListMatches(api_pb.ListMatchesRequest(game="friday13", limit=500))
    return list(listed.matches)


async def test_three_ladder_bots_are_matched_and_play_rated_matches(ladder_arena: Arena) -> None:
    arena = ladder_arena
    tokens = await arena.bots("ann", "bea", "cy")
    for name in tokens:
        await arena.connect(RandomBot, tokens[name], max_matches=2, ladder=True, games=("friday13",))

    async def two_rated() -> bool:
        board = await arena.api.GetLeaderboard(api_pb.GetLeaderboardRequest(game="friday13"))
        return len(board.rows) == 3 and all(row.games >= 2 for row in board.rows)

    await until(two_rated)
    matches = await ladder_matches(arena)
    assert len(matches) >= 2
    for match in matches:
        assert sorted(match.seats) == ["ann", "bea", "cy"]  # type: ignore[attr-defined]
    board = await arena.api.GetLeaderboard(api_pb.GetLeaderboardRequest(game="friday13"))
    assert [row.rank for row in board.rows] == [1, 2, 3]
    assert all(row.conservative == pytest.approx(row.mu - 3 * row.sigma) for row in board.rows)
    history = await arena.api.GetRatingHistory(api_pb.GetRatingHistoryRequest(bot="ann", game="friday13"))
    assert len(history.points) >= 2 and history.points[0].games == 1


async def test_a_bot_is_never_seated_twice_at_a_table(ladder_arena: Arena) -> None:
    arena = ladder_arena
    tokens = await arena.bots("many", "other")
    await arena.connect(RandomBot, tokens["many"], max_matches=4, ladder=True, games=("friday13",))
    await arena.connect(RandomBot, tokens["other"], max_matches=4, ladder=True, games=("friday13",))

    async def queued() -> bool:
        queue = await arena.api.GetQueue(api_pb.GetQueueRequest(game="friday13"))
        return len(queue.queues[0].entries) == 8

    await until(queued)
    await asyncio.sleep(0.5)
    assert await ladder_matches(arena) == []


async def test_the_queue_shows_who_waits_and_a_bot_leaves_it_when_its_session_ends(ladder_arena: Arena) -> None:
    arena = ladder_arena
    tokens = await arena.bots("lonely")
    client = await arena.connect(RandomBot, tokens["lonely"], max_matches=2, ladder=True, games=("friday13",))

    async def entries() -> list[api_pb.QueueEntry]:
        queue = await arena.api.GetQueue(api_pb.GetQueueRequest())
        return [entry for q in queue.queues for entry in q.entries]

    async def waiting() -> bool:
        return len(await entries()) == 2

    await until(waiting)
    await asyncio.sleep(0.3)
    found = await entries()
    assert {entry.bot for entry in found} == {"lonely"} and all(entry.waited_seconds > 0.2 for entry in found)
    queue = await arena.api.GetQueue(api_pb.GetQueueRequest())
    assert [(q.game, q.table_size) for q in queue.queues] == [("friday13", 3)]
    client.stop()

    async def gone() -> bool:
        return not await entries()

    await until(gone, timeout=10)


async def test_one_matchmaker_per_game_holds_the_lock_until_it_lapses_or_is_released(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        store = LadderStore(redis)

        async def holds(node: str, game: str, ttl_ms: int = 10_000) -> bool:
            return game in await store.hold_locks(node, [game], ttl_ms, 10_000)

        # Long locks while checking who holds them (a busy machine must not let one lapse meanwhile);
        # a short one only where the test waits for it to lapse.
        first, second = await asyncio.gather(holds("node-a", "friday13"), holds("node-b", "friday13"))
        assert first != second
        holder, other = ("node-a", "node-b") if first else ("node-b", "node-a")
        assert await holds(holder, "friday13")
        assert not await holds(other, "friday13")
        assert not await store.release_lock("friday13", other)
        assert await store.lock_holder("friday13") == holder
        assert await holds(other, "amigo13")
        assert await holds(holder, "friday13", 100)  # renewed, for 0.1 s only
        await asyncio.sleep(0.3)
        assert await holds(other, "friday13")
        assert not await holds(holder, "friday13")
        assert await store.release_lock("friday13", other)
        assert await holds(holder, "friday13", 300)
    finally:
        await redis.aclose()


async def test_one_round_trip_marks_the_node_alive_and_says_which_queues_it_may_match(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        store = LadderStore(redis)
        pipe = redis.pipeline(transaction=False)
        for session in ("s1", "s2"):
            store.sync_session("amigo13", "bot", session, "node-a", 2, 2, 1.0, pipe)
        await pipe.execute()
        assert await store.living(["node-a", "node-b"]) == set()
        await redis.set(keys.ladder_lock("board13"), "node-b")
        held = await store.hold_locks("node-a", ["friday13", "amigo13", "board13"], 10_000, 60_000)
        assert held == {"friday13": 0, "amigo13": 4}  # board13's lock is node-b's
        assert await store.living(["node-a", "node-b"]) == {"node-a"}
        assert 50_000 < await redis.pttl(keys.ladder_node("node-a")) <= 60_000
        assert 5_000 < await redis.pttl(keys.ladder_lock("amigo13")) <= 10_000
        assert await redis.pttl(keys.ladder_lock("board13")) == -1  # another node's lock is left as it was
    finally:
        await redis.aclose()


async def test_a_matchmaker_on_another_node_sends_the_table_through_the_work_stream(redis_url: str) -> None:
    quick = WorkConfig(seat_wait=0.3)
    async with (
        start_arena(redis_url, ladder=FAST, work=quick) as node_a,
        start_arena(redis_url, ladder=FAST, work=quick) as node_b,
    ):
        assert node_a.server.ladder is not None and node_b.server.ladder is not None
        matchmaker, other = node_b.server.ladder, node_a.server.ladder

        async def taken_over() -> bool:
            # Node A's running matchmaker may take the lock again between the release and B's hold: retry.
            await other.store.release_lock("friday13", other.node)
            return "friday13" in await matchmaker.store.hold_locks(matchmaker.node, ["friday13"], 60_000, 10_000)

        await until(taken_over, timeout=10)
        tokens = await node_a.bots("x1", "x2", "x3")
        for name in tokens:
            await node_a.connect(RandomBot, tokens[name], max_matches=1, ladder=True, games=("friday13",))

        async def rated() -> bool:
            board = await node_a.api.GetLeaderboard(api_pb.GetLeaderboardRequest(game="friday13"))
            return len(board.rows) == 3

        await until(rated, timeout=30)
        assert await matchmaker.store.lock_holder("friday13") == matchmaker.node


async def test_tournament_matches_waiting_for_their_bots_come_before_new_ladder_tables(redis_url: str) -> None:
    """Bots on the ladder and in a tournament: while a tournament match waits for a bot's seat, the ladder
    starts no table with that bot, nor more tables than the bots have slots. Else every slot that frees
    goes to a ladder table as often as to the tournament, and its last matches wait for minutes (as
    `arena demo`'s did)."""
    anything = LadderConfig(sizes={"friday13": 3}, interval=0.05, schedule=QualitySchedule(start=0.0))
    names = ("t1", "t2", "t3")
    async with start_arena(redis_url, ladder=anything) as arena:
        tokens = await arena.bots(*names)
        for name in names:
            await arena.connect(RandomBot, tokens[name], max_matches=1, ladder=True, games=("friday13",))
        store = arena.server.store

        async def ladder_plays() -> bool:
            return len(await ladder_matches(arena)) >= 3

        await until(ladder_plays)
        spec = TournamentSpec("ladder-beside", "friday13", names, table_size=3, rounds=12, rated=True, seed="s")
        created = now_ms()
        await create_tournament(store, spec, "admin", admin=True)

        async def finished() -> bool:
            state = await TournamentStore(store.redis).get(spec.name)
            return state is not None and bool(state.finished_ms)

        await until(finished, timeout=60)
        state = await TournamentStore(store.redis).get(spec.name)
        assert state is not None
        during = [
            match.match_id
            for match in await store.list_matches(game="friday13", limit=1000)
            if not match.tournament_id and created <= match.started_ms <= state.finished_ms
        ]
        # One ladder table may have been on its way when the tournament's orders came.
        assert len(during) <= 1, f"the ladder started {len(during)} tables while 12 tournament matches waited"
        entries: list[tuple[bytes, dict[bytes, bytes]]] = await store.redis.xrange(keys.WORK)  # type: ignore[assignment]
        orders = [MatchOrder.from_json(fields[b"order"]) for _, fields in entries]
        assert all(order.attempts == 0 for order in orders), "an order was given back for want of a seat"


@pytest.mark.filterwarnings("ignore::pytest.PytestWarning")
def test_ladder_sizes_are_configurable_per_game_within_the_game_limits() -> None:
    assert parse_sizes([]) == default_sizes() == {"friday13": 4, "amigo13": 4, "board13": 2}
    assert parse_sizes(["friday13=6", "amigo13=3"])["friday13"] == 6
    for bad in ("friday13=7", "board13=3", "chess=2", "friday13", "amigo13=x"):
        with pytest.raises(LadderError):
            parse_sizes([bad])


@pytest.mark.parametrize("size", [3, 4])
async def test_ladder_balances_seats_and_neighbours_and_counts_every_match(redis_url: str, size: int) -> None:
    """The same bots matched again and again: the counts in Redis are exactly those of the matches
    played, and they stay balanced. At three seats a seating that varies the neighbours always
    repeats one bot's seat (only rotations of one order give each bot a new seat), so there a
    bot's seats may differ by 2 for a while."""
    # Any table is good enough at once: once ratings differ, the default schedule waits for a better one.
    anything = LadderConfig(sizes={"friday13": size}, interval=0.05, schedule=QualitySchedule(start=0.0))
    names = [f"s{number}" for number in range(size)]
    async with start_arena(redis_url, ladder=anything) as arena:
        tokens = await arena.bots(*names)
        for name in names:
            await arena.connect(RandomBot, tokens[name], max_matches=1, ladder=True, games=("friday13",))
        assert arena.server.ladder is not None
        store = arena.server.ladder.store

        async def twelve_played() -> bool:
            counts = await store.seat_counts("friday13", size, names)
            return all(sum(seats) >= 12 for seats in counts.values())

        await until(twelve_played, timeout=60)
    # The server has stopped, so no table starts between reading the matches and the counts.
    redis = Redis.from_url(redis_url)
    try:
        store = LadderStore(redis)
        stored = await Store(redis).list_matches(game="friday13", limit=1000)
        # A table is counted once its order is on the work stream; one submitted just before the server
        # stopped waits there for a node, not yet a stored match.
        entries: list[tuple[bytes, dict[bytes, bytes]]] = await redis.xrange(keys.WORK)  # type: ignore[assignment]
        orders = [MatchOrder.from_json(fields[b"order"]) for _, fields in entries]
        waiting = [order.seats for order in orders if order.match_id not in {record.match_id for record in stored}]
        assert len(waiting) <= 1, "each bot plays one match at a time: one table at most waits"
        played = [record.seats for record in stored] + waiting
        seats = await store.seat_counts("friday13", size, names)
        after = await store.neighbour_counts("friday13", size, [names])
    finally:
        await redis.aclose()
    assert all(len(set(bots)) == size for bots in played)
    assert seats == {name: tuple(sum(bots[seat] == name for bots in played) for seat in range(size)) for name in names}
    assert after == Counter((bots[seat - 1], bots[seat]) for bots in played for seat in range(size))
    assert all(max(counts) - min(counts) <= (2 if size == 3 else 1) for counts in seats.values()), seats
    pairs = [after.get((a, b), 0) for a in names for b in names if a != b]
    assert max(pairs) - min(pairs) <= 2, after


async def test_the_store_counts_who_sat_after_whom_per_table_size(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        store = LadderStore(redis)
        pipe = redis.pipeline(transaction=True)
        store.count_table("amigo13", ["a", "b", "c", "d"], pipe)
        store.count_table("amigo13", ["a", "b", "c", "d"], pipe)
        store.count_table("amigo13", ["c", "a", "b"], pipe)
        await pipe.execute()
        assert await redis.hget(keys.ladder_after("amigo13", 4), "d>a") == b"2"
        four = await store.neighbour_counts("amigo13", 4, [["a", "b", "c", "d"]])
        assert four == {("a", "b"): 2, ("b", "c"): 2, ("c", "d"): 2, ("d", "a"): 2}
        # A bot new to the ladder has no pairs and no seats yet; other table sizes keep their own counts.
        three = await store.neighbour_counts("amigo13", 3, [["a", "b", "c"], ["new", "a"]])
        assert three == {("c", "a"): 1, ("a", "b"): 1, ("b", "c"): 1}
        assert await store.seat_counts("amigo13", 4, ["a", "new"]) == {"a": (2, 0, 0, 0), "new": (0, 0, 0, 0)}
        assert await store.neighbour_counts("amigo13", 5, [["a", "b"]]) == {}
        assert await store.neighbour_counts("friday13", 4, [["a", "b", "c", "d"]]) == {}
        assert await store.neighbour_counts("amigo13", 4, []) == {}
    finally:
        await redis.aclose()
