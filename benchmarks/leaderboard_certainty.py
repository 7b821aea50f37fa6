"""What saying how sure a leaderboard is costs: `RatingStore.certainty` beside a plain leaderboard read.

    python benchmarks/leaderboard_certainty.py [--bots 100] [--points 1000] [--added 10] [--repeats 3]

Starts a private redis-server on a free loopback port, stores `--bots` ratings whose neighbours
are all established and a history of `--points` points each (the most a history keeps), then
times, against a plain leaderboard read in the same minute: the first certainty of a store (it
reads the latest points of every established pair), the next one with nothing new, and one
after `--added` new points per bot (what a store that answers often reads).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable

from machine import describe
from ratings_store import free_port, redis_server_binary
from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from arena.store import keys
from arena.store.ratings import RatingStore

GAME = "friday13"


async def fill(redis: Redis, bots: int, points: int) -> None:
    """Ratings 1 mu apart, each the last point of a history whose sigma narrows as 8 / sqrt(games)."""
    for index in range(bots):
        name = f"bot{index:03d}"
        mu = 120.0 - index
        pipe = redis.pipeline(transaction=False)
        for point in range(points):
            add_point(pipe, name, mu, point + 1)
        await pipe.execute()


def add_point(pipe: Pipeline, name: str, mu: float, games: int) -> None:
    """A history point and the rating it leaves, as applying a result writes them."""
    sigma = 8.0 / games**0.5
    fields = {"match_id": f"m{games}", "mu": mu, "sigma": sigma, "games": games, "at": float(games)}
    pipe.xadd(keys.history(GAME, name), fields)  # type: ignore[arg-type]
    pipe.hset(keys.rating(GAME, name), mapping={"mu": mu, "sigma": sigma, "games": games, "last_ms": 0})
    pipe.zadd(keys.leaderboard(GAME), {name: mu - 3 * sigma})


async def timed(call: Callable[[], Awaitable[object]], repeats: int = 1) -> float:
    """The median seconds of `repeats` calls."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        await call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def measure(port: int, bots: int, points: int, added: int, repeats: int) -> None:
    redis = Redis(port=port)
    try:
        for _ in range(100):
            try:
                await redis.ping()
                break
            except OSError:
                await asyncio.sleep(0.05)
        await fill(redis, bots, points)
        store = RatingStore(redis)
        rows = await store.leaderboard(GAME, limit=bots)

        async def board() -> object:
            return await store.leaderboard(GAME, limit=bots)

        async def sure() -> object:
            return await store.certainty(GAME, await store.leaderboard(GAME, limit=bots))

        plain = await timed(board, repeats)
        first = await timed(sure)
        again = await timed(sure, repeats)
        for index in range(bots):
            name = f"bot{index:03d}"
            pipe = redis.pipeline(transaction=False)
            for point in range(points, points + added):
                fields = {
                    "match_id": f"m{point}",
                    "mu": rows[index].mu,
                    "sigma": 0.2,
                    "games": point + 1,
                    "at": float(point),
                }
                pipe.xadd(keys.history(GAME, name), fields)  # type: ignore[arg-type]
            await pipe.execute()
        after = await timed(sure)
        orders = await store.certainty(GAME, await store.leaderboard(GAME, limit=bots))
        assert len(orders) == bots - 1 and all(order.established for order in orders)
        print(f"{bots} rows, all neighbours established, {points} history points each:")
        print(f"  leaderboard alone                          {plain * 1000:8.1f} ms")
        for label, seconds in (
            ("with certainty, first call", first),
            ("with certainty, nothing new", again),
            (f"with certainty, {added} new points per bot", after),
        ):
            print(f"  {label:<42} {seconds * 1000:8.1f} ms ({seconds / plain:.1f}x)")
        since = orders[0]
        print(f"  first pair established since {'at most ' if since.since_earlier else ''}{since.since_games} matches")
    finally:
        await redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--added", type=int, default=10, help="new history points per bot before the last call")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"Measured on {describe()}")
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", data],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            asyncio.run(measure(port, args.bots, args.points, args.added, args.repeats))
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
