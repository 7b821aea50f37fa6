"""The web UI of `arena serve`: pages for people and the read-only JSON API behind them."""

from arena.web.app import WebServer, WebUnavailable, create_app, start_web
from arena.web.data import WebData

__all__ = ["WebData", "WebServer", "WebUnavailable", "create_app", "start_web"]
