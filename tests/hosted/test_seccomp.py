"""The seccomp filter: each call it names fails, every other call and socket family a bot needs works.

The probe runs under bubblewrap as a hosted bot's does, once without the filter and once with it;
the filter is built here with an errno no real refusal gives, so a refusal by the
kernel or the namespaces themselves cannot pass for the filter's. The sandbox's own use of the
filter (EPERM) is checked by the escape suite.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.hosted import seccomp
from arena.hosted.package import pack
from arena.hosted.sandbox import SandboxLimits, detect

PROBE = Path(__file__).with_name("seccomp_probe.py")
MARKER = 133
"""EHWPOISON, which no refusal in a sandbox gives (Python names no constant for it)."""
DENIED = ("io_uring_setup", "userfaultfd", "perf_event_open", "bpf", "ptrace", "keyctl", "add_key", "unshare")
DENIED_FAMILIES = ("AF_NETLINK", "AF_VSOCK", "AF_PACKET")
ALLOWED = ("AF_UNIX", "AF_INET", "AF_INET6", "getpid")


def probe(filtered: bool) -> dict[str, int]:
    """What each call got under bubblewrap, with or without the filter."""
    bwrap = shutil.which("bwrap")
    assert bwrap, "bubblewrap is not installed (Debian package bubblewrap; scripts/test.sh installs it)"
    with tempfile.TemporaryFile() as program:
        program.write(seccomp.program(denied_errno=MARKER))
        program.seek(0)
        fd = program.fileno()
        command = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all",
                   "--die-with-parent", *(["--seccomp", str(fd)] if filtered else []), "--",
                   sys.executable, str(PROBE)]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(Path(seccomp.__file__).parents[2])}
        done = subprocess.run(command, pass_fds=(fd,), capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    result: dict[str, int] = json.loads(done.stderr.strip().splitlines()[-1])
    return result


def test_the_filter_refuses_every_named_call_and_family_and_nothing_else() -> None:
    got = probe(filtered=True)
    assert {name: got[name] for name in DENIED + DENIED_FAMILIES} == dict.fromkeys(DENIED + DENIED_FAMILIES, MARKER)
    assert {name: got[name] for name in ALLOWED} == dict.fromkeys(ALLOWED, 0)


def test_calls_from_another_abi_are_refused() -> None:
    if "x32 getpid" not in (got := probe(filtered=True)):
        pytest.skip("x32 numbers exist on x86-64 only")
    assert got["x32 getpid"] == MARKER


def test_without_the_filter_no_call_gets_its_refusal() -> None:
    """The probe itself: nothing in the sandbox alone answers with the filter's errno."""
    got = probe(filtered=False)
    assert MARKER not in got.values()
    assert {name: got[name] for name in ALLOWED} == dict.fromkeys(ALLOWED, 0)


def test_every_architecture_names_every_call_it_filters() -> None:
    for name, arch in seccomp.ARCHITECTURES.items():
        assert set(seccomp.DENIED) | {"socket", "socketpair"} <= set(arch.numbers), name
        program = seccomp.program(name)
        assert len(program) % 8 == 0 and len(program) // 8 < 256


def test_an_unknown_architecture_is_one_line() -> None:
    with pytest.raises(
        seccomp.SeccompUnavailable, match=r"^no seccomp table for the riscv64 architecture \(only x86_64, aarch64\)$"
    ):
        seccomp.program("riscv64")


@pytest.mark.asyncio
async def test_hosted_bots_run_under_the_filter_and_get_eperm(tmp_path: Path) -> None:
    """A real launch in the node's sandbox, with the filter the node installs (`arena serve` passes it)."""
    sandbox = await detect(SandboxLimits(), seccomp=seccomp.program())
    try:
        assert sandbox.confined, sandbox.problem
        (tmp_path / "bot").mkdir()
        shutil.copy(PROBE, tmp_path / "bot" / "bot.py")
        started = await sandbox.start(["python", "bot.py"], pack(tmp_path / "bot").data, os.devnull, "")
        assert started.process.stderr is not None
        said = (await started.process.stderr.read()).decode()
        assert await started.process.wait() == 0, said
        await started.kill()
    finally:
        sandbox.close()
    got = json.loads(said.strip().splitlines()[-1])
    assert {name: got[name] for name in DENIED + DENIED_FAMILIES} == dict.fromkeys(
        DENIED + DENIED_FAMILIES, errno.EPERM
    )
    assert {name: got[name] for name in ALLOWED} == dict.fromkeys(ALLOWED, 0)
