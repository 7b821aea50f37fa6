"""The page-load benchmark's reader on a machine of its own: chromium's processes given a cpu cgroup of
the weight asked for, and put back with the group removed afterwards, even when one has exited."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmarks.scripts import BENCHMARKS, benchmark_module

CPU_CGROUPS = Path("/sys/fs/cgroup/cpu")


@pytest.fixture(scope="module")
def web_latency() -> Iterator[ModuleType]:
    """The benchmark module, imported as it runs (from its folder, beside its helpers)."""
    with benchmark_module("web_latency") as module:
        yield module


def cpu_group(pid: int) -> str:
    """The cgroup v1 cpu group the process is in ("/" at the root)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            return path
    raise AssertionError(f"process {pid} is in no cpu cgroup")


@pytest.mark.skipif(not os.access(CPU_CGROUPS, os.W_OK), reason="needs a writable cgroup v1 cpu hierarchy (root)")
def test_the_browser_is_weighted_while_it_loads_and_put_back_after(web_latency: ModuleType) -> None:
    stays = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    leaves = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    group = CPU_CGROUPS / f"web-latency-reader-{os.getpid()}"
    try:
        with web_latency.browser_weight(4096, [str(stays.pid), str(leaves.pid), "999999999"]):
            assert (group / "cpu.shares").read_text().strip() == "4096"
            assert cpu_group(stays.pid) == cpu_group(leaves.pid) == f"/{group.name}"
            leaves.kill()  # exits while in the group, as a closed page's renderer does
            leaves.wait()
        assert not group.exists()
        assert cpu_group(stays.pid) == "/"
    finally:
        for process in (stays, leaves):
            process.kill()
            process.wait()


def test_without_a_weight_nothing_is_moved(web_latency: ModuleType) -> None:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        before = cpu_group(process.pid)
        with web_latency.browser_weight(None, [str(process.pid)]):
            assert cpu_group(process.pid) == before
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("shares", ["1", "262145", "many"])
def test_a_weight_out_of_range_is_one_line(shares: str) -> None:
    # In a process group of its own: a benchmark that took the weight would start a node, Redis and bots,
    # which must not outlive the test that failed.
    process = subprocess.Popen(
        [sys.executable, str(BENCHMARKS / "web_latency.py"), "--browser-shares", shares],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 2, "the benchmark should have refused the weight"
    assert "--browser-shares" in errors.splitlines()[-1]
    assert "Traceback" not in errors
