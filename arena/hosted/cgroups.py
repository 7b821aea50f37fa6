"""Control groups for hosted bots: the limits a bot cannot lift, and the list of every process it started.

Each launch gets a group of its own for memory, CPU and processes, made by the node (root)
before the bot runs; the bot's uid cannot write to it and its sandbox has no /sys to find it.
Every process the bot starts, double-forked and setsid'd ones included, stays in the group, so
the node finds and kills them all at match end. Both layouts are supported: cgroup v1 (one
hierarchy per controller, as on this project's machines) and the unified v2 hierarchy.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "arena-hosted-"
V1_CONTROLLERS = ("memory", "cpu", "pids")
CPU_PERIOD_US = 100_000


class CgroupError(OSError):
    """A group that cannot be made or limited here; the message says which part."""


@dataclass(frozen=True)
class GroupLimits:
    memory_bytes: int
    cpu_cores: float
    processes: int


def _own_path(controller: str) -> str:
    """This process's group in `controller`'s hierarchy ("" for the unified one), from /proc/self/cgroup."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(",") or (controller == "" and names == ""):
            return path.lstrip("/")
    return ""


@dataclass(frozen=True)
class Cgroups:
    """Where this node makes its groups: one parent folder per hierarchy (v1: per controller)."""

    parents: dict[str, Path]
    """The parent folder per v1 controller, or under "" the one folder of the unified hierarchy."""

    @property
    def unified(self) -> bool:
        return "" in self.parents

    def create(self, limits: GroupLimits) -> Group:
        """A new group with `limits` written, in every hierarchy; CgroupError when the kernel refuses."""
        name = f"{PREFIX}{secrets.token_hex(6)}"
        made: dict[str, Path] = {}
        try:
            for controller, parent in self.parents.items():
                made[controller] = parent / name
                made[controller].mkdir(mode=0o755)
            group = Group(made)
            group.limit(limits)
        except OSError as error:
            for folder in made.values():
                with contextlib.suppress(OSError):
                    folder.rmdir()
            raise CgroupError(f"cannot make a cgroup for a hosted bot: {error}") from None
        return group


