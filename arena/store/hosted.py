"""Hosted bots in Redis: their versions (package and record together), their runs' logs, launch tokens.

A new version is one MULTI/EXEC under WATCH: the version record with its package, the bot's
latest version, and the bot's kind, or nothing. The active version is the one that plays: a new
upload becomes active only once its validation match (which starts that version itself) passes;
a version that fails never plays anywhere else, and only the newest few failed versions keep
their package (for their owner to look into); older ones keep their record alone.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from arena.store import keys
from arena.store.codec import compact_json, text, text_fields
from arena.store.store import HOSTED_TOKEN_PREFIX, BotKind, NotFound, StoreError, now_ms, token_hash

RUNS_KEPT = 50
"""Runs (with their stderr tails) kept per bot."""
FAILED_PACKAGES_KEPT = 3
"""Failed versions per bot whose package is kept (up to 20 MB each); older failed ones keep their record only."""
VERSION_FIELDS = ["version", "sha256", "size", "run", "status", "reason", "created_ms", "match_id"]
"""A version's record, without its package."""


class NotYourBot(StoreError):
    """A valid owner token for a bot of another owner."""


class HostedStatus(StrEnum):
    VALIDATING = "validating"
    """Uploaded; its validation match has not ended yet."""
    OK = "ok"
    FAILED = "failed"
    """Its validation match failed; the reason says why."""


@dataclass(frozen=True)
class HostedVersion:
    """One uploaded version (without its package bytes)."""

    version: int
    sha256: str
    size: int
    run: str
    status: HostedStatus
    reason: str
    created_ms: int
    match_id: str = ""


