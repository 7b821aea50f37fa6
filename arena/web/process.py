"""The web UI in a process of its own, started and kept running by the node (or by the supervisor of
its workers), so that no page ever waits on a match.

Served in the node's own event loop, the pages took a median 8.4 s to load (at most 10.7 s) while a
tournament of 120 matches ran beside them, against 0.59 s idle: every request queued behind the
moves, clocks and relay of the node's matches (`benchmarks/web_latency.py` compares both ways).

- The node binds and listens on the web UI's port itself (`web_listener`): a port in use is one log
  line, and the node serves gRPC without its web UI. The listening socket is handed to the process
  (its descriptor inherited), so that while the process (re)starts a request waits in the kernel's
  backlog instead of being refused, and the port is never given up.
- The process is a fresh interpreter (`python -m arena.web`, started by CPython's subprocess code as
  the built-in bots' workers are: nothing of the node's gRPC threads is forked, no module of the
  node's is imported again). It reads its settings, the Redis URL and its password among them and
  the address of the node's gRPC API, from a socket pair with the node (never from its command line
  or environment), answers "ready" there once it serves, or "failed" and why.
- It reads Redis alone (`WebData`): running matches are re-played from the moves their node writes
  to their event streams, bots are connected as the nodes' presence in Redis says. So it shows every
  node's matches alike, and needs nothing of the node's memory. Its limits per client address
  (`WebLimits`) are its own to enforce. What a signed-in owner changes it asks of the node's gRPC
  API, with the owner's token (`arena.web.accounts`).
- It dies with the node: the kernel kills it when the node dies (parent-death signal, kill -9
  included), and it stops when the node closes its end of the socket pair. When it dies on its own
  it is started again after a back-off (0.5 s, doubling up to 10 s while it keeps dying within a
  minute of its start), with one log line each time; the node never stops for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena import logs
from arena.logs import LogFormat
from arena.node import fds
from arena.node.clients import PeerLimits
from arena.node.lifeline import die_with_parent
from arena.store import RedisUnavailable, Store, open_redis
from arena.store.archive import Archive
from arena.store.ratings import RatingStore
from arena.web.data import WebData
from arena.web.guard import WebLimits
from arena.web.listener import WebUnavailable, listen, url_of
from arena.web.node_api import NodeAddress

log = logging.getLogger(__name__)

REDIS_CONNECTIONS = 32
"""The web UI's pool of Redis connections: one event loop's requests, each a few short commands."""
READY_WAIT = 30.0
"""Seconds the node waits at start for the web UI's process to serve before it goes on without
(requests wait in the backlog meanwhile; the process keeps being started)."""
FIRST_BACKOFF = 0.5
"""Seconds before a restart after the process died; each death soon after a start doubles it..."""
MAX_BACKOFF = 10.0
"""...up to this."""
STEADY = 60.0
"""A process that ran this long before it died is started again after the first back-off."""
STOP_GRACE = 5.0
"""Seconds the process has to stop after SIGTERM (its connections get 1 s) before it is killed."""
ENTRY = "arena.web"
"""The module the process runs (`python -m arena.web`)."""
_LENGTH = struct.Struct("!I")


@dataclass(frozen=True)
class WebSettings:
    """What the web UI's process needs, sent to it through its socket pair with the node."""

    redis_url: str
    """The store, password included (so never on a command line or in an environment)."""
    archive_dir: Path | None = None
    """Where finished matches moved out of Redis are read from (`arena serve --archive-dir`)."""
    limits: WebLimits = field(default_factory=WebLimits)
    log_format: LogFormat = LogFormat.TEXT
    node: str = ""
    """The node's name and incarnation, for the process's log lines."""
    incarnation: str = ""
    redis_connections: int = REDIS_CONNECTIONS
    node_api: NodeAddress | None = None
    """Where the process reaches the node's gRPC API for what signed-in owners change (None: signing in is off)."""
    peers: PeerLimits = field(default_factory=PeerLimits)
    """The node's limits on wrong tokens, which signing in here obeys too."""


def web_listener(host: str, port: int) -> socket.socket | None:
    """The web UI's listening socket on host:port, or None after one log line saying why not (a port in
    use): the node then serves gRPC without its web UI."""
    try:
        return listen(host, port)
    except WebUnavailable as error:
        log.warning("%s; this node serves gRPC without its web UI", error)
        return None


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


