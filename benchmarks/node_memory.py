"""A node's memory: the `arena serve` process's RSS idle, with 1,000 bot sessions, with 128 running matches.

    python benchmarks/node_memory.py [--sessions 1000] [--matches 128]

Starts a real `arena serve` process (embedded Redis in a temporary data directory, web UI on, 160
match slots), registers `--sessions` bots through the API, and opens one bot session for each
from another process: raw grpc.aio Connect streams that say Hello and then only read (idle bots).
Then it creates `--matches` four-player friday13 matches through the API, seating distinct
connected bots, with a clock of 10 minutes a move: every bot is asked for a move and never
answers, so each match stays running, its engine state, seats and clocks held by the node. The
server process's VmRSS (/proc/PID/status; the embedded redis-server is a process of its own and
is not counted) is read after start-up, after the sessions and after the matches, each once the
number has settled; the per-session and per-match costs are the differences divided. Goal: under
150 MB with 1,000 sessions and 128 matches.

Where it goes: the start-up figure is set beside the RSS of a fresh process after each group of
imports the node loads, and the per-session figure beside a bare grpc.aio server (the arena's
BotService answering Hello with a Welcome, nothing else) holding as many idle streams from the
same kind of client process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from machine import describe

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb

ADMIN = "ata_node-memory-benchmark"
GAME = "friday13"
MOVE_MS = 600_000
"""The matches' clock: long enough that no unanswered request times out while memory is read."""


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    """The VmRSS of `pid` and of its descendants but the embedded redis-server (a supervisor's workers count)."""
    total = 0
    for one in [pid, *descendants(pid)]:
        status = dict(
            line.split(":", 1) for line in Path(f"/proc/{one}/status").read_text().splitlines() if ":" in line
        )
        if status["Name"].strip() != "redis-server" and "VmRSS" in status:
            total += int(status["VmRSS"].split()[0])
    return total


def descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # The parent is the 2nd field after the command's closing parenthesis.
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def settled_rss(pid: int, seconds: float = 3.0) -> int:
    """The RSS once it stopped growing for `seconds` (allocations after a burst of work land late)."""
    last, since = rss_kib(pid), time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() - since < seconds and time.monotonic() < deadline:
        time.sleep(0.5)
        now = rss_kib(pid)
        if now > last + 256:
            last, since = now, time.monotonic()
    return rss_kib(pid)


# -- the idle bots' process ---------------------------------------------------------------------


async def idle_sessions(server: str, tokens: list[str], ready: Path) -> None:
    """One Connect stream per token: Hello, then read and never answer. Writes `ready` when all are welcomed,
    then rewrites it with the count of matches asked about, until killed."""
    channel = grpc.aio.insecure_channel(server)
    stub = bot_grpc.BotServiceStub(channel)
    welcomed = 0
    asked: set[str] = set()

    async def one(token: str) -> None:
        nonlocal welcomed
        call: Any = stub.Connect(metadata=bearer(token))
        await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(games=[GAME], max_matches=1)))
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                return
            kind = message.WhichOneof("message")
            if kind == "welcome":
                welcomed += 1
            elif kind == "action_request":
                asked.add(message.action_request.match_id)

    tasks = [asyncio.create_task(one(token)) for token in tokens]
    while True:
        await asyncio.sleep(0.5)
        ready.write_text(json.dumps({"welcomed": welcomed, "asked": len(asked)}))
        if any(task.done() for task in tasks):
            failed = next(task for task in tasks if task.done())
            ready.write_text(json.dumps({"error": repr(failed.exception())}))
            return


# -- the references -----------------------------------------------------------------------------

IMPORTS = (
    ("gRPC and protobuf", "import grpc, grpc_health.v1.health, grpc_reflection.v1alpha.reflection"),
    ("redis", "import redis.asyncio"),
    ("FastAPI, uvicorn, pydantic", "import fastapi, uvicorn"),
    ("the arena (games, bots, node, web)", "import arena.app"),
)


IMPORT_STEPS = """
import json
from pathlib import Path
def now():
    status = Path("/proc/self/status").read_text().splitlines()
    return int(next(line for line in status if line.startswith("VmRSS:")).split()[1])
steps = [("Python", now())]
for name, statement in json.loads(__import__("sys").argv[1]):
    exec(statement)
    steps.append((name, now()))
print(json.dumps(steps))
"""
"""Run in a fresh interpreter (`python -c`): the RSS after start, then after each group of imports."""


