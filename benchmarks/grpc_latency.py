"""Per-move round trip through the arena with one match, and what the arena adds to bare gRPC.

    python benchmarks/grpc_latency.py [--matches 5] [--repeats 3]

`arena serve` runs in its own process (embedded Redis). Four bots in this process play one
4-player friday13 match at a time, answering at once with a random legal action; a round
trip is the time from one bot sending its Action to the next ActionRequest of that match
arriving (client to server, the engine's checks and move, the next seat's observation,
server to client). The baseline is a bare grpc.aio echo server in its own process answering
each message on one stream with a pre-built ActionRequest of the same size: what gRPC costs
by itself. The arena's added time per move is the difference of the medians. The arena's and
the echo's repeats alternate; the figures are the best (lowest) of the repeats, the machines
being shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time
from typing import Any

import grpc
from grpc_common import ADMIN, arena_server, bearer, free_port, register_bots
from machine import describe

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb

BOTS = ["l0", "l1", "l2", "l3"]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def arena_round_trips(address: str, tokens: dict[str, str], matches: int) -> list[float]:
    """Round trips (seconds) of every move of `matches` matches played one after another."""
    rng = random.Random(1)
    sent_at: dict[str, float] = {}
    trips: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = bot_grpc.BotServiceStub(channel)
        api = api_grpc.ArenaServiceStub(channel)
        calls = []
        for token in tokens.values():
            call = stub.Connect(metadata=bearer(token))
            await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(max_matches=1)))
            await call.read()
            calls.append(call)

        async def play(call: Any, done: asyncio.Queue[str]) -> None:
            while True:
                message = await call.read()
                kind = message.WhichOneof("message")
                if kind == "action_request":
                    now = time.perf_counter()
                    request = message.action_request
                    if request.match_id in sent_at:
                        trips.append(now - sent_at[request.match_id])
                    legal = request.legal_actions
                    action = bot_pb.Action(
                        match_id=request.match_id,
                        request_id=request.request_id,
                        action_id=legal[int(rng.random() * len(legal))].id,
                    )
                    sent_at[request.match_id] = time.perf_counter()
                    await call.write(bot_pb.ConnectRequest(action=action))
                elif kind == "match_ended":
                    await done.put(message.match_ended.match_id)

        done: asyncio.Queue[str] = asyncio.Queue()
        players = [asyncio.create_task(play(call, done)) for call in calls]
        request = api_pb.CreateMatchRequest(game=pb.GameSpec(game="friday13", players=4), seats=BOTS)
        for _ in range(matches):
            await api.CreateMatch(request, metadata=bearer(ADMIN))
            for _ in BOTS:
                await done.get()
        for task in players:
            task.cancel()
        for call in calls:
            call.cancel()
    return trips


class EchoServicer(bot_grpc.BotServiceServicer):
    """Answers every message with the same ActionRequest: gRPC's own cost, nothing else."""

    def __init__(self, reply: bot_pb.ConnectResponse) -> None:
        self.reply = reply

    async def Connect(self, request_iterator: Any, context: Any) -> None:
        while (await context.read()) is not grpc.aio.EOF:
            await context.write(self.reply)


def typical_request() -> bot_pb.ConnectResponse:
    """An ActionRequest from the middle of a 4-player friday13 round."""
    from arena.games import make_game
    from arena.wire.convert import observation_to_pb

    game = make_game("friday13", players=4)
    state = game.new_match(b"latency")
    rng = random.Random(2)
    for _ in range(25):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_player()
    request = bot_pb.ActionRequest(match_id="m000001", request_id=25, time_left_ms=11000)
    request.observation.CopyFrom(observation_to_pb(game, state.observation(seat)))
    request.legal_actions.extend(pb.LegalAction(id=a, text=game.action_text(a)) for a in state.legal_actions())
    return bot_pb.ConnectResponse(action_request=request)


async def serve_echo(port: int) -> None:
    server = grpc.aio.server()
    bot_grpc.add_BotServiceServicer_to_server(EchoServicer(typical_request()), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print("ready", flush=True)
    await server.wait_for_termination()


async def echo_round_trips(address: str, count: int) -> list[float]:
    trips = []
    async with grpc.aio.insecure_channel(address) as channel:
        call = bot_grpc.BotServiceStub(channel).Connect()
        action = bot_pb.ConnectRequest(action=bot_pb.Action(match_id="m000001", request_id=25, action_id=7))
        for _ in range(count):
            started = time.perf_counter()
            await call.write(action)
            await call.read()
            trips.append(time.perf_counter() - started)
        call.cancel()
    return trips


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--echo-server":
        asyncio.run(serve_echo(int(sys.argv[2])))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=5, help="matches per repeat (200 moves each)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(describe())
    arena: list[tuple[float, float]] = []
    bare: list[tuple[float, float]] = []
    port = free_port()
    echo = subprocess.Popen([sys.executable, __file__, "--echo-server", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert echo.stdout is not None and echo.stdout.readline().strip() == "ready"
        with arena_server() as address:
            tokens = register_bots(address, BOTS)
            asyncio.run(arena_round_trips(address, tokens, 1))  # warm-up
            asyncio.run(echo_round_trips(f"127.0.0.1:{port}", 200))  # warm-up
            # The arena's and bare gRPC's repeats alternate, so that both see the same load.
            for _ in range(args.repeats):
                trips = asyncio.run(arena_round_trips(address, tokens, args.matches))
                arena.append((statistics.median(trips), percentile(trips, 0.99)))
                trips = asyncio.run(echo_round_trips(f"127.0.0.1:{port}", args.matches * 200))
                bare.append((statistics.median(trips), percentile(trips, 0.99)))
    finally:
        echo.terminate()
        echo.wait()
    arena_p50, arena_p99 = min(arena)
    bare_p50, bare_p99 = min(bare)
    print(
        f"arena, one 4-player friday13 match: per-move round trip p50 {arena_p50 * 1e3:.3f} ms, "
        f"p99 {arena_p99 * 1e3:.3f} ms"
    )
    print(f"bare grpc.aio echo, one stream:     round trip p50 {bare_p50 * 1e3:.3f} ms, p99 {bare_p99 * 1e3:.3f} ms")
    print(f"added by the arena per move (p50): {(arena_p50 - bare_p50) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
