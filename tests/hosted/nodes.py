"""`arena serve` as a process of its own, as it runs in production: its memory can be read, its
interpreter chosen (a virtualenv), its temporary files kept in a folder of their own, and its memory
capped by a cgroup so that a regression fails the test instead of the machine."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.conftest import free_port
from tests.server.conftest import bearer

ADMIN = "ata_node-process-admin"
MEMORY_CGROUPS = Path("/sys/fs/cgroup/memory")
START_TIMEOUT = 120.0
"""Seconds a node may take to print its first line: its sandbox trial imports the SDK on a busy host."""


@dataclass
class Node:
    """A running `arena serve` and an async client channel to it."""

    process: subprocess.Popen[bytes]
    port: int
    tmp: Path
    """The node's TMPDIR: every host file it makes for itself and its hosted bots is under it."""
    channel: grpc.aio.Channel
    api: api_grpc.ArenaServiceStub
    log_file: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def reset_peak_rss(self) -> None:
        """Start the count of `peak_rss` over from what the node holds now (Linux's clear_refs, 5)."""
        Path(f"/proc/{self.process.pid}/clear_refs").write_text("5")

    def peak_rss(self) -> int:
        """The node process's peak resident memory (VmHWM), in bytes."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM in /proc/PID/status")

    def leftovers(self) -> list[Path]:
        """What is under the node's TMPDIR besides its bot socket (in a folder of its own) and empty folders."""
        return sorted(
            path
            for path in self.tmp.rglob("*")
            if not path.is_socket() and not (path.is_dir() and all(child.is_socket() for child in path.iterdir()))
        )

    def log(self) -> str:
        """The end of the node's output."""
        with self.log_file.open("rb") as log:
            log.seek(max(0, self.log_file.stat().st_size - 3000))
            return log.read().decode(errors="replace")

    async def owner(self, name: str) -> str:
        reply = await self.api.CreateOwner(api_pb.CreateOwnerRequest(name=name), metadata=bearer(ADMIN))
        return str(reply.token)

    async def bot(self, owner: str, name: str) -> str:
        reply = await self.api.RegisterBot(
            api_pb.RegisterBotRequest(name=name, games=["friday13"]), metadata=bearer(owner)
        )
        return str(reply.token)


@contextlib.asynccontextmanager
async def memory_cap(limit: int) -> AsyncIterator[Path | None]:
    """A cgroup v1 memory group capped at `limit` bytes (its cgroup.procs file), or None where there is none."""
    if not (MEMORY_CGROUPS / "cgroup.procs").exists() or os.geteuid() != 0:
        yield None
        return
    group = MEMORY_CGROUPS / f"arena-test-{secrets.token_hex(4)}"
    group.mkdir()
    try:
        (group / "memory.limit_in_bytes").write_text(str(limit))
        yield group / "cgroup.procs"
    finally:
        for _ in range(200):
            with contextlib.suppress(OSError):
                for pid in (group / "cgroup.procs").read_text().split():
                    os.kill(int(pid), 9)
                group.rmdir()
                break
            time.sleep(0.05)


@contextlib.asynccontextmanager
async def node_process(
    redis_url: str, python: str = sys.executable, memory_limit: int = 0, env: dict[str, str] | None = None
) -> AsyncIterator[Node]:
    """`python -m arena.cli serve` on a free port with `redis_url`, its TMPDIR a fresh folder of /tmp (0755: the
    sandbox's uids traverse its staging folder), inside a memory cap of `memory_limit` bytes when given."""
    port = free_port()
    tmp = Path(tempfile.mkdtemp(prefix="arena-node-tmp-"))
    tmp.chmod(0o755)
    command = [python, "-m", "arena.cli", "serve", "--workers", "1", "--port", str(port), "--redis-url", redis_url]
    command.append("--no-web")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    environment |= {"ARENA_ADMIN_TOKEN": ADMIN, "TMPDIR": str(tmp), **(env or {})}
    async with contextlib.AsyncExitStack() as stack:
        procs = await stack.enter_async_context(memory_cap(memory_limit)) if memory_limit else None
        if procs is not None:
            command = ["sh", "-c", f'echo $$ > {procs} && exec "$@"', "node", *command]
        log_file = Path(f"{tmp}.log")
        with log_file.open("wb") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environment, cwd=tmp)
        try:
            _wait_serving(process, log_file)
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
            try:
                yield Node(process, port, tmp, channel, api_grpc.ArenaServiceStub(channel), log_file)
            finally:
                await channel.close()
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
            shutil.rmtree(tmp, ignore_errors=True)
            log_file.unlink(missing_ok=True)


def _wait_serving(process: subprocess.Popen[bytes], log_file: Path) -> None:
    """Wait for the node's `serving` line (its log lines come before it); AssertionError with its output if it
    stops or takes too long."""
    deadline = time.monotonic() + START_TIMEOUT
    while b"serving" not in log_file.read_bytes()[:100_000]:
        assert process.poll() is None and time.monotonic() < deadline, log_file.read_bytes()[-3000:].decode(
            errors="replace"
        )
        time.sleep(0.05)
