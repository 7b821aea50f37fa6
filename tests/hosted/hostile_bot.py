"""A hosted test bot that tries one class of sandbox escape, reports every attempt, then plays random legal moves.

attack.json beside it names the class (`attack`) and what the test knows of the host: the server's
pid and a hash of its command line (so that a pid seen inside a PID namespace is not mistaken for
the server), the data directory, the Redis socket and ports, the arena's TCP port, a marker.
Each attempt prints one line to stderr:

    ESCAPE <attempt>: refused (<why>)      the sandbox held
    ESCAPE <attempt>: GOT <what>           the sandbox let it through
    ESCAPE <attempt>: done (<what>)        only the test can judge, from outside (disk use, leftovers)
    ESCAPE <attempt>: error (<what>)       the attempt itself broke: never a pass

Secrets it finds are shown by a short prefix only, except by the `leak` class, whose point is to
print them whole (the test then checks that the stored logs do not carry them). Most classes run
before the bot connects; `tokens` and `leak` run at match start, when the other seats' processes
are up.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import glob
import hashlib
import json
import os
import resource
import select
import signal
import socket
import sys
import sysconfig
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from arena.sdk import BuiltinBot, Match, run

CONFIG: dict[str, Any] = json.loads(Path(__file__).with_name("attack.json").read_text())
ATTACK: str = CONFIG["attack"]
MARKER: str = CONFIG.get("marker", "escape")
OWN_TOKEN = os.environ.get("ARENA_TOKEN", "")
LIBC = ctypes.CDLL(None, use_errno=True)

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PTRACE_SEIZE = 0x4206
MIB = 1 << 20

Outcome = tuple[str, str]
"""(verdict, detail): ("refused", why), ("GOT", what), ("done", what)."""


# -- reporting ---------------------------------------------------------------------------------


def one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def report(name: str, verdict: str, detail: str) -> None:
    line = f"ESCAPE {name}: GOT {detail}" if verdict == "GOT" else f"ESCAPE {name}: {verdict} ({detail})"
    print(one_line(line, 300), file=sys.stderr, flush=True)


def attempt(name: str, work: Callable[[], Outcome]) -> Outcome:
    """Run one attempt and print its line; an attempt that raises is an error, never a pass."""
    try:
        verdict, detail = work()
    except Exception as error:
        verdict, detail = "error", f"{type(error).__name__}: {why(error)}"
    report(name, verdict, detail)
    return verdict, detail


def why(error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno is not None:
        return f"{errno.errorcode.get(error.errno, error.errno)} {error.strerror}"
    return str(error)


def peek(secret: str) -> str:
    """Enough of a secret to prove it was found, not enough to use it."""
    return f"{secret[:6]}…({len(secret)} chars)"


def libc_call(name: str, *args: Any) -> int:
    """A libc call that raises OSError on -1."""
    result = int(getattr(LIBC, name)(*args))
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def in_child(work: Callable[[], Outcome], timeout: float = 5.0) -> Outcome:
    """Run `work` in a forked child (namespaces, cgroups and ptrace change the caller); its outcome."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            outcome = work()
        except BaseException as error:
            outcome = ("refused", why(error)) if isinstance(error, OSError) else ("error", repr(error))
        os.write(write_end, json.dumps(outcome).encode()[:8000])
        os._exit(0)
    os.close(write_end)
    data = read_all(read_end, timeout)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if not data:
        return "error", "the child reported nothing"
    verdict, detail = json.loads(data)
    return str(verdict), str(detail)


def read_all(fd: int, timeout: float) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    os.close(fd)
    return data


def not_the_host(pid: int, cmdline_sha: str) -> str:
    """Empty when /proc/<pid> here is that process of the host (same command line), else why not."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError as error:
        return f"/proc/{pid}: {why(error)}"
    if hashlib.sha256(cmdline).hexdigest() != cmdline_sha:
        return f"pid {pid} here is not the host's process (another command line: a namespace of its own)"
    return ""


def environs() -> tuple[list[tuple[int, dict[str, str]]], int]:
    """Every /proc/<pid>/environ it can read (not its own), and how many processes it saw."""
    found: list[tuple[int, dict[str, str]]] = []
    seen = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        seen += 1
        try:
            data = (entry / "environ").read_bytes()
        except OSError:
            continue
        variables = dict(item.split("=", 1) for item in data.decode(errors="replace").split("\0") if "=" in item)
        found.append((int(entry.name), variables))
    return found, seen


def stolen(names: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """(pid, name, value) of every variable among `names` in other processes' environments, but its own token."""
    hits = []
    for pid, variables in environs()[0]:
        for name in names:
            value = variables.get(name, "")
            if value and value != OWN_TOKEN:
                hits.append((pid, name, value))
    return hits


