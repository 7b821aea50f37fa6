"""Running a hosted bot's process in a sandbox, and stopping it with everything it started.

A hosted bot is code the arena did not write, so every launch is treated as hostile:
- **Its own unprivileged uid**, picked at random for the launch (never root, never the node's),
  with no capabilities, an empty bounding set and no_new_privs (`setpriv`).
- **Its own view of the machine** (`bwrap`, started under that uid): new user, PID, mount, IPC,
  UTS, network and cgroup namespaces, no nested user namespaces; a read-only root holding only
  /usr, the language runtime and the `arena` package, a new /proc showing its own processes, a
  minimal read-only /dev, a private /tmp and its package as /bot (its only writable places, one
  tmpfs for both, limited in bytes and in inodes), and the node's bot socket as
  /run/arena/bot.sock, its only way out (its network namespace has a loopback and nothing else).
- **Its package unpacked by itself**: the sandbox's first process is the package reader
  (arena/hosted/unpacker.py) under the launch's uid, fed the compressed bytes on its stdin; it
  checks every member before writing it into /bot and then execs the bot. No package is ever
  unpacked, read or copied as root, nor on the host's disk.
- **Limits from outside**: a cgroup made by the node (memory with no swap, a CPU quota, a process
  count) that the bot's uid cannot write and its sandbox cannot see, and rlimits beside it (CPU
  seconds, address space, file size, processes, open files, no core files). At match end every
  process in the group is killed, double-forked and setsid'd ones included.

The runtime lives where the node's interpreter lives, which may be a folder another uid cannot
enter (/root/...). So the launch first runs as root in a throwaway mount namespace (`unshare
--mount`), mounts a tmpfs on the node's empty staging folder and binds every host path the
sandbox needs there; `bwrap`, now unprivileged, binds them from the staging folder to their
own paths. The staging mounts vanish with the launch's processes and never reach the host.
A seccomp filter, when set (`Sandbox.seccomp`), is written into the staging tmpfs and handed
to bwrap as an open file (`--seccomp 3`).

Where a part is missing (not root, no bubblewrap, no user namespaces, no cgroups), `detect` says
which; the manager then refuses hosted bots unless the node was started with
`--unsafe-no-sandbox`, in which case they run as plain child processes (the same package
reader unpacks into a private folder first).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena import scratch
from arena.hosted import cgroups, spawn, unpacker
from arena.hosted.cgroups import CgroupError, Cgroups, Group, GroupLimits
from arena.hosted.package import PackageError, pack

BOT_HOME = "/bot"
"""Inside the sandbox: the bot's unpacked package, its working directory and HOME."""
BOT_TMP = "/tmp"
BOT_SOCKET = "/run/arena/bot.sock"
"""Inside the sandbox: the node's Unix socket for bots."""
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
UIDS = range(1_800_000_000, 1_800_000_000 + (1 << 24))
"""Launches run under a uid picked at random from here: far above any account's, one per launch."""
TOOLS = {
    "bwrap": "bubblewrap", "setpriv": "util-linux", "prlimit": "util-linux", "unshare": "util-linux",
    "mount": "mount", "sh": "dash", "chown": "coreutils",
}  # fmt: skip
"""The commands a sandboxed launch uses, with the Debian package of each."""
SDK_PATH = "/opt/arena/python"
"""Inside the sandbox: where the packages the SDK imports are bound when they live outside the interpreter's prefix."""
PYTHON_MODULES = ("arena", "grpc", "google.protobuf")
"""What a Python bot imports from the node's installation (the SDK and what it stands on)."""
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Top-level folders that are symlinks into /usr on merged-/usr systems, or folders elsewhere."""
UNPACKER = Path(unpacker.__file__).resolve()
"""The package reader, run as a script: inside the sandbox it is seen where the runtime binds it."""
CHECK_TIMEOUT = 60.0
"""Seconds the check of a package may take (a 20 MB one takes about one)."""
CHECK_OUTPUT = 1 << 16
"""The most of the check's stderr read: its verdict is one line."""
CHECKED = re.compile(r"checked: (?P<files>\d+) files, (?P<folders>\d+) folders, (?P<bytes>\d+) bytes")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives", "/etc/java-17-openjdk")


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the package nor the bot); the message says how."""


@dataclass(frozen=True)
class SandboxLimits:
    """What one hosted process may use; the same for every bot."""

    cpu_seconds: int = 300
    """CPU time of each process (SIGXCPU at this, SIGKILL 5 s later); a match rarely needs 10."""
    cpu_cores: float = 1.0
    """The CPU quota of the whole launch, in cores: a bot spinning every core gets this much."""
    memory_bytes: int = 1 << 30
    """Address space of each process, and memory of the whole launch (its tmpfs comes on top):
    Python with gRPC starts in ~400 MB of address space, Node in ~600 MB (measured)."""
    processes: int = 64
    """Processes and threads at once (the pids cgroup); gRPC alone starts a dozen threads."""
    file_bytes: int = 16 << 20
    """The largest file it may write."""
    disk_bytes: int = 64 << 20
    """All it may write, /bot (its package included) and /tmp together."""
    inodes: int = 4096
    """Files and folders in /bot and /tmp together: a package makes at most 2,000."""
    open_files: int = 256
    """Open files of each process: the kits' bots use 8 (C++, Go) to 35 (Java) (measured)."""


