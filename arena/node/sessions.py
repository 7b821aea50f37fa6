"""Bot sessions: one per connected bot process, surviving a lost stream for a grace period.

A session owns an outbox (what the stream writer sends next), the requests awaiting an answer,
keyed by the session's own request ids, and the matches the bot sits in. When its stream is
lost, the session waits `grace` seconds for a stream that resumes it; then it is gone, and its
seats forfeit (the match runner sees `SeatGone`).
"""

from __future__ import annotations

import asyncio
import collections
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from arena import metrics
from arena import protowire as wire
from arena.match.seats import SeatGone
from arena.node.fds import FdBudget
from arena.v1 import bot_service_pb2 as bot_pb


@dataclass(frozen=True)
class Limits:
    """Per-session limits; see docs/PROTOCOL.md."""

    grace: float = 10.0
    """Seconds a lost stream may stay away before the bot forfeits its matches."""
    flood_rate: float = 20.0
    """Unsolicited messages per second (anything but the answer to a pending request)."""
    flood_burst: float = 40.0
    max_sessions: int = 2000
    """Sessions a node keeps at once (attached, or waiting out their grace); a Hello for one more ends
    its stream with RESOURCE_EXHAUSTED (`SessionsFull`)."""
    max_sessions_per_bot: int = 8
    """Sessions one bot's token may hold on a node at once, so that no bot can fill the node: its
    processes (each plays many matches on one session) and the ones waiting out their grace."""
    max_sessions_per_launch: int = 2
    """Sessions one hosted launch's token may hold: its process needs one, and one more while a lost
    stream's session waits out its grace."""

    def flood_text(self) -> str:
        return (
            f"more than {self.flood_rate:.0f} unsolicited messages a second (bursts of {self.flood_burst:.0f}): "
            "the stream is closed; resume the session and send only answers and what the protocol asks for"
        )

    def full_text(self) -> str:
        return (
            f"this arena node serves its maximum of {self.max_sessions} bot sessions; "
            "retry in a few seconds with backoff, or connect to another node"
        )

    def bot_full_text(self, bot: str) -> str:
        return (
            f"bot {bot!r} holds its maximum of {self.max_sessions_per_bot} sessions on this node (attached, or "
            "waiting out their grace): resume one with its session id, end one, or connect to another node"
        )

    def launch_full_text(self, bot: str) -> str:
        return (
            f"this launch of hosted bot {bot!r} holds its maximum of {self.max_sessions_per_launch} sessions: "
            "a hosted bot plays every match on one session (resume it with its session id)"
        )


class SessionsFull(RuntimeError):
    """A new session would pass a limit (`kind`: the metrics' label); the message says which and what to do."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class TokenBucket:
    """Allows `rate` events per second on average and `burst` at once."""

    __slots__ = ("_level", "_stamp", "burst", "rate")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._level = burst
        self._stamp = time.monotonic()

    def take(self) -> bool:
        self._refill()
        if self._level < 1.0:
            return False
        self._level -= 1.0
        return True

    def wait(self) -> float:
        """Seconds until `take` would succeed (0: now)."""
        self._refill()
        return max(0.0, (1.0 - self._level) / self.rate)

    def full(self) -> bool:
        """Whether the bucket has refilled to its burst: nothing taken recently."""
        self._refill()
        return self._level >= self.burst

    def _refill(self) -> None:
        now = time.monotonic()
        self._level = min(self.burst, self._level + (now - self._stamp) * self.rate)
        self._stamp = now


@dataclass(frozen=True)
class Hangup:
    """In an outbox: close the stream here, with this status and reason."""

    reason: str
    status: grpc.StatusCode = grpc.StatusCode.RESOURCE_EXHAUSTED


_ACTION_REQUEST = wire.key(wire.number_of(bot_pb.ConnectResponse, "action_request"), wire.LENGTH_DELIMITED)
_ACTION_REQUESTS = wire.key(wire.number_of(bot_pb.ConnectResponse, "action_requests"), wire.LENGTH_DELIMITED)
_BATCHED_REQUEST = wire.key(wire.number_of(bot_pb.ActionRequests, "requests"), wire.LENGTH_DELIMITED)
WRITER_PASSES = 4
"""Passes of the event loop a writer woken by a request lets run before it takes its outbox.

