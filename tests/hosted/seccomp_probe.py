"""Tries each system call the seccomp filter is about and prints, as JSON, the errno each one got (0: it worked).

Run inside a sandbox; the calls are harmless where they work (their results are closed or ignored).
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import socket
import sys

from arena.hosted.seccomp import ARCHITECTURES

libc = ctypes.CDLL(None, use_errno=True)
numbers = ARCHITECTURES[platform.machine()].numbers
NULL = ctypes.c_void_p(0)


def call(name: str, *args: object) -> int:
    """The errno of a raw system call, 0 when it worked (a returned descriptor is closed)."""
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(numbers[name]), *args)
    if result == -1:
        return ctypes.get_errno()
    if name in ("io_uring_setup", "userfaultfd", "perf_event_open", "bpf") and result >= 0:
        os.close(result)
    return 0


def family(domain: int) -> int:
    try:
        socket.socket(domain, socket.SOCK_DGRAM if domain != socket.AF_NETLINK else socket.SOCK_RAW).close()
    except OSError as error:
        return error.errno or -1
    return 0


class UringParams(ctypes.Structure):
    _fields_ = [("raw", ctypes.c_char * 120)]


params = UringParams()
results = {
    "io_uring_setup": call("io_uring_setup", ctypes.c_uint(4), ctypes.byref(params)),
    "userfaultfd": call("userfaultfd", ctypes.c_int(0)),
    "perf_event_open": call(
        "perf_event_open", NULL, ctypes.c_int(0), ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_ulong(0)
    ),
    "bpf": call("bpf", ctypes.c_int(0), NULL, ctypes.c_uint(0)),
    "ptrace": call("ptrace", ctypes.c_long(0), ctypes.c_long(0), NULL, NULL),  # PTRACE_TRACEME works without a filter
    "keyctl": call("keyctl", ctypes.c_int(0), ctypes.c_int(-3), ctypes.c_int(0)),  # KEYCTL_GET_KEYRING_ID, session
    "add_key": call("add_key", b"user", b"arena-probe", b"x", ctypes.c_size_t(1), ctypes.c_int(-3)),
    "unshare": call("unshare", ctypes.c_int(0)),  # unshare nothing: works without a filter
    "AF_NETLINK": family(socket.AF_NETLINK),
    "AF_VSOCK": family(socket.AF_VSOCK),
    "AF_PACKET": family(socket.AF_PACKET),
    "AF_UNIX": family(socket.AF_UNIX),
    "AF_INET": family(socket.AF_INET),
    "AF_INET6": family(socket.AF_INET6),
    "getpid": 0 if os.getpid() > 0 else -1,
}
if platform.machine() == "x86_64":
    ctypes.set_errno(0)
    results["x32 getpid"] = ctypes.get_errno() if libc.syscall(ctypes.c_long(39 | 0x40000000)) == -1 else 0
print(json.dumps(results), file=sys.stderr)  # a hosted bot's stdout goes nowhere; its stderr is read
