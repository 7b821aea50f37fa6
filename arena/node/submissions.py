"""Submitting a hosted bot's version, and the validation match every version plays first.

The version is checked (owner, command, game, and the package by the package reader in a
sandbox: the node never parses an upload itself), stored with its package in one transaction,
and queued for one unrated match against built-in bots on the work stream, so any node that
runs hosted bots plays it exactly as it will play later. A version that forfeits
(crashed, disconnected, never answered) or whose match is aborted (never connected) is marked
failed; one that plays its match through is ok, and the bot's ratings are widened so that they
find the new version's strength quickly.

Uploads are held in memory (at most 20 MB each) until stored, and each SubmitBot call waits for
its validation match: so an owner gets a few calls at once on a node, and the node a few more in
all (`UploadLimits`); beyond them a call is refused at once (RESOURCE_EXHAUSTED), never queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import shlex
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from arena import metrics
from arena.games import game_names, make_game
from arena.games.base import Termination
from arena.hosted.package import PackageError, megabytes
from arena.hosted.sandbox import check_unconfined
from arena.hosted.unpacker import MAX_BYTES, Summary
from arena.match import Clock
from arena.node.work import submit_match
from arena.store import NotFound, Principal, Store, StoreError
from arena.store.hosted import HostedRun, HostedStatus, HostedStore, HostedVersion, NotYourBot
from arena.store.ratings import RatingStore
from arena.store.work import WorkQueue
from arena.v1 import arena_service_pb2 as api_pb

VALIDATION_OPPONENT = "builtin:random"
HOSTED_STATUSES = {
    HostedStatus.VALIDATING: api_pb.HOSTED_VERSION_STATUS_VALIDATING,
    HostedStatus.OK: api_pb.HOSTED_VERSION_STATUS_OK,
    HostedStatus.FAILED: api_pb.HOSTED_VERSION_STATUS_FAILED,
}


@dataclass(frozen=True)
class ValidationConfig:
    clock: Clock = field(default_factory=lambda: Clock(per_move=2.0, bank=10.0))
    """The validation match's clock: a bot that never answers forfeits within seconds."""
    timeout: float = 120.0
    """Seconds to wait for the validation match's result before the version counts as failed."""
    poll: float = 0.1


@dataclass(frozen=True)
class UploadLimits:
    per_owner: int = 2
    """SubmitBot calls of one owner at once on a node (each holds its upload and waits for its validation)."""
    per_node: int = 4
    """SubmitBot calls of all owners at once on a node: at most this many uploads (20 MB each) in its memory."""


class TooManyUploads(StoreError):
    """An owner (or the node) already has as many SubmitBot calls running as it may."""


class UploadSlots:
    """The SubmitBot calls running on this node, per owner: each takes a slot or is refused at once."""

    def __init__(self, limits: UploadLimits) -> None:
        self.limits = limits
        self.running: Counter[str] = Counter()

    @contextlib.asynccontextmanager
    async def slot(self, owner: str) -> AsyncIterator[None]:
        if self.running[owner] >= self.limits.per_owner:
            metrics.UPLOADS_REFUSED.labels("owner").inc()
            raise TooManyUploads(
                f"owner {owner!r} already has {self.running[owner]} submissions running on this node (the most at "
                "once); wait for one to end"
            )
        if self.running.total() >= self.limits.per_node:
            metrics.UPLOADS_REFUSED.labels("node").inc()
            raise TooManyUploads(
                f"this node already runs {self.running.total()} submissions (the most at once); try again shortly"
            )
        self.running[owner] += 1
        metrics.UPLOADS_RUNNING.inc()
        try:
            yield
        finally:
            metrics.UPLOADS_RUNNING.dec()
            self.running[owner] -= 1
            if not self.running[owner]:
                del self.running[owner]


@dataclass(frozen=True)
class Submitted:
    version: HostedVersion
    stderr_tail: str


Checker = Callable[[bytes], Awaitable[Summary]]
"""Reads a package outside the node's process (`Sandbox.check`): what it holds, or PackageError with the reason."""