A bot's message of answers wakes one match after another, and each asks its next seat: the requests made
in the same pass go in one message. The later passes take in what already arrived from the other bots
(gRPC hands a read over in one pass, the stream's reader takes its answers in the next, the matches ask
in the one after), so that those requests join too. No timer is involved: a lone match's request waits
for passes that each take microseconds. Measured with `benchmarks/grpc_throughput.py` (32 matches,
4 bots), alternating: one pass against none, the server's CPU a move 14% less and the bots' 25%;
four against one, another 7 to 13% for the server and 15 to 21% for the bots (requests a message 7.2
against 4.9); eight no better than four. `benchmarks/grpc_latency.py` shows no cost to a lone match."""
MAX_BATCH_BYTES = 1 << 20
"""A batch of ActionRequests stops growing at this size (the node sends messages of up to 16 MiB)."""
_REQUEST_ID = wire.number_of(bot_pb.ActionRequest, "request_id")
_TIME_LEFT = wire.number_of(bot_pb.ActionRequest, "time_left_ms")


@dataclass
class Pending:
    """An ActionRequest sent and not yet answered."""

    match_id: str
    request_id: int
    body: bytes
    """The request's other fields, encoded: its match id, observation and legal actions."""
    deadline: float
    """time.monotonic() at which the answer is late."""
    answer: asyncio.Future[int]
    debug: str = ""
    """The answer's debug text (`Action.debug`), set with the answer."""

    def encoded(self, time_left: float) -> bytes:
        """The ConnectResponse carrying this request, with `time_left` seconds to answer it."""
        request = b"".join(
            [
                self.body,
                wire.unsigned_field(_REQUEST_ID, self.request_id),
                wire.unsigned_field(_TIME_LEFT, max(0, int(time_left * 1000))),
            ]
        )
        return _ACTION_REQUEST + wire.varint(len(request)) + request


