"""Finished matches moved out of Redis into files on disk, and read back by id.

The archive is a directory of gzip files, one per game and per day (UTC) of the matches' start:
`ROOT/{game}/{YYYY-MM-DD}.jsonl.gz`. Each move appends one gzip member (a file of several members
is still one gzip file: `zcat` reads it whole) of JSON lines, one per match:
`{"id": ..., "summary": {...}, "replay": base64 of the stored replay bytes or null, "result":
{...} or null}`. The replay keeps its stored form (`replays.py`: the seed and action ids), so a
match costs a few hundred bytes on disk and reads back as the very record the engine made.

Where each match lies (file, the member's offset and length) is kept in Redis in the hashes
`arena:archive:index:{bucket}`: a read decompresses one member, never scans a file.

Rating results go too: those of matches finished before the cutoff leave the head of
`arena:results:{game}` (finishing order) for `ROOT/{game}/results.jsonl.gz`, one JSON line each
as stored, in the same order, and their ids leave the game's applied set (a result is delivered
again within minutes of its match, never a retention period later). `arena:results:{game}:archived`
counts them, so that `arena ratings recompute` reads that many from the file first, and refuses
on a node without the archive rather than rate from the recent results only.

A move (`Archiver.move`) is crash-safe:
1. the files' sizes before the move are written to `arena:archive:pending`;
2. the members are appended and fsync'ed (and the directory, for a new file);
3. one MULTI/EXEC, watched on the lock and the matches' hashes, writes the index entries, deletes
   the matches' hashes, index entries and work results, and deletes `pending`.
A crash (or a lost lock) before 3 leaves `pending`: the next move, on any node, first cuts each
file back to its size there (`recover`), so no line is ever in a file twice and every line in a
file is indexed. Nothing leaves Redis before its line is on disk.

Only one node moves at a time: `arena:archive:lock` (SET NX PX, renewed between batches). Every
node that serves reads needs the same directory (a shared volume); one that cannot open a file
says so in one line (`ArchiveUnreadable`).
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import fcntl
import gzip
import json
import os
import re
import secrets
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
from redis.asyncio import Redis

from arena.games import game_names
from arena.store import keys
from arena.store.codec import compact_json, text, texts
from arena.store.replays import CorruptReplay

SUFFIX = ".jsonl.gz"
LOCK_MS = 60_000
"""How long the archive lock lasts unless renewed (it is renewed between batches)."""
BATCH = 256
"""Matches moved per batch (one transaction)."""
MEMBER_LINES = 64
"""Matches per gzip member at most: a read decompresses only its member (about 0.1 ms for 64)."""
_FILE_NAME = re.compile(r"[A-Za-z0-9._-]{1,40}/(\d{4}-\d{2}-\d{2}|results)")

_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""


class ArchiveUnreadable(CorruptReplay):
    """An archived match this node cannot read (its file missing, unreadable or damaged); one line says which."""


@dataclass(frozen=True)
class Location:
    """Where an archived match lies: a file (relative to the archive's root, without suffix) and its member."""

    file: str
    offset: int
    length: int

    def __str__(self) -> str:
        return f"{self.file}:{self.offset}:{self.length}"

    @classmethod
    def parse(cls, value: str) -> Location:
        file, offset, length = value.rsplit(":", 2)
        return cls(file, int(offset), int(length))


@dataclass(frozen=True)
class ArchivedMatch:
    """One archived match as stored: the summary's JSON text, the stored replay bytes, the result's JSON."""

    match_id: str
    summary: str
    replay: bytes | None
    result: str | None

    def line(self) -> bytes:
        replay = json.dumps(base64.b64encode(self.replay).decode()) if self.replay is not None else "null"
        return (
            f'{{"id":{json.dumps(self.match_id)},"summary":{self.summary},"replay":{replay},'
            f'"result":{self.result or "null"}}}\n'
        ).encode()

    @classmethod
    def from_line(cls, line: bytes) -> ArchivedMatch:
        data = json.loads(line)
        replay, result = data["replay"], data["result"]
        return cls(
            data["id"],
            compact_json(data["summary"]),
            base64.b64decode(replay) if replay is not None else None,
            compact_json(result) if result is not None else None,
        )


def results_file(game: str) -> str:
    """The file the game's archived rating results go to."""
    name = f"{game}/results"
    if not _FILE_NAME.fullmatch(name):
        raise ValueError(f"no archive file for game {game!r}")
    return name


def day_file(game: str, started_ms: int) -> str:
    """The file a match started at `started_ms` goes to: its game and its UTC day."""
    day = datetime.datetime.fromtimestamp(started_ms / 1000, datetime.UTC).date().isoformat()
    name = f"{game}/{day}"
    if not _FILE_NAME.fullmatch(name):
        raise ValueError(f"no archive file for game {game!r}")
    return name


class Archive:
    """The archive's files under `root`: appending members durably, cutting a crashed move off, reading."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, file: str) -> Path:
        if not _FILE_NAME.fullmatch(file):
            raise ArchiveUnreadable(f"archive file name {file!r} is not one this arena writes")
        return self.root / f"{file}{SUFFIX}"

    def size(self, file: str) -> int:
        try:
            return self.path(file).stat().st_size
        except FileNotFoundError:
            return 0

    def append(self, file: str, matches: Sequence[ArchivedMatch], expected_size: int) -> Location:
        """Append one gzip member of `matches` at the file's end, which must be `expected_size`, and fsync it."""
        return self.append_lines(file, [match.line() for match in matches], expected_size)

    def append_lines(self, file: str, lines: Sequence[bytes], expected_size: int) -> Location:
        """Append one gzip member of `lines` (each ending in a newline); see `append`."""
        member = gzip.compress(b"".join(lines), compresslevel=9, mtime=0)
        path = self.path(file)
        new_dir = not path.parent.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        if new_dir:
            _fsync_dir(path.parent.parent)
        with _locked(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND) as fd:
            size = os.fstat(fd).st_size
            if size != expected_size:
                raise ArchiveUnreadable(f"archive file {path} is {size} bytes, not {expected_size}: another writer?")
            os.write(fd, member)
            os.fsync(fd)
        if size == 0:
            _fsync_dir(path.parent)
        return Location(file, size, len(member))

    def cut(self, file: str, size: int) -> bool:
        """Cut the file back to `size` bytes (what a crashed move appended goes); True when it was longer."""
        path = self.path(file)
        if not path.exists():
            return False
        with _locked(path, os.O_WRONLY) as fd:
            if os.fstat(fd).st_size <= size:
                return False
            os.ftruncate(fd, size)
            os.fsync(fd)
        return True

    def read(self, location: Location, match_id: str) -> ArchivedMatch:
        """The match `match_id` from its member; ArchiveUnreadable says why not in one line."""
        path = self.path(location.file)
        try:
            with path.open("rb") as archived:
                archived.seek(location.offset)
                member = archived.read(location.length)
            lines = gzip.decompress(member)
        except OSError as error:  # a missing file, or a damaged member (gzip.BadGzipFile is an OSError)
            reason = error.strerror or str(error)
            raise ArchiveUnreadable(
                f"match {match_id} is archived in {path}, which this node cannot read ({reason}): every node "
                "serving reads needs the same --archive-dir"
            ) from None
        except EOFError:
            raise ArchiveUnreadable(f"match {match_id}'s archive member in {path} is cut short") from None
        prefix = f'{{"id":{json.dumps(match_id)},'.encode()
        for line in lines.splitlines():
            if line.startswith(prefix):
                try:
                    return ArchivedMatch.from_line(line)
                except (ValueError, LookupError) as error:
                    raise ArchiveUnreadable(f"match {match_id}'s line in {path} is damaged ({error})") from None
        raise ArchiveUnreadable(f"match {match_id} is not where the archive index says ({path} at {location.offset})")

    def results(self, game: str, count: int) -> list[bytes]:
        """The game's first `count` archived results (JSON lines): those a committed move wrote. A
        crashed move's lines may follow them until the next move cuts them off."""
        path = self.path(results_file(game))
        try:
            with gzip.open(path, "rb") as lines:
                kept = [line for _, line in zip(range(count), lines, strict=False)]
        except (OSError, EOFError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise ArchiveUnreadable(
                f"{count} results of {game} are archived in {path}, which this node cannot read ({reason})"
            ) from None
        if len(kept) != count:
            raise ArchiveUnreadable(f"{path} holds {len(kept)} results of {game}; Redis counts {count} archived")
        return kept

    def matches(self, file: str) -> Iterator[ArchivedMatch]:
        """Every match in a file, in the order written (for operators' tools and tests)."""
        with gzip.open(self.path(file), "rb") as lines:
            for line in lines:
                yield ArchivedMatch.from_line(line)


@contextlib.contextmanager
def _locked(path: Path, flags: int) -> Iterator[int]:
    fd = os.open(path, flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass
class Moved:
    """What one run of the move did."""

    archived: int = 0
    kept: int = 0
    """Old matches left in Redis because they have not ended."""
    recovered: int = 0
    """Files a crashed earlier move was cut off."""
    results: int = 0
    """Rating results archived."""


class Archiver:
    """Moves finished matches older than a cutoff from Redis to the archive (one node at a time)."""

    def __init__(self, redis: Redis, archive: Archive) -> None:
        self.redis = redis
        self.archive = archive
        self._unlock = redis.register_script(_UNLOCK)
        self._renew = redis.register_script(_RENEW)

    async def lock(self) -> str | None:
        """Take the archive lock; its token, or None when another node holds it."""
        token = secrets.token_hex(8)
        return token if await self.redis.set(keys.ARCHIVE_LOCK, token, nx=True, px=LOCK_MS) else None

    async def unlock(self, token: str) -> None:
        await self._unlock(keys=[keys.ARCHIVE_LOCK], args=[token])

    async def renew(self, token: str) -> bool:
        return bool(await self._renew(keys=[keys.ARCHIVE_LOCK], args=[token, LOCK_MS]))

    async def recover(self) -> int:
        """Cut from the files what a move that never committed appended; returns how many files were cut."""
        pending = await self.redis.get(keys.ARCHIVE_PENDING)
        if pending is None:
            return 0
        cut = sum(self.archive.cut(file, size) for file, size in json.loads(pending).items())
        await self.redis.delete(keys.ARCHIVE_PENDING)
        return cut

    async def run(
        self, cutoff_ms: int, token: str, after_write: Callable[[], None] | None = None, batch: int = BATCH
    ) -> Moved:
        """Archive every finished match started before `cutoff_ms`, under the lock `token` holds.

        `after_write` runs after the files are written and fsync'ed, before Redis is changed: the
        worst moment for a crash, which tests make happen there."""
        moved = Moved(recovered=await self.recover())
        start = 0
        while True:
            if not await self.renew(token):
                raise redis.exceptions.LockError("the archive lock was lost; another node archives now")
            ids = texts(await self.redis.zrangebyscore(keys.MATCHES, "-inf", f"({cutoff_ms}", start=start, num=batch))
            if not ids:
                break
            archived, kept = await self._move(ids, token, after_write)
            moved.archived += archived
            moved.kept += kept
            start += kept
        for game in game_names():
            moved.results += await self._move_results(game, cutoff_ms, token, after_write, batch)
        await self.redis.set(keys.ARCHIVE_HORIZON, cutoff_ms)
        return moved

    async def _move_results(
        self, game: str, cutoff_ms: int, token: str, after_write: Callable[[], None] | None, batch: int
    ) -> int:
        """Move the game's results of matches finished before `cutoff_ms` from the head of its list."""
        moved = 0
        while True:
            head = texts(await self.redis.lrange(keys.results(game), 0, batch - 1))
            due: list[str] = []
            ids: list[str] = []
            for line in head:
                result = json.loads(line)
                if float(result.get("finished_at", 0.0)) * 1000 >= cutoff_ms:
                    break
                due.append(line)
                ids.append(result["match_id"])
            if not due:
                return moved
            file = results_file(game)
            size = self.archive.size(file)
            await self.redis.set(keys.ARCHIVE_PENDING, compact_json({file: size}))
            self.archive.append_lines(file, [line.encode() + b"\n" for line in due], size)
            if after_write is not None:
                after_write()
            async with self.redis.pipeline(transaction=True) as commit:
                # Only a move changes the list's head (results are pushed at its tail), and only under the lock.
                await commit.watch(keys.ARCHIVE_LOCK)
                if text(await commit.get(keys.ARCHIVE_LOCK) or b"") != token:
                    raise redis.exceptions.LockError("the archive lock was lost; another node archives now")
                commit.multi()  # type: ignore[no-untyped-call]
                commit.ltrim(keys.results(game), len(due), -1)
                commit.srem(keys.results_applied(game), *ids)
                commit.incrby(keys.results_archived(game), len(due))
                commit.delete(keys.ARCHIVE_PENDING)
                await commit.execute()
            moved += len(due)
            if len(due) < len(head):
                return moved
            if not await self.renew(token):
                raise redis.exceptions.LockError("the archive lock was lost; another node archives now")

    async def _move(self, ids: list[str], token: str, after_write: Callable[[], None] | None) -> tuple[int, int]:
        """Move the finished ones of `ids`; returns how many moved and how many were left (not ended)."""
        pipe = self.redis.pipeline(transaction=False)
        for match_id in ids:
            pipe.hmget(keys.match(match_id), ["summary", "replay"])
            pipe.hget(keys.WORK_RESULTS, match_id)
            pipe.sismember(keys.MATCHES_RUNNING, match_id)
        replies: list[Any] = await pipe.execute()
        files: dict[str, list[ArchivedMatch]] = defaultdict(list)
        summaries: dict[str, dict[str, Any]] = {}
        gone: list[str] = []  # listed, with no summary: nothing to keep, only index entries to drop
        kept = 0
        for number, match_id in enumerate(ids):
            (summary, replay), result, running = replies[3 * number : 3 * number + 3]
            if summary is None:
                gone.append(match_id)
                continue
            data = json.loads(summary)
            if running or not data.get("termination"):
                kept += 1
                continue
            summaries[match_id] = data
            stored = replay.encode() if isinstance(replay, str) else replay
            files[day_file(data["game"], data["started_ms"])].append(
                ArchivedMatch(match_id, text(summary), stored, text(result) if result is not None else None)
            )
        locations: dict[str, Location] = {}
        if files:
            sizes = {file: self.archive.size(file) for file in files}
            await self.redis.set(keys.ARCHIVE_PENDING, compact_json(sizes))
            for file, matches in files.items():
                for first in range(0, len(matches), MEMBER_LINES):
                    member = matches[first : first + MEMBER_LINES]
                    location = self.archive.append(file, member, sizes[file])
                    sizes[file] = location.offset + location.length
                    locations.update((match.match_id, location) for match in member)
            if after_write is not None:
                after_write()
        async with self.redis.pipeline(transaction=True) as commit:
            await commit.watch(keys.ARCHIVE_LOCK, *(keys.match(match_id) for match_id in summaries))
            if text(await commit.get(keys.ARCHIVE_LOCK) or b"") != token:
                raise redis.exceptions.LockError("the archive lock was lost; another node archives now")
            commit.multi()  # type: ignore[no-untyped-call]
            for match_id, location in locations.items():
                commit.hset(keys.archive_index(match_id), match_id, str(location))
            for match_id in [*summaries, *gone]:
                data = summaries.get(match_id, {})
                commit.delete(keys.match(match_id))
                commit.hdel(keys.WORK_RESULTS, match_id)
                commit.zrem(keys.MATCHES, match_id)
                if data:
                    commit.zrem(keys.matches_of_game(data["game"]), match_id)
                    for name in set(data["seats"]):
                        commit.zrem(keys.matches_of_bot(name), match_id)
                    if data.get("tournament_id"):
                        commit.zrem(keys.matches_of_tournament(data["tournament_id"]), match_id)
            commit.delete(keys.ARCHIVE_PENDING)
            await commit.execute()
        return len(summaries), kept

    async def horizon(self) -> int:
        """Finished matches started before this (ms) are archived: lists in Redis go back that far (0: none)."""
        value = await self.redis.get(keys.ARCHIVE_HORIZON)
        return int(value) if value is not None else 0


async def read_archived(redis: Redis, archive: Archive | None, match_id: str) -> ArchivedMatch | None:
    """The archived match `match_id`, or None when it is not archived."""
    where = await redis.hget(keys.archive_index(match_id), match_id)
    if where is None:
        return None
    location = Location.parse(text(where))
    if archive is None:
        raise ArchiveUnreadable(f"match {match_id} is archived ({location.file}), and this node has no archive")
    # Read in the event loop: one seek and a read of a few KB (0.2 ms; a worker thread's hand-off
    # costs more than that on a busy machine: benchmarks/store_footprint.py).
    return archive.read(location, match_id)