async def bare_server() -> None:
    """A grpc.aio server with the BotService answering each Hello with a Welcome; prints its port."""

    class Echo(bot_grpc.BotServiceServicer):
        async def Connect(self, requests: Any, context: Any) -> Any:
            async for _ in requests:
                yield bot_pb.ConnectResponse(welcome=bot_pb.Welcome(session_id="bare"))

    server = grpc.aio.server()
    bot_grpc.add_BotServiceServicer_to_server(Echo(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()


def bare_per_stream(sessions: int, work: Path) -> tuple[int, int]:
    """A bare grpc.aio server's RSS idle and with `sessions` idle streams (KiB)."""
    server = subprocess.Popen([sys.executable, __file__, "--bare-server"], stdout=subprocess.PIPE, text=True)
    client: subprocess.Popen[bytes] | None = None
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        idle = settled_rss(server.pid)
        tokens, state = work / "bare-tokens.json", work / "bare.json"
        tokens.write_text(json.dumps(["none"] * sessions))
        client = subprocess.Popen([sys.executable, __file__, "--bots", f"127.0.0.1:{port}", str(tokens), str(state)])
        wait_for(state, "welcomed", sessions, 120)
        return idle, settled_rss(server.pid)
    finally:
        for process in (client, server):
            if process is not None:
                process.kill()
                process.wait()


# -- the benchmark ------------------------------------------------------------------------------


def wait_for(state: Path, key: str, count: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if state.exists():
            try:
                seen = json.loads(state.read_text() or "{}")
            except ValueError:
                seen = {}
            if "error" in seen:
                raise RuntimeError(f"the bots' process failed: {seen['error']}")
            if seen.get(key, 0) >= count:
                return
        time.sleep(0.2)
    raise TimeoutError(f"{key} did not reach {count} within {timeout:.0f} s: {state.read_text()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000, help="idle bot sessions (default 1000)")
    parser.add_argument("--matches", type=int, default=128, help="running four-player matches (default 128)")
    args = parser.parse_args()
    if args.matches * 4 > args.sessions:
        parser.error("every seat needs its own session: --sessions must be at least 4 x --matches")
    print(describe(), f"load average {os.getloadavg()[0]:.1f}")
    # One node process: with several workers (`arena serve --workers`), the sessions of one client
    # connection would all land on one of them anyway.
    single = (
        ["--workers", "1"]
        if "--workers"
        in subprocess.run([sys.executable, "-m", "arena.cli", "serve", "--help"], capture_output=True, text=True).stdout
        else []
    )
    with tempfile.TemporaryDirectory() as work:
        port = free_port()
        env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN, "PYTHONUNBUFFERED": "1"}
        env.pop("ARENA_ADMIN_TOKEN_FILE", None)
        log = Path(work) / "serve.log"
        with log.open("wb") as output:
            server = subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "serve", "--port", str(port), "--http-port", "0",
                 "--data-dir", str(Path(work) / "data"), "--match-slots", str(args.matches + 32), *single],
                stdout=output, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
            bots: subprocess.Popen[bytes] | None = None
            try:
                deadline = time.monotonic() + 60
                while "serving on" not in log.read_text(errors="replace"):
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"arena serve did not start:\n{log.read_text(errors='replace')}")
                    time.sleep(0.1)
                address = f"127.0.0.1:{port}"
                idle = settled_rss(server.pid)
                print(f"started, idle:                          RSS {idle / 1024:7.1f} MiB")
                tokens = register(address, args.sessions)
                tokens_file, state = Path(work) / "tokens.json", Path(work) / "bots.json"
                tokens_file.write_text(json.dumps(list(tokens.values())))
                bots = subprocess.Popen(
                    [sys.executable, __file__, "--bots", address, str(tokens_file), str(state)], env=env
                )
                wait_for(state, "welcomed", args.sessions, 120)
                with_sessions = settled_rss(server.pid)
                per_session = (with_sessions - idle) / args.sessions
                print(
                    f"{args.sessions:,} idle sessions:                   RSS {with_sessions / 1024:7.1f} MiB "
                    f"({per_session:.1f} KiB a session)"
                )
                names = list(tokens)
                create_matches(address, [names[4 * number : 4 * number + 4] for number in range(args.matches)])
                wait_for(state, "asked", args.matches, 120)
                with_matches = settled_rss(server.pid)
                per_match = (with_matches - with_sessions) / args.matches
                print(
                    f"+ {args.matches} running matches (a move asked): RSS {with_matches / 1024:7.1f} MiB "
                    f"({per_match:.1f} KiB a match)"
                )
                verdict = "reached" if with_matches < 150 * 1024 else "NOT reached"
                steps = json.loads(
                    subprocess.run(
                        [sys.executable, "-c", IMPORT_STEPS, json.dumps(IMPORTS)],
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                )
                print(
                    "start-up, a fresh process's RSS after: "
                    + ", ".join(f"{name} {rss / 1024:.1f} MiB" for name, rss in steps)
                )
                bare_idle, bare_streams = bare_per_stream(args.sessions, Path(work))
                print(
                    f"bare grpc.aio server: {bare_idle / 1024:.1f} MiB idle, {bare_streams / 1024:.1f} MiB with "
                    f"{args.sessions:,} idle streams ({(bare_streams - bare_idle) / args.sessions:.1f} KiB a stream)"
                )
                print(f"goal under 150 MB (143 MiB): {verdict}; load average {os.getloadavg()[0]:.1f}")
            finally:
                if bots is not None:
                    bots.kill()
                    bots.wait()
                server.terminate()
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()


def register(address: str, count: int) -> dict[str, str]:
    with grpc.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="memory"), metadata=bearer(ADMIN), timeout=30).token
        tokens = {}
        for number in range(count):
            request = api_pb.RegisterBotRequest(name=f"idle-{number:04d}", games=[GAME])
            tokens[request.name] = api.RegisterBot(request, metadata=bearer(owner), timeout=30).token
        return tokens


def create_matches(address: str, tables: list[list[str]]) -> None:
    with grpc.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        for seats in tables:
            request = api_pb.CreateMatchRequest(
                game=pb.GameSpec(game=GAME, players=4), seats=seats, clock=pb.Clock(per_move_ms=MOVE_MS, bank_ms=0)
            )
            api.CreateMatch(request, metadata=bearer(ADMIN), timeout=30)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--bare-server"]:
        asyncio.run(bare_server())
    elif sys.argv[1:2] == ["--bots"]:
        server_address, tokens_path, ready_path = sys.argv[2:5]
        asyncio.run(idle_sessions(server_address, json.loads(Path(tokens_path).read_text()), Path(ready_path)))
    else:
        main()
