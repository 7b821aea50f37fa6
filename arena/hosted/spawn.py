"""Starting a hosted bot's process with CPython's own subprocess code, whatever the event loop.

`asyncio.create_subprocess_exec` on uvloop's loop starts the process with libuv's fork(), which
runs every library's fork handlers in the child. In a node whose gRPC threads are busy, that child
can crash before it reaches exec (the launch then ends "killed by signal 11"; seen under
`--event-loop uvloop` with hosted bots). CPython's subprocess module starts it with vfork, which
runs no fork handler, and asyncio's own loop uses that module too: so do we, on both loops. The
exit is awaited through a pidfd (Linux 5.3), which needs neither a thread nor a child watcher.
Bytes for its stdin (a hosted bot's package, for the package reader) are written from the event
loop as the pipe takes them, so a slow reader holds up nothing.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

PIPE_STEP = 1 << 16
"""The most bytes written into a pipe at once."""


class Process:
    """A started process: its pid, its stderr as a stream, and its exit to await."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stderr: asyncio.StreamReader,
        exited: asyncio.Future[int],
        feeding: _Feed | None,
    ) -> None:
        self._popen = popen
        self.stderr = stderr
        self._exited = exited
        self._feeding = feeding

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once reaped (minus the signal's number when a signal ended it), else None."""
        return self._exited.result() if self._exited.done() else None

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    def close_stdin(self) -> None:
        """Stop writing its stdin and close the pipe (its reader may be gone; the rest of the bytes is dropped)."""
        if self._feeding is not None:
            self._feeding.close()


class _Feed:
    """Writes `data` into a pipe whenever the pipe has room, then closes it; a reader that leaves ends it too."""

    def __init__(self, loop: asyncio.AbstractEventLoop, pipe: IO[bytes], data: bytes) -> None:
        self._loop = loop
        self._pipe = pipe
        self._fd = pipe.fileno()
        self._left = memoryview(data)
        os.set_blocking(self._fd, False)
        loop.add_writer(self._fd, self._write)

    def _write(self) -> None:
        try:
            while self._left:
                self._left = self._left[os.write(self._fd, self._left[:PIPE_STEP]) :]
        except BlockingIOError:
            return  # the pipe is full: the loop calls again when it has room
        except OSError:
            pass  # the reader is gone (it refused the package, or the sandbox failed): nothing more to give
        self.close()

    def close(self) -> None:
        if not self._pipe.closed:
            self._loop.remove_writer(self._fd)
            self._pipe.close()
        self._left = memoryview(b"")


async def start(argv: Sequence[str], cwd: Path | str, env: Mapping[str, str], stdin: bytes | None = None) -> Process:
    """Start `argv` in a session of its own, stdout on /dev/null, stderr a pipe, stdin the bytes `stdin` (or
    /dev/null); OSError if it cannot start."""
    loop = asyncio.get_running_loop()
    popen = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert popen.stderr is not None
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), popen.stderr)
    exited: asyncio.Future[int] = loop.create_future()
    feeding = None
    if stdin is not None:
        assert popen.stdin is not None
        feeding = _Feed(loop, popen.stdin, stdin)
    process = Process(popen, reader, exited, feeding)

    def reaped(code: int) -> None:
        if not exited.done():
            exited.set_result(code)

    try:
        pidfd = os.pidfd_open(popen.pid)
    except (AttributeError, OSError):  # no pidfd (an older kernel): a thread waits instead
        loop.run_in_executor(None, popen.wait).add_done_callback(lambda done: reaped(done.result()))
        return process

    def readable() -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)
        reaped(popen.wait())  # it has exited: this only reaps it

    loop.add_reader(pidfd, readable)
    return process
