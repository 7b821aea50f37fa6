"""A hosted bot never outlives its node: kill -9 the node mid-match and every sandboxed process dies with it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest

from arena.hosted.sandbox import UIDS
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.conftest import free_port
from tests.hosted.conftest import host_processes, misbehaving, requests
from tests.server.conftest import bearer

ADMIN = "ata_node-death-admin"


def sandboxed_processes(ancestor: int | None = None) -> dict[int, int]:
    """Live processes running under a hosted bot's uid (pid -> uid); with `ancestor`, only its descendants."""
    processes = host_processes()
    parents = {process.pid: process.parent for process in processes}

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == ancestor:
                return True
        return False

    return {p.pid: p.uid for p in processes if p.uid in UIDS and (ancestor is None or descends(p.pid))}


ARENA_SERVE = [sys.executable, "-m", "arena.cli", "serve", "--workers", "1"]


@pytest.mark.sandbox
def test_killing_the_node_kills_its_hosted_bots(redis_url: str, tmp_path: Path) -> None:
    port = free_port()
    node = subprocess.Popen(
        [*ARENA_SERVE, "--port", str(port), "--redis-url", redis_url, "--no-web"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}, "ARENA_ADMIN_TOKEN": ADMIN},
    )
    try:
        assert node.stdout is not None
        assert "serving" in node.stdout.readline()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        api = api_grpc.ArenaServiceStub(channel)
        owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="mallory"), metadata=bearer(ADMIN)).token
        api.RegisterBot(api_pb.RegisterBotRequest(name="sleeper", games=["friday13"]), metadata=bearer(owner))
        folder = misbehaving(tmp_path / "sleeper", "silent")
        # The validation match seats it; it never answers, so it is mid-match when the node dies.
        upload = threading.Thread(
            target=lambda: _submit_ignoring_the_end(api, owner, folder), name="submit", daemon=True
        )
        upload.start()
        deadline = time.monotonic() + 30
        while not (running := sandboxed_processes(node.pid)):
            assert time.monotonic() < deadline, "the hosted bot never started"
            time.sleep(0.05)
        node.send_signal(signal.SIGKILL)
        node.wait(timeout=10)
        deadline = time.monotonic() + 5
        while left := {pid for pid in sandboxed_processes() if pid in running}:
            assert time.monotonic() < deadline, f"sandboxed processes outlived the node: {left}"
            time.sleep(0.05)
        channel.close()
    finally:
        if node.poll() is None:
            node.kill()
            node.wait(timeout=10)


def _submit_ignoring_the_end(api: api_grpc.ArenaServiceStub, owner: str, folder: Path) -> None:
    # The node is killed while the call waits for the validation match.
    with contextlib.suppress(grpc.RpcError):
        api.SubmitBot(iter(requests("sleeper", folder, "python bot.py")), metadata=bearer(owner), timeout=60)
