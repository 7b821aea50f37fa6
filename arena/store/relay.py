"""Relay traffic in Redis: the nodes' presence and heartbeats, posts to session inboxes and the answers.

A match host reaches a bot whose session another node serves by posting to that session's inbox
stream; the serving node answers a request on the match's reply stream for the seat. Every
entry is written by `encode_*` and read by `decode_*` here, so the node runtime speaks only in
`Post`, `Answer` and `Gone`; an entry this module cannot read is refused with `RelayMessageError`,
whose message is one line saying what is wrong with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from google.protobuf.message import DecodeError
from redis.asyncio import Redis
from redis.typing import EncodableT, FieldT

from arena.store import keys
from arena.store.codec import compact_json, text
from arena.v1 import bot_service_pb2 as bot_pb

PRESENCE_TTL_MS = 20_000
"""A node that stops refreshing its presence (it died) is forgotten after this long."""
HEARTBEAT_TTL_MS = 15_000
"""A node's heartbeat lapses this long after its last refresh (seven refreshes missed, so that a node starved
of CPU is not taken for dead: benchmarks/false_deaths.py): its relayed seats follow their bots elsewhere, and
the seats its matches held on other nodes are freed."""
INBOX_MAX = 10_000
"""Entries an inbox keeps (approximately); older ones are trimmed."""
INBOX_TTL_MS = 300_000
"""An inbox left alone this long goes (its serving node died with it): each match's first and last post
renew it; the serving node trims what it delivered and deletes it when its session ends."""
INBOX_TRIMMED = 64
"""The serving node trims an inbox once it delivered this many entries since the last trim."""


class RelayMessageError(Exception):
    """A relay entry that cannot be read: an unknown kind, a missing field, a garbled payload."""


class PostKind(Enum):
    """What a host posts to a session's inbox, by the part of `ConnectResponse` it carries."""

    START = "start"
    """MatchStarted: the session takes a seat in the match (again, when a host resumes it)."""
    REQUEST = "request"
    """ActionRequest: the bot's answer goes to the match's reply stream for the seat."""
    ERROR = "error"
    """Error: a strike or a forfeit, told to the bot."""
    END = "end"
    """MatchEnded: the seat is free again."""


_PAYLOAD = {
    PostKind.START: "match_started",
    PostKind.REQUEST: "action_request",
    PostKind.ERROR: "error",
    PostKind.END: "match_ended",
}
"""The field of `ConnectResponse` each kind of post carries."""
_KINDS = {kind.value: kind for kind in PostKind}


@dataclass(frozen=True)
class RemoteSession:
    """A session of a bot served by another node, as its presence entry states it."""

    session_id: str
    bot: str
    node: str
    games: tuple[str, ...]

    def plays(self, game: str) -> bool:
        return not self.games or game in self.games


@dataclass(frozen=True)
class Post:
    """One message of a match host for a bot session on another node."""

    kind: PostKind
    match_id: str
    seat: int
    """The bot's seat in the match: where its answers go."""
    number: int
    """Numbers the seat's posts from 1, so that the serving node drops a post written twice (a retry)."""
    host: str
    """The node hosting the match: the serving node frees the seat if this one's heartbeat lapses."""
    message: bot_pb.ConnectResponse
    """What the bot is sent; its field matches `kind`."""
    ask: int = 0
    """For a request: which of the seat's requests this is, repeated in the answer."""


@dataclass(frozen=True)
class Answer:
    """The bot's action for request `ask` of its seat."""

    ask: int
    action: int


@dataclass(frozen=True)
class Gone:
    """The bot cannot answer request `ask` of its seat (its session ended); `why` says so to the host."""

    ask: int
    why: str


Reply = Answer | Gone


@dataclass(frozen=True)
class Refused:
    """An entry that could not be read (see RelayMessageError): skipped, and `why` logged."""

    why: str


@dataclass(frozen=True)
class Delivered:
    """An entry read from a session's inbox."""

    session_id: str
    entry_id: str
    post: Post | Refused


