"""The node's file descriptors: its soft limit raised to the hard one at start, shared out among its
listeners, and a low-water mark below which it refuses new sessions, connections and streams.

Every client connection costs the node one descriptor, and so do its Redis connections, hosted bots'
pipes and the files it writes. When they run out, everything fails at once (gRPC logs "File
descriptor limit reached" and stops accepting; Redis cannot reconnect; a hosted bot cannot start).
So each listener gets a share of what is left once the node's own needs are set aside (`FdPlan`),
enforced where the connections are accepted, and `FdBudget.short` tells the places that open
something new on a client's behalf to refuse it while the last descriptors are still free.
"""

from __future__ import annotations

import logging
import os
import resource
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)

NR_OPEN_FALLBACK = 1 << 20
"""The kernel's usual ceiling (fs.nr_open) where the hard limit reads as unlimited."""
HEADROOM = 512
"""Descriptors kept for what the node opens itself beyond its Redis pools: hosted bots' pipes and
pidfds, the archive's files, logs, the metrics endpoint."""
REFRESH = 0.25
"""Seconds a count of the open descriptors is trusted before it is counted again."""
GRPC_LISTENERS = 2
"""gRPC on TCP (bots and tools) and on the Unix socket (hosted bots): grpcio caps each alike."""
WEB_SHARE = 0.3
"""The web UI's share of the descriptors left for clients; the gRPC listeners share the rest."""


@dataclass(frozen=True)
class FdPlan:
    """What the node's descriptors are for."""

    limit: int
    """The soft RLIMIT_NOFILE in force."""
    reserve: int
    """Kept for the node itself: its Redis pools and `HEADROOM`."""
    grpc: int
    """Connections each gRPC listener (TCP, the hosted bots' Unix socket) accepts at once
    (grpc.max_allowed_incoming_connections)."""
    web: int
    """Connections the web UI holds at once."""

    def describe(self) -> str:
        return (
            f"file descriptors: {self.limit} (soft limit), {self.reserve} kept for Redis and the node, "
            f"then at most {self.grpc} gRPC connections on TCP, as many on the hosted bots' socket, {self.web} web ones"
        )


def raise_soft_limit() -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit; returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = NR_OPEN_FALLBACK if hard == resource.RLIM_INFINITY else hard
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.warning("could not raise the open-files limit from %d to %d: %s", soft, target, error)
    return soft


def plan(limit: int, redis_connections: int) -> FdPlan:
    """Share `limit` descriptors out: the node's own first (at least an eighth), then the listeners."""
    reserve = min(limit // 2, max(limit // 8, redis_connections + HEADROOM))
    left = max(0, limit - reserve)
    web = max(16, int(left * WEB_SHARE))
    grpc = max(16, (left - web) // GRPC_LISTENERS)
    return FdPlan(limit, reserve, grpc, web)


def open_count() -> int:
    """Descriptors this process has open now."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:  # no /proc: nothing to go on, so never short
        return 0


class FdBudget:
    """The node's plan and a cheap answer to "are the descriptors running out?"."""

    def __init__(self, fd_plan: FdPlan) -> None:
        self.plan = fd_plan
        self.low_water = fd_plan.limit - fd_plan.reserve // 2
        """Past this many open descriptors the node refuses new sessions and streams: half its reserve is left."""
        self._count = 0
        self._counted = 0.0

    def in_use(self) -> int:
        now = time.monotonic()
        if now - self._counted > REFRESH:
            self._count, self._counted = open_count(), now
        return self._count

    def short(self) -> bool:
        """Whether the open descriptors have passed the low-water mark."""
        return self.in_use() >= self.low_water

    def short_text(self) -> str:
        return (
            f"this arena node is short of file descriptors ({self.in_use()} of {self.plan.limit} open); "
            "retry in a few seconds with backoff, or connect to another node"
        )
