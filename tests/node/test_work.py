"""The node's share of the work stream (arena.node.work): a WorkHost on a MatchHost and a real Redis, no
gRPC; bots are sessions of the node's own registry (or of a relay node) answered in this process."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from arena.games import make_game
from arena.games.base import Termination
from arena.match import Clock
from arena.node import work as work_module
from arena.node.builtin_pool import BuiltinPool, PoolConfig
from arena.node.matches import MatchHost
from arena.node.sessions import Limits, SessionRegistry
from arena.node.work import MAX_BOUNCES, WorkConfig, WorkHost, submit_match
from arena.ratings import ResultRecord
from arena.store import MatchRecord, Store, keys
from arena.store.tournaments import TournamentStore
from arena.store.work import EventBatch, MatchEvents, MatchOrder, WorkQueue
from tests.node.conftest import SLACK, BotDriver, RelayNode, hello
from tests.waiting import until

pytestmark = pytest.mark.asyncio

GAME = make_game("friday13", players=3)
SEATS = ("ann", "bob", "cy")
ROOMY = Clock(per_move=5.0, bank=10.0)
"""No honest in-process bot runs out of it, however loaded the machine."""
CONFIG = WorkConfig(slots=4, claim_idle=30.0, seat_wait=SLACK, flush_interval=0.02)
"""A claim delay no test waits out unless it is about claims: nothing is taken over by accident."""


class WorkNode:
    """One node's runtime for the work stream: sessions, a match host and its work host, as app.py wires them."""

    def __init__(self, redis: Redis, name: str, config: WorkConfig) -> None:
        self.store = Store(redis)
        self.registry = SessionRegistry(Limits(grace=60.0))
        self.host = MatchHost(self.store, self.registry, ROOMY, BuiltinPool(PoolConfig(workers=1)))
        self.work = WorkHost(self.store, self.host, dataclasses.replace(config, node=name, incarnation="1"))
        self.registry.on_change = self.work.seats_changed  # a session opened: waiting matches look again
        self.bots: dict[str, BotDriver] = {}
        self.started = False

    def connect(self, bot: str, answering: bool = True, games: tuple[str, ...] = ("friday13",)) -> BotDriver:
        session, _ = self.registry.open(bot, hello(*games))
        self.bots[bot] = BotDriver(self.registry, session, answering).connect()
        return self.bots[bot]

    async def start(self) -> WorkNode:
        await self.work.start()
        self.started = True
        return self

    async def stop(self) -> None:
        if self.started:
            self.started = False
            await self.work.stop()
            await self.host.shutdown()
        for bot in self.bots.values():
            await bot.stop()

    def playing(self) -> list[MatchOrder]:
        """The orders this node runs now, as it received them."""
        return [delivery.order for delivery, _ in self.work.running.values()]


@pytest_asyncio.fixture
async def work_nodes(redis: Redis) -> AsyncIterator[Callable[..., WorkNode]]:
    """Makes work nodes on the test's Redis: work_nodes(name, config=CONFIG); stops them after the test."""
    made: list[WorkNode] = []

    def make(name: str, config: WorkConfig = CONFIG) -> WorkNode:
        node = WorkNode(redis, name, config)
        made.append(node)
        return node

    try:
        yield make
    finally:
        for node in made:
            await node.stop()


async def stored(redis: Redis, match_id: str, timeout: float = 60.0) -> ResultRecord:
    """The match's result, once a node stored it."""
    queue = WorkQueue(redis)

    async def done() -> bool:
        return await queue.result(match_id) is not None

    await until(done, f"match {match_id} is stored", timeout=timeout)
    result = await queue.result(match_id)
    assert result is not None
    return result


async def summary(store: Store, match_id: str) -> MatchRecord:
    found = await store.get_match(match_id)
    assert found is not None
    return found[0]


def replayed(seed: str, actions: list[int]) -> tuple[int, ...]:
    """The scores the actions of an event stream reach from the seed: every move is there, in order."""
    state = GAME.new_match(bytes.fromhex(seed))
    for action in actions:
        state.apply(action)
    assert state.is_terminal(), f"{len(actions)} actions do not end the match"
    return state.outcome().scores


