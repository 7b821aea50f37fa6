"""A node without a sandbox runs no hosted bots, unless told to with --unsafe-no-sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.asyncio import Redis

from arena.hosted.package import pack
from arena.hosted.sandbox import Sandbox, SandboxLimits, python_runtime
from arena.node.hosted import HostedConfig, HostedManager
from arena.node.matches import SeatUnavailable
from arena.node.sessions import Limits, SessionRegistry
from arena.store import Store
from arena.store.hosted import HostedStore

pytestmark = pytest.mark.asyncio
REPO = Path(__file__).resolve().parents[2]
NO_NAMESPACE = "a trial sandbox failed: bwrap: No permissions to create a new namespace"


async def test_a_node_without_a_sandbox_refuses_hosted_seats_and_says_how_to_allow_them(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    await store.create_owner("olga")
    await store.register_bot("olga", "boxed", ["friday13"])
    package = pack(REPO / "sample_bots" / "python")
    await HostedStore(redis).add_version("boxed", package.sha256, package.data, "python random_bot.py")
    unconfined = Sandbox(SandboxLimits(), python_runtime(), None, problem=NO_NAMESPACE)
    try:
        refusing = HostedManager(
            store, SessionRegistry(Limits()), "/nonexistent.sock", unconfined, HostedConfig(), "n1"
        )
        assert NO_NAMESPACE in refusing.refusal and "--unsafe-no-sandbox" in refusing.refusal
        with pytest.raises(SeatUnavailable, match="unsafe-no-sandbox"):
            await refusing.start_seats(["boxed", "builtin:random", "builtin:heuristic"], "friday13", {})
        assert refusing.launches == {}, "nothing was started"

        allowed = HostedConfig(unsafe_no_sandbox=True)
        told = HostedManager(store, SessionRegistry(Limits()), "/nonexistent.sock", unconfined, allowed, "n1")
        assert told.refusal == ""
    finally:
        await redis.aclose()
