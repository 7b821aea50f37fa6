"""The node's share of the work stream: it takes match orders, runs them, and resumes dead nodes' matches.

`submit_match` is the one way to ask for a match that any node may run (tournaments and the
ladder use it). Every node's `WorkHost` reads orders through the consumer group, seats the bots
(waiting for a connected bot's free match slot), writes the seed and every applied action to the
match's event stream, and stores the result once. A periodic XAUTOCLAIM hands the orders of a
node that stopped refreshing them to a living node, which re-applies the recorded actions and
plays on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import secrets
import socket
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from arena import logs
from arena.bots import BOTS
from arena.games import Game, GameError, make_game
from arena.games.base import Action, State, Termination
from arena.match import Clock, SeatLost
from arena.node.builtin_pool import PooledBotSeat
from arena.node.matches import BUILTIN_PREFIX, LiveMatch, MatchError, MatchHost, SeatUnavailable, Update
from arena.node.relay import Relay, find_sessions
from arena.node.remote_seat import RemoteSeat
from arena.node.sessions import SessionRegistry
from arena.node.tasks import STOP_TIMEOUT, cancel_and_wait
from arena.ratings import ResultRecord
from arena.store import MatchRecord, Store, keys
from arena.store.outage import UNREACHABLE, patiently
from arena.store.ratings import RatingStore
from arena.store.relay import RemoteSession
from arena.store.replays import encode_match
from arena.store.sentinel import replicated
from arena.store.store import BotKind, now_ms
from arena.store.tournaments import TournamentStore
from arena.store.work import Delivery, EventBatch, LostOrder, MatchEvents, MatchOrder, WorkQueue, new_seed

log = logging.getLogger(__name__)

ResultHook = Callable[[MatchOrder, ResultRecord], Awaitable[None]]
"""Called after a work match's result is stored (again after a re-delivery: hooks are idempotent)."""


@dataclass(frozen=True)
class WorkConfig:
    """How a node takes part in the work stream (`arena serve` sets slots, claim_idle and node from its
    options and their environment variables)."""

    slots: int = 64
    """Work matches this node runs at once."""
    claim_idle: float = 10.0
    """Seconds an order may go unrefreshed before another node takes it over."""
    seat_wait: float = 30.0
    """Seconds to wait for a match's bots to connect (to any node) before giving the order back."""
    max_attempts: int = 20
    """Give-backs before an order whose bots never connect is stored as aborted."""
    flush_interval: float = 0.1
    """Seconds between writes of buffered events."""
    node: str = ""
    """This node's name (`--node-name`); by default the host name and process id."""
    incarnation: str = ""
    """This process start's random id beside the name (`new_incarnation`); made by the work host if empty."""


async def submit_match(
    store: Store,
    game: str,
    seats: Sequence[str],
    params: dict[str, Any] | None = None,
    *,
    seed: str = "",
    clock: Clock | None = None,
    tournament: str = "",
    rated: bool = False,
    match_id: str = "",
    validating: int = 0,
) -> MatchOrder:
    """Queue a match for any node; returns its order (the match id is made here unless given)."""
    params = {"players": len(seats), **(params or {})}
    try:
        make_game(game, **params)
    except GameError as error:
        raise MatchError(str(error)) from None
    order = MatchOrder(
        match_id=match_id or await store.next_match_id(),
        game=game,
        params=params,
        seats=tuple(seats),
        seed=seed or new_seed(),
        per_move=clock.per_move if clock else 0.0,
        bank=clock.bank if clock else 0.0,
        tournament=tournament,
        rated=rated,
        created_ms=now_ms(),
        validating=validating,
    )
    await WorkQueue(store.redis).submit([order])
    return order


