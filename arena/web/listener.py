"""The web UI's listening socket.

The socket is made apart from the server so that whoever runs the web UI can hold it: the node
binds and listens on it before the web UI's own process starts (`arena.web.process`), so that a
port in use is known at once, and a request that arrives while that process (re)starts waits in
the kernel's backlog instead of being refused. The node imports this module, not the server's.
"""

from __future__ import annotations

import socket

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
