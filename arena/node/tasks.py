"""Stopping background tasks within a bounded time."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection

log = logging.getLogger(__name__)

STOP_TIMEOUT = 5.0
"""Seconds a stopping part of the server waits for its tasks before it goes on without them."""


async def cancel_and_wait(tasks: Collection[asyncio.Task[None]], what: str, timeout: float = STOP_TIMEOUT) -> None:
    """Cancel `tasks` and wait at most `timeout` seconds for them to end.

    A cancellation can be swallowed inside a library call under way (a Redis command), and the
    server's stop must never hang on that: tasks still running then are logged and left behind.
    """
    for task in tasks:
        task.cancel()
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=timeout)
    for task in pending:
        log.warning("%s: task %r did not stop within %.0f s; going on without it", what, task.get_name(), timeout)


def stop_if_cancelled() -> None:
    """Raise CancelledError when this task was asked to stop, for the top of a background task's endless loop.

    A library call under way can swallow a cancellation (redis-py inside a command; `asyncio.wait_for` in
    Python 3.11 when its awaitable finishes at the same moment). The loop then went round for ever: the
    stop went on without it after `STOP_TIMEOUT`, and asyncio's own end of the run, which cancels every
    task left and waits for them, hung on it. A request to cancel stays counted on the task (`cancelling`)
    until taken back, so it is seen here even when its CancelledError was lost.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
