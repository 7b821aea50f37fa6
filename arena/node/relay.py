"""Seats across nodes: a match hosted on one node seats a bot connected to another through Redis streams.

Every node states which bot sessions it serves (`arena:presence:{bot}`, refreshed while they
live). A host that needs a bot with no session of its own looks it up there and seats it as a
`RelaySeat`: what it would send the bot (MatchStarted, ActionRequest, Error, MatchEnded) goes,
serialized, to that session's inbox stream; the node serving the session reads its inboxes,
forwards each message over the bot's gRPC stream, and writes the bot's answer to the match's
reply stream, which the host reads. The host's clock still rules: a late answer is a strike.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from arena.games.base import Action, Game
from arena.match import MAX_STRIKES, MatchEnd, MatchInfo, MoveRequest, Seat, SeatGone, SeatTimeout
from arena.node.remote_seat import legal_actions_of
from arena.node.sessions import SessionRegistry
from arena.store import keys
from arena.store.embedded import READ_CHUNK
from arena.store.outage import patiently
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from arena.wire import convert

log = logging.getLogger(__name__)

PRESENCE_TTL_MS = 10_000
"""A node that stops refreshing its presence (it died) is forgotten after this long."""
REFRESH = 2.0
"""Seconds between presence refreshes."""
HEARTBEAT_TTL_MS = 6_000
"""A node's heartbeat lapses this long after its last refresh (three refreshes missed): its relayed
seats follow their bots elsewhere, and the seats its matches held on other nodes are freed."""
INBOX_MAX = 10_000
"""Entries an inbox keeps (approximately); older ones are trimmed."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


Follow = Callable[[str, str], Awaitable["Seat | RemoteSession | None"]]
"""(bot, match id) -> a seat through the bot's session on this node, its session on another living
node, or None while it has neither."""


@dataclass(frozen=True)
class RemoteSession:
    """A session of a bot served by another node, as its presence entry states it."""

    session_id: str
    bot: str
    node: str
    games: tuple[str, ...]

    def plays(self, game: str) -> bool:
        return not self.games or game in self.games


async def find_sessions(redis: Redis, bots: list[str], node: str, alive: bool = False) -> dict[str, RemoteSession]:
    """For each of `bots` with a session on another node, one such session; with `alive`, only on a node
    whose heartbeat is current (a dead node's presence lingers until it expires)."""
    found: dict[str, RemoteSession] = {}
    for bot in bots:
        entries = await redis.hgetall(keys.presence(bot))
        for session_id, raw in sorted(entries.items()):
            data = json.loads(raw)
            if data["node"] != node and (not alive or await redis.exists(keys.node_alive(data["node"]))):
                found[bot] = RemoteSession(_text(session_id), bot, data["node"], tuple(data["games"]))
                break
    return found


