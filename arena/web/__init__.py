"""The web UI of `arena serve`: pages for people and the read-only JSON API behind them."""

from arena.web.app import create_app
from arena.web.data import WebData
from arena.web.process import WebProcess, WebSettings
from arena.web.server import WebServer, WebUnavailable, listen, start_web

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
