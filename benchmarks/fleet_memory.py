"""Redis memory of a fleet after many matches: what the stored matches hold, and everything else.

Three `arena serve` nodes on one redis-server of its own; six SDK random bots (sample_bots/python),
two connected to each node, are stopped and started again every `--every` matches (new sessions,
the old ones gone), while rated friday13 matches of three of them run through the work stream.
At the end every key is measured (MEMORY USAGE) and put in a class: the stored matches' own
(their hashes, the match indexes, the work and rating results, ratings and their history) and the
rest (session inboxes, reply and event streams, presence, heartbeats, the work stream and its
consumers), which must not grow with the number of matches.

    python benchmarks/fleet_memory.py [--matches 10000] [--every 200] [--max-matches 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator

from grpc_common import ADMIN, SERVE, free_port, redis_server, register_bots, start_bot_processes, wait_connected
from redis.asyncio import Redis

from arena.node.work import submit_match
from arena.store import Store, keys
from arena.store.codec import text

STORED = ("arena:match:", "arena:matches", "arena:work:results", "arena:results:", "arena:rating:",
          "arena:leaderboard:", "arena:history:", "arena:match:seq")  # fmt: skip
"""Key prefixes of what the stored matches hold (and keep holding until retention moves them to disk)."""


def kind(key: str) -> str:
    if key.endswith(":events"):
        return "event streams"
    if ":replies:" in key:
        return "reply streams"
    if key.startswith(STORED):
        return "stored matches"
    for prefix, name in (("arena:session:", "session inboxes"), ("arena:presence:", "presence"),
                         ("arena:node:", "heartbeats"), ("arena:work", "work stream")):  # fmt: skip
        if key.startswith(prefix):
            return name
    return "other"


@contextlib.contextmanager
def node(redis_url: str, name: str) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
    command = [*SERVE, "--port", str(port), "--http-port", "0",
               "--redis-url", redis_url, "--node-name", name]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert process.stdout is not None and "serving on" in process.stdout.readline()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


async def measure(redis: Redis) -> tuple[int, Counter[str], Counter[str]]:
    """Used memory, and bytes and keys per class."""
    used = int((await redis.info("memory"))["used_memory"])
    sizes: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    async for key in redis.scan_iter(match="arena:*", count=1000):
        name = text(key)
        sizes[kind(name)] += int(await redis.memory_usage(name) or 0)
        counts[kind(name)] += 1
    return used, sizes, counts


async def play(redis_url: str, bots: list[str], first: int, count: int) -> None:
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    try:
        ids = []
        for number in range(first, first + count):
            seats = [bots[(number + shift) % len(bots)] for shift in (0, 2, 4)]
            ids.append((await submit_match(store, "friday13", seats, rated=True)).match_id)
        while await redis.hlen(keys.WORK_RESULTS) < first + count:
            await asyncio.sleep(0.2)
    finally:
        await redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=200, help="matches between two reconnections of every bot")
    parser.add_argument("--max-matches", type=int, default=4, help="matches each bot plays at once")
    args = parser.parse_args()
    started = time.monotonic()
    with (
        redis_server() as redis_url,
        node(redis_url, "one") as one,
        node(redis_url, "two") as two,
        node(redis_url, "three") as three,
    ):
        addresses = [one, two, three]
        names = [f"bot{index}" for index in range(6)]
        tokens = register_bots(one, names)
        played = 0
        while played < args.matches:
            processes = [
                process
                for index, name in enumerate(names)
                for process in start_bot_processes(addresses[index % 3], {name: tokens[name]}, args.max_matches)
            ]
            try:
                for index, name in enumerate(names):
                    wait_connected(addresses[index % 3], [name])
                batch = min(args.every, args.matches - played)
                asyncio.run(play(redis_url, names, played, batch))
                played += batch
            finally:
                for process in processes:
                    process.terminate()
                    process.wait(timeout=30)
            print(f"{played} matches, {time.monotonic() - started:.0f} s", flush=True)
        time.sleep(25)  # sessions of the last bots end, their presence and heartbeats expire
        used, sizes, counts = asyncio.run(_measured(redis_url))
    stored = sizes["stored matches"]
    print(
        f"\n{played} matches across 3 nodes, bots reconnecting every {args.every}: Redis used_memory {used / 1e6:.1f} MB"
    )
    print(f"stored matches: {stored / 1e6:.1f} MB, {stored / played:,.0f} B a match")
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"  {name:16} {size / 1e3:10,.1f} KB in {counts[name]:,} keys")
    print(f"everything but the stored matches: {(sum(sizes.values()) - stored) / 1e3:,.1f} KB")


async def _measured(redis_url: str) -> tuple[int, Counter[str], Counter[str]]:
    redis = Redis.from_url(redis_url)
    try:
        return await measure(redis)
    finally:
        await redis.aclose()


if __name__ == "__main__":
    main()