def connect(address: str | tuple[str, int], payload: bytes = b"") -> str:
    """Connect (a Unix path or a TCP address), send `payload`, return the start of the reply."""
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(2.0)
        sock.connect(address)
        if not payload:
            return ""
        sock.sendall(payload)
        try:
            return sock.recv(64).decode(errors="replace")
        except TimeoutError:
            return "(no reply)"


def connected(address: str | tuple[str, int], payload: bytes = b"") -> Outcome:
    try:
        reply = connect(address, payload)
    except OSError as error:
        return "refused", why(error)
    return "GOT", f"connected to {address}" + (f"; reply {reply[:12]!r}" if payload else "")


# -- privilege ---------------------------------------------------------------------------------


def status() -> dict[str, str]:
    lines = Path("/proc/self/status").read_text().splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def privilege() -> None:
    fields = status()
    uids, gids = fields["Uid"].split(), fields["Gid"].split()
    ids = f"uid/euid {uids[0]}/{uids[1]}, gid/egid {gids[0]}/{gids[1]}"
    attempt("uid", lambda: ("GOT" if "0" in uids + gids else "refused", ids + (" (root)" if "0" in uids else "")))
    cap_eff, cap_bnd = int(fields["CapEff"], 16), int(fields["CapBnd"], 16)
    caps = f"CapEff {cap_eff:#x}, CapBnd {cap_bnd:#x}"
    attempt("capabilities", lambda: ("GOT" if cap_eff else "refused", caps))
    nnp = fields.get("NoNewPrivs", "absent")
    attempt("no_new_privs", lambda: ("GOT" if nnp != "1" else "refused", f"NoNewPrivs {nnp}"))

    def become_root() -> Outcome:
        os.setuid(0)
        return ("GOT", "setuid(0) worked") if os.getuid() == 0 else ("refused", f"still uid {os.getuid()}")

    attempt("setuid 0", lambda: in_child(become_root))

    def new_user_namespace() -> Outcome:
        libc_call("unshare", CLONE_NEWUSER)
        return "GOT", "unshare(CLONE_NEWUSER) worked"

    attempt("new user namespace", lambda: in_child(new_user_namespace))


# -- the server's environment and memory -------------------------------------------------------


def read_environ(pid: int, cmdline_sha: str) -> Outcome:
    reason = not_the_host(pid, cmdline_sha)
    if reason:
        return "refused", reason
    try:
        data = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError as error:
        return "refused", why(error)
    names = [item.split(b"=")[0].decode(errors="replace") for item in data.split(b"\0")[:3]]
    return "GOT", f"{len(data)} bytes of pid {pid}'s environment ({', '.join(names)}, …)"


def scan_environs() -> Outcome:
    found, seen = environs()
    hits = stolen(("ARENA_ADMIN_TOKEN", "ARENA_TOKEN"))
    if hits:
        return "GOT", "; ".join(f"{name}={peek(value)} of pid {pid}" for pid, name, value in hits[:3])
    return "refused", f"read {len(found)} of {seen} environments in /proc: no token but its own"


def read_memory() -> Outcome:
    pid = CONFIG["server_pid"]
    reason = not_the_host(pid, CONFIG["server_cmdline_sha"])
    if reason:
        return "refused", reason
    try:
        maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    except OSError as error:
        return "refused", f"maps: {why(error)}"
    readable = [line for line in maps if line.split()[1].startswith("r")]
    heap = [line for line in readable if line.endswith("[heap]")] or readable
    address = int(heap[0].split("-")[0], 16)
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as memory:
            memory.seek(address)
            data = memory.read(16)
    except OSError as error:
        return "refused", f"mem: {why(error)}"
    return "GOT", f"read {len(data)} bytes of the server's memory at {address:#x}: {data[:4].hex()}…"


def environ() -> None:
    attempt("server environ", lambda: read_environ(CONFIG["server_pid"], CONFIG["server_cmdline_sha"]))
    attempt("init environ", lambda: read_environ(1, CONFIG["init_cmdline_sha"]))
    attempt("environ scan", scan_environs)
    attempt("server memory", read_memory)


