"""Serving the web UI: its listening socket, and uvicorn on it in the running event loop.

The socket is made apart from the server so that whoever runs the web UI can hold it: the node
binds and listens on it before the web UI's own process starts (`arena.web.process`), so that a
port in use is known at once, and a request that arrives while that process (re)starts waits in
the kernel's backlog instead of being refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Generator
from dataclasses import dataclass

import uvicorn

from arena.node.clients import PeerLimits
from arena.node.fds import FdBudget
from arena.web.accounts import Accounts
from arena.web.app import create_app
from arena.web.data import WebData
from arena.web.feeds import LiveStreams
from arena.web.guard import Connections, WebLimits, guarded_protocol
from arena.web.node_api import NodeAddress

SHUTDOWN_GRACE = 1
"""Seconds open HTTP connections get to finish when the server stops."""
BACKLOG = 2048
"""Connections the kernel holds for the web UI before one is accepted (uvicorn's default)."""


class WebUnavailable(RuntimeError):
    """The web UI cannot listen where it was asked to; the message says where and why."""


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port (0: any free port) for the web UI."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # With the protocol named, asyncio sets TCP_NODELAY on every accepted connection: without it a
    # small response (headers and body written apart) waits some 40 ms for a delayed ACK.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(BACKLOG)
    except OSError as error:
        listener.close()
        raise WebUnavailable(f"cannot serve the web UI on {host}:{port}: {error.strerror}") from None
    return listener


def url_of(listener: socket.socket) -> str:
    """The web UI's address as people type it."""
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if listener.family == socket.AF_INET6 else host
    return f"http://{shown}:{port}/"


class _EmbeddedServer(uvicorn.Server):
    """uvicorn inside the arena: the arena's own signal handlers stop the process, not uvicorn's."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


@dataclass
class WebServer:
    """The web UI running in this event loop: where it listens, and how to stop it."""

    url: str
    port: int
    server: uvicorn.Server
    task: asyncio.Task[None]
    connections: Connections
    streams: LiveStreams
    accounts: Accounts

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.task
        self.streams.feeds.stop()
        await self.accounts.close()


async def start_web(
    source: WebData,
    listener: socket.socket,
    limits: WebLimits | None = None,
    fds: FdBudget | None = None,
    node: NodeAddress | None = None,
    peers: PeerLimits | None = None,
) -> WebServer:
    """Serve the web UI on `listener` (from `listen`) in the running event loop, within `limits`; owners
    sign in and change their bots through `node`'s gRPC API (none: signing in is off), wrong tokens
    slowed within `peers` as the node's gRPC edge slows them."""
    limits = limits or WebLimits()
    connections = Connections(limits, fds)
    streams = LiveStreams(limits, fds)
    accounts = Accounts(source, node, peers)
    config = uvicorn.Config(
        create_app(source, streams, accounts),
        http=guarded_protocol(connections),
        log_config=None,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
        timeout_keep_alive=int(limits.keep_alive),
        backlog=BACKLOG,
    )
    server = _EmbeddedServer(config)
    task = asyncio.create_task(server.serve(sockets=[listener]), name="web")
    while not server.started:
        if task.done():
            await task
            raise WebUnavailable(f"the web UI on {url_of(listener)} stopped while starting")
        await asyncio.sleep(0.01)
    return WebServer(url_of(listener), listener.getsockname()[1], server, task, connections, streams, accounts)
