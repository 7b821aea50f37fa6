"""Failed versions keep their record but, beyond the newest few per bot, not their package (up to 20 MB each)."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from arena.store import NotFound, Store, keys
from arena.store.hosted import HostedStatus, HostedStore

pytestmark = pytest.mark.asyncio


async def test_only_the_newest_failed_versions_keep_their_packages(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        store = Store(redis)
        await store.create_owner("olga")
        await store.register_bot("olga", "flaky", ["friday13"])
        hosted = HostedStore(redis)
        working = await hosted.add_version("flaky", "00", b"working package", "python bot.py")
        await hosted.finish_validation("flaky", working.version, "")
        for number in range(5):
            version = await hosted.add_version("flaky", f"{number:02}", b"failed package %d" % number, "python bot.py")
            await hosted.finish_validation("flaky", version.version, "it crashed")
        pending = await hosted.add_version("flaky", "99", b"still validating", "python bot.py")

        kept = [
            v.version
            for v in await hosted.versions("flaky")
            if await redis.hexists(keys.hosted_version("flaky", v.version), "package")
        ]
        assert kept == [pending.version, 6, 5, 4, working.version], "the three newest failed versions keep theirs"
        statuses = [v.status for v in await hosted.versions("flaky")]
        assert statuses == [HostedStatus.VALIDATING, *[HostedStatus.FAILED] * 5, HostedStatus.OK], "every record stays"
        with pytest.raises(NotFound, match="version 2 of bot 'flaky' failed and its package was pruned"):
            await hosted.package("flaky", 2)
        assert await hosted.package("flaky", working.version) == b"working package"
        active = await hosted.active("flaky")
        assert active is not None and active.version == working.version
    finally:
        await redis.aclose()
