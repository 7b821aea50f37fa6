"""Seats across nodes: a match hosted on one node seats a bot connected to another through Redis streams.

Every node states which bot sessions it serves (its presence, refreshed while they live). A host
that needs a bot with no session of its own looks it up there and seats it as a `RelaySeat`: what
it would send the bot (MatchStarted, ActionRequest, Error, MatchEnded) goes as a `Post` to that
session's inbox; the node serving the session reads its inboxes, forwards each message over the
bot's gRPC stream, and writes the bot's answer to the match's reply stream, which the host reads.
The host's clock still rules: a late answer is a strike. The Redis side of all this, and the
encoding of every entry, is `arena.store.relay`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ClassVar

from redis.asyncio import Redis

from arena.games.base import Action, Game
from arena.match import MAX_STRIKES, MatchEnd, MatchInfo, MoveRequest, Seat, SeatGone, SeatLost, SeatTimeout
from arena.match.debug import cut as cut_debug
from arena.match.faults import FaultKind
from arena.node.remote_seat import legal_actions_of, match_field, request_body
from arena.node.sessions import SessionRegistry
from arena.store.embedded import READ_CHUNK
from arena.store.outage import UNREACHABLE, patiently
from arena.store.relay import (
    HEARTBEAT_TTL_MS,
    INBOX_TRIMMED,
    Answer,
    Gone,
    Post,
    PostKind,
    Refused,
    RelayStore,
    RemoteSession,
)
from arena.v1 import bot_service_pb2 as bot_pb
from arena.wire import convert

log = logging.getLogger(__name__)

REFRESH = 2.0
"""Seconds between presence refreshes."""
FIND_AGAIN = 0.25
"""Seconds between two looks for a bot whose serving node died."""
STALE = 3 * REFRESH
"""Seconds without a heartbeat after which a serving node is taken for stopped (three refreshes missed): the
seats it serves are looked for elsewhere, their clocks standing still. Its heartbeat lapses only later
(HEARTBEAT_TTL_MS), and a stopped node that beats again serves on."""
HAND_ON = 0.5
"""Seconds a serving node must have lived after a request was posted for a silence to be its bot's."""
ENDED_WATCH = 60.0
"""Seconds a serving node still reads the inbox of a session that ended while it played a match hosted
elsewhere: a host that posts to it before it learns of the end is answered Gone at once."""
LOOK_AHEAD = 0.25
"""Seconds before a move's deadline (a quarter of a shorter move) that a relayed seat looks whether the bot's
node was there to hand the request on."""
NODE_LOST_GRACE = 30.0
"""Seconds at least that a bot whose serving node died has to connect to a living node (the node restarting
under an orchestrator, the bot's backoff) before its match is aborted; its grace period when longer."""

Follow = Callable[[str, str, str], Awaitable["Seat | RemoteSession | None"]]
"""(bot, match id, a node to leave out) -> a seat through the bot's session on this node, its session on
another living node, or None while it has neither."""


async def find_sessions(
    redis: Redis, bots: list[str], node: str, alive: bool = False, avoid: str = ""
) -> dict[str, RemoteSession]:
    """For each of `bots` with a session on another node (not `avoid` either), one such session; with `alive`,
    only on a node that beat within `STALE` seconds (a stopped node's presence and heartbeat linger)."""
    return await RelayStore(redis).sessions_elsewhere(bots, node, STALE if alive else None, avoid)


