"""One view of each watched tournament for all of its watchers, built within a share of the node's time.

A tournament's view reads and parses every result it has (`tournament_view`), so for a tournament of
n matches it costs O(n), and a watcher wants a new one after each result. Built for each watcher, the
16 watch streams that one address may open without a token would make a 2,000-match tournament cost
the node more than its cores while the results come in, and its matches would wait. So a node builds
one view of a tournament for all of its watchers; and after a build that took t seconds it starts
the next no sooner than t / `SHARE` seconds later, however many watch: a tournament's views take at
most that share of the node's time. A busy tournament's watchers see its results in batches then;
the final view (the tournament finished) is always built at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arena import metrics
from arena.node.tournaments import TournamentView, tournament_view
from arena.store import Store
from arena.store.tournaments import TournamentState

SHARE = 0.05
"""At most this share of a node's time goes to building one tournament's views."""

Build = Callable[[Store, TournamentState], Awaitable[TournamentView]]


@dataclass
class KeptView:
    """A tournament's latest view, shared by its watchers."""

    marks: Hashable
    """What the view was built at (its caller's marks: results and aborts counted, rounds planned, ...)."""
    view: TournamentView
    built: float
    """The event loop's time when the build ended."""
    rest_until: float
    """No new build starts before this time (unless the tournament finished)."""
    converted: dict[Any, Any] = field(default_factory=dict)
    """The callers' conversions of `view` (a message for the admin, one for everyone else), made once."""


class TournamentViews:
    """The views of the tournaments watched on this node."""

    def __init__(self, store: Store, share: float = SHARE, build: Build = tournament_view) -> None:
        self.store = store
        self.share = share
        self._build = build
        self._kept: dict[str, KeptView] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._watchers: dict[str, int] = {}

    @contextlib.contextmanager
    def watching(self, name: str) -> Iterator[None]:
        """A watcher of tournament `name` for the block's duration: what is kept for it goes with its last watcher."""
        self._watchers[name] = self._watchers.get(name, 0) + 1
        try:
            yield
        finally:
            self._watchers[name] -= 1
            if not self._watchers[name]:
                del self._watchers[name]
                self._kept.pop(name, None)
                self._locks.pop(name, None)

    async def view(self, state: TournamentState, marks: Hashable, refresh: float) -> KeptView:
        """The view of `state`'s tournament: the kept one while it was built at `marks` less than `refresh`
        seconds ago, or while the tournament's share of time is spent; else a new one."""
        name = state.spec.name
        # Kept (as the view is) only while someone watches: a caller outside `watching` leaves nothing behind.
        lock = self._locks.setdefault(name, asyncio.Lock()) if name in self._watchers else asyncio.Lock()
        async with lock:  # watchers who ask during a build get that build
            loop = asyncio.get_running_loop()
            kept = self._kept.get(name)
            if kept is not None:
                if kept.marks == marks and (state.finished_ms or loop.time() - kept.built < refresh):
                    return kept
                if not state.finished_ms and loop.time() < kept.rest_until:
                    return kept
            started = loop.time()
            view = await self._build(self.store, state)
            ended = loop.time()
            metrics.TOURNAMENT_VIEWS.inc()
            kept = KeptView(marks, view, ended, ended + (ended - started) / self.share)
            if name in self._watchers:
                self._kept[name] = kept
            return kept
