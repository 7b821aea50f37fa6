"""The hosted bots' cgroups: limits written from outside, every process found and killed, leftovers swept."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import subprocess
from collections.abc import Iterator

import pytest

from arena.hosted import cgroups
from arena.hosted.cgroups import GroupLimits

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.sandbox,
]
LIMITS = GroupLimits(memory_bytes=256 << 20, cpu_cores=0.5, processes=16)


def enter(group: cgroups.Group) -> str:
    """The shell step a launch takes first: the shell itself into the group, in every hierarchy."""
    return " && ".join(f"echo $$ > {procs}" for procs in group.procs_files)


def entered(group: cgroups.Group) -> bool:
    """A process is in the group in every hierarchy (the shell enters them one after another)."""
    return all(procs.read_text().split() for procs in group.procs_files)


def found() -> cgroups.Cgroups:
    made, problem = cgroups.find()
    assert made is not None, problem
    return made


async def test_a_group_holds_its_limits_and_its_kill_leaves_no_process_and_no_folder() -> None:
    group = found().create(LIMITS)
    for folder in group.folders.values():
        assert oct(folder.stat().st_mode & 0o777) == "0o755", "only root may write to it"
    assert group._file("pids.max").read_text().strip() == "16"
    # A process that forks a setsid'd grandchild, entered into the group as a launch is.
    started = subprocess.Popen(["sh", "-c", f"{enter(group)}; setsid sleep 300 & wait"])
    for _ in range(200):
        if len(group.pids()) >= 2:
            break
        await asyncio.sleep(0.01)
    assert len(group.pids()) >= 2
    await group.kill()
    assert started.wait(timeout=5) != 0
    assert all(not folder.exists() for folder in group.folders.values())


@contextlib.contextmanager
def private_parents() -> Iterator[cgroups.Cgroups]:
    """Parent folders of this test's own under the node's: a sweep of the real parents would also remove the
    empty group another test's node has just made for a launch about to enter it (tests run side by side)."""
    name = f"arena-test-{secrets.token_hex(4)}"
    parents = {controller: parent / name for controller, parent in found().parents.items()}
    for folder in parents.values():
        folder.mkdir()
    try:
        yield cgroups.Cgroups(parents)
    finally:
        for folder in parents.values():
            with contextlib.suppress(OSError):
                folder.rmdir()


async def test_a_sweep_removes_empty_leftover_groups_but_not_busy_or_young_ones() -> None:
    with private_parents() as made:
        await sweeping(made)
        assert not any(cgroups.existing(made)), "nothing is left"


async def sweeping(made: cgroups.Cgroups) -> None:
    stale, busy = made.create(LIMITS), made.create(LIMITS)
    sleeper = subprocess.Popen(["sh", "-c", f"{enter(busy)} && exec sleep 300"])
    try:
        # On a loaded machine the shell may take seconds to start and enter the group; sweeping
        # before it has would find the busy group empty.
        for _ in range(1500):
            if entered(busy):
                break
            await asyncio.sleep(0.01)
        assert entered(busy), "the sleeper entered its group in every hierarchy"
        cgroups.sweep(made)
        assert all(folder.exists() for folder in stale.folders.values()), "a young empty group stays"
        cgroups.sweep(made, older_than=-1)
        assert not any(folder.exists() for folder in stale.folders.values())
        assert all(folder.exists() for folder in busy.folders.values()), "a group with a process stays"
    finally:
        await busy.kill()
        sleeper.wait(timeout=5)
