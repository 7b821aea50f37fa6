"""Seats across nodes (arena.node.relay): a RelaySeat of a match hosted on one node and the Relay of the
node serving the bot's session, on a real Redis; each node is a Relay with its own SessionRegistry.

A node "dies" here as it does in a fleet, as far as the relay can tell: its Relay stops reading and
beating (its task is cancelled) and its heartbeat lapses (the key is deleted, as its expiry would).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from arena.bots import make_bot
from arena.games import make_game
from arena.games.base import Termination
from arena.match import Clock, MatchEnd, MatchInfo, MatchRunner, MoveRequest, SeatGone, SeatLost, SeatTimeout
from arena.match.seats import BotSeat
from arena.node import relay as relay_module
from arena.node.builtin_pool import BuiltinPool, PoolConfig, PooledBotSeat
from arena.node.matches import MatchHost
from arena.node.relay import RelaySeat, find_sessions
from arena.node.remote_seat import RemoteSeat
from arena.node.sessions import Limits, SessionRegistry
from arena.store import Store, keys
from arena.store.relay import INBOX_TRIMMED, Answer, Post, PostKind, RelayStore, RemoteSession
from arena.v1 import bot_service_pb2 as bot_pb
from arena.wire import convert
from tests.node.conftest import SLACK, BotDriver, RelayNode, hello
from tests.waiting import until

pytestmark = pytest.mark.asyncio

GAME = make_game("friday13", players=3)
HOST = "node-a#1"
ROOMY = 30.0
"""Seconds a move may take where the test is not about lateness."""
ASK = 1.5
"""Seconds a move may take where the serving node dies under it: the bot found again is asked anew with
as long to answer over the relay, enough on a loaded machine."""


async def remote_of(redis: Redis, bot: str) -> RemoteSession:
    """The bot's session as a host (HOST) finds it: stated by a living node."""

    async def stated() -> bool:
        return bot in await find_sessions(redis, [bot], HOST, alive=True)

    await until(stated, f"a node states {bot}'s session", timeout=SLACK)
    return (await find_sessions(redis, [bot], HOST, alive=True))[bot]


def info(seat: int = 0) -> MatchInfo:
    return MatchInfo("m1", GAME, seat, ("ann", "bob", "cy"), "c0ffee", Clock(ROOMY, 0.0))


def seat_of(redis: Redis, remote: RemoteSession, grace: float = 10.0) -> RelaySeat:
    return RelaySeat(redis, remote, "m1", 0, GAME, convert.encoder_for(GAME), host=HOST, grace=grace)


def move(time_left: float = ROOMY, number: int = 1) -> MoveRequest:
    state = GAME.new_match(b"seed")
    for _ in range(number - 1):
        state.apply(state.legal_actions()[0])
    return MoveRequest(number, state, state.current_player(), time_left)


async def under_clock(seat: RelaySeat, request: MoveRequest) -> int:
    """`seat.request`, timed as the match runner times it: a pause the seat tells moves the deadline on."""
    async with asyncio.timeout(request.time_left) as budget:
        request.extend = lambda seconds: budget.reschedule((budget.when() or 0.0) + seconds)
        return await seat.request(request)


