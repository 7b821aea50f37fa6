"""Does a tournament of built-in Monte Carlo bots slow the other matches of its node?

    python benchmarks/builtin_isolation.py [--before DIR] [--matches 3] [--rounds 4]

Starts `arena serve` (embedded Redis in a temporary directory) and three SDK bots (the Python
random sample bot, each its own process), and times honest matches between them (friday13, three
seats, created with CreateMatch, from the call until the match is seen ended): first alone, then
beside a rated tournament of builtin:mc, builtin:heuristic and builtin:random (tables of three,
every seating of each deal, `--rounds` deals, all queued at once as tournaments are). With
`--before DIR` it does the same first with the server's code taken from DIR (another checkout,
e.g. the main branch before the built-in bots' process pool), so both are measured in the same
minute. Prints a Markdown table: median seconds of an honest match alone and beside, their ratio,
and the seconds the tournament took in all (what isolating the built-in bots costs them).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator

import grpc
from grpc_common import ADMIN, SERVE, bearer, free_port, register_bots, start_bot_processes, wait_connected
from machine import describe

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb

HONEST = ["h1", "h2", "h3"]
MATCH_TIMEOUT = 600.0


@contextlib.contextmanager
def server(code: str | None) -> Iterator[tuple[str, str]]:
    """`arena serve` with its code from `code` (None: this checkout); yields HOST:PORT and its web UI's URL."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as data:
        env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
        if code is not None:
            env["PYTHONPATH"] = code
        process = subprocess.Popen(
            [
                *SERVE,
                "--port",
                str(port),
                "--data-dir",
                data,
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
        web = process.stdout.readline().split("web UI on ")[-1].strip()
        try:
            yield f"127.0.0.1:{port}", web
        finally:
            process.terminate()
            process.wait(timeout=60)


def honest_match(api: api_grpc.ArenaServiceStub) -> float:
    """Seconds from CreateMatch until the match is seen ended."""
    started = time.perf_counter()
    request = api_pb.CreateMatchRequest(game=pb.GameSpec(game="friday13"), seats=HONEST)
    match_id = api.CreateMatch(request, metadata=bearer(ADMIN)).match_id
    while True:
        summary = api.GetMatch(api_pb.GetMatchRequest(match_id=match_id)).match
        if summary.ended_ms:
            return time.perf_counter() - started
        if time.perf_counter() - started > MATCH_TIMEOUT:
            raise TimeoutError(f"match {match_id} did not end in {MATCH_TIMEOUT:.0f} s")
        time.sleep(0.005)


def measure(code: str | None, matches: int, rounds: int) -> tuple[float, float, float]:
    """Median seconds of an honest match alone and beside the tournament, and the tournament's seconds."""
    with server(code) as (address, _):
        tokens = register_bots(address, HONEST)
        bots = start_bot_processes(address, tokens, max_matches=4)
        try:
            wait_connected(address, HONEST)
            with grpc.insecure_channel(address) as channel:
                api = api_grpc.ArenaServiceStub(channel)
                honest_match(api)  # the first match warms every process up
                alone = statistics.median(honest_match(api) for _ in range(matches))
                spec = api_pb.TournamentSpec(
                    name="mc-load",
                    game=pb.GameSpec(game="friday13"),
                    entrants=["builtin:mc", "builtin:heuristic", "builtin:random"],
                    table_size=3,
                    rounds=rounds,
                    duplicate=True,
                    rated=True,
                    format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
                )
                created = time.perf_counter()
                api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec), metadata=bearer(ADMIN))
                time.sleep(1.0)  # its matches have started
                beside = statistics.median(honest_match(api) for _ in range(matches))
                while not api.GetTournament(api_pb.GetTournamentRequest(name="mc-load")).tournament.finished_ms:
                    time.sleep(0.2)
                return alone, beside, time.perf_counter() - created
        finally:
            for bot in bots:
                bot.terminate()
            for bot in bots:
                bot.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="a checkout whose server code to measure first (e.g. the main branch)")
    parser.add_argument("--matches", type=int, default=3, help="honest matches timed alone and beside (3)")
    parser.add_argument("--rounds", type=int, default=4, help="deals of the tournament, 6 matches each (4)")
    options = parser.parse_args()
    runs = ([("before", options.before)] if options.before else []) + [("this checkout", None)]
    print(describe())
    print()
    print("| server code | honest match alone s | beside a builtin:mc tournament s | ratio | tournament s |")
    print("|---|---|---|---|---|")
    for label, code in runs:
        alone, beside, tournament = measure(code, options.matches, options.rounds)
        print(f"| {label} | {alone:.3f} | {beside:.3f} | {beside / alone:.1f}x | {tournament:.1f} |", flush=True)


if __name__ == "__main__":
    main()
