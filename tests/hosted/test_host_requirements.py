"""What the sandbox needs from the host, and the exact word a node gives when a part is missing.

Each case takes a real part away (a capability from the node's bounding set, a command from its
PATH, the cgroup filesystem) and runs the node's probe in a
process of its own, as `arena serve` runs it at start.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.hosted import cgroups
from arena.hosted import sandbox as sandbox_module
from arena.hosted.sandbox import TOOLS, TRIAL, SandboxLimits

PROBE = (
    "import asyncio; from arena.hosted.sandbox import SandboxLimits, detect\n"
    "sandbox = asyncio.run(detect(SandboxLimits())); sandbox.close(); print(sandbox.problem or 'confined')"
)
LEAST = ("setuid", "setgid", "chown", "kill", "sys_admin", "dac_override")
"""The capabilities README names as all a node needs to run hosted bots (a container's cap_add)."""

pytestmark = pytest.mark.sandbox


def probe(*prefix: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([*prefix, sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def with_capabilities(names: tuple[str, ...]) -> tuple[str, ...]:
    return ("setpriv", f"--bounding-set=-all,{','.join('+' + name for name in names)}", "--inh-caps=-all")


def test_the_least_capabilities_named_in_readme_are_enough() -> None:
    assert probe(*with_capabilities(LEAST)) == "confined"


@pytest.mark.parametrize(
    ("dropped", "said"),
    [
        ("sys_admin", "a trial sandbox failed: unshare: unshare failed: Operation not permitted"),
        ("setuid", "a trial sandbox failed: setpriv: setresuid failed: Operation not permitted"),
        ("chown", "a trial sandbox failed: /usr/bin/chown: changing ownership of"),
        ("dac_override", "cannot make a cgroup for a hosted bot: [Errno 13] Permission denied"),
    ],
)
def test_without_each_capability_the_node_says_which_step_failed(dropped: str, said: str) -> None:
    problem = probe(*with_capabilities(tuple(name for name in LEAST if name != dropped)))
    assert problem.startswith(said) or said in problem, problem


def test_a_missing_command_is_named_with_its_debian_package(tmp_path: Path) -> None:
    for name in TOOLS:
        if name != "bwrap":
            found = shutil.which(name)
            assert found is not None
            (tmp_path / name).symlink_to(found)
    problem = probe(env={**os.environ, "PATH": str(tmp_path)})
    assert problem == "the commands bwrap (Debian package bubblewrap) are not installed"


def test_a_host_without_the_cgroup_controllers_is_named(tmp_path: Path) -> None:
    found, problem = cgroups.find(tmp_path)
    assert found is None
    assert problem == f"the cgroup controllers memory, cpu, pids are not mounted under {tmp_path}"


def test_on_this_host_every_part_is_there() -> None:
    assert probe() == "confined"


def test_a_process_tries_each_kind_of_sandbox_once_and_a_failed_trial_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that starts many nodes (this suite, an application embedding the node) pays for one trial
    launch per kind of sandbox, about 0.4 CPU-s, not one per node; a trial that failed is not trusted later."""
    tried: list[SandboxLimits] = []
    real_trial = sandbox_module._trial

    async def counted(sandbox: sandbox_module.Sandbox) -> str:
        tried.append(sandbox.limits)
        return await real_trial(sandbox)

    monkeypatch.setattr(sandbox_module, "_trial", counted)
    monkeypatch.setattr(sandbox_module, "_WORKED", set())

    async def problems(limits: SandboxLimits) -> str:
        made = await sandbox_module.detect(limits)
        made.close()
        return made.problem

    async def run() -> None:
        assert await problems(SandboxLimits()) == ""
        assert await problems(SandboxLimits()) == ""
        assert len(tried) == 1, "the same sandbox again is not launched again"
        smaller = SandboxLimits(memory_bytes=SandboxLimits().memory_bytes // 2)
        assert await problems(smaller) == ""
        assert tried == [SandboxLimits(), smaller], "another kind is tried"
        monkeypatch.setattr(sandbox_module, "_WORKED", set())
        monkeypatch.setattr(sandbox_module, "TRIAL", "echo 'the sandbox broke' >&2; exit 1")
        assert await problems(SandboxLimits()) == "a trial sandbox failed: the sandbox broke"
        monkeypatch.setattr(sandbox_module, "TRIAL", TRIAL)
        assert await problems(SandboxLimits()) == "", "a failed trial is tried again, and passes now"
        assert len(tried) == 4

    asyncio.run(run())