class Session:
    """One bot process's session; outlives its stream by the grace period."""

    def __init__(
        self, bot: str, hello: bot_pb.Hello, limits: Limits, launch: str = "", exclusive: bool = False
    ) -> None:
        self.id = "s-" + secrets.token_urlsafe(12)
        self.bot = bot
        self.launch = launch
        """The hosted launch whose process this is ("" for a bot its owner runs)."""
        self.exclusive = exclusive
        """Started for one match that names it (a new version's validation): no other match seats it, here or elsewhere."""
        self.games = frozenset(hello.games)
        self.batches = hello.batches
        """The bot reads several waiting ActionRequests in one message (`Hello.batches`)."""
        self.max_matches = max(1, hello.max_matches)
        self.join_ladder = hello.join_ladder
        self.client = hello.client
        self.limits = limits
        self.matches: set[str] = set()
        self.played: set[str] = set()
        """Every match it was ever seated in, the running ones too (a hosted launch's run lists them)."""
        self.pending: dict[int, Pending] = {}
        self.bucket = TokenBucket(limits.flood_rate, limits.flood_burst)
        self.gone = False
        self.stream = 0
        """Which stream serves the session now (0: none); a resuming stream takes a new number."""
        self._streams = 0
        self.started: dict[str, bot_pb.MatchStarted] = {}
        """The MatchStarted of each running match, sent again to a resuming stream."""
        self._outbox: collections.deque[bot_pb.ConnectResponse | bytes | Hangup] = collections.deque()
        """What the stream writer sends next: a message, an encoded ActionRequest (bytes), or where to hang up."""
        self._wake = asyncio.Event()
        self._grace: asyncio.TimerHandle | None = None
        self._request_ids = 0
        self.ended: SeatGone | None = None
        """Why the session ended, as its seats' forfeits tell it (set by `close`)."""

    def __repr__(self) -> str:
        return f"Session({self.id}, bot={self.bot!r}, matches={len(self.matches)}, pending={len(self.pending)})"

    @property
    def attached(self) -> bool:
        return self.stream != 0

    def plays(self, game: str) -> bool:
        return not self.games or game in self.games

    def seated(self, match_id: str) -> None:
        self.matches.add(match_id)
        self.played.add(match_id)

    def has_room(self) -> bool:
        return not self.gone and len(self.matches) < self.max_matches

    # -- sending ------------------------------------------------------------------------------

    def send(self, message: bot_pb.ConnectResponse | bytes) -> None:
        if not self.gone:
            self._outbox.append(message)
            self._wake.set()

    def error(self, code: bot_pb.ErrorCode, text: str, match_id: str = "", request_id: int = 0) -> None:
        self.send(
            bot_pb.ConnectResponse(
                error=bot_pb.Error(code=code, message=text, match_id=match_id, request_id=request_id)
            )
        )

    def hang_up(self, stream: int, reason: str, status: grpc.StatusCode = grpc.StatusCode.RESOURCE_EXHAUSTED) -> None:
        """After what is queued, close stream `stream` with `status` and `reason`."""
        if self.stream == stream:
            self._outbox.append(Hangup(reason, status))
            self._wake.set()

    async def next_message(self, stream: int) -> bot_pb.ConnectResponse | bytes | Hangup | None:
        """The next message for stream number `stream`; None once another stream took over or the session ended."""
        while True:
            if self.stream != stream or self.gone:
                return None
            if self._outbox:
                first = self._outbox.popleft()
                if self.batches and isinstance(first, bytes) and self._outbox and isinstance(self._outbox[0], bytes):
                    return self._batch(first)
                return first
            self._wake.clear()
            await self._wake.wait()
            for _ in range(WRITER_PASSES):
                await asyncio.sleep(0)

    def _batch(self, first: bytes) -> bytes:
        """`first` and the ActionRequests queued after it, as one ConnectResponse (`action_requests`).

        A queued request is a ConnectResponse holding one field, `action_request`; it becomes an element of
        the batch's `requests` by its key alone, as both are the same request after the same length."""
        parts = [_BATCHED_REQUEST, first[len(_ACTION_REQUEST) :]]
        size = len(first)
        while self._outbox and isinstance(self._outbox[0], bytes) and size + len(self._outbox[0]) <= MAX_BATCH_BYTES:
            queued = self._outbox.popleft()
            assert isinstance(queued, bytes)
            parts += (_BATCHED_REQUEST, queued[len(_ACTION_REQUEST) :])
            size += len(queued)
        body = b"".join(parts)
        return _ACTION_REQUESTS + wire.varint(len(body)) + body

    # -- requests -----------------------------------------------------------------------------

    def request(self, match_id: str, body: bytes, time_left: float) -> Pending:
        """Send an ActionRequest and return what awaits the answer. `body` encodes its match id, observation
        and legal actions; its request id and time left are set here."""
        if self.gone:
            if self.ended is not None:
                raise SeatGone(str(self.ended), self.ended.kind)
            raise SeatGone(f"the session of {self.bot} is gone")
        self._request_ids += 1
        loop = asyncio.get_running_loop()
        pending = Pending(match_id, self._request_ids, body, time.monotonic() + time_left, loop.create_future())
        self.pending[pending.request_id] = pending
        self.send(pending.encoded(time_left))
        return pending

    def answer(self, action: bot_pb.Action) -> None:
        """Take a bot's Action: hand it to the waiting seat, or tell the bot what is wrong with it."""
        if action.match_id not in self.matches:
            self.error(
                bot_pb.ERROR_CODE_UNKNOWN_MATCH,
                f"match {action.match_id!r} is not one of your running matches; action ignored",
                action.match_id,
                action.request_id,
            )
            return
        pending = self.pending.get(action.request_id)
        if pending is not None and pending.match_id != action.match_id:
            self.error(
                bot_pb.ERROR_CODE_UNKNOWN_MATCH,
                f"request {action.request_id} belongs to match {pending.match_id}, not {action.match_id}; "
                "action ignored",
                action.match_id,
                action.request_id,
            )
            return
        if pending is None or pending.answer.done():
            self.error(
                bot_pb.ERROR_CODE_UNKNOWN_REQUEST,
                f"request {action.request_id} of match {action.match_id} is not waiting for an answer "
                "(answered already, too late, or never sent); action ignored",
                action.match_id,
                action.request_id,
            )
            return
        pending.debug = action.debug
        pending.answer.set_result(action.action_id)

    def is_answer(self, action: bot_pb.Action) -> bool:
        """Whether a bot's Action answers a pending request (those never count as flooding)."""
        pending = self.pending.get(action.request_id)
        return pending is not None and pending.match_id == action.match_id and not pending.answer.done()

    # -- streams ------------------------------------------------------------------------------

    def attach(self, welcome: bot_pb.Welcome) -> int:
        """A stream starts serving this session: Welcome, what waited to be sent, then every pending request again."""
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        self._streams += 1
        self.stream = self._streams
        # Requests (the bytes) and MatchStarted messages are sent again below, as they stand now.
        kept = [
            m
            for m in self._outbox
            if isinstance(m, bot_pb.ConnectResponse) and m.WhichOneof("message") != "match_started"
        ]
        self._outbox.clear()
        self._outbox.append(bot_pb.ConnectResponse(welcome=welcome))
        for match_id in sorted(self.matches):
            started = self.started.get(match_id)
            if started is not None:
                self._outbox.append(bot_pb.ConnectResponse(match_started=started))
        self._outbox.extend(kept)
        now = time.monotonic()
        for pending in self.pending.values():
            if not pending.answer.done():
                self._outbox.append(pending.encoded(pending.deadline - now))
        self._wake.set()
        return self.stream

    def detach(self, stream: int, on_expiry: Any) -> None:
        """Stream `stream` ended; unless another already took over, wait `grace` for a resume."""
        if self.stream != stream or self.gone:
            return
        self.stream = 0
        self._wake.set()
        self._grace = asyncio.get_running_loop().call_later(self.limits.grace, on_expiry, self)

    def close(self, why: SeatGone | None = None) -> None:
        """The session is over: its pending requests fail with SeatGone (`why`, else a lost stream), nothing
        more is sent."""
        self.gone = True
        self.stream = 0
        self.ended = why or SeatGone(
            f"its stream was lost and it did not resume within the grace period of {self.limits.grace:g} s"
        )
        if self._grace is not None:
            self._grace.cancel()
        for pending in self.pending.values():
            if not pending.answer.done():
                pending.answer.set_exception(SeatGone(str(self.ended), self.ended.kind))
        self._outbox.clear()
        self._wake.set()