async def submit(
    store: Store,
    owner: str,
    bot: str,
    game: str,
    run: str,
    package: bytes,
    config: ValidationConfig,
    check: Checker = check_unconfined,
) -> Submitted:
    """Store a new version of `owner`'s bot `bot`, validate it, and return it with its validation's stderr.

    `check` reads the package outside this process: a node passes its sandbox's (`Sandbox.check`); the
    default, a plain child process, serves callers that submit a package they made themselves (the demo).
    """
    if not run.strip():
        raise StoreError("give the command that starts the bot, e.g. --run 'python bot.py'")
    try:
        shlex.split(run)
    except ValueError as error:
        raise StoreError(f"the run command {run!r} cannot be split into words: {error}") from None
    if game not in game_names():
        raise StoreError(f"unknown game {game!r}; the arena plays {', '.join(game_names())}")
    record = await store.get_bot(bot)
    if record is None:
        raise NotFound(f"no bot named {bot!r}; register it first (arena bot register)")
    if record.owner != owner:
        raise NotYourBot(f"bot {bot!r} belongs to another owner")
    if not package:
        raise PackageError(
            "the package is not a readable .tar.gz: it is empty (send the packed folder in the chunks after the first message)"
        )
    await check(package)
    hosted = HostedStore(store.redis)
    version = await hosted.add_version(bot, hashlib.sha256(package).hexdigest(), package, run)
    return await validate(store, hosted, bot, version, game, config)


async def validate(
    store: Store, hosted: HostedStore, bot: str, version: HostedVersion, game: str, config: ValidationConfig
) -> Submitted:
    players = make_game(game).players
    seats = [bot] + [VALIDATION_OPPONENT] * (players - 1)
    order = await submit_match(store, game, seats, clock=config.clock, validating=version.version)
    await hosted.set_validation_match(bot, version.version, order.match_id)
    queue = WorkQueue(store.redis)
    deadline = asyncio.get_running_loop().time() + config.timeout
    reason = f"its validation match {order.match_id} did not end within {config.timeout:.0f} s"
    while asyncio.get_running_loop().time() < deadline:
        result = await queue.result(order.match_id)
        if result is not None:
            if result.termination == Termination.ABORTED:
                reason = f"its validation match {order.match_id} was aborted: the bot never connected"
            elif 0 in result.forfeited:
                reason = (
                    f"it forfeited its validation match {order.match_id}: it crashed, disconnected or did "
                    "not answer in time"
                )
            else:
                reason = ""
            break
        await asyncio.sleep(config.poll)
    await hosted.finish_validation(bot, version.version, reason)
    if not reason:
        ratings = RatingStore(store.redis)
        for name in game_names():
            await ratings.widen(name, bot)
    run = await _run_of(hosted, version, bot, config)
    final = next(v for v in await hosted.versions(bot) if v.version == version.version)
    return Submitted(final, run.stderr if run else "")


async def _run_of(hosted: HostedStore, version: HostedVersion, bot: str, config: ValidationConfig) -> HostedRun | None:
    """The newest run of `version`: its validation run, stored just after its match ends."""
    for _ in range(int(5 / config.poll)):
        found = next((run for run in await hosted.runs(bot, 5) if run.version == version.version), None)
        if found is not None:
            return found
        await asyncio.sleep(config.poll)
    return None


async def read_upload(messages: AsyncIterator[api_pb.SubmitBotRequest]) -> tuple[api_pb.SubmitBotRequest, bytes]:
    """The first message of a SubmitBot stream (name, game, run) and the package its chunks make up."""
    first: api_pb.SubmitBotRequest | None = None
    chunks: list[bytes] = []
    size = 0
    async for message in messages:
        first = first or message
        chunks.append(message.chunk)
        size += len(message.chunk)
        if size > MAX_BYTES:
            raise PackageError(f"the package is larger than {megabytes(MAX_BYTES)}, the limit")
    if first is None:
        raise StoreError("SubmitBot got no message: send the name, game and run command first")
    return first, b"".join(chunks)


async def bot_logs(
    store: Store, caller: Principal, bot: str, limit: int
) -> tuple[list[HostedVersion], list[HostedRun]]:
    """A bot's versions and latest runs, for its owner or an admin."""
    record = await store.get_bot(bot)
    if record is None:
        raise NotFound(f"no bot named {bot!r}")
    if caller.kind != "admin" and record.owner != caller.name:
        raise NotYourBot(f"bot {bot!r} belongs to another owner; only its owner and admins see its logs")
    hosted = HostedStore(store.redis)
    return await hosted.versions(bot), await hosted.runs(bot, limit)


def version_pb(version: HostedVersion) -> api_pb.HostedVersion:
    return api_pb.HostedVersion(
        version=version.version,
        sha256=version.sha256,
        size_bytes=version.size,
        run=version.run,
        status=HOSTED_STATUSES[version.status],
        reason=version.reason,
        created_ms=version.created_ms,
        validation_match_id=version.match_id,
    )


def run_pb(run: HostedRun) -> api_pb.HostedRun:
    return api_pb.HostedRun(
        version=run.version,
        match_ids=run.match_ids,
        started_ms=run.started_ms,
        ended_ms=run.ended_ms,
        ending=run.ending,
        stderr=run.stderr,
        node=run.node,
    )