@dataclass(frozen=True)
class ReplyEntry:
    """An entry read from a seat's reply stream."""

    entry_id: str
    reply: Reply | Refused


def encode_post(post: Post) -> dict[FieldT, EncodableT]:
    """The inbox entry's fields for `post`."""
    if post.message.WhichOneof("message") != _PAYLOAD[post.kind]:
        raise RelayMessageError(f"a {post.kind.value} post must carry {_PAYLOAD[post.kind]}")
    return {
        "kind": post.kind.value,
        "match": post.match_id,
        "seat": post.seat,
        "n": post.number,
        "host": post.host,
        "ask": post.ask,
        "msg": post.message.SerializeToString(),
    }


def decode_post(fields: Mapping[Any, Any]) -> Post:
    """The post an inbox entry holds; RelayMessageError when it holds none."""
    data = {text(name): value for name, value in fields.items()}
    try:
        kind = _KINDS.get(text(data["kind"]))
        if kind is None:
            raise RelayMessageError(f"a relay post of unknown kind {text(data['kind'])!r}")
        message = bot_pb.ConnectResponse.FromString(data["msg"])
        match_id, seat, number = text(data["match"]), int(data["seat"]), int(data["n"])
        host, ask = text(data["host"]), int(data["ask"])
    except KeyError as missing:
        raise RelayMessageError(f"a relay post without its {missing.args[0]!r} field") from None
    except (ValueError, DecodeError) as error:
        raise RelayMessageError(f"a garbled relay post: {_one_line(error)}") from None
    if message.WhichOneof("message") != _PAYLOAD[kind]:
        raise RelayMessageError(f"a {kind.value} post that carries {message.WhichOneof('message')} instead")
    return Post(kind, match_id, seat, number, host, message, ask)


def encode_reply(reply: Reply) -> dict[FieldT, EncodableT]:
    """The reply entry's fields for `reply`."""
    if isinstance(reply, Gone):
        return {"ask": reply.ask, "gone": reply.why}
    return {"ask": reply.ask, "action": reply.action}


