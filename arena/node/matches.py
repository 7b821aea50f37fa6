"""Starting matches between connected bots and built-in bots, watching them, storing their results."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.bots import BOTS
from arena.games import Game, kit_of
from arena.games.base import Action, State, Termination, seed_commitment
from arena.match import Clock, MatchRunner, Seat
from arena.node.builtin_pool import BuiltinPool, PoolBusy, PooledBotSeat
from arena.node.relay import RelaySeat, find_sessions
from arena.node.remote_seat import RemoteSeat
from arena.node.sessions import Session, SessionRegistry
from arena.node.tasks import cancel_and_wait
from arena.store import MatchRecord, Store
from arena.store.relay import RemoteSession
from arena.store.store import now_ms
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from arena.wire import convert

log = logging.getLogger(__name__)

BUILTIN_PREFIX = "builtin:"
WATCH_BUFFER = 1024
"""Updates a watcher may fall behind before it is cut off."""


SeatStarter = Callable[[Sequence[str], str, Mapping[str, int]], Awaitable[dict[str, Session]]]
"""Makes the hosted bots among the seats connected here (seat names, game, versions to start for these
seats alone); returns the sessions started for those versions."""
"""Called with a match's seats and game before they are seated: arena.hosted starts the processes
of hosted bots here (raising MatchError when one cannot play)."""


class MatchError(ValueError):
    """A match that cannot be started as asked; the message says why."""


class SeatUnavailable(MatchError):
    """A bot of the match is not connected here, or has no free match slot: it may be, later."""


@dataclass
class Update:
    """One message for the watchers of a match."""

    view: pb.Observation
    last_move: str
    ended: bool = False


@dataclass
class LiveMatch:
    """A match running in this server."""

    record: MatchRecord
    game: Game
    runner: MatchRunner
    encoder: convert.Encoder
    watchers: set[asyncio.Queue[Update | None]] = field(default_factory=set)
    task: asyncio.Task[Any] | None = None
    last: tuple[int, Action] | None = None
    """The seat that moved last and its action (the text is made when someone reads it)."""

    @property
    def seed_commitment(self) -> str:
        return seed_commitment(self.runner.seed)

    def public_view(self) -> pb.Observation:
        observation: Any = self.runner.state.public_observation()
        return self.encoder.encode(observation)

    @property
    def last_move(self) -> str:
        """The last move as watchers read it ("" before the first)."""
        if self.last is None:
            return ""
        seat, action = self.last
        return f"seat {seat} played {self.game.action_text(action)}"

    async def on_move(self, seat: int, action: Action, state: State[Any]) -> None:
        self.last = (seat, action)
        if self.watchers:
            self.broadcast(Update(self.public_view(), self.last_move))

    def broadcast(self, update: Update | None) -> None:
        for queue in list(self.watchers):
            try:
                queue.put_nowait(update)
            except asyncio.QueueFull:
                # Too slow a watcher: it gets an end marker and nothing more.
                self.watchers.discard(queue)
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
                queue.put_nowait(None)

    def public_record(self) -> dict[str, Any]:
        return public_record(self.runner.state.record(self.record.seats, Termination.RUNNING))


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A replay record without what is hidden while the match runs: the seed, and what the game's kit
    names in its rounds (hands, dummy, draw pile)."""
    shown = {key: value for key, value in record.items() if key != "seed"}
    if "rounds" in record:
        hidden = kit_of(record["game"]).hidden_record_keys
        shown["rounds"] = [
            {key: value for key, value in entry.items() if key not in hidden} for entry in record["rounds"]
        ]
    return shown


def parse_seed(text: str) -> bytes:
    if not text:
        return secrets.token_bytes(16)
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise MatchError(f"seed {text!r} is not hex; give 2 to 128 hex digits, or none for a random seed") from None
    if not 1 <= len(seed) <= 64:
        raise MatchError("the seed must be 1 to 64 bytes (2 to 128 hex digits)")
    return seed


