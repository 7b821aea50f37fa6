"""The arena's state in Redis: owners, bots, token hashes, matches and their replay records.

Every mutating operation that touches more than one key is one Lua script or one MULTI/EXEC,
so nothing is ever half-written. Tokens are random secrets; only their SHA-256 is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Literal

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from arena.games.base import Termination
from arena.store import keys
from arena.store.archive import Archive, read_archived
from arena.store.codec import compact_json, text, text_fields, texts
from arena.store.replays import decode_replay, encode_replay
from arena.store.sentinel import NONE, Durability

NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,40}")
TOKEN_PREFIX = {"admin": "ata_", "owner": "ato_", "bot": "atb_"}
"""Tokens start with their kind, so a person can tell them apart; the rest is the secret."""
HOSTED_TOKEN_PREFIX = "ath_"
"""A token the arena minted for one hosted bot process (arena/store/hosted.py makes them)."""

LIST_PAGE = 200
"""Match summaries read at a time when listing (more when the limit asks for more)."""

PrincipalKind = Literal["admin", "owner", "bot"]


class StoreError(ValueError):
    """A request the stored data does not allow; the message says why."""


class NameTaken(StoreError):
    pass


class NotFound(StoreError):
    pass


class NotYours(StoreError):
    """A change to something that belongs to another owner."""


@dataclass(frozen=True)
class Principal:
    """Who presented a valid token."""

    kind: PrincipalKind
    name: str
    launch: str = ""
    """For a hosted bot's process, the launch it belongs to (its token was minted for it)."""


class BotKind(StrEnum):
    REMOTE = "remote"
    """Runs wherever its author runs it and connects with its token."""
    HOSTED = "hosted"
    """Its code was submitted; nodes run it in the sandbox."""


@dataclass(frozen=True)
class BotRecord:
    name: str
    owner: str
    kind: BotKind
    language: str
    games: tuple[str, ...]
    description: str
    created_ms: int
    accepts_invitations: bool = False
    """Whether other owners may enter it into their tournaments and challenges (its owner opted in)."""


