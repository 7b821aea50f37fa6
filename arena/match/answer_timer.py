"""The deadline of a match's running answer, kept by one timer for the whole match.

`asyncio.timeout` arms a timer (a heap entry on the event loop) for every move and cancels it when
the answer comes: awaiting an answer under it cost 7 µs more, under this timer 1.3 µs more (alone,
without a server around it; docs/BENCHMARKS.md). A match asks one seat at a time, and each
deadline is later than the last unless a bank ran low, so one timer serves them all: it is set again
only for a deadline earlier than the one it is set for, and when it fires before the running
answer's deadline (the answer it was set for came), it is set for that deadline. It then fires
about once per move budget, not once per move.

Expiry is what `asyncio.timeout` does: the waiting task is cancelled, and that CancelledError
reads as a timeout unless someone else cancelled the task too.
"""

from __future__ import annotations

import asyncio
import math


class AnswerTimer:
    """One match's answer deadlines: `start` one, `stop` it when the wait ends, `close` with the match."""

    __slots__ = ("_at", "_cancelling", "_expired", "_handle", "_task", "_when")

    def __init__(self) -> None:
        self._handle: asyncio.TimerHandle | None = None
        self._at = math.inf
        """The loop time the handle fires at."""
        self._task: asyncio.Task[object] | None = None
        """The task waiting for the running answer; None between answers."""
        self._when = math.inf
        """The running answer's deadline (loop time)."""
        self._cancelling = 0
        self._expired = False

    def start(self, seconds: float) -> None:
        """The current task waits for an answer for at most `seconds` from now."""
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("an answer's deadline needs a running task")
        loop = task.get_loop()
        self._task, self._cancelling, self._expired = task, task.cancelling(), False
        self._when = loop.time() + seconds
        if self._when < self._at:
            self._set(loop, self._when)

    def extend(self, seconds: float) -> None:
        """Move the running answer's deadline later (between answers it changes nothing: `start` sets the next)."""
        self._when += seconds

    def stop(self, cancelled: bool) -> bool:
        """The wait is over, `cancelled` if it ended in CancelledError: True when that was this deadline
        expiring (the caller raises TimeoutError in its place), False when there was no timeout or the
        task was also cancelled by someone else (the CancelledError goes on)."""
        task, self._task = self._task, None
        if task is None or not self._expired:
            return False
        return task.uncancel() <= self._cancelling and cancelled

    def close(self) -> None:
        """The match is over: no timer left behind."""
        self._task = None
        if self._handle is not None:
            self._handle.cancel()
            self._handle, self._at = None, math.inf

    def _set(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle, self._at = loop.call_at(when, self._fire), when

    def _fire(self) -> None:
        fired_at = self._at
        self._handle, self._at = None, math.inf
        task = self._task
        if task is None:
            return
        if self._when <= fired_at:
            self._expired = True
            task.cancel()
        else:
            self._set(task.get_loop(), self._when)
