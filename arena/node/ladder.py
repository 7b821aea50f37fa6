"""The ladder on a node: queue entries of its bot sessions, and one matchmaker task per game.

Every node runs the same loop. Each pass it states its ladder sessions' free match slots in the
game queues (changed sessions at once, all of them every `full_sync` seconds), refreshes its
heartbeat, and, per game, acts as matchmaker only while it holds that game's lock in Redis: it
reads the queue with the current ratings and seat counts, forms tables with
`arena.matchmaking.Matchmaker`, reads how often the bots of each table sat after one another and
seats them, starts a match for each (`start_table`, the one place that does), then removes the
seated entries and counts the seats and neighbours. Entries of nodes whose heartbeat expired are
dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.games import game_names, make_game
from arena.matchmaking import Matchmaker, QualitySchedule, Table, WaitingEntry
from arena.node.matches import MatchError, MatchHost
from arena.node.sessions import Session, SessionRegistry
from arena.node.tasks import cancel_and_wait
from arena.node.work import submit_match
from arena.ratings import ResultRecord
from arena.store.ladder import LadderStore, Ticket
from arena.store.outage import UNREACHABLE
from arena.store.ratings import RatingStore
from arena.store.work import MatchOrder

log = logging.getLogger(__name__)


def default_sizes() -> dict[str, int]:
    """Seats of a ladder table per game: the game's own default number of players (4 for the card
    games, 2 for board13); `arena serve --ladder-size GAME=N` changes them."""
    return {name: make_game(name).players for name in game_names()}


def size_limits(name: str) -> tuple[int, int]:
    """The fewest and most seats a table of the game may have."""
    game = make_game(name)
    return game.min_players, game.max_players


class LadderError(ValueError):
    """A ladder setting that cannot work; the message says why."""


def parse_sizes(settings: Sequence[str]) -> dict[str, int]:
    """Table sizes from "GAME=N" settings over the defaults; raises LadderError naming the bad one."""
    sizes = default_sizes()
    for setting in settings:
        game, sep, number = setting.partition("=")
        if not sep or game not in sizes:
            raise LadderError(f"--ladder-size {setting!r}: write GAME=N with GAME one of {', '.join(sizes)}")
        low, high = size_limits(game)
        if not number.isdigit() or not low <= int(number) <= high:
            raise LadderError(f"--ladder-size {setting!r}: {game} ladder tables have {low} to {high} seats")
        sizes[game] = int(number)
    return sizes


STARTED_KEPT = 60.0
"""Seconds a ladder match started here holds its bots' slots before it is seated or ends."""


@dataclass(frozen=True)
class LadderConfig:
    sizes: Mapping[str, int] = field(default_factory=default_sizes)
    interval: float = 0.25
    """Seconds between two passes."""
    lock_ms: int = 3000
    """Lifetime of the matchmaker lock; a pass renews it, so it lapses only when its node stops."""
    heartbeat_ms: int = 10000
    """How long a node's queue entries count without a pass of that node."""
    full_sync: float = 1.0
    """Seconds between two restatements of every session's slots (matches also end elsewhere)."""
    schedule: QualitySchedule = field(default_factory=QualitySchedule)


@dataclass(frozen=True)
class Waiting:
    """A queue entry as GetQueue shows it."""

    game: str
    bot: str
    ticket: str
    since: float

    def waited(self, now: float) -> float:
        return max(0.0, now - self.since)


