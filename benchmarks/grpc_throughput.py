"""Bot moves per second through the whole arena: 32 concurrent 4-player friday13 matches.

    python benchmarks/grpc_throughput.py [--matches 32] [--seconds 15] [--repeats 3]

`arena serve` runs in its own process (embedded Redis); four random SDK bots
(sample_bots/python/random_bot.py) run in four more processes, each sitting in every match at
once. The benchmark keeps `--matches` matches running for `--seconds`, starting a new one as
each ends, and counts the moves of the matches that ended; then it lets the running ones end.
Everything shares this machine's cores: the server (engine, checks, conversion, Redis writes)
and the bots alike. The server's CPU per move is its process's CPU time over the window
divided by the moves counted, and its event loop thread's share of it: the other threads are
gRPC's (its poller, its core's I/O), so what the arena's own Python costs shows as the loop
thread's CPU beyond the bare server's (the last line).

The reference is bare gRPC in the same shape: the echo server of grpc_latency.py and four
client processes, one stream each, with `--matches / 4` messages in flight per stream. Arena
and bare repeats alternate, so both see the same load; the ratio compares medians.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import grpc
from grpc_common import (
    ADMIN,
    arena_server_process,
    bearer,
    cpu_seconds,
    free_port,
    loop_thread_seconds,
    register_bots,
    start_bot_processes,
    wait_connected,
)
from machine import describe

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb

BOTS = ["r0", "r1", "r2", "r3"]


POLL = 0.25
"""Seconds between two looks for ended matches."""

MOVES_PER_MATCH = 4 * 50
"""A 4-player friday13 match: 50 moves per seat (both rounds)."""


class Figures(NamedTuple):
    rate: float
    """Moves (or round trips) per second."""
    server_cpu: float
    """CPU seconds of the server process per move."""
    server_loop: float
    """Of those, its event loop thread's: the rest is gRPC's other threads (its poller, its core's I/O)."""
    client_cpu: float
    """CPU seconds of the bot (or client) processes per move."""


async def measure(address: str, server_pid: int, bot_pids: list[int], matches: int, seconds: float) -> Figures:
    """Keep `matches` matches running for `seconds`; moves per second of the matches that ended, and the
    CPU seconds per move of the server and of the bots. The running matches end before it returns."""
    async with grpc.aio.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        request = api_pb.CreateMatchRequest(game=pb.GameSpec(game="friday13", players=4), seats=BOTS)
        running: set[str] = set()

        async def ended() -> int:
            # Asked four times a second: the listing's own cost is the server's CPU too (ten times a
            # second it was about 5% of the server's samples, py-spy).
            listed = await api.ListMatches(api_pb.ListMatchesRequest(limit=4 * matches))
            done = {summary.match_id for summary in listed.matches if summary.ended_ms} & running
            running.difference_update(done)
            return len(done)

        cpu, loop, bots_cpu = cpu_seconds(server_pid), loop_thread_seconds(server_pid), sum(map(cpu_seconds, bot_pids))
        started = time.perf_counter()
        moves = 0
        while time.perf_counter() - started < seconds:
            while len(running) < matches:
                response = await api.CreateMatch(request, metadata=bearer(ADMIN))
                running.add(response.match_id)
            await asyncio.sleep(POLL)
            moves += MOVES_PER_MATCH * await ended()
        elapsed = time.perf_counter() - started
        cpu, loop = cpu_seconds(server_pid) - cpu, loop_thread_seconds(server_pid) - loop
        bots_cpu = sum(map(cpu_seconds, bot_pids)) - bots_cpu
        while running:
            await asyncio.sleep(POLL)
            await ended()
        moves = max(1, moves)
        return Figures(moves / elapsed, cpu / moves, loop / moves, bots_cpu / moves)


async def bare_client(address: str, in_flight: int, seconds: float) -> None:
    """One stream keeping `in_flight` messages going to the echo server; prints round trips per second."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = bot_grpc.BotServiceStub(channel).Connect()
        message = bot_pb.ConnectRequest(action=bot_pb.Action(match_id="m000001", request_id=25, action_id=7))
        for _ in range(in_flight):
            await call.write(message)
        trips = 0
        started, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - started < seconds:
            await call.read()
            trips += 1
            await call.write(message)
        print(trips / (time.perf_counter() - started), trips, time.process_time() - cpu, flush=True)
        call.cancel()


def bare_grpc(in_flight: int, seconds: float, client_loop: str = "asyncio") -> Figures:
    """Bare grpc.aio, four client processes against one echo server process: round trips per second,
    and the CPU seconds per round trip of the echo server and of the clients."""
    port = free_port()
    here = Path(__file__).resolve().parent
    echo = subprocess.Popen(
        [sys.executable, str(here / "grpc_latency.py"), "--echo-server", str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert echo.stdout is not None and echo.stdout.readline().strip() == "ready"
        cpu, loop = cpu_seconds(echo.pid), loop_thread_seconds(echo.pid)
        clients = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--bare-client",
                    f"127.0.0.1:{port}",
                    str(in_flight),
                    str(seconds),
                    client_loop,
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in BOTS
        ]
        outputs = [client.communicate()[0].split() for client in clients]
        cpu, loop = cpu_seconds(echo.pid) - cpu, loop_thread_seconds(echo.pid) - loop
        trips = max(1, sum(int(trips) for _, trips, _ in outputs))
        return Figures(
            sum(float(rate) for rate, _, _ in outputs),
            cpu / trips,
            loop / trips,
            sum(float(used) for _, _, used in outputs) / trips,
        )
    finally:
        echo.terminate()
        echo.wait()


def median_figures(runs: list[Figures]) -> Figures:
    return Figures(*(statistics.median(values) for values in zip(*runs, strict=True)))


def show(figures: Figures, unit: str, one: str) -> str:
    return (
        f"{figures.rate:,.0f} {unit}/s; CPU per {one}: server {figures.server_cpu * 1e6:.0f} µs "
        f"(its event loop thread {figures.server_loop * 1e6:.0f} µs), bots {figures.client_cpu * 1e6:.0f} µs"
    )


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--bare-client":
        client = bare_client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
        if sys.argv[5] == "uvloop":
            from arena.sdk.client import run_loop  # the SDK's loop

            run_loop(client)
        else:
            asyncio.run(client)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--uvloop-clients",
        action="store_true",
        help="in each repeat, also run the bare reference with its clients on the SDK's event loop (uvloop)",
    )
    args = parser.parse_args()
    print(describe())
    print(f"load average at start: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    arena: list[Figures] = []
    bare: list[Figures] = []
    uvloop_bare: list[Figures] = []
    with arena_server_process() as (address, pid):
        tokens = register_bots(address, BOTS)
        bots = start_bot_processes(address, tokens, args.matches)
        bot_pids = [bot.pid for bot in bots]
        try:
            wait_connected(address, BOTS)
            asyncio.run(measure(address, pid, bot_pids, args.matches, 2.0))  # warm-up
            for repeat in range(args.repeats):
                arena.append(asyncio.run(measure(address, pid, bot_pids, args.matches, args.seconds)))
                bare.append(bare_grpc(max(1, args.matches // len(BOTS)), args.seconds))
                print(f"repeat {repeat + 1}: arena {show(arena[-1], 'moves', 'move')}", flush=True)
                print(f"          bare grpc.aio {show(bare[-1], 'round trips', 'round trip')}", flush=True)
                if args.uvloop_clients:
                    uvloop_bare.append(bare_grpc(max(1, args.matches // len(BOTS)), args.seconds, "uvloop"))
                    print(f"          bare, uvloop clients {show(uvloop_bare[-1], 'round trips', 'round trip')}")
        finally:
            for bot in bots:
                bot.terminate()
                bot.wait()
    middle = median_figures(arena)
    reference = median_figures(bare)
    print(
        f"arena, {args.matches} concurrent 4-player friday13 matches of random SDK bots, medians: "
        f"{show(middle, 'moves', 'move')} (best {max(figures.rate for figures in arena):,.0f} moves/s)"
    )
    print(
        "bare grpc.aio in the same shape (4 client processes, 1 stream each), interleaved, medians: "
        f"{show(reference, 'round trips', 'round trip')} (best {max(figures.rate for figures in bare):,.0f})"
    )
    if uvloop_bare:
        print(f"bare, clients on uvloop, medians: {show(median_figures(uvloop_bare), 'round trips', 'round trip')}")
    print(f"arena / bare (medians): {middle.rate / reference.rate:.2f}")
    print(
        "the server's CPU a move beyond bare's (medians): "
        f"event loop thread {(middle.server_loop - reference.server_loop) * 1e6:+.0f} µs, gRPC's other threads "
        f"{(middle.server_cpu - middle.server_loop - reference.server_cpu + reference.server_loop) * 1e6:+.0f} µs"
    )
    print(f"load average at end: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
