"""Starting a hosted bot's process with CPython's own subprocess code, whatever the event loop.

`asyncio.create_subprocess_exec` on uvloop's loop starts the process with libuv's fork(), which
runs every library's fork handlers in the child. In a node whose gRPC threads are busy, that child
can crash before it reaches exec (the launch then ends "killed by signal 11"; seen under
`--event-loop uvloop` with hosted bots). CPython's subprocess module starts it with vfork, which
runs no fork handler, and asyncio's own loop uses that module too: so do we, on both loops. The
exit is awaited through a pidfd (Linux 5.3), which needs neither a thread nor a child watcher.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


class Process:
    """A started process: its pid, its stderr as a stream, and its exit to await."""

    def __init__(self, popen: subprocess.Popen[bytes], stderr: asyncio.StreamReader, exited: asyncio.Future[int]):
        self._popen = popen
        self.stderr = stderr
        self._exited = exited

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once reaped (minus the signal's number when a signal ended it), else None."""
        return self._exited.result() if self._exited.done() else None

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)


async def start(argv: Sequence[str], cwd: Path | str, env: Mapping[str, str]) -> Process:
    """Start `argv` in a session of its own, stdin and stdout on /dev/null, stderr a pipe; OSError if it cannot start."""
    loop = asyncio.get_running_loop()
    popen = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert popen.stderr is not None
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), popen.stderr)
    exited: asyncio.Future[int] = loop.create_future()

    def reaped(code: int) -> None:
        if not exited.done():
            exited.set_result(code)

    try:
        pidfd = os.pidfd_open(popen.pid)
    except (AttributeError, OSError):  # no pidfd (an older kernel): a thread waits instead
        loop.run_in_executor(None, popen.wait).add_done_callback(lambda done: reaped(done.result()))
        return Process(popen, reader, exited)

    def readable() -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)
        reaped(popen.wait())  # it has exited: this only reaps it

    loop.add_reader(pidfd, readable)
    return Process(popen, reader, exited)
