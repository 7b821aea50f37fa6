"""The web UI of `arena serve`: pages for people and the read-only JSON API behind them.

The names below load on first use: the node imports this package for its web process and settings,
and must not pay for FastAPI and uvicorn (about 0.7 s of CPU a process) when it serves no page itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.web.app import create_app
    from arena.web.data import WebData
    from arena.web.listener import WebUnavailable, listen
    from arena.web.process import WebProcess, WebSettings
    from arena.web.server import WebServer, start_web

_WHERE = {
    "create_app": "arena.web.app",
    "WebData": "arena.web.data",
    "WebProcess": "arena.web.process",
    "WebSettings": "arena.web.process",
    "WebServer": "arena.web.server",
    "WebUnavailable": "arena.web.listener",
    "listen": "arena.web.listener",
    "start_web": "arena.web.server",
}
__all__ = [
    "WebData",
    "WebProcess",
    "WebServer",
    "WebSettings",
    "WebUnavailable",
    "create_app",
    "listen",
    "start_web",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'arena.web' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
