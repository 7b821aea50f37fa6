"""Fair shares of the web UI's connections: per client address and in total, and none left idle.

uvicorn keeps a connection that never sends a request open forever (its keep-alive timeout starts
only after a first response), so 21,000 silent connections once took a node to its file descriptor
limit. `guarded_protocol` makes uvicorn's HTTP/1.1 protocol (h11) count each connection against its
client's address and the node's total as it is accepted (past either, it answers 429 or 503 with a
one-line reason and closes), and close one that has not sent a request's head within
`WebLimits.head_timeout` seconds, whether it sent nothing or a head cut short.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING

import h11

from arena import metrics
from arena.node.clients import AddressCounts, client_address
from arena.node.fds import FdBudget

if TYPE_CHECKING:
    from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass(frozen=True)
class WebLimits:
    """What one client address may hold of the web UI, and how long a connection may say nothing."""

    connections_per_address: int = 64
    """Open connections of one address (a browser opens at most 6 per server, so this is many tabs or a NAT)."""
    connections: int = 4096
    """Open connections in total (`arena serve` sets its share of the file descriptors)."""
    streams_per_address: int = 16
    """Live pages (Server-Sent Events streams) of one address."""
    streams: int = 1024
    """Live pages in total."""
    head_timeout: float = 10.0
    """Seconds a connection has to send a request's head (from its start, or from the first byte of the next)."""
    keep_alive: float = 5.0
    """Seconds an idle connection is kept between requests (uvicorn's keep-alive)."""


def refusal(status: HTTPStatus, detail: str) -> bytes:
    """A whole HTTP/1.1 response that refuses a connection: the status and `{"detail": ...}`; then it closes."""
    body = json.dumps({"detail": detail}).encode()
    head = (
        f"HTTP/1.1 {status.value} {status.phrase}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 5\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class Connections:
    """The web UI's open connections per client address, and its answer to one more."""

    def __init__(self, limits: WebLimits, fds: FdBudget | None = None) -> None:
        self.limits = limits
        self.fds = fds
        self.counts = AddressCounts(limits.connections_per_address, limits.connections)

    def admit(self, address: str) -> bytes:
        """b"" when `address` may open one more connection (it is counted), else the response that refuses it."""
        if self.fds is not None and self.fds.short():
            metrics.REFUSALS.labels("fds").inc()
            return refusal(HTTPStatus.SERVICE_UNAVAILABLE, self.fds.short_text())
        full = self.counts.take(address)
        if not full:
            metrics.WEB_CONNECTIONS.inc()
            return b""
        metrics.REFUSALS.labels(f"web_{full}").inc()
        if full == "address":
            text = (
                f"your address holds its maximum of {self.limits.connections_per_address} connections to this "
                "arena's web UI; close some (or reuse them: keep-alive) and retry"
            )
            return refusal(HTTPStatus.TOO_MANY_REQUESTS, text)
        text = f"this arena's web UI holds its maximum of {self.limits.connections} connections; retry in a few seconds"
        return refusal(HTTPStatus.SERVICE_UNAVAILABLE, text)

    def release(self, address: str) -> None:
        self.counts.give_back(address)
        metrics.WEB_CONNECTIONS.dec()


def guarded_protocol(connections: Connections) -> type[H11Protocol]:
    """uvicorn's h11 protocol, its connections counted by `connections` and closed when silent too long."""
    from uvicorn.protocols.http.h11_impl import H11Protocol  # here: a node without a web UI never loads uvicorn

    class GuardedH11Protocol(H11Protocol):
        address = ""
        admitted = False
        head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.address = client_address(self.client[0]) if self.client else ""
            refused = connections.admit(self.address)
            if refused:
                transport.write(refused)
                transport.close()
                return
            self.admitted = True
            self._arm_head_timer()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE:
                self._arm_head_timer()  # part of a head: it has `head_timeout` to come whole
            else:
                self._disarm_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head_timer()
            if self.admitted:
                self.admitted = False
                connections.release(self.address)
            super().connection_lost(exc)

        def _arm_head_timer(self) -> None:
            if self.head_timer is None and not self.transport.is_closing():
                self.head_timer = self.loop.call_later(connections.limits.head_timeout, self._head_late)

        def _disarm_head_timer(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

        def _head_late(self) -> None:
            self.head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                metrics.REFUSALS.labels("web_idle").inc()
                self.transport.close()

    return GuardedH11Protocol