class RelaySeat(Seat):
    """One seat of a match hosted here, played by a bot whose session another node serves."""

    timed = True

    def __init__(self, redis: Redis, remote: RemoteSession, match_id: str, seat: int, game: Game,
                 encoder: convert.Encoder, blocking: Redis | None = None, host: str = "") -> None:  # fmt: skip
        self.name = remote.bot
        self.host = host
        """The node hosting the match: the serving node frees the seat if this one's heartbeat lapses."""
        self.redis = redis
        self.blocking = blocking or redis
        """For the blocking reads of the bot's answers: connections of their own."""
        self._posts = 0
        """Numbers this seat's posts, so that the serving node drops a post written twice (a retry)."""
        self.info: MatchInfo | None = None
        self.follow: Follow | None = None
        """Finds the bot again when the node serving its session dies (the match host sets it)."""
        self.local: Seat | None = None
        """The bot's session on this very node, once it came here: the seat then plays through it."""
        self.remote = remote
        self.match_id = match_id
        self.inbox = keys.session_inbox(remote.session_id)
        self.replies = keys.match_replies(match_id, seat)
        self.encoder = encoder
        self.legal = legal_actions_of(game)
        self.strikes = 0
        self._requests = 0
        self._last_reply = "0-0"

    async def _post(
        self, kind: str, message: bot_pb.ConnectResponse, on_wait: Callable[[float], None] | None = None, **extra: Any
    ) -> None:
        """Post to the session's inbox, waiting out an outage (told to `on_wait` as it passes)."""
        self._posts += 1
        fields: dict[Any, Any] = {"kind": kind, "match": self.match_id, "n": self._posts, "host": self.host,
                                  "msg": message.SerializeToString(), **extra}  # fmt: skip
        await patiently(
            lambda: self.redis.xadd(self.inbox, fields, maxlen=INBOX_MAX, approximate=True), f"match {self.match_id}",
            on_wait=on_wait,
        )  # fmt: skip

    async def start(self, info: MatchInfo) -> None:
        self.info = info
        await patiently(lambda: self.redis.delete(self.replies), f"match {self.match_id}")
        started = bot_pb.MatchStarted(
            match_id=self.match_id, game=convert.spec_from_game(info.game), seat=info.seat, seats=info.seats,
            seed_commitment=info.seed_commitment, clock=convert.clock_to_pb(info.clock),
        )  # fmt: skip
        await self._post("start", bot_pb.ConnectResponse(match_started=started))

    async def request(self, move: MoveRequest) -> Action:
        if self.local is not None:
            return await self.local.request(move)
        self._requests += 1
        response = bot_pb.ConnectResponse()
        message = response.action_request
        message.match_id = self.match_id
        self.encoder.encode_into(move.observation, message.observation)
        message.legal_actions.extend([self.legal[action] for action in move.legal_actions])
        message.time_left_ms = int(move.time_left * 1000)
        # Time lost to an unreachable Redis is not the bot's: the move's clock stands still meanwhile.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + move.time_left

        def paused(seconds: float) -> None:
            nonlocal deadline
            deadline += seconds
            move.pause(seconds)

        await self._post("request", response, paused, ask=self._requests, reply=self.replies)
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise SeatTimeout(f"no answer within {move.time_left:.3f} s")
            block = int(min(left, READ_CHUNK) * 1000) + 1
            reply: Any
            reply, _ = await patiently(
                lambda: self.blocking.xread({self.replies: self._last_reply}, block=block),  # noqa: B023
                f"match {self.match_id}", on_wait=paused,
            )  # fmt: skip
            if not reply and await self._moved():
                return await self.request(move)  # asked again where the bot is now, within the same clock
            for entry_id, fields in reply[0][1] if reply else ():
                self._last_reply = _text(entry_id)
                data = {_text(key): _text(value) for key, value in fields.items()}
                if data.get("ask") != str(self._requests):
                    continue  # the answer to an earlier, late request
                if "gone" in data:
                    raise SeatGone(data["gone"])
                return int(data["action"])

    async def _moved(self) -> bool:
        """After a read that got no answer: if the node serving the bot's session died, find the bot again.

        True when the seat now reaches the bot elsewhere: through its session on this node, or on
        another living node (told the match anew, as a resuming host does).
        """
        if self.follow is None or self.info is None:
            return False
        alive: Any = await patiently(lambda: self.redis.exists(keys.node_alive(self.remote.node)), "a relayed seat")
        if alive[0]:
            return False
        found = await self.follow(self.name, self.match_id)
        if isinstance(found, Seat):
            log.info("match %s: bot %s came to this node; its seat plays here now", self.match_id, self.name)
            self.local = found
            await found.start(self.info)
            return True
        if found is not None and found.session_id != self.remote.session_id:
            log.info("match %s: bot %s is on node %s now; its seat follows it", self.match_id, self.name, found.node)
            self.remote, self.inbox = found, keys.session_inbox(found.session_id)
            await self.start(self.info)  # told the match anew, as a resuming host does
            return True
        return False

    async def reject(self, move: MoveRequest, reason: str) -> None:
        if self.local is not None:
            await self.local.reject(move, reason)
            return
        self.strikes += 1
        code = bot_pb.ERROR_CODE_LATE if "no answer" in reason else bot_pb.ERROR_CODE_ILLEGAL_ACTION
        errors = [bot_pb.Error(code=code, message=reason, match_id=self.match_id)]
        if self.strikes >= MAX_STRIKES:
            text = (f"{MAX_STRIKES} strikes: you forfeit match {self.match_id}; your seat plays on with default "
                    "moves and is ranked last")  # fmt: skip
            errors.append(bot_pb.Error(code=bot_pb.ERROR_CODE_FORFEIT, message=text, match_id=self.match_id))
        for error in errors:
            await self._post("error", bot_pb.ConnectResponse(error=error), move.pause)

    async def end(self, result: MatchEnd) -> None:
        if self.local is not None:
            await self.local.end(result)
            return
        ended = bot_pb.MatchEnded(
            match_id=self.match_id, scores=result.scores, ranks=result.ranks,
            termination=convert.TERMINATIONS.get(result.termination, pb.TERMINATION_UNSPECIFIED),
            seed=result.seed.hex(), forfeited=result.forfeited,
        )  # fmt: skip
        await self._post("end", bot_pb.ConnectResponse(match_ended=ended))
        await patiently(lambda: self.redis.pexpire(self.replies, PRESENCE_TTL_MS), f"match {self.match_id}")