@dataclass
class SessionRegistry:
    """Every live session, by id and by bot name."""

    limits: Limits = field(default_factory=Limits)
    by_id: dict[str, Session] = field(default_factory=dict)
    fds: FdBudget | None = None
    """The node's file descriptors: no new session while they run short (None: not watched)."""
    _by_bot: dict[str, dict[str, Session]] = field(default_factory=dict)
    on_change: Callable[[Session], None] | None = None
    """Told when a session opens, resumes or ends (the ladder restates its queue entries)."""
    launch_lost: Callable[[Session], bool] | None = None
    """Takes over a hosted launch's session whose grace ran out (True when it did): the node that started the
    process judges its end (a limit, a crash) before the seats forfeit, rather than `disconnected`."""
    exclusive_launches: set[str] = field(default_factory=set)
    """Hosted launches whose session is exclusive (see Session.exclusive); marked before their process starts."""

    def open(self, bot: str, hello: bot_pb.Hello, launch: str = "") -> tuple[Session, bool]:
        """The session a Hello asks for: the one it resumes (if it is this bot's and still alive), else a new one.

        Raises SessionsFull when a new one would pass the node's limit (`limits.max_sessions`), the bot's
        (`max_sessions_per_bot`, or `max_sessions_per_launch` for a hosted launch's token), or the node's
        file descriptors run short; a resume always gets through."""
        resumed = self.resumable(bot, hello, launch)
        if resumed is not None:
            resumed.batches = hello.batches  # how the resuming stream reads, whatever the lost one did
            self._changed(resumed)
            return resumed, True
        self._check_room(bot, launch)
        session = Session(bot, hello, self.limits, launch, exclusive=bool(launch) and launch in self.exclusive_launches)
        self.by_id[session.id] = session
        self._by_bot.setdefault(bot, {})[session.id] = session
        self._changed(session)
        return session, False

    def resumable(self, bot: str, hello: bot_pb.Hello, launch: str = "") -> Session | None:
        """The live session of `bot` (and `launch`) that `hello` resumes, if this node holds it."""
        found = self.by_id.get(hello.resume_session_id) if hello.resume_session_id else None
        if found is not None and found.bot == bot and found.launch == launch and not found.gone:
            return found
        return None

    def _check_room(self, bot: str, launch: str) -> None:
        """Raise SessionsFull (and count the refusal) when a new session of `bot` would pass a limit."""
        held = [s for s in self._by_bot.get(bot, {}).values() if s.launch == launch]
        refusal = None
        if len(self.by_id) >= self.limits.max_sessions:
            refusal = SessionsFull(self.limits.full_text(), "sessions_node")
        elif launch and len(held) >= self.limits.max_sessions_per_launch:
            refusal = SessionsFull(self.limits.launch_full_text(bot), "sessions_launch")
        elif not launch and len(held) >= self.limits.max_sessions_per_bot:
            refusal = SessionsFull(self.limits.bot_full_text(bot), "sessions_bot")
        elif self.fds is not None and self.fds.short():
            refusal = SessionsFull(self.fds.short_text(), "fds")
        if refusal is not None:
            metrics.REFUSALS.labels(refusal.kind).inc()
            raise refusal

    def grace_over(self, session: Session) -> None:
        """`session`'s stream did not come back within its grace period: it ends (a hosted launch's, once judged)."""
        if session.launch and self.launch_lost is not None and self.launch_lost(session):
            return
        self.expire(session)

    def expire(self, session: Session, why: SeatGone | None = None) -> None:
        """End `session` (`why` tells its seats why; by default a lost stream)."""
        session.close(why)
        self.by_id.pop(session.id, None)
        of_bot = self._by_bot.get(session.bot)
        if of_bot is not None:
            of_bot.pop(session.id, None)
            if not of_bot:
                del self._by_bot[session.bot]
        self._changed(session)

    def _changed(self, session: Session) -> None:
        if self.on_change is not None:
            self.on_change(session)

    def of_bot(self, bot: str) -> list[Session]:
        return [session for session in self._by_bot.get(bot, {}).values() if not session.gone]

    def connected(self) -> set[str]:
        return {session.bot for session in self.by_id.values() if session.attached}

    def close_all(self) -> None:
        for session in list(self.by_id.values()):
            self.expire(session)
