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


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 60.0, every: float = 0.05) -> None:
    """Poll `check` until it is true; fail after `timeout` seconds naming `what` and where each task waits.

    The stacks tell a stalled server (tasks stuck in a call) from a slow one on a busy machine.
    """
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s; the tasks wait in:\n{task_stacks()}")
        await asyncio.sleep(every)