class WebProcess:
    """The web UI's process, kept running on `listener` from `start` until `stop`."""

    def __init__(
        self, listener: socket.socket, settings: WebSettings, environment: Mapping[str, str] | None = None
    ) -> None:
        self.listener = listener
        self.settings = settings
        self.environment = dict(environment) if environment is not None else None
        """The process's environment (None: this process's)."""
        self.url = url_of(listener)
        self.port: int = listener.getsockname()[1]
        self.process: subprocess.Popen[bytes] | None = None
        """The current process (or the last one, while a restart waits)."""
        self.serving = False
        self.starts = 0
        self._settled = asyncio.Event()
        """Set once the first process serves, or has died."""
        self._task: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def start(self, wait: float = READY_WAIT) -> bool:
        """Start the process and keep it running; whether it serves within `wait` seconds (if not, one
        log line; it keeps being started, and requests wait in the backlog meanwhile)."""
        self._task = asyncio.create_task(self._keep(), name="web process")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                await self._settled.wait()
        if not self.serving and not self._settled.is_set():
            log.warning("the web UI's process does not serve yet after %.0f s; pages wait until it does", wait)
        return self.serving

    async def _keep(self) -> None:
        quick_deaths = 0
        while True:
            began = time.monotonic()
            how = await self._run()
            quick_deaths = 0 if time.monotonic() - began >= STEADY else quick_deaths + 1
            delay = min(MAX_BACKOFF, FIRST_BACKOFF * 2 ** max(0, quick_deaths - 1))
            log.warning("the web UI's process (pid %s) %s; starting it again in %.1f s", self.pid, how, delay)
            self._settled.set()
            await asyncio.sleep(delay)

    async def _run(self) -> str:
        """One process from its start to its end; how it ended."""
        mine, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", ENTRY, str(theirs.fileno()), str(self.listener.fileno()), str(os.getpid())],
                pass_fds=(theirs.fileno(), self.listener.fileno()),
                stdin=subprocess.DEVNULL,
                stdout=2,  # the node's stdout says only where it serves
                env=self.environment,
            )
        except OSError as error:
            mine.close()
            return f"could not be started: {error.strerror}"
        finally:
            theirs.close()
        self.starts += 1
        process = self.process
        reader, writer = await asyncio.open_connection(sock=mine)
        failure = ""
        try:
            body = pickle.dumps(self.settings)
            writer.write(_LENGTH.pack(len(body)) + body)
            while line := await reader.readline():
                word, _, rest = line.decode(errors="replace").strip().partition(" ")
                if word == "ready":
                    self.serving = True
                    self._settled.set()
                    if self.starts > 1:
                        log.warning("the web UI's process serves again (pid %s)", process.pid)
                elif word == "failed":
                    failure = rest
        except (ConnectionError, OSError):
            pass  # it is gone: its exit says how
        finally:
            self.serving = False
            writer.close()
        code = await asyncio.to_thread(_reap, process)
        return _exit_text(code) + (f" before serving: {failure}" if failure else "")

    async def stop(self) -> None:
        """Stop keeping it, SIGTERM it (killed after `STOP_GRACE`), and give the port up."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        process = self.process
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            await asyncio.to_thread(_reap, process)
        self.listener.close()


def _reap(process: subprocess.Popen[bytes]) -> int:
    """Its exit code once it exited, killing it if it does not within `STOP_GRACE`."""
    try:
        return process.wait(STOP_GRACE)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


# -- the process itself --------------------------------------------------------------------------


def main(argv: list[str]) -> None:
    """`python -m arena.web CONTROL_FD LISTENER_FD PARENT_PID`: serve the web UI until the node says stop."""
    control_fd, listener_fd, parent = (int(arg) for arg in argv[1:4])
    die_with_parent(parent)
    # A Ctrl-C in a terminal reaches every process of the group: the node alone acts on it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    control = socket.socket(fileno=control_fd)
    listener = socket.socket(fileno=listener_fd)
    settings = _read_settings(control)
    logs.configure(settings.log_format, settings.node, settings.incarnation)
    try:
        asyncio.run(_serve(settings, listener, control))
    except Exception as error:
        why = (
            str(error) if isinstance(error, (RedisUnavailable, WebUnavailable)) else f"{type(error).__name__}: {error}"
        )
        with contextlib.suppress(OSError):
            control.setblocking(True)
            control.sendall(f"failed {' '.join(why.split())}\n".encode())
        if not isinstance(error, (RedisUnavailable, WebUnavailable)):
            log.exception("the web UI's process stopped")
        sys.exit(1)


def _read_settings(control: socket.socket) -> WebSettings:
    head = _read_exactly(control, _LENGTH.size)
    body = _read_exactly(control, _LENGTH.unpack(head)[0])
    settings = pickle.loads(body)
    if not isinstance(settings, WebSettings):
        raise TypeError(f"the node sent {type(settings).__name__}, not WebSettings")
    return settings


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            sys.exit(0)  # the node went away before it said what to serve
        chunks += chunk
    return bytes(chunks)


async def _serve(settings: WebSettings, listener: socket.socket, control: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    control.setblocking(False)

    def node_said() -> None:
        try:
            if control.recv(64):
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        loop.remove_reader(control.fileno())  # closed: the node stops (or died)
        stop.set()

    loop.add_reader(control.fileno(), node_said)
    plan = fds.plan(fds.raise_soft_limit(), settings.redis_connections)
    # The web UI is this process's only listener: every descriptor left after Redis is its to share out.
    budget = fds.FdBudget(dataclasses.replace(plan, grpc=0, web=plan.limit - plan.reserve))
    limits = dataclasses.replace(settings.limits, connections=min(settings.limits.connections, budget.plan.web))
    archive = Archive(settings.archive_dir) if settings.archive_dir is not None else None
    async with open_redis(settings.redis_url, Path("."), settings.redis_connections) as redis:
        source = WebData(Store(redis, archive=archive), RatingStore(redis, archive=archive))
        from arena.web.server import start_web  # the web process's own import: the node never loads uvicorn

        web = await start_web(source, listener, limits, budget, settings.node_api, settings.peers)
        try:
            control.sendall(b"ready\n")
            await stop.wait()
        finally:
            await web.stop()