# -- the data directory and Redis ---------------------------------------------------------------


def read_data_files() -> Outcome:
    data_dir = Path(CONFIG["data_dir"])
    candidates = [data_dir / name for name in ("redis.password", "arena.rdb", "appendonly.aof", "appendonlydir")]
    with contextlib.suppress(OSError):
        candidates = [Path(root) / name for root, _, names in os.walk(data_dir) for name in names] or candidates
    errors = []
    for path in candidates:
        try:
            if path.is_dir():
                names = os.listdir(path)
                return "GOT", f"listed {path.name}: {', '.join(sorted(names)[:3])}"
            with open(path, "rb") as file:
                data = file.read(16)
            return "GOT", f"read {path.relative_to(data_dir)} ({data[:5]!r}…)"
        except OSError as error:
            errors.append(f"{path.name}: {why(error)}")
    return "refused", "; ".join(errors[:2]) or "no file"


def data() -> None:
    def listing() -> Outcome:
        names = sorted(os.listdir(CONFIG["data_dir"]))
        if not names:
            return "refused", "the data directory is empty here (covered)"
        return "GOT", f"{len(names)} entries: {', '.join(names[:4])}"

    attempt("data dir list", lambda: guarded(listing))
    attempt("data dir read", read_data_files)
    attempt("redis unix socket", lambda: connected(CONFIG["redis_socket"], b"PING\r\n"))
    attempt("redis tcp", lambda: connected(("127.0.0.1", CONFIG["redis_port"]), b"PING\r\n"))
    attempt("arena tcp", lambda: connected(("127.0.0.1", CONFIG["arena_port"])))


def refusal(reason: str) -> Outcome:
    return "refused", reason


def guarded(work: Callable[[], Outcome]) -> Outcome:
    """`work`, with an OSError as its refusal."""
    try:
        return work()
    except OSError as error:
        return "refused", why(error)


# -- other bots' tokens and directories ---------------------------------------------------------


def other_workdirs() -> Outcome:
    own = os.path.realpath(os.getcwd())
    roots = {"/tmp", CONFIG.get("host_tmp", "/tmp")}
    found = sorted({os.path.realpath(path) for root in roots for path in glob.glob(f"{root}/arena-hosted-*")})
    others = [path for path in found if path != own and not own.startswith(path + "/")]
    if not others:
        return "refused", f"no other bot's directory visible ({len(found)} of its own)"
    errors = []
    for path in others:
        try:
            names = sorted(os.listdir(path))
            content = ""
            for name in names:
                with contextlib.suppress(OSError), open(os.path.join(path, name), "rb") as file:
                    content = f"; read {name}: {len(file.read(4096))} bytes"
                    break
            listed = f"listed {os.path.basename(path)}: {names[:3]}{content}"
            return "GOT", f"{len(others)} other bots' directories; {listed}"
        except OSError as error:
            errors.append(why(error))
    return "refused", f"{len(others)} directories seen, none readable: {errors[0]}"


def tokens() -> None:
    def other_tokens() -> Outcome:
        hits = stolen(("ARENA_TOKEN",))
        if hits:
            return "GOT", "; ".join(f"ARENA_TOKEN={peek(value)} of pid {pid}" for pid, _, value in hits[:3])
        found, seen = environs()
        return "refused", f"read {len(found)} of {seen} environments: no token but its own"

    attempt("other tokens", other_tokens)
    attempt("other workdirs", other_workdirs)


# -- signals and ptrace -------------------------------------------------------------------------


def signal_host(pid: int, cmdline_sha: str, number: int) -> Outcome:
    reason = not_the_host(pid, cmdline_sha)
    if reason:
        return "refused", reason
    try:
        os.kill(pid, number)
    except OSError as error:
        return "refused", why(error)
    return "GOT", f"signal {signal.Signals(number).name if number else 0} delivered to pid {pid}"


def ptrace_server() -> Outcome:
    pid = CONFIG["server_pid"]
    reason = not_the_host(pid, CONFIG["server_cmdline_sha"])
    if reason:
        return "refused", reason
    LIBC.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    LIBC.ptrace.restype = ctypes.c_long

    def seize() -> Outcome:
        # PTRACE_SEIZE does not stop the tracee; the child exits at once, which detaches it.
        libc_call("ptrace", PTRACE_SEIZE, pid, None, None)
        return "GOT", f"ptrace(PTRACE_SEIZE) attached to the server (pid {pid})"

    return in_child(seize)