@dataclass(frozen=True)
class Runtime:
    """The host folders a bot sees read-only, beside /usr: each as (host path, path inside the sandbox)."""

    binds: tuple[tuple[Path, str], ...]
    hidden: tuple[str, ...] = ()
    """Paths inside the sandbox, within those folders, that must stay out of sight (the data directory):
    an empty tmpfs covers them."""
    python: str = sys.executable

    @property
    def path(self) -> str:
        return f"{SYSTEM_PATH}:{Path(self.python).parent}"

    def inside(self, path: Path) -> str:
        """Where the host file `path` (in one of the bound folders) is seen inside the sandbox."""
        for host, inside in self.binds:
            if path.is_relative_to(host):
                return str(Path(inside) / path.relative_to(host))
        raise ValueError(f"{path} is in none of the folders bound into the sandbox")

    @property
    def python_path(self) -> str:
        """PYTHONPATH inside the sandbox: the packages bound in under `SDK_PATH`, if any."""
        return SDK_PATH if any(inside.startswith(f"{SDK_PATH}/") for _, inside in self.binds) else ""


def python_runtime(hidden: Sequence[Path] = ()) -> Runtime:
    """The node's interpreter with its standard library and packages, at their own paths, and the packages
    the SDK imports that live elsewhere (an editable install's `arena`) under `SDK_PATH`: a bot then
    imports the very code the node runs, whatever .pth files say."""
    prefixes = {Path(sys.base_prefix), Path(sys.prefix), Path(sys.exec_prefix), Path(sys.executable).resolve().parent}
    resolved = {root.resolve() for root in prefixes if root.exists()}
    outermost = sorted(
        root for root in resolved
        if not any(other != root and root.is_relative_to(other) for other in resolved) and not _under_usr(root)
    )  # fmt: skip
    binds = [(root, str(root)) for root in outermost]
    for name in PYTHON_MODULES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            package = Path(location).resolve()
            if not any(package.is_relative_to(root) for root in [*outermost, Path("/usr")]):
                binds.append((package, f"{SDK_PATH}/{name.replace('.', '/')}"))
    covered = []
    for path in (path.resolve() for path in hidden):
        covered += [str(Path(inside) / path.relative_to(host)) for host, inside in binds if path.is_relative_to(host)]
    return Runtime(tuple(binds), tuple(covered))


def _under_usr(path: Path) -> bool:
    return path == Path("/usr") or path.is_relative_to("/usr")


