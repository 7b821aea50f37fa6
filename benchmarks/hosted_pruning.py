"""Redis memory kept by failed versions of a hosted bot: five failed uploads of 18 MB each.

Runs an arena on the embedded Redis (a temporary directory, AOF on), registers one bot, and
submits through SubmitBot five versions that crash at start (so each fails its validation match),
each carrying 18 MB of incompressible data. Prints Redis's used memory and the AOF's size before
and after. A node keeps the packages of a bot's newest failed versions only (`FAILED_PACKAGES_KEPT`).

    python benchmarks/hosted_pruning.py [--uploads 5] [--megabytes 18]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path

import grpc
from machine import describe

from arena.app import ServerConfig, running
from arena.hosted.package import pack
from arena.store import open_redis
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc

ADMIN = "ata_bench"
CHUNK = 256 << 10


def aof_bytes(data_dir: Path) -> int:
    return sum(path.stat().st_size for path in data_dir.rglob("*.aof") if path.is_file())


async def used_memory(redis: object) -> int:
    info = await redis.info("memory")  # type: ignore[attr-defined]
    return int(info["used_memory"])


async def rewrite(redis: object, data_dir: Path) -> int:
    """The AOF's size once Redis has rewritten it (what it holds, not every write made)."""
    await rewritten(redis)  # one Redis started on its own
    await redis.bgrewriteaof()  # type: ignore[attr-defined]
    await rewritten(redis)
    return aof_bytes(data_dir)


async def rewritten(redis: object) -> None:
    while True:
        state = await redis.info("persistence")  # type: ignore[attr-defined]
        if not state["aof_rewrite_in_progress"] and not state["aof_rewrite_scheduled"]:
            return
        await asyncio.sleep(0.05)


async def main(uploads: int, megabytes: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "crasher"
        folder.mkdir()
        (folder / "bot.py").write_text("import sys\nsys.exit('crash at start')\n")
        (folder / "blob.bin").write_bytes(os.urandom(megabytes * 1_000_000))
        data = pack(folder).data
        config = ServerConfig(port=0, data_dir=Path(scratch) / "data", admin_token=ADMIN, http_port=None)
        async with open_redis(None, config.data_dir) as redis, running(config, redis) as arena:
            channel = grpc.aio.insecure_channel(arena.address)
            api = api_grpc.ArenaServiceStub(channel)
            admin = (("authorization", f"Bearer {ADMIN}"),)
            owner = (await api.CreateOwner(api_pb.CreateOwnerRequest(name="bench"), metadata=admin)).token
            mine = (("authorization", f"Bearer {owner}"),)
            await api.RegisterBot(api_pb.RegisterBotRequest(name="crasher", games=["friday13"]), metadata=mine)
            before = await used_memory(redis), await rewrite(redis, config.data_dir)
            statuses = []
            for _ in range(uploads):
                first = api_pb.SubmitBotRequest(name="crasher", game="friday13", run="python bot.py")
                chunks = [api_pb.SubmitBotRequest(chunk=data[at : at + CHUNK]) for at in range(0, len(data), CHUNK)]
                reply = await api.SubmitBot(iter([first, *chunks]), metadata=mine, timeout=300)
                statuses.append(api_pb.HostedVersionStatus.Name(reply.version.status))
            after = await used_memory(redis), aof_bytes(config.data_dir)
            rewritten = await rewrite(redis, config.data_dir)
            await channel.close()
    print(f"{uploads} uploads of {len(data) / 1e6:.1f} MB: {', '.join(sorted(set(statuses)))}")
    print(f"Redis used memory {before[0] / 1e6:.1f} MB -> {after[0] / 1e6:.1f} MB")
    print(f"AOF {before[1] / 1e6:.1f} MB -> {after[1] / 1e6:.1f} MB, {rewritten / 1e6:.1f} MB once rewritten")
    print(describe())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--uploads", type=int, default=5)
    parser.add_argument("--megabytes", type=int, default=18)
    options = parser.parse_args()
    asyncio.run(main(options.uploads, options.megabytes))
