"""The folders a node keeps in the temp directory: a node killed with SIGKILL leaves them, the next node that
starts removes them, and nothing of a living process or of another user is touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena import scratch
from tests.conftest import free_port
from tests.server.test_workers import serving


def made_by(pid: int, folder: Path, prefix: str = scratch.SOCKETS, owner: int | None = None) -> Path:
    """A folder named as `scratch.make` names them, for `pid`, with a file in it."""
    made = folder / f"{prefix}{pid}-a1b2c3d4"
    made.mkdir()
    (made / "bots.sock").write_text("")
    if owner is not None:
        os.chown(made, owner, owner)
    return made


def ended_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    with subprocess.Popen([sys.executable, "-c", "pass"]) as ended:
        assert ended.wait() == 0
    return ended.pid


def test_the_sweep_removes_only_this_users_folders_of_ended_processes(tmp_path: Path) -> None:
    with subprocess.Popen(["sleep", "60"]) as living:
        dead = ended_pid()
        gone = [made_by(dead, tmp_path), made_by(dead, tmp_path, scratch.STAGING)]
        kept = [
            made_by(os.getpid(), tmp_path),
            made_by(living.pid, tmp_path, scratch.STAGING),
            made_by(dead, tmp_path, "arena-metrics-"),  # not a name `make` gives
        ]
        other = tmp_path / "other"
        other.mkdir()
        kept.append(made_by(dead, other, owner=65534))
        plain = tmp_path / f"arena-{dead}-file"
        plain.write_text("not a folder")
        assert sorted(scratch.sweep(tmp_path)) == sorted(gone)
        assert sorted(scratch.sweep(other)) == []
        living.kill()
    assert [path for path in gone if path.exists()] == []
    assert [path for path in kept if not path.exists()] == [] and plain.exists()


@pytest.mark.slow  # a drill with real `arena serve` processes (the slow tier)
def test_a_node_killed_with_sigkill_leaves_folders_the_next_node_removes(tmp_path: Path, redis_url: str) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    args = ("--port", str(free_port()), "--http-port", "0", "--redis-url", redis_url)
    with serving(*args, "--data-dir", str(tmp_path / "a"), env={"TMPDIR": str(temp)}) as killed:
        killed.wait_for("serving on")
        # The hosted bots' socket folder, and the sandbox's staging folder where the sandbox works.
        left = sorted(temp.glob(f"arena-*{killed.process.pid}-*"))
        assert any(path.name.startswith(f"arena-{killed.process.pid}-") for path in left), sorted(temp.iterdir())
        killed.process.send_signal(signal.SIGKILL)
        killed.process.wait(timeout=30)
    assert all(path.exists() for path in left), "a killed node cannot remove its folders"
    args = ("--port", str(free_port()), "--http-port", "0", "--redis-url", redis_url)
    with serving(*args, "--data-dir", str(tmp_path / "b"), env={"TMPDIR": str(temp)}) as next_node:
        next_node.wait_for("serving on")
        assert [path for path in left if path.exists()] == [], "the next node removes them"
        assert sorted(temp.glob(f"arena-*{next_node.process.pid}-*")), "and keeps its own"
        assert next_node.stop() == 0
    assert sorted(temp.glob(f"arena-*{next_node.process.pid}-*")) == [], "a stopped node removes its own"
