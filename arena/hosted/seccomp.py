"""The system calls a hosted bot may not make: a seccomp filter for bubblewrap's `--seccomp FD`.

A bot runs as an unprivileged uid in its own namespaces, but the kernel's whole system-call
surface is still reachable from there, and the parts a game-playing bot never needs are where
local privilege escalations are found: io_uring, userfaultfd, perf events, eBPF, the key ring,
tracing and reading other processes' memory, namespaces and mounts, and socket families other than
Unix and IP (netlink, vsock, packet, ...). The filter makes each of those fail with EPERM; every
other call passes. Calls made through another ABI than the native one (x86-64's 32-bit `int 0x80`
or x32 numbers) get EPERM too, since the numbers below would not mean the same calls there.

The program is classic BPF, built here from the tables below (python-chess style: the facts as
module constants, one function to assemble them); bubblewrap reads it from a file descriptor and
installs it, with no_new_privs, right before it executes the bot.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

DENIED = (
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "userfaultfd", "perf_event_open", "bpf",
    "ptrace", "process_vm_readv", "process_vm_writev",
    "keyctl", "add_key", "request_key",
    "unshare", "setns", "mount", "umount2", "pivot_root",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "name_to_handle_at", "open_by_handle_at",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
)  # fmt: skip
"""System calls that fail with EPERM inside the sandbox."""
SOCKET_FAMILIES = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10}
"""The only address families `socket` and `socketpair` may open: the node's socket and loopback."""


@dataclass(frozen=True)
class Architecture:
    """One ABI's audit number and system-call numbers."""

    audit: int
    numbers: dict[str, int]
    highest: int
    """Numbers above this belong to another ABI on the same machine (x32 on x86-64): denied as a whole."""


# Numbers from the kernel's arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h.
_X86_64 = Architecture(
    audit=0xC000003E,
    numbers={
        "socket": 41, "socketpair": 53, "ptrace": 101, "pivot_root": 155, "mount": 165, "umount2": 166,
        "init_module": 175, "delete_module": 176, "kexec_load": 246, "add_key": 248, "request_key": 249,
        "keyctl": 250, "unshare": 272, "perf_event_open": 298, "name_to_handle_at": 303, "open_by_handle_at": 304,
        "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313,
        "kexec_file_load": 320, "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
        "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    },
    highest=0x3FFFFFFF,
)  # fmt: skip
_AARCH64 = Architecture(
    audit=0xC00000B7,
    numbers={
        "umount2": 39, "mount": 40, "pivot_root": 41, "unshare": 97, "kexec_load": 104, "init_module": 105,
        "delete_module": 106, "ptrace": 117, "socket": 198, "socketpair": 199, "add_key": 217, "request_key": 218,
        "keyctl": 219, "perf_event_open": 241, "name_to_handle_at": 264, "open_by_handle_at": 265, "setns": 268,
        "process_vm_readv": 270, "process_vm_writev": 271, "finit_module": 273, "bpf": 280, "userfaultfd": 282,
        "kexec_file_load": 294, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "mount_setattr": 442,
    },
    highest=0xFFFFFFFF,
)  # fmt: skip
ARCHITECTURES = {"x86_64": _X86_64, "aarch64": _AARCH64}
"""By `platform.machine()`: where the filter can be built. Elsewhere `program` raises SeccompUnavailable."""

# Classic BPF, as <linux/filter.h> and <linux/seccomp.h> define it.
_LD_W_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_OFFSET_NR, _OFFSET_ARCH, _OFFSET_ARG0 = 0, 4, 16
"""Where struct seccomp_data keeps the call's number, its ABI, and the low 32 bits of its first argument."""
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000


class SeccompUnavailable(Exception):
    """This machine's architecture has no table here."""


def program(machine: str | None = None, denied_errno: int = errno.EPERM) -> bytes:
    """The filter for `machine` (this one by default) as bubblewrap reads it: struct sock_filter entries, packed."""
    name = machine or platform.machine()
    arch = ARCHITECTURES.get(name)
    if arch is None:
        raise SeccompUnavailable(f"no seccomp table for the {name} architecture (only {', '.join(ARCHITECTURES)})")
    code = _Assembler()
    code.load(_OFFSET_ARCH)
    code.jump_unless(arch.audit, "deny")
    code.load(_OFFSET_NR)
    if arch.highest < 0xFFFFFFFF:
        code.jump_if_at_least(arch.highest + 1, "deny")
    for call in DENIED:
        code.jump_if(arch.numbers[call], "deny")
    code.jump_if(arch.numbers["socket"], "family")
    code.jump_if(arch.numbers["socketpair"], "family")
    code.ret(_ALLOW)
    code.label("family")
    code.load(_OFFSET_ARG0)
    for family in sorted(SOCKET_FAMILIES.values()):
        code.jump_if(family, "allow")
    code.label("deny")
    code.ret(_ERRNO | denied_errno)
    code.label("allow")
    code.ret(_ALLOW)
    return code.assemble()


class _Assembler:
    """Classic BPF with named forward jumps, resolved to the relative offsets the kernel wants."""

    def __init__(self) -> None:
        self._code: list[tuple[int, str, str, int]] = []
        self._labels: dict[str, int] = {}

    def load(self, offset: int) -> None:
        self._code.append((_LD_W_ABS, "", "", offset))

    def jump_if(self, value: int, target: str) -> None:
        self._code.append((_JEQ, target, "", value))

    def jump_unless(self, value: int, target: str) -> None:
        self._code.append((_JEQ, "", target, value))

    def jump_if_at_least(self, value: int, target: str) -> None:
        self._code.append((_JGE, target, "", value))

    def ret(self, value: int) -> None:
        self._code.append((_RET, "", "", value))

    def label(self, name: str) -> None:
        self._labels[name] = len(self._code)

    def assemble(self) -> bytes:
        def offset(index: int, target: str) -> int:
            if not target:
                return 0  # the next instruction
            distance = self._labels[target] - index - 1
            assert 0 <= distance <= 255, "classic BPF jumps forward, at most 255 instructions"
            return distance

        return b"".join(
            struct.pack("<HBBI", op, offset(index, true), offset(index, false), value)
            for index, (op, true, false, value) in enumerate(self._code)
        )
