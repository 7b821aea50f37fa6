"""Live pages' data, read once for everyone watching: one producer per match or tournament.

Each Server-Sent Events stream used to read its page's data itself, four times a second for a
match: 1,000 open streams of one match were 4,000 reads (and JSON encodings) a second in the
node's event loop, and a match beside them slowed from 0.2 s to 11 s. Now a `Feed` reads the page
every `interval` seconds while anyone listens and keeps the last text; each stream only waits for
the next change and writes it out. The producer stops when its last listener leaves.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

HEARTBEAT = 15.0
"""Seconds of silence after which a stream sends a comment, so that proxies keep it open."""

Read = Callable[[], Awaitable[dict[str, Any]]]
Ended = Callable[[dict[str, Any]], bool]


class Feed:
    """One page's live data: the latest JSON text, a version that grows with each change, and the end."""

    def __init__(self, key: str, read: Read, ended: Ended, interval: float) -> None:
        self.key = key
        self.text = ""
        self.version = 0
        self.ended = False
        """The page's data says it has ended: `text` is the last one."""
        self.failed = False
        """Reading the page failed: its streams close without an end (the page polls instead)."""
        self.listeners = 0
        self._changed = asyncio.Event()
        self._task = asyncio.create_task(self._produce(read, ended, interval), name=f"feed {key}")

    @property
    def over(self) -> bool:
        return self.ended or self.failed

    async def _produce(self, read: Read, ended: Ended, interval: float) -> None:
        try:
            while True:
                shown = await read()
                text = json.dumps(shown, separators=(",", ":"))
                done = ended(shown)
                if text != self.text or done:
                    self.text, self.ended = text, done
                    self._publish()
                if done:
                    return
                await asyncio.sleep(interval)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("reading the live data of %s", self.key)
            self.failed = True
            self._publish()

    def _publish(self) -> None:
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def events(self) -> AsyncIterator[str]:
        """This feed as Server-Sent Events: `update` at each change, then `end` with the last one."""
        seen = 0
        while True:
            changed = self._changed
            if self.version != seen:
                seen = self.version
                if self.failed:
                    return
                if self.ended:
                    yield f"event: end\ndata: {self.text}\n\n"
                    return
                yield f"event: update\ndata: {self.text}\n\n"
                continue
            try:
                async with asyncio.timeout(HEARTBEAT):
                    await changed.wait()
            except TimeoutError:
                yield ": still here\n\n"

    def stop(self) -> None:
        self._task.cancel()


class Feeds:
    """The live feeds by page: a listener joins the running one or starts it; the last to leave stops it."""

    def __init__(self) -> None:
        self._feeds: dict[str, Feed] = {}

    def __len__(self) -> int:
        return len(self._feeds)

    def join(self, key: str, read: Read, ended: Ended, interval: float) -> Feed:
        feed = self._feeds.get(key)
        if feed is None or feed.over:
            feed = self._feeds[key] = Feed(key, read, ended, interval)
        feed.listeners += 1
        return feed

    def leave(self, feed: Feed) -> None:
        feed.listeners -= 1
        if feed.listeners <= 0:
            feed.stop()
            if self._feeds.get(feed.key) is feed:
                del self._feeds[feed.key]

    def stop(self) -> None:
        for feed in self._feeds.values():
            feed.stop()
        self._feeds.clear()
