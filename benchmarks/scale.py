"""1,000 four-player friday13 matches between Python sample bots over gRPC, on one node and on two.

    python benchmarks/scale.py [--matches 1000] [--nodes 1 2] [--max-matches 32] [--repeats N]
                               [--event-loops asyncio uvloop]

A redis-server runs on loopback; each node is an `arena serve --redis-url` process. Four random
SDK bots (sample_bots/python/random_bot.py) sit in every match; each bot runs one process per
node, so every node can seat every bot. The matches are queued on the Redis work stream at once
(`arena.node.work.submit_match`) and the nodes share them through the consumer group; the
time runs from the first order queued to the last result stored. Everything shares this
machine's cores: Redis, the nodes and the bot processes. A node's CPU per move is its process's CPU
time over the run divided by the moves played.

The reference, run after each repeat's arena runs so that both see the same load: bare grpc.aio in
the shape of one node (grpc_throughput.py's echo server and four client processes with `--max-matches
/ 4` messages in flight each), for 10 s; its rate gives the seconds it would take for the same round
trips (200 per match). Medians are compared with medians.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from grpc_common import (
    ADMIN,
    SERVE,
    cpu_seconds,
    free_port,
    play_work_matches,
    redis_server,
    register_bots,
    start_bot_processes,
    wait_connected,
)
from grpc_throughput import bare_grpc
from machine import describe

BOTS = ["r0", "r1", "r2", "r3"]


@contextlib.contextmanager
def nodes(redis_url: str, count: int, slots: int, event_loop: str = "asyncio") -> Iterator[list[tuple[str, int]]]:
    """`count` node processes on this Redis; yields each one's HOST:PORT and process id."""
    # One process per node (no supervisor of several workers), so that a node's CPU time is its process's.
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN, "ARENA_MATCH_SLOTS": str(slots)}
    processes: list[subprocess.Popen[str]] = []
    addresses = []
    try:
        for _ in range(count):
            port = free_port()
            process = subprocess.Popen(
                [
                    *SERVE,
                    "--port",
                    str(port),
                    "--redis-url",
                    redis_url,
                    "--http-port",
                    "0",
                    "--event-loop",
                    event_loop,
                ],
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
            processes.append(process)
            assert process.stdout is not None
            line = process.stdout.readline()
            if "serving" not in line:
                raise RuntimeError(f"arena serve did not start: {line}")
            addresses.append((f"127.0.0.1:{port}", process.pid))
        yield addresses
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


MOVES_PER_MATCH = 4 * 50


def run(node_count: int, matches: int, max_matches: int, event_loop: str) -> tuple[float, float]:
    """Seconds to play the matches, and the nodes' CPU seconds per move."""
    with redis_server() as url, nodes(url, node_count, max_matches, event_loop) as served:
        addresses = [address for address, _ in served]
        tokens = register_bots(addresses[0], BOTS)
        bots = [process for address in addresses for process in start_bot_processes(address, tokens, max_matches)]
        try:
            for address in addresses:
                wait_connected(address, BOTS)
            cpu = sum(cpu_seconds(pid) for _, pid in served)
            seconds = asyncio.run(play_work_matches(url, BOTS, matches, "scale"))
            cpu = sum(cpu_seconds(pid) for _, pid in served) - cpu
            return seconds, cpu / (matches * MOVES_PER_MATCH)
        finally:
            for process in bots:
                process.terminate()
            for process in bots:
                process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--max-matches", type=int, default=32, help="matches per bot process and per node at once")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--event-loops",
        nargs="+",
        default=["asyncio"],
        choices=["asyncio", "uvloop"],
        help="the nodes' event loops (arena serve --event-loop), alternating within each repeat",
    )
    options = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"load average at start: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    runs: dict[tuple[int, str], list[tuple[float, float]]] = {
        (count, loop): [] for count in options.nodes for loop in options.event_loops
    }
    bare: list[float] = []
    trips = options.matches * MOVES_PER_MATCH
    for _ in range(options.repeats):
        for count, loop in runs:
            seconds, cpu = run(count, options.matches, options.max_matches, loop)
            runs[(count, loop)].append((seconds, cpu))
            print(
                f"{count} node{'s' if count > 1 else ''} on {loop}: {options.matches} four-player friday13 matches in "
                f"{seconds:.1f} s = {options.matches / seconds:.1f} matches/s; node CPU {cpu * 1e6:.0f} µs a move",
                flush=True,
            )
        reference = bare_grpc(max(1, options.max_matches // len(BOTS)), 10.0)
        bare.append(trips / reference.rate)
        print(
            f"bare grpc.aio, one node's shape: {reference.rate:,.0f} round trips/s, so {trips:,} round trips "
            f"in {bare[-1]:.1f} s",
            flush=True,
        )
    reference_seconds = statistics.median(bare)
    for (count, loop), results in runs.items():
        seconds = statistics.median(result[0] for result in results)
        print(
            f"median, {count} node{'s' if count > 1 else ''} on {loop}: {seconds:.1f} s, node CPU "
            f"{statistics.median(result[1] for result in results) * 1e6:.0f} µs a move; "
            f"bare grpc.aio's {reference_seconds:.1f} s for as many round trips: {seconds / reference_seconds:.2f}x"
        )
    print(f"load average at end: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