def requests(*bots: BotDriver) -> int:
    return sum(len(bot.of_kind("action_request")) for bot in bots)


async def events_written(redis: Redis, match_id: str, count: int) -> None:
    queue = WorkQueue(redis)

    async def written() -> bool:
        return len((await queue.events(match_id)).actions) == count

    await until(written, f"{count} actions of {match_id} in its event stream", timeout=SLACK)


async def test_a_match_of_connected_bots_is_played_here_written_move_by_move_and_stored_once(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    node = work_nodes("node-a")
    bots = [node.connect(name) for name in SEATS]
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, seed="0a0b0c", clock=ROOMY)
    result = await stored(redis, order.match_id)
    assert result.termination == Termination.NORMAL and result.seats == SEATS
    events = await WorkQueue(redis).events(order.match_id)
    assert events.seed == "0a0b0c" and replayed(events.seed, events.actions) == result.scores
    assert len(events.actions) == requests(*bots), "every move the bots made, once"
    # What a node delivered this order again finds, in one read: the result (so it does not play it) and the stream.
    assert await WorkQueue(redis).found(order.match_id) == (result, events)
    assert await WorkQueue(redis).found("m-never-ordered") == (None, MatchEvents())
    record = await summary(node.store, order.match_id)
    assert record.node == node.work.consumer == "node-a#1" and record.termination == Termination.NORMAL
    for bot in bots:
        (ended,) = await bot.received_kind("match_ended")
        assert tuple(ended.scores) == result.scores

    async def settled() -> bool:
        free = all(not bot.session.matches for bot in bots)
        return free and not node.work.running and not node.host.live and await WorkQueue(redis).backlog() == 0

    await until(settled, "the order is acknowledged and every seat free", timeout=SLACK)


async def test_a_work_host_whose_order_was_claimed_writes_nothing_more_for_it_and_stops_it(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    node = work_nodes("node-a")
    ann = node.connect("ann", answering=False)
    others = [node.connect(name) for name in SEATS[1:]]
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, seed="0a0b0c", clock=Clock(60.0, 0.0))
    (held,) = await ann.received_kind("action_request")
    before = requests(*others)  # each answered and applied: the match waits for ann now
    await events_written(redis, order.match_id, before)

    # Another node takes the order over (this one looked dead), as its claim loop does.
    (taken,) = await WorkQueue(redis, "node-b#1").claim_stale(0)
    assert taken.order.match_id == order.match_id and taken.token == 2
    ann.answer(held)  # the match moves on here: its next write is refused

    async def stopped() -> bool:
        return order.match_id not in node.host.live and not node.work.running

    await until(stopped, "the match stops on the node that lost its order", timeout=SLACK)
    assert len((await WorkQueue(redis).events(order.match_id)).actions) == before, "nothing written after the claim"
    assert await WorkQueue(redis).result(order.match_id) is None
    pending: Any = await redis.xpending_range(keys.WORK, keys.WORK_GROUP, min="-", max="+", count=10)
    assert [(p["consumer"], p["times_delivered"]) for p in pending] == [(b"node-b#1", 2)], "left to its new holder"
    assert all(not bot.session.matches for bot in (ann, *others)), "its seats are free here"


