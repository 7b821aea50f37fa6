"""How often a living node is taken for dead while the machine is starved of CPU.

Two `arena serve` nodes on one redis-server play rated matches of SDK random bots (two on each
node, so that every match has seats on both) while `--busy N` processes spin (`while True:
pass`). Nothing is killed, so every "stopped beating" (a relayed seat gave up on a node's
heartbeat), every "taken over" (an order claimed from a living node) and every aborted match is a
false death. Prints the counts and the matches played.

    python benchmarks/false_deaths.py [--minutes 3] [--busy 2]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from grpc_common import ADMIN, SERVE, free_port, redis_server, register_bots, start_bot_processes, wait_connected
from redis.asyncio import Redis

from arena.node.work import submit_match
from arena.store import Store, keys

FALSE_DEATH = re.compile(r"stopped beating|taken over|another node plays it|aborted")


@contextlib.contextmanager
def node(redis_url: str, name: str, log: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
    command = [*SERVE, "--port", str(port), "--http-port", "0",
               "--redis-url", redis_url, "--node-name", name]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None and "serving on" in process.stdout.readline()

    def drain() -> None:
        assert process.stdout is not None
        with log.open("w") as out:
            for line in process.stdout:
                out.write(line)

    threading.Thread(target=drain, daemon=True).start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


@contextlib.contextmanager
def busy(count: int) -> Iterator[None]:
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


async def play(redis_url: str, bots: list[str], seconds: float) -> int:
    """Keep 16 matches queued for `seconds`; returns how many ended."""
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    submitted = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            done = await redis.hlen(keys.WORK_RESULTS)
            while submitted - done < 16:
                seats = [bots[(submitted + i) % len(bots)] for i in range(3)]
                await submit_match(store, "friday13", seats, rated=True, match_id=f"f{submitted}")
                submitted += 1
            await asyncio.sleep(0.5)
        return int(await redis.hlen(keys.WORK_RESULTS))
    finally:
        await redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--busy", type=int, default=2, help="processes spinning beside the nodes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-false-deaths-") as folder:
        logs = [Path(folder) / "first.log", Path(folder) / "second.log"]
        with (
            redis_server() as redis_url,
            node(redis_url, "first", logs[0]) as first,
            node(redis_url, "second", logs[1]) as second,
        ):
            names = ["a1", "a2", "b1", "b2"]
            tokens = register_bots(first, names)
            processes = start_bot_processes(first, {n: tokens[n] for n in names[:2]}, max_matches=8)
            processes += start_bot_processes(second, {n: tokens[n] for n in names[2:]}, max_matches=8)
            try:
                wait_connected(first, names[:2])
                wait_connected(second, names[2:])
                with busy(args.busy):
                    load = os.getloadavg()[0]
                    played = asyncio.run(play(redis_url, names, args.minutes * 60))
                    load = max(load, os.getloadavg()[0])
            finally:
                for process in processes:
                    process.terminate()
                    process.wait(timeout=30)
        events = [line.strip() for log in logs for line in log.read_text().splitlines() if FALSE_DEATH.search(line)]
    print(f"{played} matches in {args.minutes:.1f} min beside {args.busy} busy loops (load average up to {load:.1f})")
    print(f"false deaths: {len(events)}")
    for line in events[:20]:
        print("  " + line[:200])


if __name__ == "__main__":
    main()
