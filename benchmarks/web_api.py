"""The web UI's JSON API on loopback: requests per second and latency of the leaderboard and replay endpoints.

    python benchmarks/web_api.py [--matches 24] [--seconds 5] [--clients 1,2]

Starts a whole arena (embedded Redis in a temporary directory, gRPC and the web UI on free
loopback ports) in a thread of this process, plays `--matches` rated friday13 matches between
built-in bots so the leaderboard and the replays are real, then has 1 and more client processes
send GET requests over keep-alive HTTP/1.1 connections for `--seconds` each: the leaderboard of
friday13, and the full replay (record and a frame per move) of a finished friday13 match.
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing
import statistics
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path

from machine import describe

from arena.app import ServerConfig, running
from arena.node.work import submit_match
from arena.store import keys, open_redis

SEATS = ["builtin:random", "builtin:heuristic", "builtin:random", "builtin:heuristic"]


@contextmanager
def arena(matches: int) -> Iterator[tuple[str, str]]:
    """A running arena with `matches` finished matches: the web UI's URL and one match id."""
    started: Future[tuple[str, str]] = Future()
    stop = threading.Event()

    async def serve(data: Path) -> None:
        config = ServerConfig(port=0, data_dir=data, admin_token="ata_bench", http_port=0)
        async with open_redis(None, data) as redis, running(config, redis) as server:
            assert server.web is not None
            orders = [await submit_match(server.store, "friday13", SEATS, rated=True) for _ in range(matches)]
            while not all([await server.store.redis.hexists(keys.WORK_RESULTS, o.match_id) for o in orders]):
                await asyncio.sleep(0.1)
            started.set_result((server.web.url, orders[-1].match_id))
            while not stop.is_set():
                await asyncio.sleep(0.05)

    with tempfile.TemporaryDirectory(prefix="arena-web-bench-") as data:
        thread = threading.Thread(target=asyncio.run, args=(serve(Path(data)),), daemon=True)
        thread.start()
        try:
            yield started.result(timeout=300)
        finally:
            stop.set()
            thread.join(timeout=30)


def hammer(url: str, seconds: float) -> list[float]:
    """GET `url` over one keep-alive connection for `seconds`; the latency of each request in seconds."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        began = time.perf_counter()
        connection.request("GET", parts.path)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {url}: {response.status}")
        latencies.append(time.perf_counter() - began)
    connection.close()
    return latencies


def measure(url: str, clients: int, seconds: float) -> tuple[float, float, int]:
    """Requests per second, p50 latency in ms and the response size in bytes with `clients` client processes."""
    hammer(url, 0.3)  # warm up: the replay's frames are computed on the first request
    with multiprocessing.get_context("spawn").Pool(clients) as pool:
        runs = pool.starmap(hammer, [(url, seconds)] * clients)
    latencies = [latency for run in runs for latency in run]
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10)
    connection.request("GET", parts.path)
    size = len(connection.getresponse().read())
    connection.close()
    return len(latencies) / seconds, statistics.median(latencies) * 1000, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", default="1,2")
    args = parser.parse_args()
    print(f"Machine: {describe()}")
    with arena(args.matches) as (web, match_id):
        endpoints = {
            "leaderboard (friday13)": f"{web}api/leaderboards/friday13",
            f"replay ({match_id}, friday13, 4 players)": f"{web}api/matches/{match_id}",
        }
        print("| endpoint | clients | requests/s | p50 latency | response |")
        print("|---|---|---|---|---|")
        for name, url in endpoints.items():
            for clients in (int(part) for part in args.clients.split(",")):
                rate, p50, size = measure(url, clients, args.seconds)
                print(f"| {name} | {clients} | {rate:,.0f} | {p50:.2f} ms | {size / 1000:,.1f} kB |")


if __name__ == "__main__":
    main()
