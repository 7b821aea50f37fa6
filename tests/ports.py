"""Ports for the servers the tests start in other processes (nodes, Redis, web UIs).

A port the kernel hands out for port 0 comes from its ephemeral range, the one it also gives every
outgoing connection: between the test's check and the server's bind, any connect() of the suite's
hundreds of processes could take it ("cannot listen on 127.0.0.1:39809: is another server running
there?", seen beside two busy loops). So a port is picked below that range, where the kernel never
puts a connection, from a slice of its own for each pytest-xdist worker, and checked free.
"""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

LOWEST = 10_000
"""Below this are the well-known and commonly configured ports (Redis's 6379, a web UI's 8080)."""


def ephemeral_start() -> int:
    """The first port of the kernel's ephemeral range (32768 where it cannot be read)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def worker_slice() -> range:
    """This pytest-xdist worker's ports (all of them outside xdist); a subprocess a test starts shares its
    worker's slice, as it inherits the environment."""
    top = max(ephemeral_start(), LOWEST + 1_000)
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    index = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0) % count
    size = (top - LOWEST) // count
    return range(LOWEST + index * size, LOWEST + (index + 1) * size)


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now and no outgoing connection will take."""
    ports = worker_slice()
    for port in random.sample(ports, min(len(ports), 200)):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port on 127.0.0.1 in {ports.start}-{ports.stop - 1} after 200 tries")