async def test_a_relayed_seat_is_told_its_match_asks_and_takes_the_answers_through_the_serving_node(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann")
    serving.start()
    remote = await remote_of(redis, "ann")
    assert (remote.node, remote.session_id, remote.games) == ("node-b#1", bot.session.id, ("friday13",))
    seat = seat_of(redis, remote)
    await seat.start(info())
    (started,) = await bot.received_kind("match_started")
    assert (started.match_id, started.seat, started.seed_commitment) == ("m1", 0, "c0ffee")
    assert bot.session.matches == {"m1"} and bot.session.started["m1"] == started
    assert serving.relay.hosted_elsewhere == {(bot.session.id, "m1"): HOST}

    for number in (1, 2):
        asked = move(number=number)
        action = await asyncio.wait_for(seat.request(asked), SLACK)
        request = bot.of_kind("action_request")[number - 1]
        assert action == request.legal_actions[0].id == asked.legal_actions[0]
        assert request.match_id == "m1" and request.time_left_ms == int(ROOMY * 1000)
    assert bot.session.pending == {}

    await seat.end(MatchEnd("m1", (1, 2, 3), (1, 2, 3), Termination.NORMAL, b"seed"))
    (ended,) = await bot.received_kind("match_ended")
    assert list(ended.scores) == [1, 2, 3] and ended.seed == b"seed".hex()
    assert bot.session.matches == set() and bot.session.started == {}, "the session's seat is free again"
    assert serving.relay.hosted_elsewhere == {}
    assert await redis.pttl(keys.match_replies("m1", 0)) > 0, "the reply stream goes with its match"


async def test_a_late_relayed_answer_is_a_strike_told_to_the_bot_and_never_taken_for_a_later_request(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann", answering=False)
    serving.start()
    seat = seat_of(redis, await remote_of(redis, "ann"))
    await seat.start(info())
    first = move(time_left=0.2)
    began = asyncio.get_running_loop().time()
    with pytest.raises(SeatTimeout, match=r"no answer within 0\.200 s"):
        await asyncio.wait_for(seat.request(first), SLACK)
    assert asyncio.get_running_loop().time() - began >= 0.2, "the host's clock ruled: not before it ran out"
    await seat.reject(first, "strike 1 of 3: no answer within 0.200 s")
    (strike,) = await bot.received_kind("error")
    assert (strike.code, strike.match_id) == (bot_pb.ERROR_CODE_LATE, "m1")

    # The answer to the first request lands on the reply stream late, as the serving node writes it.
    await RelayStore(redis).reply("m1", 0, Answer(1, 12345))
    bot.answering = True
    second = move(number=2)
    assert await asyncio.wait_for(seat.request(second), SLACK) == second.legal_actions[0] != 12345


async def test_an_answer_after_the_serving_node_stopped_waiting_is_refused_to_the_bot_and_never_relayed(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann", answering=False)
    serving.start()
    seat = seat_of(redis, await remote_of(redis, "ann"))
    await seat.start(info())
    with pytest.raises(SeatTimeout):
        await asyncio.wait_for(seat.request(move(time_left=0.1)), SLACK)
    (late,) = bot.of_kind("action_request")

    async def given_up() -> bool:
        return not bot.session.pending

    # The serving node waits the request's time and a second more (for the reply's way back), then forgets it.
    await until(given_up, "the serving node stops waiting for the answer", timeout=0.1 + 1.0 + SLACK)
    bot.answer(late)
    (refused,) = await bot.received_kind("error")
    assert (refused.code, refused.request_id) == (bot_pb.ERROR_CODE_UNKNOWN_REQUEST, late.request_id)
    assert await RelayStore(redis).read_replies("m1", 0, "0-0", block_ms=1) == []


async def test_a_relayed_request_whose_session_ends_is_answered_gone_and_the_seat_forfeits(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    grace = 0.2
    serving = nodes("node-b#1", grace=grace)
    bot = serving.connect("ann", answering=False)
    serving.start()
    seat = seat_of(redis, await remote_of(redis, "ann"))
    await seat.start(info())
    asking = asyncio.create_task(seat.request(move()))
    await bot.received_kind("action_request")
    bot.disconnect()  # and never resumed
    with pytest.raises(SeatGone, match="its stream was lost and it did not resume within the grace period"):
        await asyncio.wait_for(asking, grace + SLACK)


async def test_a_post_written_twice_is_delivered_once_and_a_new_host_incarnation_numbers_from_one(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann")
    serving.start()
    store = RelayStore(redis)
    session = bot.session.id

    def started(host: str, number: int) -> Post:
        message = bot_pb.ConnectResponse(match_started=bot_pb.MatchStarted(match_id="m1"))
        return Post(PostKind.START, "m1", 0, number, host, message)

    def error(host: str, number: int, text: str) -> Post:
        message = bot_pb.ConnectResponse(error=bot_pb.Error(message=text, match_id="m1"))
        return Post(PostKind.ERROR, "m1", 0, number, host, message)

    await store.post(session, started(HOST, 1))
    await store.post(session, started(HOST, 1))  # a retry after a lost reply
    await store.post(session, error(HOST, 2, "strike 1"))
    await store.post(session, error(HOST, 2, "strike 1"))
    await store.post(session, error(HOST, 1, "an old post"))
    # The host died; node-c resumed the match, a new incarnation numbering its own posts from 1.
    await store.post(session, started("node-c#1", 1))
    await store.post(session, error("node-c#1", 2, "strike 2"))
    await bot.received_kind("error", 2)
    assert [e.message for e in bot.of_kind("error")] == ["strike 1", "strike 2"]
    assert len(bot.of_kind("match_started")) == 2
    assert serving.relay.hosted_elsewhere == {(session, "m1"): "node-c#1"}


async def test_a_serving_node_trims_an_inbox_once_it_delivered_a_batch_of_it(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann")
    serving.start()
    store = RelayStore(redis)
    inbox = keys.session_inbox(bot.session.id)

    async def post_errors(first: int, count: int) -> None:
        for number in range(first, first + count):
            message = bot_pb.ConnectResponse(error=bot_pb.Error(message=str(number), match_id="m1"))
            await store.post(bot.session.id, Post(PostKind.ERROR, "m1", 0, number, HOST, message))

    await post_errors(1, INBOX_TRIMMED - 1)
    await bot.received_kind("error", INBOX_TRIMMED - 1)
    assert await redis.xlen(inbox) == INBOX_TRIMMED - 1, "not trimmed before a whole batch was delivered"
    await post_errors(INBOX_TRIMMED, 1)

    async def trimmed() -> bool:
        return int(await redis.xlen(inbox)) == 1

    await until(trimmed, "the inbox is trimmed to the entry read last", timeout=SLACK)
    received = await bot.received_kind("error", INBOX_TRIMMED)  # handed to the session: on its stream soon after
    assert [int(e.message) for e in received] == list(range(1, INBOX_TRIMMED + 1))


async def test_a_serving_node_states_its_live_sessions_but_not_exclusive_ones_and_drops_ended_ones(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1")
    serving.registry.exclusive_launches.add("launch-v2")
    ann = serving.connect("ann")
    validating, _ = serving.registry.open("bob", hello("friday13"), launch="launch-v2")
    serving.start()
    assert (await remote_of(redis, "ann")).session_id == ann.session.id
    assert await find_sessions(redis, ["bob"], HOST) == {}, "a session started for one match is not offered"
    assert validating.exclusive
    await RelayStore(redis).post(
        ann.session.id,
        Post(PostKind.START, "m1", 0, 1, HOST, bot_pb.ConnectResponse(match_started=bot_pb.MatchStarted())),
    )
    serving.registry.expire(ann.session)

    async def dropped() -> bool:
        return not await redis.exists(keys.session_inbox(ann.session.id)) and not await find_sessions(
            redis, ["ann"], HOST
        )

    await until(dropped, "the ended session's presence and inbox go at the next refresh", timeout=2.0 + SLACK)


async def test_seats_that_dead_hosts_held_on_a_serving_node_are_freed_unless_the_node_plays_the_match(
    redis: Redis, nodes: Callable[..., RelayNode]
) -> None:
    serving = nodes("node-b#1", playing_here=lambda match_id: match_id == "m-resumed-here")
    bot = serving.connect("ann")
    serving.start()
    store = RelayStore(redis)
    await store.refresh(HOST, {}, [])  # the living host beats
    for number, (match_id, host) in enumerate(
        [("m-alive", HOST), ("m-dead", "node-dead#1"), ("m-resumed-here", "node-dead#1")], start=1
    ):
        message = bot_pb.ConnectResponse(match_started=bot_pb.MatchStarted(match_id=match_id))
        await store.post(bot.session.id, Post(PostKind.START, match_id, 0, number, host, message))
    await bot.received_kind("match_started", 3)
    assert bot.session.matches == {"m-alive", "m-dead", "m-resumed-here"}

    # What the refresh loop does once it has beaten for a heartbeat's lifetime (17 s: too long to wait here).
    await serving.relay._free_seats_of_dead_hosts()
    assert bot.session.matches == {"m-alive", "m-resumed-here"}, "a dead host's match holds no seat"
    assert set(bot.session.started) == {"m-alive", "m-resumed-here"}
    assert serving.relay.hosted_elsewhere == {(bot.session.id, "m-alive"): HOST}


@pytest.fixture
def looks_often(monkeypatch: pytest.MonkeyPatch) -> None:
    """Relayed seats read their replies in chunks of 0.25 s (not READ_CHUNK's 5 s) and look at the serving
    node's heartbeat after each, so that they see a lapse within a short move."""
    monkeypatch.setattr(relay_module, "READ_CHUNK", 0.25)


@pytest_asyncio.fixture
async def host(redis: Redis) -> AsyncIterator[MatchHost]:
    """The match host of node-a (HOST), with no session of its own until a test opens one."""
    made = MatchHost(Store(redis), SessionRegistry(Limits()), Clock(), BuiltinPool(PoolConfig(workers=1)))
    made.node = HOST
    try:
        yield made
    finally:
        await made.shutdown()


async def relayed_seat(host: MatchHost, redis: Redis) -> RelaySeat:
    """Seat 0 of match m1 on `host`, relayed to ann's session elsewhere, as the work host prepares it."""
    remote = await remote_of(redis, "ann")
    live = host.prepare("m1", GAME, ["ann", "builtin:random", "builtin:random"], b"seed", remote={"ann": remote})
    seat, *builtins = live.runner.seats
    for builtin in builtins:
        assert isinstance(builtin, PooledBotSeat)
        builtin.release()
    assert isinstance(seat, RelaySeat) and seat.follow is not None and seat.host == HOST
    return seat


def logged(caplog: pytest.LogCaptureFixture, text: str) -> bool:
    return any(text in record.getMessage() for record in caplog.records)


def saw(caplog: pytest.LogCaptureFixture, text: str) -> Callable[[], Awaitable[bool]]:
    """A check for `until`: a log line holding `text` was written."""

    async def check() -> bool:
        return logged(caplog, text)

    return check


NOTICED = "node node-b#1 serving bot ann stopped beating"


async def test_a_relayed_seat_follows_its_bot_to_another_node_when_the_serving_one_dies_its_clock_standing_still(
    redis: Redis,
    nodes: Callable[..., RelayNode],
    host: MatchHost,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunk = 1.0  # the seat looks at the heartbeat a whole second after the ask: a pause that cannot be missed
    monkeypatch.setattr(relay_module, "READ_CHUNK", chunk)
    serving, other = nodes("node-b#1"), nodes("node-c#1")
    first = serving.connect("ann", answering=False)
    serving.start()
    seat = await relayed_seat(host, redis)
    await seat.start(info())
    asked = move(time_left=chunk + ASK)
    with caplog.at_level(logging.INFO, logger="arena.node.relay"):
        asking = asyncio.create_task(under_clock(seat, asked))
        await first.received_kind("action_request")
        await serving.die()
        await until(saw(caplog, NOTICED), "the host notices", timeout=asked.time_left + SLACK)
        again = other.connect("ann")  # the bot's backoff took it to a living node
        other.start()
        action = await asyncio.wait_for(asking, SLACK)  # no TimeoutError: the runner's clock was moved on
    assert asked.paused >= chunk, "its clock stood still from the first ask until the bot was found"
    assert seat.remote.node == "node-c#1" and seat.remote.session_id == again.session.id
    assert again.kinds() == ["welcome", "match_started", "action_request"], "told the match anew, then asked"
    (request,) = again.of_kind("action_request")
    assert request.time_left_ms == int(asked.time_left * 1000), "asked anew with the whole time"
    assert action == request.legal_actions[0].id
    assert logged(caplog, "bot ann is on node node-c#1 now; its seat follows it")


@pytest.mark.usefixtures("looks_often")
async def test_a_relayed_seat_plays_through_the_hosts_own_session_once_the_bot_connects_there(
    redis: Redis, nodes: Callable[..., RelayNode], host: MatchHost, caplog: pytest.LogCaptureFixture
) -> None:
    serving = nodes("node-b#1")
    first = serving.connect("ann", answering=False)
    serving.start()
    seat = await relayed_seat(host, redis)
    await seat.start(info())
    with caplog.at_level(logging.INFO, logger="arena.node.relay"):
        asking = asyncio.create_task(under_clock(seat, move(time_left=ASK)))
        await first.received_kind("action_request")
        await serving.die()
        await until(saw(caplog, NOTICED), "the host notices", timeout=ASK + SLACK)
        session, _ = host.sessions.open("ann", hello("friday13"))
        local = BotDriver(host.sessions, session).connect()
        action = await asyncio.wait_for(asking, SLACK)
    assert isinstance(seat.local, RemoteSeat) and seat.local.session is session
    assert local.kinds() == ["welcome", "match_started", "action_request"]
    (request,) = local.of_kind("action_request")
    assert action == request.legal_actions[0].id and session.matches == {"m1"}
    second = move(number=2)
    assert await asyncio.wait_for(seat.request(second), SLACK) == second.legal_actions[0], "it stays local"
    await seat.end(MatchEnd("m1", (1, 2, 3), (1, 2, 3), Termination.NORMAL, b"seed"))
    assert session.matches == set()
    assert len(await local.received_kind("match_ended")) == 1
    await local.stop()


@pytest.mark.usefixtures("looks_often")
async def test_a_relayed_seat_asks_anew_on_a_serving_node_that_beats_again_after_a_stop(
    redis: Redis, nodes: Callable[..., RelayNode], host: MatchHost, caplog: pytest.LogCaptureFixture
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann", answering=False)
    serving.start()
    seat = await relayed_seat(host, redis)
    await seat.start(info())
    asked = move(time_left=ASK)
    with caplog.at_level(logging.INFO, logger="arena.node.relay"):
        asking = asyncio.create_task(under_clock(seat, asked))
        (held,) = await bot.received_kind("action_request")
        await serving.die()  # stopped (SIGSTOP): the same node, its sessions and inbox offsets intact
        await until(saw(caplog, NOTICED), "the host notices", timeout=ASK + SLACK)
        bot.answering = True
        serving.start()  # let go (SIGCONT): it beats again and reads on
        action = await asyncio.wait_for(asking, SLACK)
    assert logged(caplog, "node node-b#1 beats again; bot ann is asked there anew")
    first, second = bot.of_kind("action_request")
    assert first is held and second.request_id != held.request_id and second.time_left_ms == int(ASK * 1000)
    assert action == second.legal_actions[0].id and asked.paused > 0
    assert seat.remote.node == "node-b#1"


@pytest.mark.usefixtures("looks_often")
async def test_a_relayed_seat_is_lost_when_its_bot_connects_nowhere_within_the_grace(
    redis: Redis, nodes: Callable[..., RelayNode], host: MatchHost
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann", answering=False)
    serving.start()
    seat = await relayed_seat(host, redis)
    seat.grace = 0.3  # at least 30 s in a fleet (NODE_LOST_GRACE)
    await seat.start(info())
    asking = asyncio.create_task(under_clock(seat, move(time_left=ASK)))
    await bot.received_kind("action_request")
    await serving.die()
    with pytest.raises(SeatLost, match=r"seat 0 \(ann\) was lost with node node-b#1, and the bot did not connect"):
        await asyncio.wait_for(asking, ASK + seat.grace + SLACK)


async def test_a_serving_node_dying_under_a_short_move_costs_its_bot_no_strike(
    redis: Redis, nodes: Callable[..., RelayNode], host: MatchHost
) -> None:
    serving, other = nodes("node-b#1"), nodes("node-c#1")
    first = serving.connect("ann", answering=False)
    serving.start()
    seat = await relayed_seat(host, redis)
    opponents = [BotSeat(name, lambda g, s: make_bot("random", g, s, s)) for name in ("bob", "cy")]
    runner = MatchRunner(GAME, [seat, *opponents], b"seed", match_id="m1", clock=Clock(per_move=1.0, bank=0.0))
    playing = asyncio.create_task(runner.run())
    await first.received_kind("action_request")
    await serving.die()  # its heartbeat gone at once: the kindest case (in a fleet it lapses 15 s later)
    other.connect("ann")
    other.start()
    result = await asyncio.wait_for(playing, 60)
    assert result.seat_records[0].strikes == 0, result.seat_records[0].errors


async def test_a_request_to_a_session_that_ended_on_a_living_node_is_answered_gone_at_once(
    redis: Redis, nodes: Callable[..., RelayNode], monkeypatch: pytest.MonkeyPatch
) -> None:
    serving = nodes("node-b#1")
    bot = serving.connect("ann")
    serving.start()
    seat = seat_of(redis, await remote_of(redis, "ann"))
    await seat.start(info())
    await bot.received_kind("match_started")
    monkeypatch.setattr(relay_module, "ENDED_WATCH", 3.0)
    serving.registry.expire(bot.session)  # its grace ran out between two of the match's requests

    async def unlisted() -> bool:  # the serving node stated the end: no host finds the session any more
        return not await redis.hexists(keys.presence("ann"), bot.session.id)

    await until(unlisted, "the serving node drops the ended session's presence", timeout=SLACK)
    with pytest.raises(SeatGone, match="the bot's session ended"):
        await asyncio.wait_for(seat.request(move(time_left=1.0)), SLACK)

    async def inbox_gone() -> bool:  # after the watch, the inbox the host's request made again is deleted
        return not await redis.exists(keys.session_inbox(bot.session.id))

    await until(inbox_gone, "the ended session's inbox is deleted after the watch", timeout=3.0 + SLACK)


@pytest.fixture(autouse=True)
def no_stale_nodes_known() -> Iterator[None]:
    """Every test starts and ends with no serving node found stale (the record is the process's)."""
    RelaySeat.found_stale.clear()
    yield
    RelaySeat.found_stale.clear()


@pytest.mark.usefixtures("looks_often")
async def test_a_seat_whose_node_another_seat_found_stale_looks_for_its_bot_at_once(
    redis: Redis,
    nodes: Callable[..., RelayNode],
    host: MatchHost,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    serving, other = nodes("node-b#1"), nodes("node-c#1")
    ann, bob = serving.connect("ann", answering=False), serving.connect("bob", answering=False)
    serving.start()
    remote = {name: await remote_of(redis, name) for name in ("ann", "bob")}
    live = host.prepare("m1", GAME, ["ann", "bob", "builtin:random"], b"seed", remote=remote)
    first, second, builtin = live.runner.seats
    assert isinstance(first, RelaySeat) and isinstance(second, RelaySeat) and isinstance(builtin, PooledBotSeat)
    builtin.release()
    await first.start(info(0))
    await second.start(info(1))
    with caplog.at_level(logging.INFO, logger="arena.node.relay"):
        asking = asyncio.create_task(under_clock(first, move(time_left=ASK)))
        await ann.received_kind("action_request")
        await serving.die()
        await until(saw(caplog, NOTICED), "the first seat notices", timeout=ASK + SLACK)
        moved = other.connect("ann"), other.connect("bob")
        other.start()
        await asyncio.wait_for(asking, SLACK)
    # A read now waits a minute before it looks at the node again: only the shared finding saves it.
    monkeypatch.setattr(relay_module, "READ_CHUNK", 60.0)
    asked = asyncio.get_running_loop().time()
    action = await asyncio.wait_for(under_clock(second, move(time_left=ROOMY, number=2)), SLACK)
    assert asyncio.get_running_loop().time() - asked < SLACK
    assert second.remote.node == "node-c#1" and second.remote.session_id == moved[1].session.id
    assert bob.of_kind("action_request") == [], "never asked on the node known dead"
    (request,) = moved[1].of_kind("action_request")
    assert action == request.legal_actions[0].id and request.time_left_ms == int(ROOMY * 1000)