READ_BLOCK_MS = 500
"""How long one read of the work stream waits for new orders; a stopping node's read loop ends within it."""
CONSUMERS_TIDIED = 60.0
"""Seconds between two looks for consumers of the work stream that dead incarnations left."""
CONSUMER_FORGOTTEN = 600.0
"""A consumer that holds no order and did nothing for this long is forgotten (a living node reads twice a second)."""
MAX_BOUNCES = 3
"""How often an order is handed back for the node where its bots are, before any node plays it where it is."""
SEAT_LOOK_MIN = 0.05
SEAT_LOOK_MAX = 1.0
"""Seconds between two looks for a match's bots, doubling from the first to the last while it waits."""
START_WAIT = 10.0
"""Seconds `create_match` waits for a node to start the match before it returns its id anyway."""
START_LOOK = 0.02
"""Seconds between two looks of `create_match` for the match started."""


async def create_match(
    store: Store,
    sessions: SessionRegistry,
    node: str,
    game: Game,
    seat_names: Sequence[str],
    seed: bytes = b"",
    clock: Clock | None = None,
    start_wait: float = START_WAIT,
) -> MatchOrder:
    """A rated match between these bots, now (CreateMatch): an order on the work stream like every other.

    Refused at once (MatchError) when a bot can never take its seat: an unknown built-in bot, a bot
    in two seats, one that is connected nowhere or does not play the game. Otherwise the first
    node with room starts it, usually this one, where the bots are; this waits until it is listed
    (GetMatch and WatchMatch find it) or `start_wait` passes (a bot busy with its other matches).
    """
    remote = [name for name in seat_names if not name.startswith(BUILTIN_PREFIX)]
    if len(set(remote)) != len(remote):
        raise MatchError("a bot may take only one seat in a match")
    for name in seat_names:
        if name.startswith(BUILTIN_PREFIX) and name.removeprefix(BUILTIN_PREFIX) not in BOTS:
            raise MatchError(f"no built-in bot {name!r}; choose builtin:{', builtin:'.join(BOTS)}")
    here = {name: [s for s in sessions.of_bot(name) if s.attached and not s.exclusive] for name in remote}
    away = [name for name in remote if not here[name]]
    elsewhere = await find_sessions(store.redis, away, node, alive=True) if away else {}
    for name in remote:
        games = [set(s.games) for s in here[name]] or ([set(elsewhere[name].games)] if name in elsewhere else [])
        if not games:
            record = await store.get_bot(name)
            if record is not None and record.kind == BotKind.HOSTED:
                continue  # the node that takes the order starts it in the sandbox
            raise SeatUnavailable(f"bot {name!r} is not connected")
        if not any(not played or game.name in played for played in games):
            raise MatchError(f"bot {name!r} does not play {game.name} (its Hello names {', '.join(sorted(games[0]))})")
        if here[name] and name not in elsewhere and not any(s.has_room() for s in here[name]):
            most = max(s.max_matches for s in here[name])
            raise SeatUnavailable(f"bot {name!r} plays its maximum of {most} matches at once; try again when one ends")
    order = await submit_match(store, game.name, seat_names, game.params(), seed=seed.hex(), clock=clock, rated=True)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + start_wait
    while loop.time() < deadline:
        await asyncio.sleep(START_LOOK)  # first: no node has started an order submitted this instant
        if await store.redis.hexists(keys.match(order.match_id), "summary"):
            break
    return order


def new_incarnation() -> str:
    """A random id for one start of a node's process: a node restarted under its name is a new incarnation."""
    return secrets.token_hex(3)


def incarnation_id(node: str, incarnation: str) -> str:
    """How the work stream, presence and relay name one incarnation of a node: `NAME#INCARNATION`."""
    return f"{node}#{incarnation}"


def node_name() -> str:
    """The default consumer name: unique per process, and telling which host and process it is."""
    return f"{socket.gethostname()}-{os.getpid()}"


