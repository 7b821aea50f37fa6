"""Redis traffic of a match whose seats sit on other nodes, against one whose seats are all local.

Two `arena serve` nodes on one redis-server of its own; two SDK random bots (sample_bots/python)
play friday13 with a built-in random bot in the third seat. In the *split* layout each bot is
connected to a different node, so every match has a seat on another node; in the *local* layout
both are connected to the first node. Per match: Redis commands (INFO commandstats, summed, the
ones a script runs included) and Redis CPU (INFO cpu). Layouts alternate, medians are reported.

    python benchmarks/relay_commands.py [--matches 40] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import time
from collections.abc import Iterator
from typing import NamedTuple

from grpc_common import (
    ADMIN,
    SERVE,
    free_port,
    redis_server,
    register_bots,
    start_bot_processes,
    wait_connected,
)
from redis.asyncio import Redis

from arena.node.work import submit_match
from arena.store import Store, keys


class Traffic(NamedTuple):
    commands: float
    redis_cpu_ms: float
    seconds: float


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


BREAKDOWN: dict[str, dict[str, int]] = {}
"""Per layout, the calls of each command in its last round (printed with --breakdown)."""


async def counters(redis: Redis) -> tuple[dict[str, int], float]:
    stats = await redis.info("commandstats")
    cpu = await redis.info("cpu")
    calls = {name.removeprefix("cmdstat_"): int(entry["calls"]) for name, entry in stats.items()}
    calls.pop("info", None)
    return calls, float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])


async def measure(redis_url: str, bots: list[str], matches: int, prefix: str) -> Traffic:
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    try:
        await asyncio.sleep(1.0)  # the nodes' idle traffic settles (heartbeats, reads) and counts in the rate below
        calls_before, cpu_before = await counters(redis)
        started = time.perf_counter()
        ids = []
        for number in range(matches):
            seats = [*bots, "builtin:random"] if number % 2 else ["builtin:random", *reversed(bots)]
            ids.append((await submit_match(store, "friday13", seats, match_id=f"{prefix}-{number}")).match_id)
        looks = 1
        while await redis.hlen(keys.WORK_RESULTS) < len(ids):
            looks += 1
            await asyncio.sleep(0.2)
        seconds = time.perf_counter() - started
        calls_after, cpu_after = await counters(redis)
        calls = {name: count - calls_before.get(name, 0) for name, count in calls_after.items()}
        BREAKDOWN[prefix.rstrip("0123456789")] = calls
        # This benchmark's own commands are not the arena's: MULTI, XADD, EXEC per match, and one HLEN a look.
        own = looks + 3 * matches
        total = sum(calls.values()) - own
        return Traffic(total / matches, (cpu_after - cpu_before) * 1000 / matches, seconds)
    finally:
        await redis.aclose()


def run(layout: str, matches: int, round_number: int) -> Traffic:
    with redis_server() as redis_url, node(redis_url, "first") as first, node(redis_url, "second") as second:
        names = ["east", "west"]
        tokens = register_bots(first, names)
        places = {"east": first, "west": first if layout == "local" else second}
        processes = [
            process
            for name in names
            for process in start_bot_processes(places[name], {name: tokens[name]}, max_matches=4)
        ]
        try:
            for name in names:
                wait_connected(places[name], [name])
            return asyncio.run(measure(redis_url, names, matches, f"{layout}{round_number}"))
        finally:
            for process in processes:
                process.terminate()
                process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--breakdown", action="store_true", help="print the calls of each command a match")
    args = parser.parse_args()
    found: dict[str, list[Traffic]] = {"local": [], "split": []}
    for round_number in range(args.repeats):
        for layout in ("local", "split"):
            traffic = run(layout, args.matches, round_number)
            found[layout].append(traffic)
            print(f"{layout:5} round {round_number + 1}: {traffic.commands:7.1f} commands, "
                  f"{traffic.redis_cpu_ms:6.2f} ms Redis CPU a match; {traffic.seconds:5.1f} s for {args.matches}",
                  flush=True)  # fmt: skip
    medians = {
        layout: Traffic(*(statistics.median(getattr(t, field) for t in runs) for field in Traffic._fields))
        for layout, runs in found.items()
    }
    if args.breakdown:
        for layout, calls in BREAKDOWN.items():
            top = sorted(calls.items(), key=lambda item: -item[1])[:12]
            print(f"{layout}: " + ", ".join(f"{name} {count / args.matches:.1f}" for name, count in top))
    local, split = medians["local"], medians["split"]
    print(f"\nmedians: local {local.commands:.1f} commands, {local.redis_cpu_ms:.2f} ms CPU; "
          f"split {split.commands:.1f} commands, {split.redis_cpu_ms:.2f} ms CPU a match")  # fmt: skip
    print(f"split / local: {split.commands / local.commands:.2f}x commands, "
          f"{split.redis_cpu_ms / local.redis_cpu_ms:.2f}x Redis CPU, {split.seconds / local.seconds:.2f}x wall time")  # fmt: skip


if __name__ == "__main__":
    main()
