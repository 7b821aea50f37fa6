"""Seating reads a bot's kind from Redis at most once in `KIND_KEPT` seconds, however often a match
waiting for the bot looks again, and sees a bot that has become hosted once that time has passed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from redis.asyncio import Redis

from arena.hosted.package import pack
from arena.hosted.sandbox import Sandbox, SandboxLimits, python_runtime
from arena.node import hosted
from arena.node.hosted import HostedConfig, HostedManager
from arena.node.matches import SeatUnavailable
from arena.node.sessions import Limits, SessionRegistry
from arena.store import Store
from arena.store.hosted import HostedStore

pytestmark = pytest.mark.asyncio
REPO = Path(__file__).resolve().parents[2]


async def bot_reads(redis: Redis) -> int:
    """HGETALLs Redis has served so far: one per bot record read."""
    stats = await redis.info("commandstats")
    return int(stats.get("cmdstat_hgetall", {}).get("calls", 0))


async def test_a_bots_kind_is_read_once_while_kept_and_again_after(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hosted, "KIND_KEPT", 0.5)
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    await store.create_owner("olga")
    await store.register_bot("olga", "runner", ["friday13"])  # run by its owner: never launched here
    unconfined = Sandbox(SandboxLimits(), python_runtime(), None, problem="no sandbox on this machine")
    manager = HostedManager(store, SessionRegistry(Limits()), "/nonexistent.sock", unconfined, HostedConfig(), "n1")
    try:
        before = await bot_reads(redis)
        for _ in range(50):  # a match that waits for the bot looks again each time a seat comes free
            assert await manager.start_seats(["runner", "builtin:random"], "friday13", {}) == {}
        assert await bot_reads(redis) - before == 1, "the bot's record is read once while its kind is kept"

        package = pack(REPO / "sample_bots" / "python")
        await HostedStore(redis).add_version("runner", package.sha256, package.data, "python random_bot.py")
        await asyncio.sleep(0.6)
        # Now hosted: the manager tries to launch it, and this node (no sandbox) refuses the seat.
        with pytest.raises(SeatUnavailable, match="no sandbox on this machine"):
            await manager.start_seats(["runner"], "friday13", {})
    finally:
        await redis.aclose()