class Ladder:
    """The node's part of the ladder; `run` is its background task."""

    def __init__(
        self,
        ladder: LadderStore,
        ratings: RatingStore,
        sessions: SessionRegistry,
        host: MatchHost,
        config: LadderConfig | None = None,
        node: str = "",
    ) -> None:
        self.store = ladder
        self.ratings = ratings
        self.sessions = sessions
        self.host = host
        self.config = config or LadderConfig()
        self.node = node or "n-" + secrets.token_hex(6)
        self.changed: set[Session] = set()
        self.known: dict[str, Session] = {}
        """Sessions of this node whose tickets may be in a queue, by id."""
        self.started: dict[str, tuple[float, tuple[str, ...]]] = {}
        """Ladder matches this node started and has not seen end: id -> (when, by `time.monotonic`, its bots).
        Until seated, they hold their bots' slots here, or the next pass would offer those slots again."""
        self.waiting: Callable[[str], set[str]] = lambda bot: set()
        """The matches waiting for seats here that seat a bot (the work host's `waiting_for`)."""
        self._wake = asyncio.Event()
        self._stopping = False
        self._last_full = 0.0
        self._rng = random.Random()

    # -- sessions ------------------------------------------------------------------------------

    def session_changed(self, session: Session) -> None:
        """A session opened, ended, or started or ended a match: restate its slots on the next pass."""
        if session.join_ladder or session.id in self.known:
            self.changed.add(session)
            self._wake.set()

    def bots_changed(self, names: Sequence[str]) -> None:
        """These bots' slots changed here (a match of theirs started, ended, or started or stopped waiting for
        seats): restate them on the next pass."""
        for name in set(names):
            for session in self.sessions.of_bot(name):
                self.session_changed(session)

    async def match_ended(self, order: MatchOrder, result: ResultRecord) -> None:
        """A work result hook: the match's bots here have a free slot again."""
        self.started.pop(order.match_id, None)
        self.bots_changed(order.seats)

    def free_slots(self, bot: str) -> dict[str, int]:
        """The slots each of the bot's sessions here offers the ladder, by session id.

        What its matches leave free, less the matches that hold a slot without being seated yet: the
        ladder's own matches not yet started, and every match waiting here for the bot's seat (a
        tournament's, a challenge's). Those come first: offering their slots would let the ladder take
        each slot as it frees, and a waiting tournament match would wait for good.
        """
        sessions = sorted(self.sessions.of_bot(bot), key=lambda session: session.id)
        seated: set[str] = set().union(*(session.matches for session in sessions))
        started = {match_id for match_id, (_, bots) in self.started.items() if bot in bots}
        held = len((started | self.waiting(bot)) - seated)
        free = {}
        for session in sessions:
            room = max(0, session.max_matches - len(session.matches))
            free[session.id] = max(0, room - held)
            held -= room - free[session.id]
        return free

    def games_of(self, session: Session) -> list[str]:
        return [game for game in self.config.sizes if session.plays(game)]

    async def sync(self, sessions: Sequence[Session], stopping: bool = False) -> None:
        """State the free slots of these sessions in every queue they wait in (none once they
        ended, lost their stream, or this node stops)."""
        if not sessions:
            return
        now = time.time()
        pipe = self.store.redis.pipeline(transaction=False)
        offers = {bot: self.free_slots(bot) for bot in {session.bot for session in sessions}}
        for session in sessions:
            free = offers[session.bot].get(session.id, 0)
            if stopping or session.gone or not session.attached or not session.join_ladder:
                free = 0
            for game in self.games_of(session):
                self.store.sync_session(game, session.bot, session.id, self.node, free, session.max_matches, now, pipe)
            if session.gone or stopping:
                self.known.pop(session.id, None)
            else:
                self.known[session.id] = session
        await pipe.execute()

    # -- the loop ------------------------------------------------------------------------------

    async def run(self) -> None:
        """Pass after pass until `stop`; a failing pass is logged and the next one comes."""
        try:
            while not self._stopping:
                try:
                    await self.one_pass()
                except UNREACHABLE as error:
                    # The store's health check says so once, in one line; every pass here would repeat it.
                    log.debug("ladder pass: Redis is unreachable (%s)", error)
                except Exception:
                    log.exception("ladder pass failed")
                self._wake.clear()
                if not self._stopping:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.config.interval):
                            await self._wake.wait()
        finally:
            await self.leave()

    async def stop(self, task: asyncio.Task[None]) -> None:
        """End `run` (its task) after the pass under way: the sessions leave the queues, the locks go.

        A flag rather than only a cancellation, because a cancellation can be lost inside a
        Redis call and the server's stop would then wait forever.
        """
        self._stopping = True
        self._wake.set()
        done, _ = await asyncio.wait({task}, timeout=5)
        if not done:
            await cancel_and_wait([task], "ladder")

    async def one_pass(self) -> None:
        now = time.monotonic()
        if now - self._last_full >= self.config.full_sync:
            self._last_full = now
            # A match that ended on another node never reached `match_ended` here.
            for match_id, (since, _) in list(self.started.items()):
                if now - since > STARTED_KEPT:
                    del self.started[match_id]
            for session in list(self.sessions.by_id.values()):
                self.session_changed(session)
            self.changed.update(self.known.values())
        changed, self.changed = list(self.changed), set()
        await self.sync(changed)
        held = await self.store.hold_locks(self.node, self.config.sizes, self.config.lock_ms, self.config.heartbeat_ms)
        for game, waiting in held.items():
            size = self.config.sizes[game]
            if waiting >= size:
                await self.match_game(game, size)

    async def leave(self) -> None:
        """This node stops: its sessions leave the queues, its locks are released."""
        with contextlib.suppress(Exception):
            await self.sync(list(self.known.values()), stopping=True)
            for game in self.config.sizes:
                await self.store.release_lock(game, self.node)

    # -- matchmaking ---------------------------------------------------------------------------

    async def match_game(self, game: str, size: int) -> list[str]:
        """One matchmaker pass over the game's queue (the caller holds its lock); the matches started."""
        tickets = await self.store.tickets(game)
        if len(tickets) < size:
            return []
        alive = await self.store.living(ticket.node for ticket in tickets)
        dead = [ticket.ticket for ticket in tickets if ticket.node not in alive]
        if dead:
            await self.store.drop(game, dead)
            tickets = [ticket for ticket in tickets if ticket.node in alive]
        bots = {ticket.bot for ticket in tickets}
        ratings = await self.ratings.ratings(game, bots)
        model = await self.ratings.model(game)
        seats = await self.store.seat_counts(game, size, bots)
        initial = model.initial()
        entries = [
            WaitingEntry(
                ticket.ticket,
                ticket.bot,
                ratings[ticket.bot].rating if ticket.bot in ratings else initial,
                ticket.since,
                seats.get(ticket.bot, ()),
            )
            for ticket in tickets
        ]
        matchmaker = Matchmaker(size, model, self.config.schedule)
        grouped = matchmaker.group(entries, time.time())
        # Only the pairs of the tables formed: every pair of a big queue would be far too many to read.
        neighbours = await self.store.neighbour_counts(game, size, (table.bots for table in grouped.tables))
        matching = matchmaker.seat(grouped, neighbours, seed=self._rng.getrandbits(32))
        by_ticket = {ticket.ticket: ticket for ticket in tickets}
        started = []
        for table in matching.tables:
            match_id = await self.start_table(game, table, [by_ticket[name] for name in table.tickets])
            if match_id:
                started.append(match_id)
        return started

    async def start_table(self, game: str, table: Table, tickets: Sequence[Ticket]) -> str:
        """Start the ladder match of a table: the one place that does; "" when it cannot start now.

        The table goes to the work stream as a rated match order, as every match does: the first node
        with room for it plays it (usually this one, when its bots are connected here).
        """
        if not await self.store.take(game, table.tickets):
            return ""
        bots = list(table.bots)
        try:
            match_id = (await submit_match(self.host.store, game, bots, rated=True)).match_id
        except MatchError as error:
            log.info("ladder table %s of %s not started: %s", ", ".join(bots), game, error)
            await self.store.put_back(game, tickets)
            self.bots_changed(bots)
            return ""
        self.started[match_id] = (time.monotonic(), tuple(bots))
        # One transaction, so that seat and neighbour counts never disagree about which matches they hold.
        pipe = self.store.redis.pipeline(transaction=True)
        self.store.count_table(game, bots, pipe)
        await pipe.execute()
        self.bots_changed(bots)
        return match_id

    # -- reading -------------------------------------------------------------------------------

    async def queues(self, game: str = "") -> dict[str, list[Waiting]]:
        """Who waits in which queue (one entry per free slot), longest-waiting first."""
        games = [game] if game else list(self.config.sizes)
        found: dict[str, list[Waiting]] = {}
        for name in games:
            tickets: list[Ticket] = await self.store.tickets(name)
            alive = await self.store.living(ticket.node for ticket in tickets)
            found[name] = [Waiting(name, t.bot, t.ticket, t.since) for t in tickets if t.node in alive]
        return found