def signals() -> None:
    server, sha = CONFIG["server_pid"], CONFIG["server_cmdline_sha"]
    attempt("signal 0 to server", lambda: signal_host(server, sha, 0))
    attempt("SIGCONT to server", lambda: signal_host(server, sha, signal.SIGCONT))
    attempt("SIGCONT to another process", lambda: signal_host(CONFIG["decoy_pid"], CONFIG["decoy_cmdline_sha"], signal.SIGCONT))  # fmt: skip
    attempt("ptrace server", ptrace_server)


# -- the host's namespaces ----------------------------------------------------------------------


def enter(path: str, kind: str, flag: int) -> Outcome:
    """setns into the namespace at `path`; GOT when that is another namespace than its own and it worked."""
    fd = os.open(path, os.O_RDONLY)
    same = os.fstat(fd).st_ino == os.stat(f"/proc/self/ns/{kind}").st_ino
    libc_call("setns", fd, flag)
    if same:
        return "refused", f"{path} is the {kind} namespace it is in already: nothing to enter"
    if kind == "net":
        try:
            connect(("127.0.0.1", CONFIG["arena_port"]))
            return "GOT", f"entered the host's net namespace; the arena's TCP port {CONFIG['arena_port']} answers"
        except OSError as error:
            return "GOT", f"entered another net namespace ({why(error)} on the arena's port)"
    sees = os.path.exists(CONFIG["data_dir"])
    return "GOT", f"entered another mount namespace (the data directory {'is' if sees else 'is not'} visible)"


def namespaces() -> None:
    attempt("arena tcp", lambda: connected(("127.0.0.1", CONFIG["arena_port"])))
    server, sha = CONFIG["server_pid"], CONFIG["server_cmdline_sha"]
    for label, pid, kind, flag in (
        ("setns init net", 1, "net", CLONE_NEWNET),
        ("setns server net", server, "net", CLONE_NEWNET),
        ("setns init mnt", 1, "mnt", CLONE_NEWNS),
        ("setns server mnt", server, "mnt", CLONE_NEWNS),
    ):
        reason = not_the_host(pid, sha) if pid == server else ""
        work = partial(in_child, partial(enter, f"/proc/{pid}/ns/{kind}", kind, flag))
        attempt(label, partial(refusal, reason) if reason else work)


# -- limits -------------------------------------------------------------------------------------

LIMIT_FILES = ("pids.max", "memory.limit_in_bytes", "memory.max", "memory.memsw.limit_in_bytes", "cpu.max",
               "cpu.cfs_quota_us", "cpu.shares", "cpu.weight")  # fmt: skip


def cgroup_dirs(below_root: bool = False) -> list[Path]:
    """Its own cgroup in every hierarchy visible under /sys/fs/cgroup (v1 and v2); only those below a root."""
    dirs: list[Path] = []
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if below_root and not relative:
            continue
        if controllers:
            names = [name.removeprefix("name=") for name in controllers.split(",")]
            candidates = [Path("/sys/fs/cgroup") / name / relative for name in names]
            candidates.append(Path("/sys/fs/cgroup") / controllers.replace("name=", "") / relative)
        else:
            candidates = [Path("/sys/fs/cgroup") / relative, Path("/sys/fs/cgroup/unified") / relative]
        for candidate in candidates:
            if candidate.is_dir() and candidate not in dirs:
                dirs.append(candidate)
    return dirs


