"""Waiting in tests for something the server does in the background, with a bound and a diagnosis."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable


def task_stacks() -> str:
    """Every asyncio task of the running loop with the stack it is waiting in."""
    out = io.StringIO()
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            try:
                task.print_stack(limit=8, file=out)
            except TypeError:  # a frame without a line number (CPython 3.11's linecache cannot print it)
                out.write(f"{task!r}: stack not printable\n")
    return out.getvalue()


async def until(
    check: Callable[[], Awaitable[bool]],
    what: str,
    timeout: float = 60.0,
    every: float = 0.05,
    progress: Callable[[], Awaitable[object]] | None = None,
) -> None:
    """Poll `check` until it is true; fail after `timeout` seconds naming `what` and where each task waits.

    With `progress` (say, how many matches are stored) the `timeout` counts from its last change: a long
    job on a loaded machine may take many times its quiet duration, but one that stops moving fails.
    The stacks tell a stalled server (tasks stuck in a call) from a slow one on a busy machine.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    seen = await progress() if progress is not None else None
    while not await check():
        if progress is not None and (now := await progress()) != seen:
            seen, deadline = now, loop.time() + timeout
        if loop.time() > deadline:
            still = f" (still at {seen!r})" if progress is not None else ""
            raise AssertionError(f"{what}: not within {timeout:.0f} s{still}; the tasks wait in:\n{task_stacks()}")
        await asyncio.sleep(every)
