"""Starting a hosted bot's process in a sandbox, and stopping it with everything it started.

The process runs in a new network namespace (`unshare --net`: no interface but a downed
loopback, so its only way out is the arena's Unix socket, a file), under resource limits
(`prlimit`: CPU seconds, address space, file size, no core files), in its own session and
process group, and in a pids cgroup of its own that caps how many processes it may have and
lets the arena find and kill every one of them, even those that left the process group. The
command line is `sh -c 'echo $$ > CGROUP/cgroup.procs && exec "$@"' ... unshare ... prlimit ...`,
so the process enters its cgroup before it runs any of the bot's code.

Where the kernel refuses a namespace or the cgroup, `detect` says why; the manager then refuses
hosted bots unless the node was started with `--unsafe-no-sandbox`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

PIDS_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))
"""Where a pids cgroup may be made: cgroup v1's pids hierarchy, else the v2 unified one."""
CGROUP_PREFIX = "arena-hosted-"
ENTER_CGROUP = 'echo $$ > "$0" && exec "$@"'
"""The shell step that moves the process into its cgroup, then becomes the rest of the command."""


@dataclass(frozen=True)
class SandboxLimits:
    """What one hosted process may use; the same for every bot."""

    cpu_seconds: int = 300
    """CPU time of the process (SIGXCPU at this, SIGKILL 5 s later); a match rarely needs 10."""
    memory_bytes: int = 1 << 30
    """Address space: Python with gRPC starts in ~400 MB of it, Node in ~600 MB (measured)."""
    processes: int = 64
    """Processes and threads at once (the pids cgroup); gRPC alone starts a dozen threads."""
    file_bytes: int = 16 << 20
    """The largest file it may write."""


@dataclass(frozen=True)
class Sandbox:
    """How this node can confine hosted bots, found once at start."""

    limits: SandboxLimits
    network_namespace: bool
    pids_root: Path | None
    problem: str
    """Why hosted bots are not confined here ("" when they are)."""

    @property
    def confined(self) -> bool:
        return not self.problem

    def command(self, argv: Sequence[str], cgroup: Path | None) -> list[str]:
        """The full command line that runs `argv` inside the sandbox."""
        limits = self.limits
        command = [
            "prlimit", f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}", f"--as={limits.memory_bytes}",
            f"--fsize={limits.file_bytes}", "--core=0", "--", *argv,
        ]  # fmt: skip
        if self.network_namespace:
            command = ["unshare", "--net", "--", *command]
        if cgroup is not None:
            command = ["sh", "-c", ENTER_CGROUP, str(cgroup / "cgroup.procs"), *command]
        return command

    async def start(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> Sandboxed:
        """Start `argv` in `cwd`; its stderr is a pipe for the caller to read."""
        cgroup = None
        if self.pids_root is not None:
            cgroup = self.pids_root / f"{CGROUP_PREFIX}{secrets.token_hex(6)}"
            cgroup.mkdir()
            (cgroup / "pids.max").write_text(str(self.limits.processes))
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command(argv, cgroup),
                cwd=cwd,
                env=dict(env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError:
            if cgroup is not None:
                cgroup.rmdir()
            raise
        return Sandboxed(process, cgroup)


@dataclass
class Sandboxed:
    """A started sandboxed process."""

    process: asyncio.subprocess.Process
    cgroup: Path | None

    async def kill(self) -> None:
        """SIGKILL its process group and every process left in its cgroup; then reap it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.cgroup is not None:
            await kill_cgroup(self.cgroup)
        await self.process.wait()


async def kill_cgroup(cgroup: Path) -> None:
    """Kill the processes of a cgroup until none is left (a forking one cannot outrun pids.max), then remove it."""
    procs = cgroup / "cgroup.procs"
    for _ in range(200):
        try:
            pids = [int(line) for line in procs.read_text().split()]
        except FileNotFoundError:
            return
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.01)
    with contextlib.suppress(OSError):
        cgroup.rmdir()


async def detect(limits: SandboxLimits) -> Sandbox:
    """Probe what the kernel allows: a network namespace, a pids cgroup, and the tools that set them up."""
    missing = [tool for tool in ("unshare", "prlimit", "sh") if shutil.which(tool) is None]
    if missing:
        return Sandbox(limits, False, None, f"the commands {', '.join(missing)} (util-linux) are not installed")
    probe = await asyncio.create_subprocess_exec(
        "unshare", "--net", "--", "true", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    _, error = await probe.communicate()
    namespace = probe.returncode == 0
    pids_root = _pids_root()
    problems = []
    if not namespace:
        problems.append(f"the kernel refuses a new network namespace ({error.decode().strip() or 'unshare failed'})")
    if pids_root is None:
        problems.append("no pids cgroup can be made (cgroup filesystem missing or read-only)")
    return Sandbox(limits, namespace, pids_root, "; ".join(problems))


def _pids_root() -> Path | None:
    for root in PIDS_ROOTS:
        probe = root / f"{CGROUP_PREFIX}probe-{secrets.token_hex(4)}"
        try:
            probe.mkdir()
        except OSError:
            continue
        try:
            if (probe / "pids.max").exists():
                (probe / "pids.max").write_text("8")
                return root
        except OSError:
            continue
        finally:
            with contextlib.suppress(OSError):
                probe.rmdir()
    return None
