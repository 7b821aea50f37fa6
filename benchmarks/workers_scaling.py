"""Matches per second of one `arena serve` with one worker and with two: does a node on every core pay?

    python benchmarks/workers_scaling.py [--matches 200] [--concurrent 32] [--workers 1 2] [--repeats 3]

Each run starts a redis-server on loopback and `arena serve --workers N --redis-url` beside it, with
the same match slots in all (`--concurrent`, split evenly over the workers). Four random SDK bots
(sample_bots/python/random_bot.py) sit in every match, two processes each whatever N (eight in
all, `--concurrent / 2` matches per process): the kernel spreads their connections over the
workers, so a worker seats a bot connected to another through the relay, as it would in use.
`--matches` four-player friday13 matches are queued on the work stream at once; the time runs from
the first order to the last result stored. Runs alternate between the worker counts, so that all
see the same load, and the medians are compared. Everything shares the machine's cores: Redis,
the workers and the eight bot processes. The workers' CPU per move is the sum of their CPU time
over the run divided by the moves played.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import NamedTuple

import redis as redis_sync
from grpc_common import (
    ADMIN,
    cpu_seconds,
    free_port,
    play_work_matches,
    redis_server,
    register_bots,
    start_bot_processes,
)
from machine import describe
from redis.asyncio import Redis

from arena.store import keys

BOTS = ["r0", "r1", "r2", "r3"]
PROCESSES_PER_BOT = 2
MOVES_PER_MATCH = 4 * 50
"""A 4-player friday13 match: 50 moves per seat (both rounds)."""


class Run(NamedTuple):
    seconds: float
    cpu_per_move: float
    """CPU seconds of the workers per move."""


@contextlib.contextmanager
def server(redis_url: str, workers: int, slots: int) -> Iterator[tuple[str, list[int]]]:
    """`arena serve --workers N`; yields HOST:PORT and the pids of the processes running nodes."""
    port = free_port()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN, "ARENA_MATCH_SLOTS": str(slots)}
    command = [sys.executable, "-m", "arena.cli", "serve", "--workers", str(workers), "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--redis-url", redis_url, "--http-port", "0"], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if "serving" not in line:
            raise RuntimeError(f"arena serve did not start: {line}")
        pids = [process.pid]
        if workers > 1:
            while not (found := re.match(r"arena: \d+ workers: (.*)", line)):
                line = process.stdout.readline()
                if not line:
                    raise RuntimeError("arena serve stopped before its workers served")
            pids = [int(pid) for pid in re.findall(r"\(pid (\d+)\)", found.group(1))]
        yield f"127.0.0.1:{port}", pids
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


async def wait_sessions(redis_url: str, sessions: int, timeout: float = 60.0) -> None:
    """Until every bot has `sessions` sessions stated in Redis (on whichever worker)."""
    client = Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + timeout
        while [await client.hlen(keys.presence(bot)) for bot in BOTS] != [sessions] * len(BOTS):
            if time.monotonic() > deadline:
                raise TimeoutError("the bots did not connect")
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()


def run(workers: int, matches: int, concurrent: int) -> Run:
    with redis_server() as url, server(url, workers, concurrent // workers) as (address, pids):
        tokens = register_bots(address, BOTS)
        per_process = max(1, concurrent // PROCESSES_PER_BOT)
        bots = [
            process for _ in range(PROCESSES_PER_BOT) for process in start_bot_processes(address, tokens, per_process)
        ]
        try:
            asyncio.run(wait_sessions(url, PROCESSES_PER_BOT))
            asyncio.run(play_work_matches(url, BOTS, 8, "warm-up"))
            client = redis_sync.Redis.from_url(url)
            client.delete(keys.WORK_RESULTS)
            client.close()
            cpu = sum(map(cpu_seconds, pids))
            seconds = asyncio.run(play_work_matches(url, BOTS, matches, "run"))
            cpu = sum(map(cpu_seconds, pids)) - cpu
        finally:
            for bot in bots:
                bot.terminate()
            for bot in bots:
                bot.wait()
    return Run(seconds, cpu / (matches * MOVES_PER_MATCH))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--concurrent", type=int, default=32)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(describe())
    print(f"load average at start: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    runs: dict[int, list[Run]] = {workers: [] for workers in args.workers}
    for repeat in range(args.repeats):
        for workers in args.workers:
            result = run(workers, args.matches, args.concurrent)
            runs[workers].append(result)
            print(
                f"repeat {repeat + 1}, --workers {workers}: {result.seconds:.1f} s, "
                f"{args.matches / result.seconds:.1f} matches/s, {args.matches * MOVES_PER_MATCH / result.seconds:,.0f} "
                f"moves/s; workers' CPU per move {result.cpu_per_move * 1e6:.0f} µs",
                flush=True,
            )
    base = statistics.median(args.matches / r.seconds for r in runs[args.workers[0]])
    for workers, results in runs.items():
        rate = statistics.median(args.matches / r.seconds for r in results)
        cpu = statistics.median(r.cpu_per_move for r in results)
        print(
            f"--workers {workers}, {args.matches} matches, {args.concurrent} at once, medians: {rate:.1f} matches/s "
            f"({rate * MOVES_PER_MATCH:,.0f} moves/s), workers' CPU per move {cpu * 1e6:.0f} µs; "
            f"{rate / base:.2f}x --workers {args.workers[0]}"
        )
    print(f"load average at end: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
