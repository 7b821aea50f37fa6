"""The retention policy: finished matches older than `days` move from Redis to the disk archive,
with the rating results of those matches.

Every node runs this task; the archive lock (`arena/store/archive.py`) lets one node at a time
move matches, and the others' runs find it taken and wait for their next turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import redis

from arena.node.tasks import stop_if_cancelled
from arena.store.archive import Archive, Archiver, Moved

log = logging.getLogger(__name__)

DAY_MS = 24 * 3600 * 1000
FIRST_RUN_AFTER = 60.0


@dataclass(frozen=True)
class RetentionConfig:
    """How long finished matches stay in Redis, and where they go then."""

    days: int = 30
    """Finished matches started more than this many days ago are archived; 0 keeps them in Redis for good."""
    archive_dir: Path | None = None
    """The archive's directory; None: `archive` in the node's data directory."""
    every: float = 600.0
    """Seconds between two runs of the move on this node."""

    def directory(self, data_dir: Path) -> Path:
        return self.archive_dir if self.archive_dir is not None else data_dir / "archive"


class Retention:
    """This node's share of the retention policy: a run every `config.every` seconds, when it gets the lock."""

    def __init__(self, redis_client: redis.asyncio.Redis, archive: Archive, config: RetentionConfig) -> None:
        self.archiver = Archiver(redis_client, archive)
        self.config = config

    async def run_once(self, now_ms: int | None = None) -> Moved | None:
        """Archive what is due now; None when another node holds the lock (or retention is off)."""
        if self.config.days <= 0:
            return None
        token = await self.archiver.lock()
        if token is None:
            return None
        try:
            cutoff = (now_ms if now_ms is not None else int(time.time() * 1000)) - self.config.days * DAY_MS
            moved = await self.archiver.run(cutoff, token)
        finally:
            await self.archiver.unlock(token)
        if moved.archived or moved.results or moved.recovered:
            log.info(
                "archived %d matches and %d rating results older than %d days (%d files cut back after an earlier crash)",
                moved.archived,
                moved.results,
                self.config.days,
                moved.recovered,
            )
        return moved

    async def run(self) -> None:
        """Run until cancelled; a failed run (Redis away, the disk full) is logged and tried again later.

        The first run waits a minute (at most `every`), so that a node's start stays quick."""
        await asyncio.sleep(min(self.config.every, FIRST_RUN_AFTER))
        while True:
            stop_if_cancelled()
            try:
                await self.run_once()
            except (redis.RedisError, OSError, ValueError) as error:  # CorruptReplay and LockError included
                log.warning("archiving old matches failed, will retry in %.0f s: %s", self.config.every, error)
            await asyncio.sleep(self.config.every)
