"""A running match's debug texts in Redis, for the bot's owner to follow while the match runs.

The match runner keeps every seat's texts for the replay record (`arena.match.debug`); that
record is stored only at the end. Meanwhile the node hosting the match copies each text, as it
comes, to a list per seat (`keys.match_debug`), so that any process reading Redis (the web UI)
can show a bot's owner what the bot said so far: `seat_debug`. Nothing else reads these lists,
and the public record of a running match never holds the texts. The copy is best effort: a text
that cannot be written (Redis unreachable) is missing from the live view only, never from the
record. A list expires `LIVE_TTL_MS` after its last text; the stored record takes over at the end.
"""

from __future__ import annotations

import asyncio
import json
import logging

from redis.asyncio import Redis

from arena.store import keys
from arena.store.codec import compact_json

log = logging.getLogger(__name__)

LIVE_TTL_MS = 600_000
"""A running match's debug list goes this long after its last text (its match ended, or its node died)."""


class LiveDebug:
    """Copies one match's debug texts to Redis as they come: one write in flight at a time, batched."""

    def __init__(self, redis: Redis, match_id: str) -> None:
        self.redis = redis
        self.match_id = match_id
        self._waiting: list[tuple[int, int, str]] = []
        self._writer: asyncio.Task[None] | None = None

    def add(self, move: int, seat: int, text: str) -> None:
        """The runner's `on_debug`: queue the text and make sure a write is under way."""
        self._waiting.append((move, seat, text))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name=f"debug of match {self.match_id}")

    async def _write(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            pipe = self.redis.pipeline(transaction=False)
            for seat in sorted({seat for _, seat, _ in batch}):
                key = keys.match_debug(self.match_id, seat)
                pipe.rpush(key, *(compact_json([move, text]) for move, at, text in batch if at == seat))
                pipe.pexpire(key, LIVE_TTL_MS)
            try:
                await pipe.execute()
            except Exception as error:  # best effort: the record keeps every text whatever happens here
                log.warning(
                    "match %s: %d debug texts not copied for the live view: %s", self.match_id, len(batch), error
                )

    async def flushed(self) -> None:
        """Wait until every text added so far is written (or given up)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)


async def seat_debug(redis: Redis, match_id: str, seat: int) -> list[tuple[int, str]]:
    """What the bot in `seat` of running match `match_id` said so far, as (move index, text), oldest
    first; [] when it said nothing (or the match is not running: read the stored record's "debug").

    For the bot's owner alone while the match runs: the caller checks who asks."""
    entries = await redis.lrange(keys.match_debug(match_id, seat), 0, -1)
    found = []
    for entry in entries:
        try:
            move, text = json.loads(entry)
            found.append((int(move), str(text)))
        except (ValueError, TypeError):
            continue  # not written by LiveDebug: skipped rather than shown wrong
    return found
