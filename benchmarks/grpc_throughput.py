"""Bot moves per second through the whole arena: 32 concurrent 4-player friday13 matches.

    python benchmarks/grpc_throughput.py [--matches 32] [--seconds 15] [--repeats 3]

`arena serve` runs in its own process (embedded Redis); four random SDK bots
(sample_bots/python/random_bot.py) run in four more processes, each sitting in every match at
once. The benchmark keeps `--matches` matches running for `--seconds`, starting a new one as
each ends, and counts the moves of the matches that ended. Everything shares this machine's
cores: the server (engine, checks, conversion, Redis writes) and the bots alike. The figure
is the best of the repeats; the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import grpc
from grpc_common import ADMIN, arena_server, bearer, register_bots, start_bot_processes, wait_connected
from machine import describe

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb

BOTS = ["r0", "r1", "r2", "r3"]


async def measure(address: str, matches: int, seconds: float, repeats: int) -> list[float]:
    """Keep `matches` matches running; after a warm-up, count the moves of the matches ending in each window."""
    async with grpc.aio.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)  # type: ignore[no-untyped-call]
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


def main() -> None:
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


if __name__ == "__main__":
    main()
