"""Bot moves per second through the whole arena: 32 concurrent 4-player friday13 matches.

    python benchmarks/grpc_throughput.py [--matches 32] [--seconds 15] [--repeats 3]

`arena serve` runs in its own process (embedded Redis); four random SDK bots
(sample_bots/python/random_bot.py) run in four more processes, each sitting in every match at
once. The benchmark keeps `--matches` matches running for `--seconds`, starting a new one as
each ends, and counts the moves of the matches that ended. Everything shares this machine's
cores: the server (engine, checks, conversion, Redis writes) and the bots alike. The figure
is the best of the repeats; the machines are shared and noisy.

For scale it then measures bare gRPC in the same shape: the echo server of grpc_latency.py and
four client processes, one stream each, with `--matches / 4` messages in flight per stream.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_common import ADMIN, arena_server, bearer, free_port, register_bots, start_bot_processes, wait_connected
from machine import describe

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb

BOTS = ["r0", "r1", "r2", "r3"]


async def measure(address: str, matches: int, seconds: float, repeats: int) -> list[float]:
    """Keep `matches` matches running; after a warm-up, count the moves of the matches ending in each window."""
    async with grpc.aio.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        request = api_pb.CreateMatchRequest(game=pb.GameSpec(game="friday13", players=4), seats=BOTS)
        running: set[str] = set()

        async def window(length: float) -> tuple[int, float]:
            moves = 0
            started = time.perf_counter()
            while time.perf_counter() - started < length:
                while len(running) < matches:
                    response = await api.CreateMatch(request, metadata=bearer(ADMIN))
                    running.add(response.match_id)
                await asyncio.sleep(0.1)
                listed = await api.ListMatches(api_pb.ListMatchesRequest(limit=4 * matches))
                for summary in listed.matches:
                    if summary.ended_ms and summary.match_id in running:
                        running.discard(summary.match_id)
                        moves += 4 * 50
            return moves, time.perf_counter() - started

        await window(2.0)
        rates = []
        for repeat in range(repeats):
            moves, elapsed = await window(seconds)
            rates.append(moves / elapsed)
            print(f"run {repeat + 1}: {moves} moves in {elapsed:.1f} s = {moves / elapsed:,.0f} moves/s", flush=True)
        return rates


async def bare_client(address: str, in_flight: int, seconds: float) -> None:
    """One stream keeping `in_flight` messages going to the echo server; prints round trips per second."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = bot_grpc.BotServiceStub(channel).Connect()
        message = bot_pb.ConnectRequest(action=bot_pb.Action(match_id="m000001", request_id=25, action_id=7))
        for _ in range(in_flight):
            await call.write(message)
        trips = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            await call.read()
            trips += 1
            await call.write(message)
        print(trips / (time.perf_counter() - started), flush=True)
        call.cancel()


def bare_grpc(in_flight: int, seconds: float) -> float:
    """Round trips per second of bare grpc.aio: four client processes against one echo server process."""
    port = free_port()
    here = Path(__file__).resolve().parent
    echo = subprocess.Popen(
        [sys.executable, str(here / "grpc_latency.py"), "--echo-server", str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert echo.stdout is not None and echo.stdout.readline().strip() == "ready"
        clients = [
            subprocess.Popen(
                [sys.executable, __file__, "--bare-client", f"127.0.0.1:{port}", str(in_flight), str(seconds)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in BOTS
        ]
        return sum(float(client.communicate()[0]) for client in clients)
    finally:
        echo.terminate()
        echo.wait()


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--bare-client":
        asyncio.run(bare_client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4])))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(describe())
    rates: list[float] = []
    with arena_server() as address:
        tokens = register_bots(address, BOTS)
        bots = start_bot_processes(address, tokens, args.matches)
        try:
            wait_connected(address, BOTS)
            rates = asyncio.run(measure(address, args.matches, args.seconds, args.repeats))
        finally:
            for bot in bots:
                bot.terminate()
                bot.wait()
    print(
        f"throughput, {args.matches} concurrent 4-player friday13 matches of random SDK bots: "
        f"best {max(rates):,.0f} moves/s, median {statistics.median(rates):,.0f} moves/s"
    )
    bare = [bare_grpc(max(1, args.matches // len(BOTS)), args.seconds / 2) for _ in range(args.repeats)]
    print(f"bare grpc.aio in the same shape (4 client processes, 1 stream each): best {max(bare):,.0f} round trips/s")


if __name__ == "__main__":
    main()