class RelaySeat(Seat):
    """One seat of a match hosted here, played by a bot whose session another node serves."""

    timed = True
    found_stale: ClassVar[set[str]] = set()
    """Serving nodes a seat of this process found stale. The other seats on such a node look for their bots
    at once when next asked, instead of each waiting out a read of its own first (seconds a seat)."""

    def __init__(
        self,
        redis: Redis,
        remote: RemoteSession,
        match_id: str,
        seat: int,
        game: Game,
        encoder: convert.Encoder,
        blocking: Redis | None = None,
        host: str = "",
        grace: float = 10.0,
    ) -> None:
        self.name = remote.bot
        self.grace = max(grace, NODE_LOST_GRACE)
        """Seconds the bot has to reconnect to a living node once the node serving it died."""
        self.host = host
        """The node hosting the match: the serving node frees the seat if this one's heartbeat lapses."""
        self.relay = RelayStore(redis, blocking)
        self._posts = 0
        """Numbers this seat's posts, so that the serving node drops a post written twice (a retry)."""
        self.info: MatchInfo | None = None
        self.follow: Follow | None = None
        """Finds the bot again when the node serving its session dies (the match host sets it)."""
        self.local: Seat | None = None
        """The bot's session on this very node, once it came here: the seat then plays through it."""
        self.remote = remote
        self.match_id = match_id
        self.seat = seat
        self.encoder = encoder
        self.legal = legal_actions_of(game)
        self._match_field = match_field(match_id)
        self.strikes = 0
        self._requests = 0
        self._last_reply = "0-0"

    async def _post(
        self,
        kind: PostKind,
        message: bot_pb.ConnectResponse,
        on_wait: Callable[[float], None] | None = None,
        ask: int = 0,
    ) -> None:
        """Post to the session's inbox, waiting out an outage (told to `on_wait` as it passes)."""
        self._posts += 1
        post = Post(kind, self.match_id, self.seat, self._posts, self.host, message, ask)
        session_id = self.remote.session_id
        await patiently(lambda: self.relay.post(session_id, post), f"match {self.match_id}", on_wait=on_wait)

    async def start(self, info: MatchInfo) -> None:
        self.info = info
        await patiently(lambda: self.relay.clear_replies(self.match_id, self.seat), f"match {self.match_id}")
        started = bot_pb.MatchStarted(
            match_id=self.match_id,
            game=convert.spec_from_game(info.game),
            seat=info.seat,
            seats=info.seats,
            seed_commitment=info.seed_commitment,
            clock=convert.clock_to_pb(info.clock),
        )
        await self._post(PostKind.START, bot_pb.ConnectResponse(match_started=started))

    async def request(self, move: MoveRequest) -> Action:
        if self.local is not None:
            return await self.local.request(move)
        if self.remote.node in RelaySeat.found_stale:
            if await self._stale():
                await self._find_again(move.pause)
                return await self.request(move)
            RelaySeat.found_stale.discard(self.remote.node)  # it beats again
        self._requests += 1
        message = bot_pb.ActionRequest.FromString(request_body(self._match_field, self.encoder, move, self.legal))
        message.time_left_ms = int(move.time_left * 1000)
        response = bot_pb.ConnectResponse(action_request=message)
        # Time lost to an unreachable Redis is not the bot's: the move's clock stands still meanwhile.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + move.time_left
        given = 0.0  # seconds of this request's clock stood still so far

        def paused(seconds: float) -> None:
            nonlocal deadline, given
            deadline += seconds
            given += seconds
            move.pause(seconds)

        def lost_since_asked() -> None:
            """The whole wait since the request was posted was not the bot's."""
            paused(max(0.0, loop.time() - asked - given))

        await self._post(PostKind.REQUEST, response, paused, ask=self._requests)
        asked = loop.time()
        # Shortly before the deadline (the runner's too) the seat makes sure the bot's node was there to hand the
        # request on; else the bot is asked anew where it is. A read that ended at the deadline would be too late.
        look_ahead = min(LOOK_AHEAD, move.time_left / 4)
        looked = False
        while True:
            left = deadline - loop.time()
            if left <= look_ahead and not looked:
                looked = True
                if not await self._had_its_chance(asked, paused):
                    lost_since_asked()
                    await self._find_again(paused)
                    return await self.request(move)
                continue
            if left <= 0:
                raise SeatTimeout(f"no answer within {move.time_left:.3f} s")
            block = int(min(left - (0.0 if looked else look_ahead), READ_CHUNK) * 1000) + 1
            entries, _ = await patiently(
                lambda: self.relay.read_replies(self.match_id, self.seat, self._last_reply, block),  # noqa: B023
                f"match {self.match_id}",
                on_wait=paused,
            )
            if not entries and await self._stale():  # a read that waited in vain: is the bot's node still there?
                lost_since_asked()
                await self._find_again(paused)
                return await self.request(move)
            for entry in entries:
                self._last_reply = entry.entry_id
                reply = entry.reply
                if isinstance(reply, Refused):
                    log.warning(
                        "match %s seat %d: reply %s refused: %s", self.match_id, self.seat, entry.entry_id, reply.why
                    )
                elif reply.ask != self._requests:
                    continue  # the answer to an earlier, late request
                elif isinstance(reply, Gone):
                    raise SeatGone(reply.why, reply.kind)
                else:
                    move.debug = reply.debug
                    return reply.action

    async def _stale(self) -> bool:
        """Whether the node serving the bot's session missed three heartbeats (dead, stopped or starved)."""
        age, _ = await patiently(lambda: self.relay.beat_age(self.remote.node), "a relayed seat")
        return age is None or age > STALE

    async def _had_its_chance(self, asked: float, paused: Callable[[float], None]) -> bool:
        """Near a request's deadline: whether the serving node beat after the request was posted (with time to
        hand it on), so that a silence is the bot's; False when the node went stale first. While this waits for
        the node's next heartbeat the move's clock stands still (stopped ahead of each wait, so that the
        runner's deadline never passes meanwhile)."""
        loop = asyncio.get_running_loop()
        while True:
            age, _ = await patiently(lambda: self.relay.beat_age(self.remote.node), "a relayed seat", on_wait=paused)
            if age is None or age > STALE:
                return False
            if loop.time() - age > asked + HAND_ON:
                return True
            paused(FIND_AGAIN)
            await asyncio.sleep(FIND_AGAIN)

    async def _find_again(self, paused: Callable[[float], None]) -> None:
        """Wait for the bot of a seat whose serving node died to connect to a living node (this one or
        another), or for that node to beat again (it was stopped, not dead), the clock standing still;
        SeatLost when neither happens within the grace period."""
        loop = asyncio.get_running_loop()
        since = loop.time()
        if len(RelaySeat.found_stale) > 1000:  # names of nodes long dead: forget them, it is only a shortcut
            RelaySeat.found_stale.clear()
        RelaySeat.found_stale.add(self.remote.node)
        log.warning("match %s: node %s serving bot %s stopped beating", self.match_id, self.remote.node, self.name)
        while not await self._moved():
            if not await self._stale():
                log.info("match %s: node %s beats again; bot %s is asked there anew", self.match_id, self.remote.node,
                         self.name)  # fmt: skip
                return  # it was stopped a while, not dead: its session may well still be there
            waited = loop.time() - since
            if waited > self.grace:
                raise SeatLost(
                    f"seat {self.seat} ({self.name}) was lost with node {self.remote.node}, and the bot did not "
                    f"connect to another node within {self.grace:.0f} s"
                )
            before = loop.time()
            await asyncio.sleep(FIND_AGAIN)
            paused(loop.time() - before)

    async def _moved(self) -> bool:
        """After a read that got no answer: if the node serving the bot's session died, find the bot again.

        True when the seat now reaches the bot elsewhere: through its session on this node, or on
        another living node (told the match anew, as a resuming host does).
        """
        if self.follow is None or self.info is None:
            return False
        if not await self._stale():
            return False
        found = await self.follow(self.name, self.match_id, self.remote.node)
        if isinstance(found, Seat):
            log.info("match %s: bot %s came to this node; its seat plays here now", self.match_id, self.name)
            self.local = found
            await found.start(self.info)
            return True
        if found is not None and (found.session_id, found.node) != (self.remote.session_id, self.remote.node):
            log.info("match %s: bot %s is on node %s now; its seat follows it", self.match_id, self.name, found.node)
            self.remote = found
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
            text = (
                f"{MAX_STRIKES} strikes: you forfeit match {self.match_id}; your seat plays on with default "
                "moves and is ranked last"
            )
            errors.append(bot_pb.Error(code=bot_pb.ERROR_CODE_FORFEIT, message=text, match_id=self.match_id))
        for error in errors:
            await self._post(PostKind.ERROR, bot_pb.ConnectResponse(error=error), move.pause)

    async def end(self, result: MatchEnd) -> None:
        if self.local is not None:
            await self.local.end(result)
            return
        ended = bot_pb.MatchEnded(
            match_id=self.match_id,
            scores=result.scores,
            ranks=result.ranks,
            termination=convert.termination_to_pb(result.termination),
            seed=result.seed.hex(),
            forfeited=result.forfeited,
        )
        await self._post(PostKind.END, bot_pb.ConnectResponse(match_ended=ended))
        await patiently(lambda: self.relay.expire_replies(self.match_id, self.seat), f"match {self.match_id}")


