"""The node's log lines: each with its time, level, node and incarnation, and the match it concerns.

`arena serve --log-format json` writes one JSON object per line, for a log collector:
`{"time": "2026-11-25T22:13:55.123Z", "level": "WARNING", "node": "arena-0",
"incarnation": "3f9a1c", "logger": "arena.node.work", "match": "m-42", "message": "..."}`
(`match` only where there is one); the default `text` writes the same fields for people, on one
line. The match comes from a context variable that the node's match tasks set (`MATCH`), so a
line logged anywhere under a match names it without every call site passing it on.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import time
from enum import StrEnum
from typing import TextIO

MATCH: contextvars.ContextVar[str] = contextvars.ContextVar("arena_match", default="")
"""The match the running task works on ("" for none); asyncio tasks copy it when they are made."""


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


def _utc(created: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{int(created % 1 * 1000):03d}Z"


class _Context(logging.Filter):
    """Adds the node, its incarnation and the current match to every record."""

    def __init__(self, node: str, incarnation: str) -> None:
        super().__init__()
        self.node, self.incarnation = node, incarnation

    def filter(self, record: logging.LogRecord) -> bool:
        record.node, record.incarnation = self.node, self.incarnation
        record.match = getattr(record, "match", "") or MATCH.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": _utc(record.created),
            "level": record.levelname,
            "node": getattr(record, "node", ""),
            "incarnation": getattr(record, "incarnation", ""),
            "logger": record.name,
            "message": record.getMessage(),
        }
        match = getattr(record, "match", "")
        if match:
            line["match"] = match
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        match = getattr(record, "match", "")
        where = f"{getattr(record, 'node', '')}#{getattr(record, 'incarnation', '')}"
        text = f"{_utc(record.created)} {record.levelname:<7} {where}{f' match={match}' if match else ''}: "
        text += record.getMessage()
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def configure(
    log_format: LogFormat, node: str, incarnation: str, level: int = logging.INFO, stream: TextIO | None = None
) -> logging.Handler:
    """Send the arena's log records to `stream` (stderr) in `log_format`; returns the handler, to remove later."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(_Context(node, incarnation))
    handler.setFormatter(JsonFormatter() if log_format is LogFormat.JSON else TextFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    logging.getLogger("arena").setLevel(level)
    return handler
