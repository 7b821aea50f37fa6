"""Any install layout: a node whose interpreter is a virtualenv under /tmp, /opt or /home runs hosted bots, and a
layout whose SDK the sandbox cannot import is refused at the node's start, in one line.

The sandbox binds the interpreter's prefixes and the packages the SDK imports at their own paths, so
a virtualenv's own folder is seen inside as on the host: under /tmp it must not be hidden by the
sandbox's private /tmp.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.v1 import arena_service_pb2 as api_pb
from tests.hosted.conftest import requests
from tests.hosted.nodes import node_process
from tests.hosted.test_host_requirements import PROBE
from tests.server.conftest import bearer

pytestmark = pytest.mark.sandbox
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def venv(request: pytest.FixtureRequest) -> Iterator[Path]:
    """A virtualenv (with the system's site-packages) under `request.param`, in a folder only root may enter (as
    a home folder is its owner's alone): the sandbox binds the virtualenv itself, not the folders above it."""
    private = Path(tempfile.mkdtemp(prefix="arena-test-venv-", dir=request.param))
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(private / "venv")],
            check=True,
            timeout=120,
        )
        yield private / "venv"
    finally:
        shutil.rmtree(private, ignore_errors=True)


@pytest.mark.asyncio
@pytest.mark.parametrize("venv", ["/tmp", "/opt", "/home"], indirect=True)
async def test_a_node_in_a_virtualenv_runs_hosted_bots(venv: Path, redis_url: str) -> None:
    async with node_process(redis_url, python=str(venv / "bin" / "python")) as node:
        owner = await node.owner("venv-owner")
        await node.bot(owner, "sampler")
        reply = await node.api.SubmitBot(
            iter(requests("sampler", REPO / "sample_bots" / "python", "python random_bot.py")),
            metadata=bearer(owner),
            timeout=300,
        )
        assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, (reply.version.reason, reply.stderr_tail)


def test_a_runtime_whose_sdk_the_sandbox_cannot_import_is_refused_at_start_in_one_line(tmp_path: Path) -> None:
    # A virtualenv without the system's packages, which it finds through PYTHONPATH in a folder of its own (as
    # `pip install --target` makes): the node works, but no hosted bot could import the SDK in the sandbox.
    bare = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    packages = tmp_path / "packages"
    packages.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.endswith(".pth"):
            (packages / entry.name).symlink_to(entry)
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{packages}"}
    done = subprocess.run(
        [str(bare / "bin" / "python"), "-c", PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip()
    assert said.startswith("a trial sandbox failed: ModuleNotFoundError: No module named "), said
    assert "\n" not in said