def decode_reply(fields: Mapping[Any, Any]) -> Reply:
    """The reply an entry holds; RelayMessageError when it holds none."""
    data = {text(name): text(value) for name, value in fields.items()}
    try:
        if "gone" in data:
            return Gone(int(data["ask"]), data["gone"])
        return Answer(int(data["ask"]), int(data["action"]))
    except KeyError as missing:
        raise RelayMessageError(f"a relay reply without its {missing.args[0]!r} field") from None
    except ValueError as error:
        raise RelayMessageError(f"a garbled relay reply: {_one_line(error)}") from None


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class RelayStore:
    """The relay's Redis traffic, for match hosts and for the nodes serving sessions."""

    def __init__(self, redis: Redis, blocking: Redis | None = None) -> None:
        self.redis = redis
        self.blocking = blocking or redis
        """For the blocking reads of replies: connections of their own."""

    # -- presence and heartbeats ------------------------------------------------------------

    async def refresh(
        self, node: str, ended: Mapping[str, str], live: Iterable[tuple[str, str, Iterable[str]]]
    ) -> None:
        """State this node's `live` sessions (id, bot, games), drop its `ended` ones (id -> bot),
        and renew its heartbeat: one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for session_id, bot in ended.items():
            pipe.hdel(keys.presence(bot), session_id)
            pipe.delete(keys.session_inbox(session_id))
        for session_id, bot, games in live:
            pipe.hset(keys.presence(bot), session_id, compact_json({"node": node, "games": sorted(games)}))
            pipe.pexpire(keys.presence(bot), PRESENCE_TTL_MS)
        pipe.set(keys.node_alive(node), 1, px=HEARTBEAT_TTL_MS)
        await pipe.execute()

    async def alive(self, nodes: Sequence[str]) -> set[str]:
        """Those of `nodes` whose heartbeat is current."""
        pipe = self.redis.pipeline(transaction=False)
        for node in nodes:
            pipe.exists(keys.node_alive(node))
        return {node for node, beating in zip(nodes, await pipe.execute(), strict=True) if beating}

    async def sessions_elsewhere(self, bots: Iterable[str], node: str, alive: bool = False) -> dict[str, RemoteSession]:
        """For each of `bots` with a session on a node other than `node`, one such session; with `alive`,
        only on a node whose heartbeat is current (a dead node's presence lingers until it expires).
        A presence entry that cannot be read counts as no session."""
        found: dict[str, RemoteSession] = {}
        for bot in bots:
            entries = await self.redis.hgetall(keys.presence(bot))
            for session_id, entry in sorted(entries.items()):
                remote = _remote_session(text(session_id), bot, entry)
                if remote is None or remote.node == node:
                    continue
                if not alive or await self.alive([remote.node]):
                    found[bot] = remote
                    break
        return found

    # -- posts to session inboxes -----------------------------------------------------------

    async def post(self, session_id: str, post: Post) -> None:
        inbox = keys.session_inbox(session_id)
        if post.kind in (PostKind.START, PostKind.END):
            # Its time to live is renewed as a match begins and ends there, not with every move.
            pipe = self.redis.pipeline(transaction=False)
            pipe.xadd(inbox, encode_post(post), maxlen=INBOX_MAX, approximate=True)
            pipe.pexpire(inbox, INBOX_TTL_MS)
            await pipe.execute()
        else:
            await self.redis.xadd(inbox, encode_post(post), maxlen=INBOX_MAX, approximate=True)

    async def delivered(self, upto: Mapping[str, str]) -> None:
        """Drop what each session's inbox held up to (and but) the entry read last: it is delivered."""
        pipe = self.redis.pipeline(transaction=False)
        for session_id, entry_id in upto.items():
            pipe.xtrim(keys.session_inbox(session_id), minid=entry_id, approximate=False)
        await pipe.execute()

    async def read_inboxes(self, after: Mapping[str, str], block_ms: int) -> list[Delivered]:
        """What the inboxes of sessions `after` (id -> last entry id read) hold past those entries,
        waiting up to `block_ms` for the first."""
        owners = {keys.session_inbox(session_id): session_id for session_id in after}
        streams: dict[Any, Any] = {key: after[session_id] for key, session_id in owners.items()}
        reply: Any = await self.redis.xread(streams, block=block_ms)
        delivered = []
        for stream, entries in reply or []:
            session_id = owners[text(stream)]
            for entry_id, fields in entries:
                post: Post | Refused
                try:
                    post = decode_post(fields)
                except RelayMessageError as error:
                    post = Refused(str(error))
                delivered.append(Delivered(session_id, text(entry_id), post))
        return delivered

    # -- replies to requests ----------------------------------------------------------------

    async def clear_replies(self, match_id: str, seat: int) -> None:
        """Drop the seat's earlier replies: a match (re)started here reads its own only."""
        await self.redis.delete(keys.match_replies(match_id, seat))

    async def expire_replies(self, match_id: str, seat: int) -> None:
        """Let the seat's reply stream go once late answers can no longer arrive."""
        await self.redis.pexpire(keys.match_replies(match_id, seat), PRESENCE_TTL_MS)

    async def reply(self, match_id: str, seat: int, reply: Reply) -> None:
        await self.redis.xadd(keys.match_replies(match_id, seat), encode_reply(reply))

    async def read_replies(self, match_id: str, seat: int, after: str, block_ms: int) -> list[ReplyEntry]:
        """The seat's replies past entry `after`, waiting up to `block_ms` for the first."""
        reply: Any = await self.blocking.xread({keys.match_replies(match_id, seat): after}, block=block_ms)
        found = []
        for entry_id, fields in reply[0][1] if reply else ():
            answer: Reply | Refused
            try:
                answer = decode_reply(fields)
            except RelayMessageError as error:
                answer = Refused(str(error))
            found.append(ReplyEntry(text(entry_id), answer))
        return found


def _remote_session(session_id: str, bot: str, entry: bytes | str) -> RemoteSession | None:
    try:
        data = json.loads(entry)
        return RemoteSession(session_id, bot, str(data["node"]), tuple(data["games"]))
    except (ValueError, KeyError, TypeError):
        return None