class Relay:
    """This node's side: states its sessions in Redis and forwards what other hosts post to them."""

    def __init__(
        self, redis: Redis, sessions: SessionRegistry, node: str, playing_here: Callable[[str], bool] = lambda _: False
    ) -> None:
        self.playing_here = playing_here
        """Whether this node plays a match now (its host died and this node resumed it: the seat is its own)."""
        self.relay = RelayStore(redis)
        self.sessions = sessions
        self.node = node
        self._last: dict[str, str] = {}
        self._untrimmed: dict[str, int] = {}
        """Entries delivered from each session's inbox since it was last trimmed."""
        self._answers: set[asyncio.Task[None]] = set()
        self._posts_seen: dict[tuple[str, str, str], int] = {}
        """The last post number delivered per (session, match, host)."""
        self.hosted_elsewhere: dict[tuple[str, str], str] = {}
        """(session, match) -> the node hosting it, for the matches this node's sessions play through the relay."""
        self._ended: dict[str, float] = {}
        """Ended sessions that played matches hosted elsewhere -> when this node saw them end (time.monotonic)."""
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
                ended = {session_id: bot for session_id, bot in stated.items() if session_id not in live}
                await self.relay.refresh(self.node, ended, [(s.id, s.bot, s.games) for s in live.values()])
                stated = {session_id: session.bot for session_id, session in live.items()}
                beating_since = beating_since or time.monotonic()
                # After an outage every heartbeat lapsed: judge others only once they had time to beat again.
                if time.monotonic() - beating_since > HEARTBEAT_TTL_MS / 1000 + REFRESH:
                    await self._free_seats_of_dead_hosts()
            except UNREACHABLE as error:
                # The store's health check says so once, in one line; every pass here would repeat it.
                beating_since = 0.0
                log.debug("stating this node's sessions: Redis is unreachable (%s)", error)
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
        dead = set(hosts) - await self.relay.alive(hosts)
        for (session_id, match_id), host in list(self.hosted_elsewhere.items()):
            if host in dead:
                del self.hosted_elsewhere[(session_id, match_id)]
                self._posts_seen.pop((session_id, match_id, host), None)
                session = self.sessions.by_id.get(session_id)
                if session is not None and not self.playing_here(match_id):
                    session.matches.discard(match_id)
                    session.started.pop(match_id, None)
                log.warning(
                    "node %s stopped beating: match %s no longer holds a seat of session %s", host, match_id, session_id
                )

    async def _read_loop(self) -> None:
        while not self._stopping:
            await self._follow_ended()
            reading = [*self.sessions.by_id, *self._ended]
            after = {session_id: self._last.setdefault(session_id, "0-0") for session_id in reading}
            if not after:
                await asyncio.sleep(0.2)
                continue
            try:
                delivered = await self.relay.read_inboxes(after, block_ms=200)
            except UNREACHABLE as error:
                log.debug("reading session inboxes: Redis is unreachable (%s)", error)
                await asyncio.sleep(1.0)
                continue
            except Exception:
                log.exception("reading session inboxes")
                await asyncio.sleep(1.0)
                continue
            for entry in delivered:
                self._last[entry.session_id] = entry.entry_id
                if isinstance(entry.post, Refused):
                    log.warning(
                        "session %s: inbox entry %s refused: %s", entry.session_id, entry.entry_id, entry.post.why
                    )
                else:
                    self._deliver(entry.session_id, entry.post)
            for entry in delivered:
                self._untrimmed[entry.session_id] = self._untrimmed.get(entry.session_id, 0) + 1
            due = {sid: self._last[sid] for sid, count in self._untrimmed.items() if count >= INBOX_TRIMMED}
            if due:
                try:
                    await self.relay.delivered(due)
                except Exception:
                    log.exception("trimming session inboxes")
                for session_id in due:
                    del self._untrimmed[session_id]

    async def _follow_ended(self) -> None:
        """Note the sessions that ended since the last read; forget those noted `ENDED_WATCH` seconds ago.

        A session that played matches hosted elsewhere is read on a while: its hosts go on posting to it
        until they are answered Gone (else each would wait out a move and strike the bot, as often as it
        takes to forfeit). Its inbox is deleted as it is forgotten (a host's post may have made it again).
        """
        now = time.monotonic()
        relayed = {session_id for session_id, _ in self.hosted_elsewhere}
        for session_id in set(self._last) - set(self.sessions.by_id) - set(self._ended):
            if session_id in relayed:
                self._ended[session_id] = now
            else:
                self._forget(session_id)
        expired = [session_id for session_id, since in self._ended.items() if now - since > ENDED_WATCH]
        if expired:
            try:
                await self.relay.drop_inboxes(expired)
            except Exception:
                log.exception("deleting the inboxes of ended sessions")
                return
            for session_id in expired:
                self._forget(session_id)

    def _forget(self, session_id: str) -> None:
        self._ended.pop(session_id, None)
        self._last.pop(session_id, None)
        self._untrimmed.pop(session_id, None)
        for session_and_match in [key for key in self.hosted_elsewhere if key[0] == session_id]:
            del self.hosted_elsewhere[session_and_match]
        for seen in [key for key in self._posts_seen if key[0] == session_id]:
            del self._posts_seen[seen]

    def _deliver(self, session_id: str, post: Post) -> None:
        session = self.sessions.by_id.get(session_id)
        # Numbered per host: a node that resumed the match (a new incarnation) numbers its posts from 1 again.
        seen = self._posts_seen.get((session_id, post.match_id, post.host), 0)
        if post.number <= seen:
            return  # written twice: the host retried a post whose reply it lost
        self._posts_seen[(session_id, post.match_id, post.host)] = post.number
        if session is None:
            if post.kind is PostKind.REQUEST:
                self._spawn(self._answer_gone(post, "the bot's session ended"))
            return
        if post.kind is PostKind.START:
            self.hosted_elsewhere[(session_id, post.match_id)] = post.host
            session.seated(post.match_id)
            session.started[post.match_id] = post.message.match_started
            session.send(post.message)
        elif post.kind is PostKind.REQUEST:
            self._spawn(self._answer(session_id, post))
        elif post.kind is PostKind.ERROR:
            session.send(post.message)
        elif post.kind is PostKind.END:
            self._posts_seen.pop((session_id, post.match_id, post.host), None)
            self.hosted_elsewhere.pop((session_id, post.match_id), None)
            session.matches.discard(post.match_id)
            session.started.pop(post.match_id, None)
            session.send(post.message)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._answers.add(task)
        task.add_done_callback(self._answers.discard)

    async def _answer(self, session_id: str, post: Post) -> None:
        session = self.sessions.by_id.get(session_id)
        if session is None:
            await self._answer_gone(post, "the bot's session ended")
            return
        request = post.message.action_request
        time_left = request.time_left_ms / 1000
        request.ClearField("time_left_ms")  # the session sets both anew: its own request id, the time left
        request.ClearField("request_id")
        try:
            pending = session.request(request.match_id, request.SerializeToString(), time_left)
        except SeatGone as gone:
            await self._answer_gone(post, str(gone), gone.kind)
            return
        try:
            action = await asyncio.wait_for(pending.answer, time_left + 1.0)
        except SeatGone as gone:
            await self._answer_gone(post, str(gone), gone.kind)
            return
        except TimeoutError:
            return
        finally:
            session.pending.pop(pending.request_id, None)
        # A reply written twice is harmless: the host takes the first answer to its request. The debug
        # text is cut to a move's limit here already, so that no more of it than the host keeps crosses Redis.
        answer = Answer(post.ask, action, cut_debug(pending.debug))
        await patiently(lambda: self.relay.reply(post.match_id, post.seat, answer), f"an answer of {session.bot}")

    async def _answer_gone(self, post: Post, why: str, kind: FaultKind = FaultKind.DISCONNECTED) -> None:
        with contextlib.suppress(Exception):
            await self.relay.reply(post.match_id, post.seat, Gone(post.ask, why, kind))
