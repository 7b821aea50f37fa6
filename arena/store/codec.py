"""What Redis hands back, as the store's text: one helper per job, used by every store module.

The clients are made without `decode_responses` (hosted packages are stored as raw bytes), so
replies come as bytes; a pipeline or script may hand back str. These helpers take either.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any


def text(value: bytes | str) -> str:
    """A reply (a value, a field name, a stream entry id) as text."""
    return value.decode() if isinstance(value, bytes) else value


def text_or_empty(value: bytes | str | None) -> str:
    """A field that may be missing (HGET, HMGET), as text: "" when it is."""
    return "" if value is None else text(value)


def text_fields(fields: Mapping[Any, Any]) -> dict[str, str]:
    """A hash (HGETALL) or a stream entry's fields as text."""
    return {text(name): text(value) for name, value in fields.items()}


def texts(values: Iterable[Any]) -> list[str]:
    """Members of a set or a sorted set (SMEMBERS, ZRANGE), in the order given, as text."""
    return [text(value) for value in values]


def compact_json(value: Any) -> str:
    """JSON without spaces: what every stored record is written as.

    Records are trees: not looking for a container inside itself (a dict of every container's id
    kept as the encoder goes) writes the same text a fifth faster, and a node writes a 17 KB replay
    record at every match's end."""
    return json.dumps(value, separators=(",", ":"), check_circular=False)