@dataclass
class MatchRecord:
    """A match as listed: who played what, and how it ended (empty while it runs)."""

    match_id: str
    game: str
    params: dict[str, Any]
    seats: list[str]
    started_ms: int
    scores: list[int] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    termination: Termination | None = None
    """None while the match runs ("" in its JSON form)."""
    ended_ms: int = 0
    tournament_id: str = ""
    node: str = ""
    """The node incarnation that plays it (`NAME#INCARNATION`); the last one, for a match resumed elsewhere."""

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "termination": self.termination or ""}

    def to_json(self) -> str:
        return compact_json(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchRecord:
        data = json.loads(text)
        ended = data.get("termination")
        return cls(**{**data, "termination": Termination(ended) if ended else None})


def now_ms() -> int:
    return int(time.time() * 1000)


def new_token(kind: PrincipalKind) -> str:
    return TOKEN_PREFIX[kind] + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_name(name: str, what: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise StoreError(f"{what} name {name!r} must be 1-40 letters, digits, '-', '_' or '.'")
    return name


_CREATE_OWNER = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'name', ARGV[1], 'token_hash', ARGV[2], 'created_ms', ARGV[3])
redis.call('SET', KEYS[3], 'owner:' .. ARGV[1])
return 1
"""

_REGISTER_BOT = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[2], 'name', ARGV[1], 'owner', ARGV[2], 'kind', ARGV[3], 'language', ARGV[4],
           'games', ARGV[5], 'description', ARGV[6], 'created_ms', ARGV[7], 'token_hash', ARGV[8],
           'accepts_invitations', ARGV[9])
redis.call('SET', KEYS[4], 'bot:' .. ARGV[1])
return 1
"""

_UPDATE_BOT = """
-- KEYS: the bot's hash. ARGV: its owner, then field/value pairs. Returns 0 (no such bot), 1, or 2 (another owner's).
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return 0 end
if owner ~= ARGV[1] then return 2 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
"""

_ROTATE_TOKEN = """
if redis.call('HGET', KEYS[1], 'token_hash') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2])
redis.call('SET', KEYS[3], ARGV[3])
return 1
"""


@dataclass(frozen=True)
class MatchPage:
    """Matches newest first, and the ids to ask `before` (`older`) and `after` (`newer`) for the next page
    either way; empty where the list ends."""

    matches: list[MatchRecord]
    older: str
    newer: str


class Store:
    """Typed access to the arena's Redis data; the server holds one."""

    def __init__(
        self, redis: Redis, blocking: Redis | None = None, archive: Archive | None = None, durability: Durability = NONE
    ) -> None:
        self.redis = redis
        self.durability = durability
        """How many replicas must hold a result before it counts (a Sentinel URL's `replicas`; see store/sentinel.py)."""
        self.archive = archive
        """Where matches moved out of Redis are read from (`archive.py`); None: this node reads none."""
        self.blocking = blocking or redis
        """The client for blocking reads (a pool of their own: `embedded.blocking_client`)."""
        self._create_owner = redis.register_script(_CREATE_OWNER)
        self._register_bot = redis.register_script(_REGISTER_BOT)
        self._rotate_token = redis.register_script(_ROTATE_TOKEN)
        self._update_bot = redis.register_script(_UPDATE_BOT)
        self._tournament_index_checked = False
        """Whether this node saw the per-tournament match index complete (`_index_tournament_matches`)."""

    # -- tokens -------------------------------------------------------------------------------

    async def ensure_admin_token(self, given: str | None) -> str | None:
        """Store the admin token's hash: `given` (from the environment) replaces any earlier one;
        without it, a new token is made on first start only. Returns a newly made token, else None."""
        if given:
            await self.redis.hset(keys.ADMIN, "token_hash", token_hash(given))
            return None
        if await self.redis.hexists(keys.ADMIN, "token_hash"):
            return None
        made = new_token("admin")
        if await self.redis.hsetnx(keys.ADMIN, "token_hash", token_hash(made)):
            return made
        return None

    async def authenticate(self, token: str) -> Principal | None:
        """Whose token this is, or None; hashes are compared in constant time."""
        digest = token_hash(token)
        if token.startswith(HOSTED_TOKEN_PREFIX):
            launch = await self.redis.get(keys.hosted_token(digest))
            if launch is None:
                return None
            bot, _, launch_id = text(launch).partition(":")
            return Principal("bot", bot, launch_id)
        if token.startswith(TOKEN_PREFIX["admin"]):
            stored = await self.redis.hget(keys.ADMIN, "token_hash")
            return Principal("admin", "admin") if stored and hmac.compare_digest(text(stored), digest) else None
        owner = await self.redis.get(keys.token(digest))
        if owner is None:
            return None
        kind, _, name = text(owner).partition(":")
        record_key = keys.owner(name) if kind == "owner" else keys.bot(name)
        stored = await self.redis.hget(record_key, "token_hash")
        if kind not in ("owner", "bot") or not stored or not hmac.compare_digest(text(stored), digest):
            return None
        return Principal("owner" if kind == "owner" else "bot", name)

    # -- owners and bots ----------------------------------------------------------------------

    async def create_owner(self, name: str) -> str:
        """Create the owner account `name`; returns its token (shown once)."""
        check_name(name, "owner")
        made = new_token("owner")
        digest = token_hash(made)
        created = await self._create_owner(
            keys=[keys.OWNERS, keys.owner(name), keys.token(digest)], args=[name, digest, now_ms()]
        )
        if not created:
            raise NameTaken(f"an owner named {name!r} exists already; choose another name")
        return made

    async def register_bot(
        self,
        owner: str,
        name: str,
        games: Sequence[str],
        language: str = "",
        description: str = "",
        accepts_invitations: bool = False,
    ) -> tuple[BotRecord, str]:
        """Register bot `name` for `owner`; returns it and its token (shown once)."""
        check_name(name, "bot")
        record = BotRecord(
            name, owner, BotKind.REMOTE, language, tuple(games), description, now_ms(), accepts_invitations
        )
        made = new_token("bot")
        digest = token_hash(made)
        created = await self._register_bot(
            keys=[keys.BOTS, keys.bot(name), keys.owner_bots(owner), keys.token(digest)],
            args=[
                name,
                owner,
                record.kind,
                language,
                ",".join(games),
                description,
                record.created_ms,
                digest,
                int(accepts_invitations),
            ],
        )
        if not created:
            raise NameTaken(f"a bot named {name!r} exists already; choose another name")
        return record, made

    async def rotate_bot_token(self, name: str) -> str:
        """Give bot `name` a new token; the old one stops working at once."""
        for _ in range(5):
            old = await self.redis.hget(keys.bot(name), "token_hash")
            if old is None:
                raise NotFound(f"no bot named {name!r}")
            made = new_token("bot")
            digest = token_hash(made)
            done = await self._rotate_token(
                keys=[keys.bot(name), keys.token(text(old)), keys.token(digest)],
                args=[old, digest, f"bot:{name}"],
            )
            if done:
                return made
        raise StoreError(f"the token of bot {name!r} is being changed by someone else; try again")

    async def update_bot(self, owner: str, name: str, *, accepts_invitations: bool | None = None) -> BotRecord:
        """Change the settings given (None: unchanged) of `owner`'s bot `name`, in one step; returns the bot.

        NotFound for no such bot, NotYours for another owner's."""
        changes: list[str | int] = []
        if accepts_invitations is not None:
            changes += ["accepts_invitations", int(accepts_invitations)]
        done = await self._update_bot(keys=[keys.bot(name)], args=[owner, *changes])
        if done == 0:
            raise NotFound(f"no bot named {name!r}")
        if done == 2:
            raise NotYours(f"bot {name!r} belongs to another owner; only its owner changes its settings")
        found = await self.get_bot(name)
        assert found is not None, "bots are never deleted"
        return found

    async def get_bot(self, name: str) -> BotRecord | None:
        data = await self.redis.hgetall(keys.bot(name))
        return _bot_record(data) if data else None

    async def list_bots(self, owner: str = "") -> list[BotRecord]:
        names = await self.redis.smembers(keys.owner_bots(owner) if owner else keys.BOTS)
        pipe = self.redis.pipeline(transaction=False)
        ordered = sorted(texts(names))
        for name in ordered:
            pipe.hgetall(keys.bot(name))
        return [_bot_record(data) for data in await pipe.execute() if data]

    # -- matches ------------------------------------------------------------------------------

    async def next_match_id(self) -> str:
        number = await self.redis.incr(keys.MATCH_SEQ)
        return f"m{number:06d}"

    async def match_started(self, record: MatchRecord) -> None:
        pipe = self.redis.pipeline(transaction=True)
        list_match(pipe, record)
        pipe.sadd(keys.MATCHES_RUNNING, record.match_id)
        await pipe.execute()

    async def match_ended(self, record: MatchRecord, replay: dict[str, Any] | None) -> None:
        """Store the final summary and the replay record (None for an aborted match) at once."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.match(record.match_id), "summary", record.to_json())
        if replay is not None:
            pipe.hset(keys.match(record.match_id), "replay", encode_replay(replay))
        pipe.srem(keys.MATCHES_RUNNING, record.match_id)
        await pipe.execute()

    async def get_match(self, match_id: str) -> tuple[MatchRecord, dict[str, Any] | None] | None:
        """The match summary and its replay record (None until it ended), or None.

        Looked up in Redis, then in the archive (`archive.py`, through its index: the archive
        moves a match in one transaction, so it is always in one or the other). A stored replay
        that does not read raises CorruptReplay (arena/store/replays.py); an archived match this
        node cannot read, ArchiveUnreadable (a CorruptReplay)."""
        summary, replay = await self.redis.hmget(keys.match(match_id), ["summary", "replay"])
        if summary is None:
            archived = await read_archived(self.redis, self.archive, match_id)
            if archived is None:
                return None
            summary, replay = archived.summary, archived.replay
        return MatchRecord.from_json(summary), decode_replay(replay, match_id) if replay else None

    async def list_matches(
        self, game: str = "", bot: str = "", limit: int = 50, tournament: str = "", before: str = "", after: str = ""
    ) -> list[MatchRecord]:
        """Matches newest first, optionally of one game, with one bot and/or of one tournament.

        Read from the narrowest index that applies, page by page, with the other filters applied
        to each page: `limit` counts matches that pass every filter, however old they are.
        `before` (or `after`): the id of a match in the same list; only the `limit` matches listed just
        after it (or just before it), still newest first: a list pages on from where its last page
        ended, however far back, and matches that arrive meanwhile do not shift it.
        Archived matches (`archive.py`) have left the indexes: lists go back as far as Redis
        holds matches (`--retain-days`), and an archived match is read by its id (`get_match`).
        """
        if before and after:
            raise StoreError("page with before or after, not both: drop one of them")
        if tournament:
            await self._index_tournament_matches()
            index = keys.matches_of_tournament(tournament)
        else:
            index = keys.matches_of_bot(bot) if bot else keys.matches_of_game(game) if game else keys.MATCHES

        def wanted(record: MatchRecord) -> bool:
            return (
                (not game or record.game == game)
                and (not bot or bot in record.seats)
                and (not tournament or record.tournament_id == tournament)
            )

        async def rank(match_id: str) -> int:
            found = await self.redis.zrevrank(index, match_id)
            if not isinstance(found, int):  # None: not in this index
                raise NotFound(f"no match {match_id!r} in this list to page from; start again at the newest")
            return found

        page = max(limit, LIST_PAGE)
        found: dict[str, MatchRecord] = {}  # by id: a match listed meanwhile shifts the pages by one
        if after:
            # Towards the newest, nearest first, page by page: the `limit` matches just newer than `after`.
            end = await rank(after) - 1
            while len(found) < limit and end >= 0:
                start = max(0, end - page + 1)
                ids = texts(await self.redis.zrevrange(index, start, end))
                for record in reversed(await self._summaries(ids)):
                    if wanted(record) and len(found) < limit:
                        found[record.match_id] = record
                end = start - 1
            return list(reversed(found.values()))
        start = await rank(before) + 1 if before else 0
        while len(found) < limit:
            ids = texts(await self.redis.zrevrange(index, start, start + page - 1))
            found.update((record.match_id, record) for record in await self._summaries(ids) if wanted(record))
            if len(ids) < page:
                break
            start += page
        return list(found.values())[:limit]

    async def page_matches(
        self, game: str = "", bot: str = "", limit: int = 50, tournament: str = "", before: str = "", after: str = ""
    ) -> MatchPage:
        """A page of `list_matches` with the ids to page on from either way."""
        # One more than asked, to know whether another page follows in the direction read.
        records = await self.list_matches(game, bot, limit + 1, tournament, before, after)
        more = len(records) > limit  # older ones, or with `after` newer ones
        shown = records[-limit:] if after else records[:limit]
        # Paged from a match, the list holds that match on the side it came from.
        older = bool(shown) and (bool(after) or more)
        newer = bool(shown) and (bool(before) or (bool(after) and more))
        return MatchPage(shown, shown[-1].match_id if older else "", shown[0].match_id if newer else "")

    async def _summaries(self, match_ids: Sequence[str]) -> list[MatchRecord]:
        pipe = self.redis.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hget(keys.match(match_id), "summary")
        return [MatchRecord.from_json(summary) for summary in await pipe.execute() if summary]

    async def _index_tournament_matches(self) -> None:
        """Add the matches stored before the per-tournament index existed to it, once for every node.

        Each node checks the mark once; the first to find it missing indexes every listed match of
        a tournament (adding again what another node added meanwhile changes nothing) and sets it.
        """
        if self._tournament_index_checked:
            return
        if not await self.redis.exists(keys.MATCHES_TOURNAMENT_INDEXED):
            ids = texts(await self.redis.zrange(keys.MATCHES, 0, -1))
            for first in range(0, len(ids), LIST_PAGE):
                pipe = self.redis.pipeline(transaction=False)
                for record in await self._summaries(ids[first : first + LIST_PAGE]):
                    if record.tournament_id:
                        pipe.zadd(
                            keys.matches_of_tournament(record.tournament_id), {record.match_id: record.started_ms}
                        )
                await pipe.execute()
            await self.redis.set(keys.MATCHES_TOURNAMENT_INDEXED, now_ms())
        self._tournament_index_checked = True

    async def abort_running(self) -> list[str]:
        """Mark matches left running by an earlier server process as aborted; returns their ids."""
        ids = sorted(texts(await self.redis.smembers(keys.MATCHES_RUNNING)))
        for match_id in ids:
            summary = await self.redis.hget(keys.match(match_id), "summary")  # its replay is never needed here
            if summary is None:
                await self.redis.srem(keys.MATCHES_RUNNING, match_id)
                continue
            record = MatchRecord.from_json(summary)
            record.termination, record.ended_ms = Termination.ABORTED, now_ms()
            await self.match_ended(record, None)
        return ids


def list_match(pipe: Pipeline, record: MatchRecord) -> None:
    """Queue on `pipe` the match's summary and its places in the match indexes."""
    pipe.hset(keys.match(record.match_id), "summary", record.to_json())
    entry = {record.match_id: record.started_ms}
    pipe.zadd(keys.MATCHES, entry)
    pipe.zadd(keys.matches_of_game(record.game), entry)
    for name in set(record.seats):
        pipe.zadd(keys.matches_of_bot(name), entry)
    if record.tournament_id:
        pipe.zadd(keys.matches_of_tournament(record.tournament_id), entry)


def _bot_record(data: Mapping[bytes | str, bytes | str]) -> BotRecord:
    fields = text_fields(data)
    games = tuple(game for game in fields.get("games", "").split(",") if game)
    return BotRecord(
        name=fields["name"],
        owner=fields["owner"],
        kind=BotKind(fields.get("kind", BotKind.REMOTE)),
        language=fields.get("language", ""),
        games=games,
        description=fields.get("description", ""),
        created_ms=int(fields.get("created_ms", "0")),
        accepts_invitations=fields.get("accepts_invitations", "0") == "1",
    )
