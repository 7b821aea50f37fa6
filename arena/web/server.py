"""Serving the web UI: uvicorn on its listening socket (`arena.web.listener`) in the running event loop."""

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
from arena.web.listener import BACKLOG, WebUnavailable, url_of
from arena.web.node_api import NodeAddress

SHUTDOWN_GRACE = 1
"""Seconds open HTTP connections get to finish when the server stops."""


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