@dataclass(frozen=True)
class HostedRun:
    """One process a node ran for a hosted bot, as its owner sees it afterwards."""

    version: int
    match_ids: tuple[str, ...]
    started_ms: int
    ended_ms: int
    ending: str
    stderr: str
    node: str

    def to_json(self) -> str:
        return compact_json(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> HostedRun:
        data = json.loads(text)
        data["match_ids"] = tuple(data["match_ids"])
        return cls(**data)


def _version(data: dict[Any, Any]) -> HostedVersion:
    fields = text_fields({name: value for name, value in data.items() if text(name) != "package"})
    return HostedVersion(
        int(fields["version"]),
        fields["sha256"],
        int(fields["size"]),
        fields["run"],
        HostedStatus(fields["status"]),
        fields.get("reason", ""),
        int(fields["created_ms"]),
        fields.get("match_id", ""),
    )


class HostedStore:
    """Typed access to the hosted bots' data."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def add_version(self, bot: str, sha256: str, package: bytes, run: str) -> HostedVersion:
        """Store a new version of registered bot `bot`, atomically; it plays once it passes validation."""
        async with self.redis.pipeline(transaction=True) as pipe:
            for _ in range(10):
                try:
                    await pipe.watch(keys.bot(bot), keys.hosted(bot))
                    if not await pipe.exists(keys.bot(bot)):
                        raise NotFound(f"no bot named {bot!r}; register it first (arena bot register)")
                    latest = int(await pipe.hget(keys.hosted(bot), "version") or 0)
                    version = HostedVersion(
                        latest + 1, sha256, len(package), run, HostedStatus.VALIDATING, "", now_ms()
                    )
                    record = {**{k: str(v) for k, v in asdict(version).items()}, "package": package}
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(keys.hosted_version(bot, version.version), mapping=record)  # type: ignore[arg-type]
                    pipe.hset(keys.hosted(bot), "version", version.version)
                    pipe.hset(keys.bot(bot), "kind", BotKind.HOSTED)
                    await pipe.execute()
                    return version
                except WatchError:
                    continue
        raise StoreError(f"bot {bot!r} is being changed by someone else; try again")

    async def set_validation_match(self, bot: str, version: int, match_id: str) -> None:
        await self.redis.hset(keys.hosted_version(bot, version), "match_id", match_id)

    async def finish_validation(self, bot: str, version: int, reason: str) -> None:
        """Mark a version ok (`reason` "") or failed; an ok one plays from now on, unless a newer one already does."""
        async with self.redis.pipeline(transaction=True) as pipe:
            for _ in range(10):
                try:
                    await pipe.watch(keys.hosted(bot))
                    active = int(await pipe.hget(keys.hosted(bot), "active") or 0)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(
                        keys.hosted_version(bot, version),
                        mapping={"status": HostedStatus.FAILED if reason else HostedStatus.OK, "reason": reason},
                    )
                    if not reason and version > active:
                        pipe.hset(keys.hosted(bot), "active", version)
                    await pipe.execute()
                    break
                except WatchError:
                    continue
        if reason:
            await self.prune_failed(bot)

    async def prune_failed(self, bot: str) -> int:
        """Drop the packages of the bot's failed versions but the newest `FAILED_PACKAGES_KEPT`; returns how many.

        A failed version never plays again, so nothing reads its package but its owner's curiosity.
        """
        latest = int(await self.redis.hget(keys.hosted(bot), "version") or 0)
        pipe = self.redis.pipeline(transaction=False)
        for version in range(latest, 0, -1):
            pipe.hget(keys.hosted_version(bot, version), "status")
            pipe.hexists(keys.hosted_version(bot, version), "package")
        answers = await pipe.execute()
        failed = [
            version
            for version, status, kept in zip(range(latest, 0, -1), answers[::2], answers[1::2], strict=True)
            if status is not None and text(status) == HostedStatus.FAILED and kept
        ]
        pruned = failed[FAILED_PACKAGES_KEPT:]
        if pruned:
            pipe = self.redis.pipeline(transaction=False)
            for version in pruned:
                pipe.hdel(keys.hosted_version(bot, version), "package")
            await pipe.execute()
        return len(pruned)

    async def active(self, bot: str) -> HostedVersion | None:
        """The version that plays now, or None when the bot has no working version."""
        active = int(await self.redis.hget(keys.hosted(bot), "active") or 0)
        return await self.version(bot, active) if active else None

    async def version(self, bot: str, version: int) -> HostedVersion | None:
        row = await self.redis.hmget(keys.hosted_version(bot, version), VERSION_FIELDS)
        return _version(dict(zip(VERSION_FIELDS, row, strict=True))) if row[0] is not None else None

    async def package(self, bot: str, version: int) -> bytes:
        data = await self.redis.hget(keys.hosted_version(bot, version), "package")
        if data is None:
            if await self.redis.exists(keys.hosted_version(bot, version)):
                raise NotFound(f"version {version} of bot {bot!r} failed and its package was pruned")
            raise NotFound(f"bot {bot!r} has no version {version}")
        return data if isinstance(data, bytes) else data.encode()

    async def versions(self, bot: str) -> list[HostedVersion]:
        """Every version, newest first."""
        latest = int(await self.redis.hget(keys.hosted(bot), "version") or 0)
        pipe = self.redis.pipeline(transaction=False)
        for version in range(latest, 0, -1):
            pipe.hmget(keys.hosted_version(bot, version), VERSION_FIELDS)
        rows = await pipe.execute()
        return [_version(dict(zip(VERSION_FIELDS, row, strict=True))) for row in rows if row[0] is not None]

    async def add_run(self, bot: str, run: HostedRun) -> None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.lpush(keys.hosted_runs(bot), run.to_json())
        pipe.ltrim(keys.hosted_runs(bot), 0, RUNS_KEPT - 1)
        await pipe.execute()

    async def runs(self, bot: str, limit: int = 10) -> list[HostedRun]:
        """The latest runs, newest first."""
        return [HostedRun.from_json(text) for text in await self.redis.lrange(keys.hosted_runs(bot), 0, limit - 1)]

    async def mint_token(self, bot: str, launch: str, lifetime: float) -> str:
        """A token for one hosted process; only its hash is stored, for `lifetime` seconds at most."""
        made = HOSTED_TOKEN_PREFIX + secrets.token_urlsafe(32)
        await self.redis.set(keys.hosted_token(token_hash(made)), f"{bot}:{launch}", px=int(lifetime * 1000))
        return made

    async def drop_token(self, token: str) -> None:
        await self.redis.delete(keys.hosted_token(token_hash(token)))