class EventWriter:
    """Buffers applied actions and writes them to the event streams in one round trip per interval.

    A write that fails (Redis away) keeps its actions, in order, for the next one: no move is ever
    dropped from a stream that a resuming node replays. A match whose order this node no longer
    holds gets nothing written, and `on_lost` is told (the work host stops it).
    """

    def __init__(self, queue: WorkQueue, interval: float, on_lost: Callable[[str], None] | None = None) -> None:
        self.queue = queue
        self.interval = interval
        self.on_lost = on_lost
        self.buffer: dict[str, list[int]] = {}
        self.written: dict[str, int] = {}
        """Actions of each match known to be in its stream."""
        self.deliveries: dict[str, Delivery] = {}
        """The delivery under which each match's events are written (its fencing token)."""
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._stopping = False

    def begin(self, delivery: Delivery, stored: int) -> None:
        """A match starts here with `stored` actions in its stream already (a resumed one)."""
        self.written[delivery.order.match_id] = stored
        self.deliveries[delivery.order.match_id] = delivery

    def add(self, match_id: str, action: Action) -> None:
        self.buffer.setdefault(match_id, []).append(action)
        self._wake.set()

    def end(self, match_id: str) -> None:
        """The match is stored (or left to a resuming node, which replays what its stream holds)."""
        self.written.pop(match_id, None)
        self.buffer.pop(match_id, None)
        self.deliveries.pop(match_id, None)

    async def flush(self) -> None:
        async with self._lock:  # one write at a time: each batch's offsets follow the one before
            pending = {match_id: actions for match_id, actions in self.buffer.items() if match_id in self.deliveries}
            if not pending:
                return
            self.buffer = {}
            batches = {
                match_id: EventBatch(
                    self.deliveries[match_id].entry_id,
                    self.deliveries[match_id].token,
                    self.written.get(match_id, 0),
                    actions,
                )
                for match_id, actions in pending.items()
            }
            try:
                lost = await self.queue.append_events(batches)
            except BaseException:
                for match_id, actions in pending.items():
                    self.buffer[match_id] = actions + self.buffer.get(match_id, [])
                raise
            for match_id, batch in batches.items():
                if match_id in lost:
                    self.end(match_id)
                    if self.on_lost is not None:
                        self.on_lost(match_id)
                else:
                    self.written[match_id] = batch.at + len(batch.actions)

    def stop(self) -> None:
        """End `run` after its current write (a flag: see WorkHost.stop)."""
        self._stopping = True
        self._wake.set()

    async def run(self) -> None:
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self.flush()
            except UNREACHABLE as error:
                # Written on the next wake once Redis is back; the store's health check says it is gone.
                log.debug("writing match events: Redis is unreachable (%s)", error)
            except Exception:
                log.exception("writing match events")
            await asyncio.sleep(self.interval)


