"""One owner's huge tournament whose entrant never connects, against another owner's one-match tournament.

    python benchmarks/tournament_backlog.py [--matches 20000] [--creator owner|admin] [--wait 300]
                                            [--drain-seconds 60]

A redis-server and one `arena serve --redis-url` node (default settings: 64 match slots, 30 s wait
for seats) run on loopback. The owner `hog` registers `ghost` and never connects it; `honest` plays
only built-in bots. Steps, each timed:

1. reference: `honest` creates a tournament of one match of three built-in bots; seconds until it
   has finished (the stream is empty: this is what a match costs on this machine now);
2. `hog` (or, with `--creator admin`, the admin) creates a round-robin of `ghost` and two built-in
   bots with `--matches` rounds (one match each), or is refused (the message is printed);
3. probe: `honest` creates another one-match tournament; seconds until it finished (or `--wait`),
   and the ratio to the reference;
4. the flood is cancelled: how long the RPC took, then, from its answer, the tournament's orders
   left on the work stream every second until none are left (or `--drain-seconds`): orders drained
   per second.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from typing import Any

import grpc
import redis as redis_sync
from grpc_common import ADMIN, SERVE, bearer, free_port, redis_server
from machine import describe

from arena.store import keys
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb

BUILTINS = ["builtin:random", "builtin:heuristic"]


def node(redis_url: str) -> tuple[subprocess.Popen[str], str]:
    """An `arena serve` process on this Redis, and its HOST:PORT."""
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
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
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "serving" not in line:
        process.kill()
        raise RuntimeError(f"arena serve did not start: {line}")
    return process, f"127.0.0.1:{port}"


def spec(name: str, entrants: list[str], rounds: int = 1) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=entrants,
        table_size=3,
        rounds=rounds,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    )


def played(api: api_grpc.ArenaServiceStub, name: str, token: str, wait: float) -> float | None:
    """Seconds from creating one-match tournament `name` of built-in bots until it finished; None after `wait`."""
    started = time.perf_counter()
    request = api_pb.CreateTournamentRequest(spec=spec(name, ["builtin:mc", *BUILTINS]))
    api.CreateTournament(request, metadata=bearer(token))
    while time.perf_counter() - started < wait:
        info = api.GetTournament(api_pb.GetTournamentRequest(name=name)).tournament
        if info.finished_ms:
            return time.perf_counter() - started
        time.sleep(0.05)
    return None


def flood_orders(client: redis_sync.Redis, name: str) -> int:
    """Orders of tournament `name` on the work stream (waiting or taken by a node)."""
    marker = f'"tournament":"{name}"'.encode()
    entries: Any = client.xrange(keys.WORK)
    return sum(1 for _, fields in entries if marker in fields[b"order"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--creator", choices=["owner", "admin"], default="owner")
    parser.add_argument("--wait", type=float, default=300.0, help="seconds the probe tournament may take")
    parser.add_argument("--drain-seconds", type=float, default=60.0)
    options = parser.parse_args()
    print(f"machine: {describe()}")
    print(f"load average at start: {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    with redis_server() as url:
        process, address = node(url)
        client = redis_sync.Redis.from_url(url)
        try:
            with grpc.insecure_channel(address) as channel:
                api = api_grpc.ArenaServiceStub(channel)
                hog = api.CreateOwner(api_pb.CreateOwnerRequest(name="hog"), metadata=bearer(ADMIN)).token
                honest = api.CreateOwner(api_pb.CreateOwnerRequest(name="honest"), metadata=bearer(ADMIN)).token
                api.RegisterBot(api_pb.RegisterBotRequest(name="ghost", games=["friday13"]), metadata=bearer(hog))
                reference = played(api, "reference", honest, options.wait)
                print(f"reference: a one-match tournament of built-in bots finished in {reference:.2f} s")
                creator = hog if options.creator == "owner" else ADMIN
                started = time.perf_counter()
                request = api_pb.CreateTournamentRequest(spec=spec("flood", ["ghost", *BUILTINS], options.matches))
                try:
                    api.CreateTournament(request, metadata=bearer(creator), timeout=600)
                except grpc.RpcError as error:
                    print(f"flood of {options.matches:,} matches by {options.creator}: refused: {error.details()}")
                    return
                print(
                    f"flood of {options.matches:,} matches by {options.creator}: created in "
                    f"{time.perf_counter() - started:.2f} s; {flood_orders(client, 'flood'):,} orders on the stream"
                )
                probe = played(api, "probe", honest, options.wait)
                if probe is None:
                    print(f"probe: not finished within {options.wait:.0f} s")
                else:
                    ratio = f"{probe / reference:.1f}x" if reference else "-"
                    print(f"probe: finished in {probe:.2f} s ({ratio} the reference)")
                before = flood_orders(client, "flood")
                started = time.perf_counter()
                cancelled = api.CancelTournament(
                    api_pb.CancelTournamentRequest(name="flood"), metadata=bearer(creator), timeout=600
                )
                print(
                    f"cancel: {time.perf_counter() - started:.2f} s, {cancelled.cancelled:,} matches will not start, "
                    f"{before:,} orders on the stream"
                )
                left = before
                started = time.perf_counter()
                while left and time.perf_counter() - started < options.drain_seconds:
                    time.sleep(1.0)
                    left = flood_orders(client, "flood")
                seconds = time.perf_counter() - started
                print(
                    f"drain: {before - left:,} of {before:,} orders left the stream in {seconds:.1f} s "
                    f"({(before - left) / seconds:,.1f} orders/s); {left:,} left"
                )
        finally:
            client.close()
            process.terminate()
            process.wait(timeout=60)


if __name__ == "__main__":
    main()
