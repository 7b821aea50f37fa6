"""The box around a hosted bot: a read-only root with /bot and /tmp its only writable places (one tmpfs, capped
in bytes and in inodes), 256 open files, no setuid bit or odd name from a package, and the hook for a seccomp
filter.

The probe bot (tests/hosted/box_probe.py) reports from inside a real launch; the package it is
uploaded in is made by hand, as an attacker would, not by `pack` (which strips what it must not send).
"""

from __future__ import annotations

import io
import os
import platform
import struct
import tarfile
from pathlib import Path

import grpc
import pytest

from arena.hosted.package import pack
from arena.hosted.sandbox import SandboxLimits, detect
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import Arena, bearer

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.sandbox,
]
HERE = Path(__file__).resolve().parent
INODE_CAP = 4096


def package(files: dict[str, tuple[bytes, int]]) -> bytes:
    """A .tar.gz of `files` (name -> content, mode), modes kept as given."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def upload(name: str, data: bytes, run: str = "python bot.py") -> list[api_pb.SubmitBotRequest]:
    first = api_pb.SubmitBotRequest(name=name, game="friday13", run=run)
    return [first, api_pb.SubmitBotRequest(chunk=data)]


def reports(stderr: str) -> dict[str, list[str]]:
    """The probe's `BOX what value` lines: what -> its values in order."""
    found: dict[str, list[str]] = {}
    for line in stderr.splitlines():
        if line.startswith("BOX "):
            what, value = line[4:].split(" ", 1)
            found.setdefault(what, []).append(value)
    return found


async def test_only_bot_and_tmp_are_writable_inodes_are_capped_and_setuid_bits_are_gone(arena: Arena) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "prober")
    data = package({"bot.py": ((HERE / "box_probe.py").read_bytes(), 0o644), "suid": (b"#!/bin/sh\n", 0o6755)})
    reply = await arena.api.SubmitBot(iter(upload("prober", data)), metadata=bearer(owner))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, (reply.version.reason, reply.stderr_tail)
    seen = reports(reply.stderr_tail)
    assert seen["writable"] == ["/bot", "/tmp"], reply.stderr_tail
    assert seen["mode"] == ["bot.py 644", "suid 755"]
    made, error = seen["inodes"][0].split()
    assert int(made) < INODE_CAP and error == "No_space_left_on_device", seen["inodes"]
    assert seen["nofile"] == ["256 256"], "a bot needs a few dozen files open at most (Java: 35)"


async def test_a_package_with_odd_names_is_refused_in_one_line(arena: Arena) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "odd")
    data = package({"bot.py": (b"", 0o644), "notes\n2038-01-19 ERROR admin token leaked": (b"", 0o644)})
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await arena.api.SubmitBot(iter(upload("odd", data)), metadata=bearer(owner))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.details() == (
        "the package member 'notes\\n2038-01-19 ERROR admin token leaked' has a control character in its name"
    )


def deny_mknod() -> bytes:
    """A classic-BPF seccomp program (x86-64) that fails mknod and mknodat with EPERM and allows the rest."""
    ret, load, jeq = 0x06, 0x20, 0x15
    allow, eperm = 0x7FFF0000, 0x00050000 | 1
    program = [(load, 0, 0, 0), (jeq, 2, 0, 133), (jeq, 1, 0, 259), (ret, 0, 0, allow), (ret, 0, 0, eperm)]
    return b"".join(struct.pack("<HBBI", *instruction) for instruction in program)


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the test program uses x86-64 system call numbers")
async def test_a_seccomp_filter_on_the_sandbox_binds_every_process_and_leaves_no_descriptor_open(
    tmp_path: Path,
) -> None:
    sandbox = await detect(SandboxLimits(), seccomp=deny_mknod())
    try:
        assert sandbox.confined, sandbox.problem
        (tmp_path / "bot").mkdir()
        (tmp_path / "bot" / "bot.sh").write_text("exec 1>&2; mkfifo /tmp/fifo || echo refused; ls /proc/$$/fd\n")
        started = await sandbox.start(["sh", "bot.sh"], pack(tmp_path / "bot").data, os.devnull, "")
        assert started.process.stderr is not None
        said = (await started.process.stderr.read()).decode()
        assert await started.process.wait() == 0, said
        await started.kill()
        # mkfifo failed as the filter says, and the filter's descriptor (3, given to bwrap) is not the bot's.
        lines = said.splitlines()
        assert lines[:2] == ["mkfifo: cannot create fifo '/tmp/fifo': Operation not permitted", "refused"], said
        assert "3" not in lines[2:] and {"0", "1", "2"} <= set(lines[2:]), said
    finally:
        sandbox.close()