@dataclass(frozen=True)
class Group:
    folders: dict[str, Path]
    """Its folder per v1 controller, or under "" its one folder in the unified hierarchy."""

    @property
    def unified(self) -> bool:
        return "" in self.folders

    @property
    def procs_files(self) -> tuple[Path, ...]:
        """The files a process writes its pid to, to enter the group in every hierarchy."""
        return tuple(folder / "cgroup.procs" for folder in self.folders.values())

    def _file(self, name: str) -> Path:
        folder = self.folders[""] if self.unified else self.folders[name.split(".", 1)[0]]
        return folder / name

    def limit(self, limits: GroupLimits) -> None:
        quota = max(1000, int(limits.cpu_cores * CPU_PERIOD_US))
        if self.unified:
            self._file("memory.max").write_text(str(limits.memory_bytes))
            with contextlib.suppress(FileNotFoundError):  # no swap accounting: nothing to swap to
                self._file("memory.swap.max").write_text("0")
            self._file("cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")
        else:
            self._file("memory.limit_in_bytes").write_text(str(limits.memory_bytes))
            with contextlib.suppress(FileNotFoundError, PermissionError):
                self._file("memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
            self._file("cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
            self._file("cpu.cfs_quota_us").write_text(str(quota))
        self._file("pids.max").write_text(str(limits.processes))

    def limit_events(self) -> dict[str, int]:
        """How often the group hit its limits, where the kernel tells (read before `kill` removes it):
        "memory", processes the OOM killer ended (v1 `memory.oom_control`, v2 `memory.events`), and
        "pids", forks and threads refused at pids.max (`pids.events`). A file that cannot be read counts 0."""
        return {
            "memory": _counter(self._file("memory.events" if self.unified else "memory.oom_control"), "oom_kill"),
            "pids": _counter(self._file("pids.events"), "max"),
        }

    def pids(self) -> list[int]:
        try:
            return [int(line) for line in self.procs_files[0].read_text().split()]
        except FileNotFoundError:
            return []

    async def kill(self) -> None:
        """Kill every process in the group until none is left (a forking one cannot outrun pids.max), then remove it."""
        kill_file = self._file("cgroup.kill") if self.unified else None
        for _ in range(500):
            pids = self.pids()
            if not pids:
                break
            if kill_file is not None and kill_file.exists():
                with contextlib.suppress(OSError):
                    kill_file.write_text("1")
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(0.01)
        for folder in self.folders.values():
            # A group empties a moment after its last process is reaped: retry the removal briefly.
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    await asyncio.sleep(0.01)


def _counter(path: Path, name: str) -> int:
    """The counter `name` of a cgroup file of "name value" lines; 0 when it is not there."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


def find(root: Path = ROOT) -> tuple[Cgroups | None, str]:
    """Where this node can make limited groups, or None and why not."""
    if (root / "cgroup.controllers").exists():
        return _find_unified(root)
    missing = [name for name in V1_CONTROLLERS if not (root / name).is_dir()]
    if missing:
        return None, f"the cgroup controllers {', '.join(missing)} are not mounted under {root}"
    return _probe(Cgroups({name: root / name / _own_path(name) for name in V1_CONTROLLERS}))


def _find_unified(root: Path) -> tuple[Cgroups | None, str]:
    """The node's own cgroup as the parent of its bots' groups (cgroup v2; not tried on this project's machines).

    v2 enables a controller for a group's children only while the group itself holds no process,
    so the node first moves itself into a leaf of its own (`arena-node`), as a program given a
    delegated subtree (systemd's Delegate=yes, a container's cgroup namespace) does.
    """
    parent = root / _own_path("")
    wanted = {"memory", "cpu", "pids"}
    available = set((parent / "cgroup.controllers").read_text().split())
    if not wanted <= available:
        return None, f"the cgroup v2 controllers {', '.join(sorted(wanted - available))} are not available in {parent}"
    enabled = set((parent / "cgroup.subtree_control").read_text().split())
    if not wanted <= enabled:
        try:
            if (parent / "cgroup.procs").read_text().split():
                leaf = parent / "arena-node"
                leaf.mkdir(exist_ok=True)
                (leaf / "cgroup.procs").write_text(str(os.getpid()))
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{name}" for name in sorted(wanted - enabled)))
        except OSError as error:
            return None, (
                f"cannot enable the cgroup v2 controllers memory, cpu and pids in {parent} ({error}); "
                "give the node a cgroup subtree of its own (systemd Delegate=yes, or a container with "
                "its own cgroup namespace and nothing else in its cgroup)"
            )
    return _probe(Cgroups({"": parent}))


def sweep(cgroups: Cgroups, older_than: float = 60.0) -> int:
    """Remove the empty groups of launches whose node died (kill -9 leaves them); returns how many.

    An empty group younger than `older_than` seconds may be one another node has just made for a
    launch that is about to enter it, so it stays.
    """
    removed = 0
    for folder in existing(cgroups):
        try:
            if not (folder / "cgroup.procs").read_text().split() and time.time() - folder.stat().st_mtime > older_than:
                folder.rmdir()
                removed += 1
        except OSError:
            continue
    return removed


def _probe(cgroups: Cgroups) -> tuple[Cgroups | None, str]:
    try:
        group = cgroups.create(GroupLimits(64 << 20, 0.5, 8))
    except CgroupError as error:
        return None, str(error)
    for folder in group.folders.values():
        with contextlib.suppress(OSError):
            folder.rmdir()
    return cgroups, ""


def existing(cgroups: Cgroups) -> list[Path]:
    """The hosted bots' groups under this node's parents now (tests look for ones left behind)."""
    return [folder for parent in cgroups.parents.values() for folder in parent.glob(f"{PREFIX}*")]
