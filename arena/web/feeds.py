"""Live pages' data, read once for everyone watching: one producer per match or tournament.

Each Server-Sent Events stream used to read its page's data itself, four times a second for a
match: 1,000 open streams of one match were 4,000 reads (and JSON encodings) a second in the
node's event loop, and a match beside them slowed from 0.2 s to 11 s. Now a `Feed` reads the page
every `interval` seconds while anyone listens and keeps the last text; each stream only waits for
the next change and writes it out. The producer stops when its last listener leaves.
`LiveStreams` serves the streams, each client address holding a few at most.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from arena import metrics
from arena.node.clients import AddressCounts, client_address
from arena.node.fds import FdBudget
from arena.web.guard import WebLimits

log = logging.getLogger(__name__)

HEARTBEAT = 15.0
"""Seconds of silence after which a stream sends a comment, so that proxies keep it open."""
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

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


@dataclass
class LiveStreams:
    """The web UI's live pages: one feed per page (`Feeds`), and the streams each client address holds."""

    limits: WebLimits
    fds: FdBudget | None = None
    feeds: Feeds = field(default_factory=Feeds)
    counts: AddressCounts = field(init=False)

    def __post_init__(self) -> None:
        self.counts = AddressCounts(self.limits.streams_per_address, self.limits.streams)

    def response(self, key: str, read: Read, ended: Ended, interval: float) -> Response:
        return _LiveResponse(self, key, read, ended, interval)


class _LiveResponse(Response):
    """A Server-Sent Events stream of one page's feed, or, past the caller's share of streams, a one-line refusal."""

    def __init__(self, streams: LiveStreams, key: str, read: Read, ended: Ended, interval: float) -> None:
        super().__init__(media_type="text/event-stream", headers=STREAM_HEADERS)
        self.streams, self.key, self.read, self.ended, self.interval = streams, key, read, ended, interval

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        streams = self.streams
        client = scope.get("client")
        address = client_address(client[0]) if client else ""
        refused = _stream_refusal(streams, address)
        if refused is not None:
            await refused(scope, receive, send)
            return
        feed = streams.feeds.join(self.key, self.read, self.ended, self.interval)
        metrics.LIVE_STREAMS.labels("sse").inc()
        try:
            stream = StreamingResponse(feed.events(), media_type="text/event-stream", headers=STREAM_HEADERS)
            await stream(scope, receive, send)
        finally:
            metrics.LIVE_STREAMS.labels("sse").dec()
            streams.feeds.leave(feed)
            streams.counts.give_back(address)


def _stream_refusal(streams: LiveStreams, address: str) -> JSONResponse | None:
    """None when `address` may open one more live stream (it is counted), else the response refusing it."""
    if streams.fds is not None and streams.fds.short():
        metrics.REFUSALS.labels("fds").inc()
        return JSONResponse({"detail": streams.fds.short_text()}, status_code=503, headers={"Retry-After": "5"})
    full = streams.counts.take(address)
    if not full:
        return None
    metrics.REFUSALS.labels(f"streams_{full}").inc()
    if full == "address":
        limit = streams.limits.streams_per_address
        text = f"your address holds its maximum of {limit} live streams; close a live page, or poll the JSON API"
        return JSONResponse({"detail": text}, status_code=429, headers={"Retry-After": "5"})
    text = f"this arena serves its maximum of {streams.limits.streams} live streams; poll the JSON API instead"
    return JSONResponse({"detail": text}, status_code=503, headers={"Retry-After": "5"})