@dataclass
class Sandbox:
    """How this node confines hosted bots, found once at start (`detect`)."""

    limits: SandboxLimits
    runtime: Runtime
    cgroups: Cgroups | None
    tools: dict[str, str] = field(default_factory=dict)
    """Each command's absolute path."""
    staging: Path | None = None
    """An empty folder only root writes to; each launch mounts its own tmpfs on it in its own mount namespace."""
    problem: str = ""
    """Why hosted bots are not confined here ("" when they are)."""
    seccomp: bytes | None = None
    """A compiled seccomp filter (a classic-BPF `sock_fprog` body) every sandboxed process runs under, or None."""

    @property
    def confined(self) -> bool:
        return not self.problem

    def close(self) -> None:
        if self.staging is not None:
            with contextlib.suppress(OSError):
                self.staging.rmdir()

    def command(self, argv: Sequence[str], socket_path: str | None, uid: int, group: Group | None) -> list[str]:
        """The full command line that runs `argv` as `uid` inside the sandbox (with the node's socket, if given)."""
        assert self.staging is not None, "only a confined sandbox builds a command"
        tool, limits, stage = self.tools, self.limits, self.staging
        q = shlex.quote
        script = ["set -e"]
        # Into the cgroup first, so that the tmpfs below and everything after count against it.
        script += [f"echo $$ > {q(str(procs))}" for procs in (group.procs_files if group else ())]
        script.append(
            f"{tool['mount']} -t tmpfs -o mode=0755,size={limits.disk_bytes + (1 << 20)},nr_inodes={limits.inodes} "
            f"arena-sandbox {q(str(stage))}"
        )
        inside: list[str] = []
        for index, (folder, path) in enumerate(self.runtime.binds):
            script.append(f"mkdir {stage}/r{index} && {tool['mount']} --rbind {q(str(folder))} {stage}/r{index}")
            inside += ["--ro-bind", f"{stage}/r{index}", path]
        # An empty tmpfs covers what must stay out of sight; read-only, like everything but /bot and /tmp.
        inside += [arg for hidden in self.runtime.hidden for arg in ("--tmpfs", hidden, "--remount-ro", hidden)]
        if socket_path is not None:
            script.append(f"touch {stage}/socket && {tool['mount']} --bind {q(socket_path)} {stage}/socket")
            inside += ["--ro-bind", f"{stage}/socket", BOT_SOCKET]
        script += [
            f"mkdir -m 0700 {stage}/home {stage}/tmp",
            f"{tool['chown']} {uid}:{uid} {stage}/home {stage}/tmp",
            f"echo 'bot:x:{uid}:{uid}:hosted bot:{BOT_HOME}:/bin/sh' > {stage}/passwd",
            f"echo 'bot:x:{uid}:' > {stage}/group",
        ]  # fmt: skip
        filtering: list[str] = []
        if self.seccomp is not None:
            octal = "".join(f"\\{byte:03o}" for byte in self.seccomp)
            script.append(f"printf '{octal}' > {stage}/seccomp && exec 3< {stage}/seccomp")
            filtering = ["--seccomp", "3"]
        script.append('exec "$@"')
        rlimits = [
            # The reader writes a package's files (up to its whole size) before it lowers --fsize to the bot's.
            tool["prlimit"], f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 5}", f"--as={limits.memory_bytes}",
            f"--fsize={max(limits.file_bytes, unpacker.MAX_BYTES)}", f"--nproc={limits.processes}",
            f"--nofile={limits.open_files}:{limits.open_files}", "--core=0", "--",
        ]  # fmt: skip
        drop = [tool["setpriv"], f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
                "--inh-caps=-all", "--bounding-set=-all", "--"]  # fmt: skip
        jail = [
            tool["bwrap"], "--unshare-all", "--unshare-user", "--disable-userns", "--assert-userns-disabled",
            "--die-with-parent", "--new-session", "--hostname", "arena-bot",
            # /bot and /tmp first: a runtime that lives under /tmp (a virtualenv there) is bound on top of them.
            "--bind", f"{stage}/home", BOT_HOME, "--bind", f"{stage}/tmp", BOT_TMP,
            "--ro-bind", "/usr", "/usr", *_system_links(), *_etc_files(),
            "--ro-bind", f"{stage}/passwd", "/etc/passwd", "--ro-bind", f"{stage}/group", "/etc/group",
            *inside,
            "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev", *filtering,
            # Last: bwrap's own root is a writable tmpfs outside the disk cap until now.
            "--remount-ro", "/", "--chdir", BOT_HOME, "--",
        ]  # fmt: skip
        return [tool["unshare"], "--mount", "--propagation", "private", "--", tool["sh"], "-c", "\n".join(script),
                "arena-sandbox", *rlimits, *drop, *jail, *argv]  # fmt: skip

    def environment(self, home: str, socket_path: str, token: str) -> dict[str, str]:
        """All the environment a bot gets: nothing of the node's own."""
        socket = BOT_SOCKET if self.confined else socket_path
        env = {
            "PATH": self.runtime.path, "HOME": home, "TMPDIR": BOT_TMP if self.confined else home,
            "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "ARENA_SERVER": f"unix:{socket}", "ARENA_TOKEN": token,
        }  # fmt: skip
        if self.confined and self.runtime.python_path:
            env["PYTHONPATH"] = self.runtime.python_path
        return env

    def program(self, argv: Sequence[str]) -> list[str]:
        """The command with `python` meaning the node's interpreter (it has the SDK)."""
        argv = list(argv)
        if argv and argv[0] in ("python", "python3"):
            argv[0] = self.runtime.python
        return argv

    def _reader(self, *args: str) -> list[str]:
        """The package reader's command line, as this sandbox runs it (isolated: no site, no PYTHON* variable)."""
        script = UNPACKER if not self.confined else Path(self.runtime.inside(UNPACKER))
        return [self.runtime.python, "-I", "-S", "-B", str(script), *args]

    async def start(self, argv: Sequence[str], package: bytes, socket_path: str, token: str) -> Sandboxed:
        """Start the bot `argv` whose files are the package `package`; its stderr is a pipe for the caller to read.

        The sandbox's first process unpacks the package (it is refused there, with a line on stderr
        and exit code `unpacker.REFUSED`, when it breaks a rule) and then becomes the bot.
        """
        argv = self.program(argv)
        if not self.confined:
            workdir = Path(tempfile.mkdtemp(prefix="arena-hosted-"))
            env = self.environment(str(workdir), socket_path, token)
            try:
                process = await spawn.start(self._reader("--", *argv), workdir, env, stdin=package)
            except OSError:
                shutil.rmtree(workdir, ignore_errors=True)
                raise
            return Sandboxed(process, None, os.getuid(), workdir)
        reader = self._reader("--file-bytes", str(self.limits.file_bytes), "--", *argv)
        return await self._start_confined(reader, package, socket_path, self.environment(BOT_HOME, "", token))

    async def _start_confined(
        self, argv: list[str], package: bytes, socket_path: str | None, env: dict[str, str]
    ) -> Sandboxed:
        """Start `argv` (the package reader first) in a new sandbox under a uid and a cgroup of its own."""
        uid = _free_uid()
        group = None
        if self.cgroups is not None:
            limits = self.limits
            group = self.cgroups.create(GroupLimits(limits.memory_bytes + limits.disk_bytes, limits.cpu_cores,
                                                    limits.processes))  # fmt: skip
        try:
            process = await spawn.start(self.command(argv, socket_path, uid, group), "/", env, stdin=package)
        except OSError:
            if group is not None:
                await group.kill()
            raise
        return Sandboxed(process, group, uid)

    async def check(self, package: bytes, timeout: float = CHECK_TIMEOUT) -> unpacker.Summary:
        """What the package holds, read by the package reader in a sandbox of its own (a plain child process when
        unconfined); PackageError with the reader's one line when it is refused."""
        if not self.confined:
            return await check_unconfined(package, timeout)
        env = self.environment(BOT_HOME, "", "")
        return await _verdict(await self._start_confined(self._reader("--check"), package, None, env), timeout)