class Relay:
    """This node's side: states its sessions in Redis and forwards what other hosts post to them."""

    def __init__(self, redis: Redis, sessions: SessionRegistry, node: str) -> None:
        self.redis = redis
        self.sessions = sessions
        self.node = node
        self._last: dict[str, str] = {}
        self._answers: set[asyncio.Task[None]] = set()
        self._posts_seen: dict[tuple[str, str], int] = {}
        """The last post number delivered per (session, match)."""
        self.hosted_elsewhere: dict[tuple[str, str], str] = {}
        """(session, match) -> the node hosting it, for the matches this node's sessions play through the relay."""
        self._stopping = False

    async def run(self) -> None:
        await asyncio.gather(self._refresh_loop(), self._read_loop())

    def stop(self) -> None:
        """End `run` at the loops' next turn, even where a cancellation is lost in a Redis call."""
        self._stopping = True

    async def _refresh_loop(self) -> None:
        stated: dict[str, str] = {}
        beating_since = 0.0
        while not self._stopping:
            try:
                live = {s.id: s for s in self.sessions.by_id.values() if not s.gone and not s.exclusive}
                pipe = self.redis.pipeline(transaction=False)
                for session_id, bot in stated.items():
                    if session_id not in live:
                        pipe.hdel(keys.presence(bot), session_id)
                for session in live.values():
                    entry = {"node": self.node, "games": sorted(session.games)}
                    pipe.hset(keys.presence(session.bot), session.id, json.dumps(entry))
                    pipe.pexpire(keys.presence(session.bot), PRESENCE_TTL_MS)
                pipe.set(keys.node_alive(self.node), 1, px=HEARTBEAT_TTL_MS)
                await pipe.execute()
                stated = {session_id: session.bot for session_id, session in live.items()}
                beating_since = beating_since or time.monotonic()
                # After an outage every heartbeat lapsed: judge others only once they had time to beat again.
                if time.monotonic() - beating_since > HEARTBEAT_TTL_MS / 1000 + REFRESH:
                    await self._free_seats_of_dead_hosts()
            except Exception:
                beating_since = 0.0
                log.exception("stating this node's sessions")
            await asyncio.sleep(REFRESH)

    async def _free_seats_of_dead_hosts(self) -> None:
        """A host that died never posts its matches' ends: free the seats its matches hold here.

        Otherwise the sessions stay full of matches nobody plays, and no node can seat those bots
        again (a living node resumes the match and posts a new start if it needs them).
        """
        hosts = sorted({host for host in self.hosted_elsewhere.values() if host})
        if not hosts:
            return
        pipe = self.redis.pipeline(transaction=False)
        for host in hosts:
            pipe.exists(keys.node_alive(host))
        dead = {host for host, alive in zip(hosts, await pipe.execute(), strict=True) if not alive}
        for (session_id, match_id), host in list(self.hosted_elsewhere.items()):
            if host in dead:
                del self.hosted_elsewhere[(session_id, match_id)]
                self._posts_seen.pop((session_id, match_id), None)
                session = self.sessions.by_id.get(session_id)
                if session is not None:
                    session.matches.discard(match_id)
                    session.started.pop(match_id, None)
                log.warning("node %s stopped beating: match %s no longer holds a seat of session %s",
                            host, match_id, session_id)  # fmt: skip

    async def _read_loop(self) -> None:
        while not self._stopping:
            owners = {keys.session_inbox(session_id): session_id for session_id in list(self.sessions.by_id)}
            streams: dict[Any, Any] = {key: self._last.setdefault(owner, "0-0") for key, owner in owners.items()}
            if not streams:
                await asyncio.sleep(0.2)
                continue
            try:
                reply: Any = await self.redis.xread(streams, block=200)
            except Exception:
                log.exception("reading session inboxes")
                await asyncio.sleep(1.0)
                continue
            for stream, entries in reply or []:
                session_id = owners[_text(stream)]
                for entry_id, fields in entries:
                    self._last[session_id] = _text(entry_id)
                    self._deliver(session_id, {_text(key): value for key, value in fields.items()})
            for session_id in set(self._last) - set(self.sessions.by_id):
                del self._last[session_id]

    def _deliver(self, session_id: str, fields: dict[str, Any]) -> None:
        session = self.sessions.by_id.get(session_id)
        kind, match_id = _text(fields["kind"]), _text(fields["match"])
        if "n" in fields:
            number, seen = int(fields["n"]), self._posts_seen.get((session_id, match_id), 0)
            if number <= seen:
                return  # written twice: the host retried a post whose reply it lost
            self._posts_seen[(session_id, match_id)] = number
        message = bot_pb.ConnectResponse.FromString(fields["msg"])
        if session is None:
            if kind == "request":
                self._spawn(self._answer_gone(fields, "the bot's session ended"))
            return
        if kind == "start":
            self.hosted_elsewhere[(session_id, match_id)] = _text(fields.get("host", b""))
            session.seated(match_id)
            session.started[match_id] = message.match_started
            session.send(message)
        elif kind == "request":
            self._spawn(self._answer(session_id, fields, message))
        elif kind == "error":
            session.send(message)
        elif kind == "end":
            self._posts_seen.pop((session_id, match_id), None)
            self.hosted_elsewhere.pop((session_id, match_id), None)
            session.matches.discard(match_id)
            session.started.pop(match_id, None)
            session.send(message)

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._answers.add(task)
        task.add_done_callback(self._answers.discard)

    async def _answer(self, session_id: str, fields: dict[str, Any], message: bot_pb.ConnectResponse) -> None:
        session = self.sessions.by_id.get(session_id)
        if session is None:
            await self._answer_gone(fields, "the bot's session ended")
            return
        time_left = message.action_request.time_left_ms / 1000
        try:
            pending = session.request(message.action_request.match_id, message, time_left)
        except SeatGone as gone:
            await self._answer_gone(fields, str(gone))
            return
        try:
            action = await asyncio.wait_for(pending.answer, time_left + 1.0)
        except SeatGone as gone:
            await self._answer_gone(fields, str(gone))
            return
        except TimeoutError:
            return
        finally:
            session.pending.pop(message.action_request.request_id, None)
        # A reply written twice is harmless: the host takes the first answer to its request.
        reply: dict[Any, Any] = {"ask": _text(fields["ask"]), "action": action}
        await patiently(lambda: self.redis.xadd(_text(fields["reply"]), reply), f"an answer of {session.bot}")

    async def _answer_gone(self, fields: dict[str, Any], why: str) -> None:
        if "reply" in fields:
            with contextlib.suppress(Exception):
                await self.redis.xadd(_text(fields["reply"]), {"ask": _text(fields["ask"]), "gone": why})