async def test_a_stopping_work_host_hands_its_match_on_and_another_resumes_it_from_its_events(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    first, second = work_nodes("node-a"), work_nodes("node-b")
    held = first.connect("ann", answering=False)
    first_bots = [first.connect(name) for name in SEATS[1:]]
    # On node-b, ann holds her first answer too: the resumed match stays under way until the test looks at it.
    second_bots = [second.connect(name, answering=name != "ann") for name in SEATS]
    await first.start()
    order = await submit_match(first.store, "friday13", SEATS, seed="0a0b0c", clock=Clock(60.0, 0.0))
    await held.received_kind("action_request")
    played = requests(*first_bots)
    await first.stop()
    await events_written(redis, order.match_id, played)
    assert await WorkQueue(redis).result(order.match_id) is None

    await second.start()

    # Ann was asked when node-a stopped: node-b resumes the match by asking her again.
    asked = (await second_bots[0].received_kind("action_request"))[-1]
    assert order.match_id in second.host.live
    ((delivery, _),) = second.work.running.values()
    assert delivery.token == 1, "handed on as a new entry of the stream, not claimed after the claim delay"
    assert (delivery.order.attempts, delivery.order.bounces) == (0, 0), "a hand-on counts no failed attempt"
    second_bots[0].answering = True
    second_bots[0].answer(asked)
    result = await stored(redis, order.match_id)
    events = await WorkQueue(redis).events(order.match_id)
    assert replayed(events.seed, events.actions) == result.scores and result.termination == Termination.NORMAL
    assert requests(*second_bots) == len(events.actions) - played, "resumed from its events, not played again"
    assert (await summary(second.store, order.match_id)).node == "node-b#1"
    assert result.forfeited == (), "no strike for the held answer: the match moved with its order"


async def test_an_order_written_while_a_work_host_stops_is_not_held_by_the_stopped_node(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    # The read loop used to be cancelled inside its XREADGROUP, which stayed blocked in Redis until its
    # connection closed: an order written then (by another node, or one the stop handed on) went to the
    # stopped consumer and waited out the claim delay (try 13 of 100 failed so). The window is short, so
    # the stop is tried many times.
    store = Store(redis)
    for attempt in range(100):
        node = work_nodes(f"node-{attempt}")
        await node.start()
        await asyncio.sleep(0.01)  # its read is blocked in Redis now
        stopping = asyncio.get_running_loop().time()
        stop = asyncio.create_task(node.work.stop())
        await asyncio.sleep(0)  # the stop has begun: another node's order comes now
        order = await submit_match(store, "friday13", SEATS, seed="0a0b0c")
        await stop
        stopped = asyncio.get_running_loop().time() - stopping
        assert stopped < SLACK, f"try {attempt}: the stop took {stopped:.1f} s"
        await node.stop()
        held: Any = await redis.xpending_range(keys.WORK, keys.WORK_GROUP, "-", "+", 10)
        assert not held, f"try {attempt}: order {order.match_id} went to the stopped node: {held}"
        stream: Any = await redis.xrange(keys.WORK)
        assert [MatchOrder.from_json(fields[b"order"]) for _, fields in stream] == [order], "on the stream once"
        await redis.delete(keys.WORK)  # the next node reads only its own try's order


async def blocked_reader(redis: Redis, not_id: int | None = None) -> int:
    """The id of the client blocked in XREADGROUP (a work host's read loop), other than `not_id`."""
    found: list[int] = []

    async def blocked() -> bool:
        clients: Any = await redis.client_list()
        found[:] = [int(c["id"]) for c in clients if c["cmd"] == "xreadgroup" and int(c["id"]) != not_id]
        return bool(found)

    await until(blocked, "the read loop is blocked in XREADGROUP", timeout=SLACK)
    return found[0]


async def test_a_read_loop_whose_connection_was_killed_reads_on_a_new_one_whose_id_the_stop_unblocks(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    """The read loop's client id is learnt when its connection is made, not before each read: after its
    connection is killed under a blocked read, the id `stop` unblocks is the new connection's."""
    node = work_nodes("node-a")
    await node.start()
    for _ in range(3):
        first = await blocked_reader(redis)
        assert node.work._reader_id == first
        await redis.client_kill_filter(_id=str(first))
        second = await blocked_reader(redis, not_id=first)  # reading again, on a new connection
        assert node.work._reader_id == second, "the id of the connection now blocked"
    await node.work.stop()
    gone: Any = await redis.client_list()
    assert not [client for client in gone if client["cmd"] == "xreadgroup" and client["flags"] == "b"]


async def test_the_read_loops_client_id_follows_a_connection_redis_py_makes_again_in_place(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    """redis-py makes a broken connection again inside the same client (a retry, a failed health check): the
    id `stop` unblocks must be the new connection's, though no read asked for it."""
    work = work_nodes("node-a").work
    reader = redis.client()
    try:
        await work._connect_reader(reader)
        first = await reader.client_id()
        assert work._reader_id == first
        connection: Any = reader.connection
        await connection.disconnect()
        await reader.ping()  # connects again, in place
        assert await reader.client_id() != first
        assert work._reader_id == await reader.client_id(), "the id of the connection made again"
    finally:
        await reader.aclose()


async def test_a_dead_nodes_order_is_claimed_after_the_claim_delay_and_resumed_from_its_events(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    store = Store(redis)
    dead = WorkQueue(redis, "node-dead#1")
    await dead.ensure_group()
    order = await submit_match(store, "friday13", SEATS, seed="0a0b0c", clock=ROOMY)
    (delivery,) = await dead.read(1, block_ms=100)
    state = GAME.new_match(bytes.fromhex(order.seed))
    before = []
    for _ in range(5):
        before.append(state.legal_actions()[-1])
        state.apply(before[-1])
    await dead.started(delivery, MatchRecord(order.match_id, "friday13", {}, list(SEATS), 1), order.seed, True)
    await dead.append_events({order.match_id: EventBatch(delivery.entry_id, delivery.token, 0, before)})

    claim_idle = 0.5
    node = work_nodes("node-a", dataclasses.replace(CONFIG, claim_idle=claim_idle))
    bots = [node.connect(name) for name in SEATS]
    began = asyncio.get_running_loop().time()
    await node.start()
    result = await stored(redis, order.match_id, timeout=2 * claim_idle + SLACK)
    assert asyncio.get_running_loop().time() - began >= claim_idle, "not before the claim delay"
    events = await WorkQueue(redis).events(order.match_id)
    assert events.actions[:5] == before and replayed(events.seed, events.actions) == result.scores
    assert requests(*bots) == len(events.actions) - 5
    assert (await summary(store, order.match_id)).node == "node-a#1"
    assert await dead.keep([delivery.entry_id]) == set(), "acknowledged by its new holder"


async def test_a_match_waits_for_its_bot_and_starts_as_soon_as_the_bot_connects(
    redis: Redis, work_nodes: Callable[..., WorkNode], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Looks for the bot so seldom that only the wake of a session opening can start the match in time.
    monkeypatch.setattr(work_module, "SEAT_LOOK_MIN", 600.0)
    monkeypatch.setattr(work_module, "SEAT_LOOK_MAX", 600.0)
    node = work_nodes("node-a", dataclasses.replace(CONFIG, seat_wait=600.0))
    for name in SEATS[1:]:
        node.connect(name)
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, seed="0a0b0c", clock=ROOMY)

    async def waiting() -> bool:
        return order.match_id in node.work._seat_waits

    await until(waiting, "the match waits for ann", timeout=SLACK)
    assert order.match_id not in node.host.live
    node.connect("ann")
    result = await stored(redis, order.match_id, timeout=SLACK)
    assert result.termination == Termination.NORMAL and result.forfeited == ()


async def test_an_order_whose_bot_never_connects_is_given_back_then_stored_aborted_with_the_reason(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    seat_wait = 0.2
    node = work_nodes("node-a", dataclasses.replace(CONFIG, seat_wait=seat_wait, max_attempts=2))
    for name in SEATS[1:]:
        node.connect(name)
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, tournament="t-unit")
    result = await stored(redis, order.match_id, timeout=2 * seat_wait + SLACK)
    assert result.termination == Termination.ABORTED
    reason = await TournamentStore(redis).noted_reason("t-unit", order.match_id)
    assert reason == "never started: bot 'ann' is not connected"
    assert (await summary(node.store, order.match_id)).termination == Termination.ABORTED
    assert await WorkQueue(redis).backlog() == 0, "the last attempt's order is acknowledged"
    assert all(not bot.session.matches for bot in node.bots.values())


async def test_an_order_its_bot_cannot_play_is_stored_aborted_at_once_with_the_reason(
    redis: Redis, work_nodes: Callable[..., WorkNode]
) -> None:
    node = work_nodes("node-a", dataclasses.replace(CONFIG, seat_wait=600.0))
    node.connect("ann", games=("amigo13",))
    for name in SEATS[1:]:
        node.connect(name)
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, tournament="t-unit")
    result = await stored(redis, order.match_id, timeout=SLACK)  # not the seat wait: it can never play
    assert result.termination == Termination.ABORTED
    reason = await TournamentStore(redis).noted_reason("t-unit", order.match_id)
    assert reason == "cannot be played: bot 'ann' does not play friday13 (its Hello names amigo13)"


async def test_an_order_goes_back_for_the_node_that_serves_more_of_its_bots_and_is_played_after_three_bounces(
    redis: Redis, work_nodes: Callable[..., WorkNode], nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1")
    bots = [serving.connect(name) for name in SEATS]
    serving.start()
    node = work_nodes("node-a")
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, seed="0a0b0c", clock=ROOMY)

    async def seated() -> bool:
        return order.match_id in node.host.live

    # No node but this one reads the stream here: it hands the order on, reads it back, and plays it
    # through the relay once it has gone round MAX_BOUNCES times.
    await until(seated, "the match is seated", timeout=SLACK)
    (playing,) = node.playing()
    assert playing.bounces == MAX_BOUNCES and playing.attempts == 0
    result = await stored(redis, order.match_id)
    assert result.termination == Termination.NORMAL
    assert requests(*bots) == len((await WorkQueue(redis).events(order.match_id)).actions)


async def test_an_order_is_played_where_it_is_read_when_no_node_serves_more_of_its_bots(
    redis: Redis, work_nodes: Callable[..., WorkNode], nodes: Callable[..., RelayNode]
) -> None:
    node = work_nodes("node-a")
    ann = node.connect("ann")
    bob = nodes("node-b#1")
    cy = nodes("node-c#1")
    remote = [bob.connect("bob"), cy.connect("cy")]
    bob.start()
    cy.start()
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, seed="0a0b0c", clock=ROOMY)

    async def seated() -> bool:
        return order.match_id in node.host.live

    await until(seated, "the match is seated", timeout=SLACK)
    (playing,) = node.playing()
    assert playing.bounces == 0, "one bot here, one on each other node: no node serves more"
    result = await stored(redis, order.match_id)
    assert result.termination == Termination.NORMAL
    assert requests(ann, *remote) == len((await WorkQueue(redis).events(order.match_id)).actions)
    assert (await summary(node.store, order.match_id)).node == "node-a#1"


async def test_a_node_starved_between_keeping_and_claiming_does_not_claim_its_own_running_match(
    redis: Redis, work_nodes: Callable[..., WorkNode], caplog: pytest.LogCaptureFixture
) -> None:
    config = dataclasses.replace(CONFIG, claim_idle=0.6)
    node = work_nodes("node-a", config)
    bots = [node.connect(name, answering=False) for name in SEATS]
    await node.start()
    order = await submit_match(node.store, "friday13", SEATS, seed="0a0b0c", clock=ROOMY)

    async def asked() -> bool:
        return requests(*bots) > 0

    await until(asked, "the match runs here and asks its first seat", timeout=SLACK)
    keep, stalls = node.work.queue.keep, list[Sequence[str]]()

    async def keep_then_starve(entry_ids: Sequence[str]) -> set[str]:
        lost = await keep(entry_ids)
        if entry_ids and not stalls:
            stalls.append(entry_ids)
            time.sleep(config.claim_idle * 2)  # the whole process starved of CPU: its loop runs nothing
        return lost

    node.work.queue.keep = keep_then_starve  # type: ignore[method-assign]

    async def stalled() -> bool:
        return bool(stalls)

    await until(stalled, "the node stalls after keeping its order", timeout=SLACK)
    await asyncio.sleep(config.claim_idle)  # two more rounds of keeping and claiming
    (pending,) = await redis.xpending_range(keys.WORK, keys.WORK_GROUP, "-", "+", 10)
    assert pending["times_delivered"] == 1, "claimed by the node that runs it: its own writes would be refused"
    for bot in bots:
        bot.answering = True
        for request in bot.of_kind("action_request"):
            bot.answer(request)
    result = await stored(redis, order.match_id)
    assert result.termination == Termination.NORMAL
    assert "taken over" not in caplog.text