async def check_unconfined(package: bytes, timeout: float = CHECK_TIMEOUT) -> unpacker.Summary:
    """What the package holds, read by the package reader in a plain child process of this one's uid: it only
    reads (nothing is written when checking), in bounded memory, and this process parses nothing."""
    reader = [sys.executable, "-I", "-S", "-B", str(UNPACKER), "--check"]
    return await _verdict(
        Sandboxed(await spawn.start(reader, "/", {"LANG": "C.UTF-8"}, stdin=package), None, os.getuid()), timeout
    )


async def _verdict(started: Sandboxed, timeout: float) -> unpacker.Summary:
    """The package reader's `--check` verdict: its summary, or PackageError with the reason it refused."""
    assert started.process.stderr is not None
    said = bytearray()
    try:
        async with asyncio.timeout(timeout):
            while chunk := await started.process.stderr.read(CHECK_OUTPUT):
                said += chunk
                del said[:-CHECK_OUTPUT]
            code = await started.process.wait()
    except TimeoutError:
        raise SandboxError(f"the package check did not end within {timeout:.0f} s") from None
    finally:
        await started.kill()
    lines = said.decode(errors="replace").strip().splitlines()
    last = lines[-1] if lines else f"exit code {code}"
    if code == unpacker.REFUSED:
        raise PackageError(last.removeprefix("the package was refused: "))
    counted = CHECKED.fullmatch(last)
    if code != 0 or counted is None:
        raise SandboxError(f"the package check failed: {last}")
    return unpacker.Summary(int(counted["files"]), int(counted["folders"]), int(counted["bytes"]))


@functools.cache
def _system_links() -> tuple[str, ...]:
    """bwrap's arguments for the host's top-level system folders (looked at once: they do not change)."""
    args: list[str] = []
    for name in SYSTEM_LINKS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return tuple(args)


def _etc_files() -> list[str]:
    return [arg for name in ETC_FILES for arg in ("--ro-bind-try", name, name)]


def _free_uid() -> int:
    while True:
        uid = UIDS.start + secrets.randbelow(len(UIDS))
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid


@dataclass
class Sandboxed:
    """A started hosted process."""

    process: spawn.Process
    group: Group | None
    uid: int
    workdir: Path | None = None
    """Unconfined only: the private folder it was unpacked into, removed when it is killed."""

    async def kill(self) -> None:
        """SIGKILL it with every process it started (its whole cgroup, else its process group); then reap it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.group is not None:
            await self.group.kill()
        await self.process.wait()
        self.process.close_stdin()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


async def detect(limits: SandboxLimits, hidden: Sequence[Path] = (), seccomp: bytes | None = None) -> Sandbox:
    """Find what this host offers for the sandbox, try it once (with the seccomp filter `seccomp`, if given),
    and say which part is missing, if any."""
    runtime = python_runtime(hidden)
    if os.geteuid() != 0:
        return Sandbox(limits, runtime, None, problem=(
            f"the node runs as uid {os.geteuid()}, not root; it needs root to start each hosted bot under a uid "
            "of its own and to make its cgroups"))  # fmt: skip
    tools = {name: shutil.which(name) or "" for name in TOOLS}
    missing = [f"{name} (Debian package {TOOLS[name]})" for name, found in tools.items() if not found]
    if missing:
        return Sandbox(limits, runtime, None, problem=f"the commands {', '.join(missing)} are not installed")
    found, why = cgroups.find()
    if found is None:
        return Sandbox(limits, runtime, None, problem=why)
    cgroups.sweep(found)
    staging = scratch.make(scratch.STAGING)
    staging.chmod(0o755)
    sandbox = Sandbox(limits, runtime, found, tools, staging, seccomp=seccomp)
    made_of = (limits, runtime, tuple(sorted(tools.items())), tuple(sorted(found.parents.items())), seccomp)
    if made_of in _WORKED:
        return sandbox
    sandbox.problem = await _trial(sandbox)
    if sandbox.problem:
        sandbox.close()
    else:
        _WORKED.add(made_of)
    return sandbox


_WORKED: set[tuple[object, ...]] = set()
"""The sandboxes this process has tried and seen work, by what they are made of: a process that starts
several nodes (the test suite, an embedding application) tries each kind once, not at every start (about
0.4 CPU-s each). A failed trial is not kept: it may have timed out on a busy host."""


TRIAL = (
    'test "$(id -u)" != 0 && grep -Eq "^CapEff:\\s+0+$" /proc/self/status && grep -Eq "^CapBnd:\\s+0+$" /proc/self/status'
    ' && grep -Eq "^NoNewPrivs:\\s+1$" /proc/self/status'
    ' || { echo "the process kept a privilege:" $(grep -E "^(Uid|CapEff|CapBnd|NoNewPrivs)" /proc/self/status) >&2; exit 1; }'
)
"""The trial launch's check that the bot's process has no privilege left (setpriv leaves the bounding set
as it was, without a word, where the node lacks CAP_SETPCAP)."""


TRIAL_FILE = "trial.txt"
TRIAL_TIMEOUT = 30.0
"""Seconds the trial may take: it starts the interpreter and imports the SDK, a second or two on a busy host."""


async def _trial(sandbox: Sandbox) -> str:
    """Start a full sandbox once, the package reader and the real Python runtime importing the SDK included:
    what fails here (user namespaces turned off, a runtime the sandbox cannot see) fails for every bot."""
    with tempfile.TemporaryDirectory(prefix="arena-trial-") as folder:
        (Path(folder) / "package").mkdir()
        (Path(folder) / "package" / TRIAL_FILE).write_text("unpacked by the sandbox's package reader\n")
        package = pack(Path(folder) / "package").data
        socket = Path(folder) / "socket"
        socket.touch()
        python = shlex.quote(sandbox.runtime.python)
        script = (
            f"{TRIAL} && {{ test -f {TRIAL_FILE} || {{ echo 'the package was not unpacked into {BOT_HOME}' >&2; "
            f"exit 1; }}; }} && {python} -c 'import arena.sdk'"
        )
        try:
            started = await sandbox.start(["sh", "-c", script], package, str(socket), "")
        except (OSError, CgroupError) as error:
            return f"a trial sandbox could not start: {error}"
        assert started.process.stderr is not None
        try:
            error_text = await asyncio.wait_for(started.process.stderr.read(), TRIAL_TIMEOUT)
            code = await asyncio.wait_for(started.process.wait(), TRIAL_TIMEOUT)
        except TimeoutError:
            code, error_text = -1, f"it did not end within {TRIAL_TIMEOUT:.0f} s".encode()
        finally:
            await started.kill()
    if code == 0:
        return ""
    lines = error_text.decode(errors="replace").strip().splitlines()
    return f"a trial sandbox failed: {lines[-1] if lines else f'exit code {code}'}"