class MatchHost:
    """Seats the matches this node plays (the work host runs them) and keeps the live ones for watchers."""

    def __init__(
        self, store: Store, sessions: SessionRegistry, default_clock: Clock, builtin: BuiltinPool | None = None
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.default_clock = default_clock
        self.builtin = builtin or BuiltinPool()
        """Where built-in bots think: worker processes, never this event loop."""
        self.live: dict[str, LiveMatch] = {}
        self.node = ""
        """This node's name in the work stream (the work host sets it): relayed seats name their host."""
        self.start_seats: SeatStarter | None = None

    def prepare(
        self,
        match_id: str,
        game: Game,
        seat_names: Sequence[str],
        seed: bytes,
        clock: Clock | None = None,
        tournament_id: str = "",
        remote: Mapping[str, RemoteSession] | None = None,
        pinned: Mapping[str, Session] | None = None,
    ) -> LiveMatch:
        """Seat the match and list it as live here, all seats or none; the caller runs it.

        A bot with no session here sits through its session on another node, when `remote` names one;
        a bot `pinned` names sits through that session and no other.
        """
        encoder = convert.encoder_for(game)
        seats: list[Seat] = []
        try:
            for index, name in enumerate(seat_names):
                if pinned and name in pinned:
                    seats.append(self._pinned(pinned[name], match_id, game, encoder))
                elif remote and name in remote and not self.sessions.of_bot(name):
                    seats.append(self._relayed(remote[name], index, game, match_id, encoder))
                else:
                    seats.append(self._seat(name, index, game, match_id, seed, encoder))
        except Exception:
            for seat in seats:  # all seats or none: built-in ones give their place in the pool back
                if isinstance(seat, PooledBotSeat):
                    seat.release()
            raise
        record = MatchRecord(
            match_id, game.name, game.params(), list(seat_names), now_ms(), tournament_id=tournament_id
        )
        runner = MatchRunner(game, seats, seed, match_id=match_id, clock=clock or self.default_clock)
        live = LiveMatch(record, game, runner, encoder)
        runner.on_move = live.on_move
        for seat in seats:
            if isinstance(seat, RemoteSeat):
                seat.session.seated(match_id)
        self.live[match_id] = live
        return live

    def _pinned(self, session: Session, match_id: str, game: Game, encoder: convert.Encoder) -> Seat:
        if session.gone or not session.attached:
            raise MatchError(f"the session started for bot {session.bot!r} ended before its match")
        if not session.has_room():
            raise SeatUnavailable(f"the session started for bot {session.bot!r} has no room for another match")
        return RemoteSeat(session, match_id, game, encoder)

    def _relayed(self, remote: RemoteSession, index: int, game: Game, match_id: str, encoder: convert.Encoder) -> Seat:
        if not remote.plays(game.name):
            raise MatchError(f"bot {remote.bot!r} does not play {game.name}")
        seat = RelaySeat(
            self.store.redis, remote, match_id, index, game, encoder, self.store.blocking, self.node,
            self.sessions.limits.grace,
        )  # fmt: skip

        async def follow(bot: str, match_id: str) -> Seat | RemoteSession | None:
            here = [s for s in self.sessions.of_bot(bot) if s.attached and not s.exclusive and s.plays(game.name)]
            if here:
                session = min(here, key=lambda s: len(s.matches))
                session.seated(match_id)
                return RemoteSeat(session, match_id, game, encoder)
            return (await find_sessions(self.store.redis, [bot], self.node, alive=True)).get(bot)

        seat.follow = follow
        return seat

    def _seat(self, name: str, index: int, game: Game, match_id: str, seed: bytes, encoder: convert.Encoder) -> Seat:
        if name.startswith(BUILTIN_PREFIX):
            policy = name.removeprefix(BUILTIN_PREFIX)
            if policy not in BOTS:
                raise MatchError(f"no built-in bot {name!r}; choose builtin:{', builtin:'.join(BOTS)}")
            bot_seed = int.from_bytes(hashlib.sha256(seed + bytes([index])).digest()[:4], "big")
            try:
                return PooledBotSeat(name, self.builtin, self.builtin.claim(policy, game, index, bot_seed))
            except PoolBusy as busy:
                raise SeatUnavailable(str(busy)) from None
        sessions = [session for session in self.sessions.of_bot(name) if session.attached and not session.exclusive]
        if not sessions:
            raise SeatUnavailable(f"bot {name!r} is not connected")
        playing = [session for session in sessions if session.plays(game.name)]
        if not playing:
            raise MatchError(f"bot {name!r} does not play {game.name} (its Hello names {', '.join(sessions[0].games)})")
        # A session that holds this match already (its host died, and this node resumes it) needs no more room.
        free = [session for session in playing if session.has_room() or match_id in session.matches]
        if not free:
            raise SeatUnavailable(f"bot {name!r} plays its maximum of {playing[0].max_matches} matches at once")
        session = min(free, key=lambda s: len(s.matches))
        return RemoteSeat(session, match_id, game, encoder)

    async def shutdown(self) -> None:
        """Stop every running match here: the work host hands their orders on, and a node resumes each."""
        await cancel_and_wait([live.task for live in self.live.values() if live.task is not None], "match host")
        self.live.clear()
        await self.builtin.close()


def summary_to_pb(record: MatchRecord) -> pb.MatchSummary:
    return pb.MatchSummary(
        match_id=record.match_id,
        game=convert.spec_from_params(record.game, record.params),
        seats=record.seats,
        scores=record.scores,
        ranks=record.ranks,
        termination=convert.termination_to_pb(record.termination),
        started_ms=record.started_ms,
        ended_ms=record.ended_ms,
        tournament_id=record.tournament_id,
    )


def watch_message(record: MatchRecord, update: Update) -> api_pb.WatchMatchResponse:
    return api_pb.WatchMatchResponse(
        match=summary_to_pb(record), public_view=update.view, last_move=update.last_move, ended=update.ended
    )
