"""Matches from the work stream on a real server: built-in and connected bots, resumed matches, tournaments."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from redis.asyncio import Redis

from arena.games import make_game
from arena.node.tournaments import TournamentProgress, create_tournament, live_table
from arena.node.work import WorkConfig, submit_match
from arena.store import MatchRecord, keys
from arena.store.tournaments import TournamentStore
from arena.store.work import EventBatch, MatchOrder, WorkQueue
from arena.tournaments import TournamentFormat, TournamentSpec
from tests.server.conftest import Arena, RandomBot, start_arena
from tests.waiting import until

FAST = WorkConfig(claim_idle=0.6, seat_wait=5.0)


async def wait_result(arena: Arena, match_id: str, timeout: float = 30) -> dict[str, Any]:
    queue = WorkQueue(arena.server.store.redis)
    for _ in range(int(timeout / 0.05)):
        if await queue.result(match_id) is not None:
            found = await arena.server.store.get_match(match_id)
            assert found is not None and found[1] is not None
            return found[1]
        await asyncio.sleep(0.05)
    raise TimeoutError(f"no result for {match_id}")


def replayed_outcome(record: dict[str, Any]) -> tuple[int, ...]:
    game = make_game(record["game"], **record["params"])
    return tuple(game.replay(record).outcome().scores)


@pytest.mark.asyncio
async def test_a_submitted_match_with_connected_and_builtin_bots_is_played_and_stored_once(redis_url: str) -> None:
    async with start_arena(redis_url, work=FAST) as arena:
        tokens = await arena.bots("w1", "w2")
        for token in tokens.values():
            await arena.connect(RandomBot, token)
        order = await submit_match(arena.server.store, "friday13", ["w1", "builtin:heuristic", "w2"])
        record = await wait_result(arena, order.match_id)
        assert record["seats"] == ["w1", "builtin:heuristic", "w2"]
        assert tuple(record["scores"]) == replayed_outcome(record)
        events = await WorkQueue(arena.server.store.redis).events(order.match_id)
        assert events.seed == order.seed == record["seed"]
        moves = [move for entry in record["rounds"] for move in entry["moves"]]
        assert len(events.actions) == len(moves)
        assert await WorkQueue(arena.server.store.redis).backlog() == 0


@pytest.mark.asyncio
async def test_a_dead_nodes_match_is_taken_over_and_resumed_from_its_events(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    dead = WorkQueue(redis, "dead-node")
    await dead.ensure_group()
    game = make_game("friday13", players=3)
    order = MatchOrder("m-resumed", "friday13", {"players": 3}, ("builtin:random",) * 3, "0a0b0c")
    await dead.submit([order])
    (delivery,) = await dead.read(1, block_ms=100)
    state = game.new_match(bytes.fromhex(order.seed))
    played = []
    for _ in range(10):
        action = state.legal_actions()[-1]
        played.append(action)
        state.apply(action)
    listed = MatchRecord(order.match_id, "friday13", {"players": 3}, list(order.seats), 1)
    await dead.started(delivery, listed, order.seed, True)
    await dead.append_events({order.match_id: EventBatch(delivery.entry_id, delivery.token, 0, played[:4])})
    await dead.append_events({order.match_id: EventBatch(delivery.entry_id, delivery.token, 4, played[4:])})
    try:
        async with start_arena(redis_url, work=FAST) as arena:
            record = await wait_result(arena, order.match_id)
        assert record["seed"] == order.seed
        texts = [game.action_text(action) for action in played]
        first_moves = [move for entry in record["rounds"] for move in entry["moves"]][: len(played)]
        for move, text in zip(first_moves, texts, strict=True):
            assert move["card"] in text
        assert tuple(record["scores"]) == replayed_outcome(record)
        assert await dead.keep([delivery.entry_id]) == set(), "acknowledged: neither kept nor taken over"
    finally:
        await redis.aclose()


@pytest.mark.asyncio
async def test_a_swiss_tournament_of_builtin_bots_plays_every_round_and_counts_each_match_once(redis_url: str) -> None:
    async with start_arena(redis_url, work=FAST) as arena:
        store = arena.server.store
        entrants = ("builtin:random", "builtin:heuristic", "builtin:mc")
        spec = TournamentSpec(
            "swiss-1", "friday13", entrants, format=TournamentFormat.SWISS, table_size=3, rounds=3, seed="s"
        )
        await create_tournament(store, spec, "admin", admin=True)
        tournaments = TournamentStore(store.redis)

        async def finished() -> bool:
            found = await tournaments.get("swiss-1")
            return found is not None and bool(found.finished_ms)

        async def stored() -> int:
            return await tournaments.results_stored("swiss-1")

        # Three rounds of mc, one after another: a loaded machine takes its time, a stalled one fails here.
        await until(finished, "the Swiss tournament finishes", timeout=60, progress=stored)
        state = await tournaments.get("swiss-1")
        assert state is not None
        assert state.finished_ms and state.rounds_planned == 3
        results = await tournaments.results("swiss-1")
        assert sorted(r.match_id for r in results) == [spec.match_id(n) for n in range(3)]
        table = await live_table(store, state)
        assert table.finished and {row.bot for row in table.rows} == set(spec.entrants)
        assert all(row.games == 3 for row in table.rows)
        # A second delivery of a finished match changes nothing.
        progress = TournamentProgress(store)
        await progress(MatchOrder(spec.match_id(0), "friday13", {}, (), "", tournament="swiss-1"), results[0])
        assert len(await tournaments.results("swiss-1")) == 3
        raw = await store.redis.hget(keys.tournament("swiss-1"), "spec")
        assert raw is not None and TournamentSpec.from_dict(json.loads(raw)) == spec


@pytest.mark.asyncio
async def test_a_stopping_node_hands_its_running_match_on_at_once(redis_url: str) -> None:
    # A long claim delay: the other node can only have the match at once if it was handed on.
    slow_claims = WorkConfig(claim_idle=60.0, seat_wait=5.0)
    seats = ["builtin:mc", "builtin:mc", "builtin:mc", "builtin:mc"]
    async with start_arena(redis_url, work=slow_claims) as first:
        order = await submit_match(first.server.store, "friday13", seats, seed="1234")
        queue = WorkQueue(first.server.store.redis)
        for _ in range(200):
            if len((await queue.events(order.match_id)).actions) >= 3:
                break
            await asyncio.sleep(0.05)
        async with start_arena(redis_url, work=slow_claims) as second:
            await first_stop(first)
            stopped = asyncio.get_running_loop().time()
            while order.match_id not in second.server.host.live:
                assert await queue.result(order.match_id) is None, "the stopping node did not finish it"
                # Well before a claim could take it (a second when quiet; room for a loaded machine).
                if asyncio.get_running_loop().time() - stopped >= slow_claims.claim_idle / 6:
                    pytest.fail(f"not handed on: {await whereabouts(queue, order.match_id, first, second)}")
                await asyncio.sleep(0.01)
            record = await wait_result(second, order.match_id, timeout=120)
    assert record["termination"] == "normal"
    assert await queue_result_count(redis_url, order.match_id) == 1


async def whereabouts(queue: WorkQueue, match_id: str, *nodes: Arena) -> str:
    """Where the order of `match_id` is, in words: its stream entries, who holds them, what each node runs."""
    stream: Any = await queue.redis.xrange(keys.WORK)
    entries = [
        entry_id.decode() for entry_id, fields in stream if MatchOrder.from_json(fields[b"order"]).match_id == match_id
    ]
    listed: Any = await queue.redis.xpending_range(keys.WORK, keys.WORK_GROUP, "-", "+", 100)
    pending = {
        item["message_id"].decode(): (item["consumer"].decode(), item["time_since_delivered"]) for item in listed
    }
    held = {entry: pending.get(entry, "not delivered") for entry in entries}
    running = [
        (node.server.work.consumer, [delivery.order.match_id for delivery, _ in node.server.work.running.values()])
        for node in nodes
        if node.server.work is not None
    ]
    return f"entries (holder, idle ms) {held}; running {running}"


async def first_stop(arena: Arena) -> None:
    """Stop a node's work host as its server's stop does (SIGTERM)."""
    assert arena.server.work is not None
    await arena.server.work.stop()


async def queue_result_count(redis_url: str, match_id: str) -> int:
    redis = Redis.from_url(redis_url)
    try:
        return int(await redis.hexists(keys.WORK_RESULTS, match_id)) + int(await redis.xlen(keys.WORK))
    finally:
        await redis.aclose()