def raise_limit(name: str) -> Outcome:
    number = getattr(resource, f"RLIMIT_{name}")
    soft, hard = resource.getrlimit(number)

    def lift() -> Outcome:
        start = hard
        if hard == resource.RLIM_INFINITY:
            # Nothing above unlimited: lower it (anyone may), then try to get it back (only privilege may).
            start = {"AS": 8 << 30, "NPROC": 1 << 20, "CPU": 1 << 20, "FSIZE": 1 << 40}[name]
            resource.setrlimit(number, (min(soft, start) if soft != resource.RLIM_INFINITY else start, start))
        try:
            resource.setrlimit(number, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        except (OSError, ValueError) as error:
            was = "unlimited, lowered to " if hard == resource.RLIM_INFINITY else ""
            return "refused", f"hard limit {was}{start} cannot be raised: {why(error)}"
        return "GOT", f"raised the hard limit {start} to unlimited"

    return in_child(lift)


def write_limits() -> Outcome:
    dirs = cgroup_dirs()
    if not dirs:
        return "refused", "no cgroup of its own visible under /sys/fs/cgroup"
    written, errors = [], []
    for directory in dirs:
        for name in LIMIT_FILES:
            path = directory / name
            if not path.exists():
                continue
            try:
                value = path.read_text().strip()
                # Its own value back: proves the write is allowed without changing the host.
                path.write_text(value)
                written.append(f"{directory}/{name}")
            except OSError as error:
                errors.append(f"{name}: {why(error)}")
    if written:
        return "GOT", f"wrote {', '.join(written[:3])}"
    return "refused", "; ".join(errors[:3]) or f"no limit file in {', '.join(map(str, dirs[:2]))}"


def leave_cgroup() -> Outcome:
    leavable = [directory for directory in cgroup_dirs(True) if (directory.parent / "cgroup.procs").exists()]
    if not leavable:
        return "refused", "no cgroup it could leave is visible"

    def move() -> Outcome:
        moved, errors = [], []
        for directory in leavable:
            try:
                (directory.parent / "cgroup.procs").write_text(str(os.getpid()))
                moved.append(f"{directory.name}→{directory.parent}")
            except OSError as error:
                errors.append(f"{directory.parent}: {why(error)}")
        if moved:
            return "GOT", f"moved itself out of {', '.join(moved[:3])}"
        return "refused", "; ".join(errors[:3])

    return in_child(move)


def limits() -> None:
    for name in ("NPROC", "AS", "CPU", "FSIZE"):
        attempt(f"setrlimit {name}", partial(raise_limit, name))
    attempt("cgroup write", lambda: guarded(write_limits))
    attempt("cgroup leave", lambda: guarded(leave_cgroup))


# -- outliving its match ------------------------------------------------------------------------


def leave_to_roots() -> str:
    """Move this process to the root of every cgroup hierarchy it can write; what happened."""
    moved, refused = [], []
    roots = [Path("/sys/fs/cgroup")] + [path for path in Path("/sys/fs/cgroup").glob("*") if path.is_dir()]
    for root in roots:
        procs = root / "cgroup.procs"
        if not procs.exists():
            continue
        try:
            procs.write_text(str(os.getpid()))
            moved.append(root.name)
        except OSError as error:
            refused.append(f"{root.name}: {why(error)}")
    if moved:
        return f"GOT moved itself to the root cgroup of {', '.join(moved)}"
    return f"refused {'; '.join(refused[:2]) or 'no cgroup filesystem visible'}"


def outlive() -> None:
    """Double fork, setsid, ignore SIGTERM and SIGHUP, leave the cgroups, then sleep under the marker."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        cgroups = leave_to_roots()
        os.write(write_end, f"{os.getpid()}\n{cgroups}".encode())
        os.close(write_end)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        code = f"import time\ntime.sleep(900)  # {MARKER}"
        os.execv(sys.executable, [sys.executable, "-c", code])
    os.close(write_end)
    os.waitpid(child, 0)
    reply = read_all(read_end, 5.0).decode()
    if not reply:
        report("outlive", "error", "the grandchild reported nothing")
        return
    pid, cgroups = reply.split("\n", 1)
    verdict, _, detail = cgroups.partition(" ")
    report("outlive cgroup", verdict, detail)
    report("outlive", "done", f"left pid {pid} in a session of its own, SIGTERM and SIGHUP ignored")


# -- a persistent backdoor ----------------------------------------------------------------------


def backdoor() -> None:
    import arena

    for label, directory in (
        ("write site-packages", sysconfig.get_paths()["purelib"]),
        ("write arena package", os.path.dirname(arena.__file__)),
        ("write sys.prefix", sys.prefix),
    ):
        attempt(label, partial(guarded, partial(plant, directory)))


def plant(directory: str) -> Outcome:
    path = os.path.join(directory, f"escape_{MARKER}_{os.getpid()}.txt")
    with open(path, "x") as file:
        file.write("a hosted bot was here\n")
    return "GOT", f"wrote {path}"


# -- leaking through its logs -------------------------------------------------------------------


def leak() -> None:
    """Gather every secret it can reach and print it whole."""
    found: list[tuple[str, str]] = []
    names = ("ARENA_ADMIN_TOKEN", "ARENA_TOKEN", "REDIS_PASSWORD", "REDIS_URL", "ARENA_REDIS_URL")
    for pid, name, value in stolen(names):
        found.append((f"{name} of pid {pid}", value))
    for pid, variables in environs()[0]:
        for name, value in variables.items():
            if any(word in name.upper() for word in ("PASSWORD", "SECRET", "TOKEN")) and name not in names:
                found.append((f"{name} of pid {pid}", value))
    with contextlib.suppress(OSError):
        cmdline = Path(f"/proc/{CONFIG['server_pid']}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        if "redis" in cmdline or "token" in cmdline:
            found.append(("the server's command line", cmdline[:300]))
    with contextlib.suppress(OSError):
        for root, _, files in os.walk(CONFIG["data_dir"]):
            for name in files:
                path = Path(root) / name
                with contextlib.suppress(OSError):
                    if path.stat().st_size <= 4096:
                        found.append((f"data file {name}", path.read_bytes().decode(errors="replace")[:200]))
    with contextlib.suppress(OSError):
        found.append(("Redis requirepass", connect(CONFIG["redis_socket"], b"CONFIG GET requirepass\r\n")))
    for source, value in found[:40]:
        print(f"LEAK {source}: {value}", file=sys.stderr, flush=True)
    if found:
        report("leak", "GOT", f"printed {len(found)} findings to its stderr")
    else:
        report("leak", "refused", "found nothing to print")


# -- resources ----------------------------------------------------------------------------------


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def cpu_hog() -> None:
    """Spin every core (and more) with processes that never stop; measure how much CPU they get."""
    count = max(2, os.cpu_count() or 2)
    spinners = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        spinners.append(pid)

    def measure() -> Outcome:
        before, start = sum(map(cpu_ticks, spinners)), time.monotonic()
        time.sleep(2.0)
        used = (sum(map(cpu_ticks, spinners)) - before) / os.sysconf("SC_CLK_TCK")
        cores = used / (time.monotonic() - start)
        allowed = float(CONFIG.get("cpu_cores_max", 1.25))
        text = f"{count} spinning processes got {cores:.2f} cores for 2 s (at most {allowed} allowed)"
        return ("GOT" if cores > allowed else "refused"), text

    attempt("cpu hog", measure)


def fill(directory: Path, cap: int) -> Outcome:
    """Write files of 8 MiB until an error other than a file's size limit, or `cap` bytes."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    target = directory / f"escape-{MARKER}-{os.getpid()}"
    target.mkdir(exist_ok=True)
    block = os.urandom(MIB)
    written, stop = 0, ""
    number = 0
    while not stop and written < cap:
        number += 1
        try:
            with open(target / f"fill-{number}", "wb") as file:
                for _ in range(8):
                    file.write(block)
                    file.flush()
                    written += MIB
                    if written >= cap:
                        break
        except OSError as error:
            if error.errno != errno.EFBIG:
                stop = why(error)
        if number > cap // MIB + 16:
            stop = "too many files"
    if not stop:
        return "GOT", f"wrote {written // MIB} MiB to {directory} with no error (stopped by its own cap)"
    return "done", f"wrote {written // MIB} MiB to {directory}, stopped by {stop}"


def disk() -> None:
    cap = int(CONFIG.get("disk_cap", 600 * MIB))
    attempt("fill /tmp", lambda: guarded(lambda: fill(Path("/tmp"), cap)))
    attempt("fill cwd", lambda: guarded(lambda: fill(Path.cwd(), cap)))


BEFORE_CONNECTING: dict[str, Callable[[], None]] = {
    "privilege": privilege, "environ": environ, "data": data, "signal": signals, "namespace": namespaces,
    "limits": limits, "outlive": outlive, "backdoor": backdoor, "cpu": cpu_hog, "disk": disk,
    "none": lambda: None,
}  # fmt: skip
AT_MATCH_START: dict[str, Callable[[], None]] = {"tokens": tokens, "leak": leak}
_attacked = False


class HostileBot(BuiltinBot):
    """Random play, after the attack of attack.json when it belongs to match start."""

    policy = "random"

    def __init__(self, match: Match) -> None:
        global _attacked
        super().__init__(match)
        if ATTACK in AT_MATCH_START and not _attacked:
            _attacked = True
            AT_MATCH_START[ATTACK]()


if __name__ == "__main__":
    if ATTACK not in BEFORE_CONNECTING and ATTACK not in AT_MATCH_START:
        sys.exit(f"unknown attack {ATTACK!r}")
    if ATTACK in BEFORE_CONNECTING:
        BEFORE_CONNECTING[ATTACK]()
    run(HostileBot)