class WorkHost:
    """Runs this node's share of the work stream on the node's `MatchHost`."""

    def __init__(self, store: Store, host: MatchHost, config: WorkConfig | None = None) -> None:
        self.store = store
        self.host = host
        self.config = config or WorkConfig()
        self.incarnation = self.config.incarnation or new_incarnation()
        # The consumer names the incarnation, not only the node: a node restarted under its name neither
        # holds nor honours what its predecessor left (its pending orders are claimed as a dead node's).
        self.queue = WorkQueue(store.redis, incarnation_id(self.config.node or node_name(), self.incarnation))
        self.events = EventWriter(self.queue, self.config.flush_interval, self._lost)
        self.relay = Relay(store.redis, host.sessions, self.queue.consumer, lambda match_id: match_id in host.live)
        host.node = self.queue.consumer
        self.result_hooks: list[ResultHook] = []
        self.ratings = RatingStore(store.redis)
        self.tournaments = TournamentStore(store.redis)
        self.running: dict[str, tuple[Delivery, asyncio.Task[None]]] = {}
        """Entry id -> the delivery and the task running it."""
        self._loops: list[asyncio.Task[None]] = []
        """The read and claim loops, which end on a flag (see `stop`)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._room = asyncio.Event()
        self._stopping = False
        self._stop = asyncio.Event()
        self._reader_id: int | None = None
        """The Redis client id of the read loop's connection: `stop` ends its blocked read with CLIENT UNBLOCK."""
        self._unstarted: list[Delivery] = []
        """Orders the loops took while the node was stopping: handed on with the running ones."""
        self._seats_changed = asyncio.Event()
        self._seat_waits: dict[str, MatchOrder] = {}
        """Matches here waiting for their bots to connect or come free, by id."""
        self.on_wait: Callable[[Sequence[str]], None] | None = None
        """Told the bots of a match that starts or stops waiting for seats here (the ladder offers fewer)."""
        self.claim_reserve = min(self.config.slots - 1, max(1, self.config.slots // 8))
        """Slots only the claim loop fills: a dead node's matches come before new ones."""

    @property
    def consumer(self) -> str:
        return self.queue.consumer

    async def start(self) -> None:
        await self.queue.ensure_group()
        self._loops = [
            asyncio.create_task(self._read_loop(), name="work: read"),
            asyncio.create_task(self._claim_loop(), name="work: claim"),
        ]
        self._tasks = [
            asyncio.create_task(self.events.run(), name="work: events"),
            asyncio.create_task(self.relay.run(), name="work: relay"),
        ]

    async def stop(self) -> None:
        """Stop taking work and hand the running matches on: another node resumes each from its events at once.

        The read and claim loops are not cancelled: they end on a flag, the read loop once its read
        returns, which CLIENT UNBLOCK makes at once. A read cancelled inside its XREADGROUP stayed blocked
        in Redis on a connection being closed, and Redis could still give it the next order, even one
        handed on below: that order then waited, pending at a consumer that was gone, for the claim delay
        (5 of 200 tries on a quiet machine). A flag is also what stops a loop whose cancellation a Redis
        call swallowed (seen with redis-py 8.1).
        """
        self._stopping = True
        self._stop.set()
        self._room.set()
        if self._reader_id is not None:
            try:
                await asyncio.wait_for(self.queue.redis.client_unblock(self._reader_id), STOP_TIMEOUT)
            except Exception as error:  # the read then ends at its block time
                log.debug("ending the blocked read of the work stream: %r", error)
        self.events.stop()
        self.relay.stop()
        unfinished = [delivery for delivery, _ in self.running.values()]
        await cancel_and_wait([*self._tasks, *(task for _, task in self.running.values())], "work host")
        if self._loops:
            _, late = await asyncio.wait(self._loops, timeout=READ_BLOCK_MS / 1000 + STOP_TIMEOUT)
            await cancel_and_wait(late, "work host")
        try:
            await self.events.flush()
            # Back on the stream (not left pending until the claim delay): a node reading it starts
            # the match within its next read, and finds a result already stored if it was one.
            unstarted, self._unstarted = self._unstarted, []
            for delivery in [*unfinished, *unstarted]:
                await self.queue.give_back(delivery, attempt=False)
            if unfinished:
                log.info("handed %d running matches on to other nodes", len(unfinished))
        except Exception:
            log.exception("handing matches on; they stay pending for the claim delay")

    # -- loops ------------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        reader = self.queue.redis.client()  # a connection of its own, whose blocked read `stop` ends
        try:
            while not self._stopping:
                # Slots kept for the claim loop: a dead node's matches come before new ones.
                free = self.config.slots - self.claim_reserve - len(self.running)
                if free <= 0:
                    self._room.clear()
                    await self._room.wait()
                    continue
                try:
                    if reader.connection is None:  # a new client
                        await self._connect_reader(reader)
                    deliveries = await self.queue.read(free, block_ms=READ_BLOCK_MS, via=reader)
                except UNREACHABLE as error:
                    log.warning("reading the work stream: Redis is unreachable (%s)", error)
                    # A client of one connection reconnects to the address it had, a dead master after a
                    # failover: a new one takes a connection from the pool, which asks Sentinel where it is.
                    await self._close_reader(reader)
                    reader = self.queue.redis.client()
                    await self._pause(1.0)
                    continue
                except Exception:
                    log.exception("reading the work stream")
                    await self._pause(1.0)
                    continue
                for delivery in deliveries:
                    self._spawn(delivery)
        finally:
            await self._close_reader(reader)

    async def _connect_reader(self, reader: Redis) -> None:
        """Take the read loop's connection and learn its Redis client id, which `stop` ends its blocked read
        with (CLIENT UNBLOCK): now, and whenever redis-py makes the connection again in place (a retry, a
        failed health check). Once a connection rather than before each read: a round trip a match less."""
        await reader.initialize()
        connection: Any = reader.connection  # made by initialize
        connection.register_connect_callback(self._note_reader)
        await self._note_reader(connection)

    async def _close_reader(self, reader: Redis) -> None:
        """Give the read loop's connection back to the pool, no longer followed: another client takes it next."""
        self._reader_id = None
        connection: Any = reader.connection
        if connection is not None:
            connection.deregister_connect_callback(self._note_reader)
        await _close(reader)

    async def _note_reader(self, connection: Any) -> None:
        """Called by redis-py with the read loop's connection once it is made (again)."""
        await connection.send_command("CLIENT", "ID")
        self._reader_id = int(await connection.read_response())

    async def _claim_loop(self) -> None:
        idle_ms = int(self.config.claim_idle * 1000)
        loop = asyncio.get_running_loop()
        in_touch_since: float | None = loop.time()
        tidied = loop.time()
        while not self._stopping:
            await self._pause(self.config.claim_idle / 3)
            if self._stopping:
                return
            try:
                if loop.time() - tidied > CONSUMERS_TIDIED:
                    tidied = loop.time()
                    forgotten = await self.queue.forget_idle_consumers(int(CONSUMER_FORGOTTEN * 1000))
                    if forgotten:
                        log.info("forgot %d idle consumers of the work stream", len(forgotten))
                keeping = loop.time()
                lost = await self.queue.keep(list(self.running))
                for entry_id, (delivery, task) in list(self.running.items()):
                    if entry_id in lost:
                        log.warning("match %s was taken over by another node; stopping here", delivery.order.match_id)
                        task.cancel()
                in_touch_since = in_touch_since or loop.time()
                # After an outage every order looks idle: claim only once the living nodes had a claim
                # delay to refresh theirs, or the nodes would take each other's running matches.
                if loop.time() - in_touch_since < self.config.claim_idle:
                    continue
                # Nor after a stall (a CPU-starved process) since its own orders were refreshed: they may look
                # idle by now, and a claim of its own order would stop its running match (writes fenced off).
                if loop.time() - keeping > self.config.claim_idle / 3:
                    continue
                free = self.config.slots - len(self.running)
                if free > 0:
                    for delivery in await self.queue.claim_stale(idle_ms, free):
                        if delivery.entry_id not in self.running:
                            log.info("resuming match %s of a node that stopped", delivery.order.match_id)
                            self._spawn(delivery)
            except UNREACHABLE as error:
                in_touch_since = None
                log.warning("claiming stale work: Redis is unreachable (%s)", error)
            except Exception:
                in_touch_since = None
                log.exception("claiming stale work")

    async def _pause(self, seconds: float) -> None:
        """Sleep `seconds`, or less when the node stops."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)

    def _spawn(self, delivery: Delivery) -> None:
        if self._stopping:
            self._unstarted.append(delivery)  # handed on by `stop`
            return
        task = asyncio.create_task(self._handle(delivery), name=f"work {delivery.order.match_id}")
        self.running[delivery.entry_id] = (delivery, task)
        task.add_done_callback(lambda _: self._done(delivery.entry_id))

    def _lost(self, match_id: str) -> None:
        """This node no longer holds the order of `match_id` (its events were refused): stop the match here."""
        for delivery, task in self.running.values():
            if delivery.order.match_id == match_id:
                log.warning("match %s was taken over by another node; stopping here", match_id)
                task.cancel()

    def _done(self, entry_id: str) -> None:
        self.running.pop(entry_id, None)
        self._room.set()
        self.seats_changed()

    def waiting_for(self, bot: str) -> set[str]:
        """The matches here that wait for seats and seat `bot`: the ladder keeps that many of its slots back, so
        that a tournament's or a challenge's match is not starved by ladder tables taking every slot that frees."""
        return {match_id for match_id, order in self._seat_waits.items() if bot in order.seats}

    def seats_changed(self, *_: object) -> None:
        """A seat may have come free here (a match ended, a session opened): waiting matches look again now."""
        self._seats_changed.set()
        self._seats_changed = asyncio.Event()

    # -- one match --------------------------------------------------------------------------

    async def _handle(self, delivery: Delivery) -> None:
        order = delivery.order
        logs.MATCH.set(order.match_id)  # this task's log lines name the match
        try:
            (stored, events), _ = await patiently(lambda: self.queue.found(order.match_id), f"match {order.match_id}")
            if stored is not None:
                await self._after(order, stored)
                await patiently(lambda: self.queue.ack(delivery), f"match {order.match_id}")
                return
            await self._play(delivery, events)
        except asyncio.CancelledError:
            raise
        except LostOrder as lost:
            log.warning("%s: another node plays it to its end; stopping here", lost)
        except UNREACHABLE as error:
            # Nothing can be stored now: the order stays pending, and a node resumes it once Redis is back.
            log.error(
                "match %s stops here, left pending for a node to resume: Redis is unreachable (%s)",
                order.match_id,
                error,
            )
        except Exception as error:
            log.exception("match %s stopped by a server error", order.match_id)
            await self._note_abort(order, f"stopped by an error on node {self.consumer}: {error!r}")
            await self._store(delivery, self._aborted(order), None)

    async def _note_abort(self, order: MatchOrder, reason: str) -> None:
        """Why this node aborts `order`, kept with its tournament (shown with the aborted match)."""
        try:
            await patiently(lambda: self.tournaments.note_abort(order, reason), f"match {order.match_id}")
        except Exception:
            log.exception("noting why match %s was aborted", order.match_id)

    async def _play(self, delivery: Delivery, events: MatchEvents) -> None:
        """Play the order's match, resumed from `events` (what its event stream held when it was delivered)."""
        order = delivery.order
        game = make_game(order.game, **order.params)
        fresh = not events.seed
        seed = bytes.fromhex(events.seed or order.seed)
        clock = Clock(order.per_move, order.bank) if order.per_move > 0 else None
        live = await self._seat(delivery, game, seed, clock)
        if live is None:
            return
        allowed, _ = await patiently(lambda: self.tournaments.may_start(order), f"match {order.match_id}")
        if not allowed:
            # Its tournament was cancelled while it waited for seats: the cancel stored its result.
            log.info("match %s: its tournament was cancelled; not started", order.match_id)
            self._release(live)
            self.host.live.pop(order.match_id, None)
            await patiently(lambda: self.queue.ack(delivery), f"match {order.match_id}")
            return
        record = live.record
        writer = self.events
        sealed, _ = await patiently(lambda: self.tournaments.sealed(order.tournament), f"match {order.match_id}")
        live.runner.sealed = sealed

        async def on_move(seat: int, action: Action, state: State[Any]) -> None:
            writer.add(order.match_id, action)
            await live.on_move(seat, action, state)

        live.runner.on_move = on_move
        final = dataclasses.replace(record)
        replay: bytes | None = None
        writer.begin(delivery, len(events.actions))
        try:
            await patiently(lambda: self.queue.started(delivery, record, seed.hex(), fresh), f"match {order.match_id}")
            result = await live.runner.run(replayed=events.actions)
            final.scores, final.ranks, final.termination = list(result.scores), list(result.ranks), result.termination
            replay = encode_match(result)
            outcome = ResultRecord.from_match(result, now_ms() / 1000)
        except (asyncio.CancelledError, LostOrder):
            writer.end(order.match_id)
            self._release(live)
            self.host.live.pop(order.match_id, None)
            raise
        except SeatLost as lost:
            # No bot's fault: aborted and never rated (a tournament plays it again).
            log.warning("match %s aborted: %s", order.match_id, lost)
            final.termination = Termination.ABORTED
            outcome = self._aborted(order)
            await self._note_abort(order, str(lost))
        except Exception as error:
            log.exception("match %s stopped by a server error", order.match_id)
            final.termination = Termination.ABORTED
            outcome = self._aborted(order)
            await self._note_abort(order, f"stopped by an error on node {self.consumer}: {error!r}")
        final.ended_ms = now_ms()
        try:
            await patiently(writer.flush, f"match {order.match_id}")
            await self._store(delivery, outcome, replay, final)
        finally:
            writer.end(order.match_id)
            live.record = final
            self._release(live)
            live.broadcast(Update(live.public_view(), live.last_move, ended=True))
            self.host.live.pop(order.match_id, None)

    async def _seat(self, delivery: Delivery, game: Any, seed: bytes, clock: Clock | None) -> LiveMatch | None:
        """The match set up with its seats, once every bot has a free slot here; None if given back or aborted."""
        try:
            return await self._wait_for_seats(delivery, game, seed, clock)
        finally:
            if self._seat_waits.pop(delivery.order.match_id, None) is not None and self.on_wait is not None:
                self.on_wait(delivery.order.seats)

    async def _wait_for_seats(
        self, delivery: Delivery, game: Any, seed: bytes, clock: Clock | None
    ) -> LiveMatch | None:
        order = delivery.order
        deadline = asyncio.get_running_loop().time() + self.config.seat_wait
        versions = {order.seats[0]: order.validating} if order.validating else {}
        pause = SEAT_LOOK_MIN
        while True:
            away = [
                name
                for name in order.seats
                if not name.startswith(BUILTIN_PREFIX) and not self.host.sessions.of_bot(name) and name not in versions
            ]
            remote = None
            if away:
                remote, _ = await patiently(
                    lambda: find_sessions(self.store.redis, away, self.consumer, alive=True),  # noqa: B023
                    f"match {order.match_id}",
                )
                if self._better_elsewhere(order, remote):
                    # Its bots are connected elsewhere: back on the stream, for the node where they are.
                    await patiently(lambda: self.queue.give_back(delivery, attempt=False, bounced=True), "an order")
                    log.info("match %s: handed on, its bots are served by another node", order.match_id)
                    return None
            try:
                pinned = {}
                if self.host.start_seats is not None:
                    pinned = await self.host.start_seats(order.seats, game.name, versions)
                elif versions:
                    raise SeatUnavailable("this node runs no hosted bots")
                live = self.host.prepare(
                    order.match_id, game, order.seats, seed, clock, order.tournament, remote, pinned
                )
            except SeatUnavailable as missing:
                if order.match_id not in self._seat_waits and len(self._seat_waits) >= max(1, self.config.slots // 2):
                    # Half the slots wait for bots already: hand this one on rather than fill them all.
                    await asyncio.sleep(0.5)
                    await self.queue.give_back(delivery, attempt=False)
                    log.info("match %s: handed on, half this node's slots wait for bots already", order.match_id)
                    return None
                if asyncio.get_running_loop().time() < deadline:
                    if order.match_id not in self._seat_waits:
                        self._seat_waits[order.match_id] = order
                        if self.on_wait is not None:
                            self.on_wait(order.seats)
                    # Looked up again when a seat may have come free here, else less often the longer it waits:
                    # each look at bots on other nodes reads their presence in Redis.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._seats_changed.wait(), pause)
                    pause = min(SEAT_LOOK_MAX, pause * 2)
                    continue
                if order.attempts + 1 < self.config.max_attempts:
                    log.info("match %s: %s; giving the order back", order.match_id, missing)
                    await self.queue.give_back(delivery)
                    return None
                log.warning("match %s: %s; aborted after %d attempts", order.match_id, missing, order.attempts + 1)
                await self._note_abort(order, f"never started: {missing}")
                await self._store(delivery, self._aborted(order), None)
                return None
            except MatchError as error:
                log.warning("match %s cannot be played: %s", order.match_id, error)
                await self._note_abort(order, f"cannot be played: {error}")
                await self._store(delivery, self._aborted(order), None)
                return None
            live.task = asyncio.current_task()
            live.record.node = self.consumer
            return live

    def _better_elsewhere(self, order: MatchOrder, remote: Mapping[str, RemoteSession]) -> bool:
        """Whether another node serves more of the order's connected bots than this one, so that the match
        would cost less Redis traffic there (a relayed seat costs a few commands a move), and the order has
        not already been handed on `MAX_BOUNCES` times."""
        if order.bounces >= MAX_BOUNCES or order.validating:
            return False
        here = sum(1 for name in order.seats if self.host.sessions.of_bot(name))
        elsewhere = Counter(session.node for session in remote.values())
        return bool(elsewhere) and max(elsewhere.values()) > here

    def _release(self, live: LiveMatch) -> None:
        """The match is over here (ended, stopped or handed on): its sessions and built-in bots are free again."""
        for seat in live.runner.seats:
            if isinstance(seat, RemoteSeat):
                seat.session.matches.discard(live.record.match_id)
            elif isinstance(seat, PooledBotSeat):
                seat.release()

    def _aborted(self, order: MatchOrder) -> ResultRecord:
        seats = len(order.seats)
        return ResultRecord(
            order.match_id, order.seats, (0,) * seats, (1,) * seats, Termination.ABORTED, finished_at=now_ms() / 1000
        )

    async def _store(
        self, delivery: Delivery, result: ResultRecord, replay: bytes | None, record: MatchRecord | None = None
    ) -> None:
        order = delivery.order
        if record is None:
            record = MatchRecord(
                order.match_id,
                order.game,
                dict(order.params),
                list(order.seats),
                now_ms(),
                termination=Termination.ABORTED,
                ended_ms=now_ms(),
                tournament_id=order.tournament,
                node=self.consumer,
            )
            if result.termination != Termination.ABORTED:
                record.scores, record.ranks = list(result.scores), list(result.ranks)
        what = f"match {order.match_id}"
        await patiently(lambda: self.queue.store_result(delivery, record, replay, result), what)
        # Acknowledged only after the hooks: a node that dies in between leaves the order to a
        # living node, which finds the result stored and runs the (idempotent) hooks again.
        await self._after(order, result)
        # And only once the replicas hold the result and its rating (a Sentinel URL's `replicas`): a failover
        # that lost them leaves the order pending on the promoted replica, to be played to its end again.
        await patiently(lambda: replicated(self.store.redis, self.store.durability), what)
        await patiently(lambda: self.queue.ack(delivery), what)

    async def _after(self, order: MatchOrder, result: ResultRecord) -> None:
        """The ratings for a rated order, then the hooks (tournaments); both count a match once."""
        what = f"match {order.match_id}"
        if order.rated:
            try:
                await patiently(lambda: self.ratings.apply(order.game, result), what)
            except UNREACHABLE:
                raise  # not acknowledged: whoever stores it again rates it then
            except Exception:
                log.exception("rating match %s", order.match_id)
        for hook in self.result_hooks:
            try:
                await patiently(lambda: hook(order, result), what)  # noqa: B023 - awaited before the loop moves on
            except UNREACHABLE:
                raise
            except Exception:
                log.exception("after match %s", order.match_id)


async def _close(client: Redis) -> None:
    """Give a client's connection back to its pool; a broken one is made again when next taken."""
    try:
        await client.aclose()
    except Exception as error:
        log.debug("closing a Redis client: %r", error)
