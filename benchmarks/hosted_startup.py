"""Sandbox start-up of hosted bots: seconds from launch to the bot's Hello, Python and Node.

Runs an arena on the embedded Redis (a temporary directory), uploads the Python random sample
and the Node sample (with its node_modules and the proto folder), and starts each one `--runs`
times through the node's hosted-bot manager, timing launch -> connected session.

    python benchmarks/hosted_startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from machine import describe

from arena.app import ServerConfig, running
from arena.hosted.package import pack
from arena.node.submissions import ValidationConfig, submit
from arena.store import open_redis
from arena.store.hosted import HostedStatus

ROOT = Path(__file__).resolve().parent.parent


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        node = Path(scratch) / "node-bot"
        shutil.copytree(ROOT / "sample_bots" / "node", node)
        shutil.copytree(ROOT / "proto", node / "proto")
        bots = {"python": (ROOT / "sample_bots" / "python", "python random_bot.py"), "node": (node, "node bot.js")}
        config = ServerConfig(port=0, data_dir=Path(scratch) / "data", admin_token="ata_bench")
        async with open_redis(None, config.data_dir) as redis, running(config, redis) as arena:
            await arena.store.create_owner("bench")
            start_seats = arena.host.start_seats
            assert start_seats is not None, "the server wires the hosted-bot manager"
            for name, (folder, command) in bots.items():
                await arena.store.register_bot("bench", name, ["friday13"])
                done = await submit(
                    arena.store, "bench", name, "friday13", command, pack(folder).data, ValidationConfig()
                )
                assert done.version.status == HostedStatus.OK, done
                times = []
                for _ in range(runs):
                    while arena.sessions.of_bot(name):  # the previous run is still being stopped
                        await asyncio.sleep(0.01)
                    started = time.perf_counter()
                    await start_seats([name], "friday13", {})
                    times.append(time.perf_counter() - started)
                    for session in arena.sessions.of_bot(name):
                        arena.sessions.expire(session)
                print(
                    f"{name}: launch -> Hello median {statistics.median(times):.2f} s, "
                    f"max {max(times):.2f} s over {runs} runs"
                )
    print(describe())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=10)
    asyncio.run(main(parser.parse_args().runs))
