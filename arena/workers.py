"""`arena serve`: N node processes (one a core, `usable_cores`; `--workers N`) on one port and one Redis, kept running
by a supervisor.

A node is one asyncio loop in one Python process, so it keeps one core busy at most; N workers keep
N. Each worker runs today's node (`arena.app.running`) under a name of its own in the work stream,
`<node>-w<i>` (a restarted one `<node>-w<i>r<k>`, so that its dead incarnation's sessions and ladder
tickets, stated in Redis under the old name, are never taken for living ones). The workers share
the work exactly as several nodes on one Redis do: orders through the consumer group, and a bot
connected to one worker is seated in a match hosted by another through the relay streams.

The gRPC port is shared with SO_REUSEPORT: the kernel spreads new connections over the workers, so
a bot resuming its session may reach a worker that does not hold it; that worker forwards the stream
to the one that does, found through the Unix sockets the workers link into a folder of the
supervisor's (`arena.node.siblings`).

SO_REUSEPORT would also let a second server of the same user join the port silently, so before
starting any worker the supervisor
- binds a probe socket without SO_REUSEPORT, which fails while anything listens on the port (a
  lone server, another program, another supervisor's workers): a one-line error;
- keeps a socket bound on the port with SO_REUSEPORT but never listening (it is given no
  connections): the port stays reserved while a worker restarts, and port 0 is chosen once for all;
- takes a lock named by the port (an abstract Unix socket, freed by the kernel when the supervisor
  dies), so that a second supervisor fails even while none of the first one's workers listens.

The web UI is one process of its own (`arena.web.process`), started and kept running by the
supervisor beside the workers: it reads Redis alone, so it shows every worker's matches and bots,
and no worker's restart takes it away. A port in use is one log line; the workers serve without it.
(With --web-in-node, worker 1 serves it in its event loop, on a port the supervisor reserves as
it does the gRPC port; while worker 1 restarts, the web UI is away.)

The supervisor opens Redis first (starting the embedded one, whose Unix socket and password reach
the workers through a pipe, never a command line or environment), so that an unreachable Redis is
one error before any worker starts. It aborts the matches an earlier run left running and makes the
admin token, once (`arena.app.take_over`); a worker never does, or a restarted one would abort the
matches the others are playing.

A worker that dies is started again after a back-off, with one line on stderr naming it, its exit
code or signal and its restart count. One that dies before serving, at the first start or after too
many restarts in a row, stops the whole server with a one-line error rather than a restart loop.
SIGTERM or SIGINT to the supervisor stops every worker with SIGTERM (each hands its work matches on
and stops its hosted bots), then the embedded Redis. Every worker runs hosted bots: the one hosting a
match launches them, and kills them when it stops; a worker dies with its supervisor (parent-death
signal), and a sandboxed bot with its worker (bubblewrap's --die-with-parent).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import multiprocessing
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from arena import logs, metrics, scratch
from arena.app import (
    ServerConfig,
    announce_serving,
    incarnate,
    redis_url_of,
    run_node,
    running,
    stop_on,
    take_over,
    web_settings,
)
from arena.node.builtin_pool import PoolConfig
from arena.node.cpus import usable_cores
from arena.node.lifeline import die_with_parent
from arena.node.work import node_name
from arena.store import RedisUnavailable, Store, open_redis
from arena.web import process as web_process
from arena.web.listener import WebUnavailable
from arena.web.node_api import NodeAddress
from arena.web.process import WebProcess

log = logging.getLogger(__name__)

FIRST_BACKOFF = 0.5
"""Seconds before a worker's first restart; each death soon after a start doubles it..."""
MAX_BACKOFF = 10.0
"""...up to this."""
STEADY = 60.0
"""A worker that ran this long before it died starts again after the first back-off."""
MAX_FAILED_STARTS = 4
"""Restarts in a row that die before serving, after which the supervisor gives up."""
STOP_GRACE = 30.0
"""Seconds a worker has to stop after SIGTERM before it is killed."""
LOCK_PREFIX = "thirteen-arena-port-"


class SupervisorError(RuntimeError):
    """The workers cannot be started or kept running; the one-line message says why."""


def builtin_share(pool: PoolConfig, count: int, cores: int = 0) -> PoolConfig:
    """A worker's pool of built-in bots' processes: its share of the `cores` (by default the usable ones) less one;
    each worker's pool alone would take them all (a worker a core on 16 cores: 15 processes each, 240 in all)."""
    if pool.workers:
        return pool
    return dataclasses.replace(pool, workers=max(1, math.ceil(((cores or usable_cores()) - 1) / count)))


def worker_name(base: str, index: int, restarts: int) -> str:
    """Worker `index`'s name in the work stream after `restarts` restarts."""
    return f"{base}-w{index}" + (f"r{restarts}" if restarts else "")


# -- the ports -------------------------------------------------------------------------------


def _addresses(host: str, port: int) -> list[tuple[socket.AddressFamily, tuple[Any, ...]]]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise SupervisorError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    return list(dict.fromkeys((family, address) for family, _, _, _, address in found))


def _bound(family: socket.AddressFamily, address: tuple[Any, ...], *, reuse_port: bool) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        # As the listeners do: a port whose last connections linger in TIME_WAIT is free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def _reserve(host: str, port: int, *, shared: bool) -> tuple[list[socket.socket], int]:
    """Sockets bound (never listening) on every address of host:port, and the port (chosen when 0).

    `shared`: the workers will listen beside them with SO_REUSEPORT, so first a probe without it
    makes sure nothing listens there yet."""
    held: list[socket.socket] = []
    try:
        for family, address in _addresses(host, port):
            address = (address[0], port, *address[2:])
            if shared and port:
                _bound(family, address, reuse_port=False).close()
            held.append(_bound(family, address, reuse_port=shared))
            port = held[-1].getsockname()[1]
    except OSError:
        for sock in held:
            sock.close()
        raise
    return held, port


def _lock(port: int) -> socket.socket | None:
    """Hold the port's lock: only one supervisor may share a port among its workers."""
    if not sys.platform.startswith("linux"):
        return None  # abstract Unix sockets are Linux's; elsewhere the probe alone guards the port
    lock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        lock.bind(f"\0{LOCK_PREFIX}{port}")
    except OSError:
        lock.close()
        raise
    return lock


@contextlib.contextmanager
def held_port(host: str, port: int) -> Iterator[None]:
    """A lone node's port: fail in one line if something listens on host:port already (gRPC would
    say so too, but late and in a log line of its own), then keep it bound, never listening, while
    the node runs. A bound port is never given to an outgoing connection as its local port, so one
    of the connections the node opens while it starts (or any other on this machine) cannot take the
    port before gRPC binds it; gRPC binds beside it, as both allow address reuse."""
    if port == 0:
        yield  # gRPC chooses one: nothing to keep
        return
    try:
        held, _ = _reserve(host, port, shared=False)
    except OSError:
        raise SupervisorError(f"cannot listen on {host}:{port}: is another server running there?") from None
    try:
        yield
    finally:
        for sock in held:
            sock.close()


@contextlib.contextmanager
def reserved_ports(host: str, port: int, http_port: int | None) -> Iterator[tuple[int, int | None]]:
    """Check that the gRPC port and the web UI's are free, and hold them while the workers run;
    yields both ports, chosen here when given as 0."""
    with contextlib.ExitStack() as held:
        try:
            grpc_sockets, port = _reserve(host, port, shared=True)
            lock = _lock(port)
        except OSError:
            raise SupervisorError(f"cannot listen on {host}:{port}: is another server running there?") from None
        for sock in [*grpc_sockets, *([lock] if lock else [])]:
            held.callback(sock.close)
        if http_port is not None:
            try:
                web_sockets, http_port = _reserve(host, http_port, shared=False)
            except OSError as error:
                log.warning(
                    "cannot serve the web UI on %s:%s: %s; the workers serve without it",
                    host,
                    http_port,
                    error.strerror,
                )
                web_sockets, http_port = [], None
            for sock in web_sockets:
                held.callback(sock.close)
        yield port, http_port


# -- a worker process -------------------------------------------------------------------------


def worker_main(config: ServerConfig, index: int, pipe: Connection, parent: int) -> None:
    """The body of worker `index` (a spawned process): one node until SIGTERM; it tells the supervisor
    through `pipe` when it serves ("ready", address, web URL) or why it could not start ("failed", why)."""
    die_with_parent(parent)  # however the supervisor dies, kill -9 included
    # A Ctrl-C in a terminal reaches every process of the group: the supervisor alone acts on it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    config = incarnate(config)
    logs.configure(config.log_format, config.work.node, config.work.incarnation)
    try:
        run_node(_work(config, pipe), config.event_loop)
    except Exception as error:
        pipe.send(("failed", _why(config, error)))
        if not isinstance(error, (RedisUnavailable, WebUnavailable, RuntimeError)):
            log.exception("worker %d stopped", index)
        sys.exit(1)
    # The node has stopped cleanly (matches handed on, hosted bots killed, Redis closed). The
    # interpreter's finalization, with no Python frame left (gRPC's core going down), was seen to
    # hold a stopped worker for 10 s on a loaded machine: it is skipped.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


async def _work(config: ServerConfig, pipe: Connection) -> None:
    stop = stop_on(signal.SIGTERM)
    async with (
        open_redis(config.redis_url, config.data_dir, config.redis_connections) as redis,
        running(config, redis) as arena,
    ):
        pipe.send(("ready", arena.address, arena.web_url))
        await stop.wait()


def _why(config: ServerConfig, error: Exception) -> str:
    if isinstance(error, RuntimeError) and "bind" in str(error).lower():
        return f"cannot listen on {config.host}:{config.port}: is another server running there?"
    if isinstance(error, (RedisUnavailable, WebUnavailable)):
        return str(error)
    return f"{type(error).__name__}: {error}"


# -- the supervisor ---------------------------------------------------------------------------


@dataclass
class Worker:
    """One of the workers, across its restarts."""

    index: int
    process: BaseProcess
    pipe: Connection
    name: str
    started: float
    restarts: int = 0
    ready: bool = False
    exited: bool = False
    failure: str = ""
    """Why its current incarnation could not start, as it said."""
    quick_deaths: int = 0
    """Deaths in a row soon after a start: the back-off's exponent."""
    failed_starts: int = 0
    """Incarnations in a row that died before serving."""


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


class Supervisor:
    """Starts the workers, restarts the ones that die, and stops them all."""

    def __init__(self, config: ServerConfig, count: int, base: str, http_port: int | None) -> None:
        self.config = config
        """The workers' settings (supervised, the port chosen, the Redis URL); each gets its name and
        worker 1 the web UI's port."""
        self.count = count
        self.base = base
        self.http_port = http_port
        self.workers: dict[int, Worker] = {}
        self.web_url = ""
        self._context = multiprocessing.get_context("spawn")  # no fork of a process with threads and a loop
        self._events: asyncio.Queue[tuple[Worker, tuple[Any, ...]]] = asyncio.Queue()
        self._restarts: dict[int, asyncio.TimerHandle] = {}
        self.siblings = scratch.make(scratch.SOCKETS)
        """Where each worker links its Unix socket, so that a resume reaching another worker is forwarded to it
        (`arena.node.siblings`); removed when the workers have stopped."""

    def _start(self, index: int) -> None:
        self._restarts.pop(index, None)
        before = self.workers.get(index)
        restarts = before.restarts + 1 if before else 0
        name = worker_name(self.base, index, restarts)
        config = dataclasses.replace(
            self.config,
            work=dataclasses.replace(self.config.work, node=name),
            http_port=self.http_port if index == 1 else None,
            sibling_link=self.siblings / f"w{index}",
            builtin=builtin_share(self.config.builtin, self.count),
        )
        reader, writer = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=worker_main, args=(config, index, writer, os.getpid()), name=f"arena worker {index}"
        )
        process.start()
        writer.close()
        worker = Worker(index, process, reader, name, time.monotonic(), restarts)
        if before is not None:
            worker.quick_deaths, worker.failed_starts = before.quick_deaths, before.failed_starts
        self.workers[index] = worker
        loop = asyncio.get_running_loop()
        loop.add_reader(reader.fileno(), self._read, worker)
        loop.add_reader(process.sentinel, self._exited, worker)

    def _read(self, worker: Worker) -> None:
        try:
            message = worker.pipe.recv()
        except (EOFError, OSError):
            asyncio.get_running_loop().remove_reader(worker.pipe.fileno())
            return
        self._events.put_nowait((worker, message))

    def _exited(self, worker: Worker) -> None:
        loop = asyncio.get_running_loop()
        loop.remove_reader(worker.process.sentinel)
        with contextlib.suppress(OSError):
            loop.remove_reader(worker.pipe.fileno())
        # What it said before it died comes first.
        with contextlib.suppress(EOFError, OSError):
            while worker.pipe.poll():
                self._events.put_nowait((worker, worker.pipe.recv()))
        worker.pipe.close()
        worker.process.join(5)
        self._events.put_nowait((worker, ("exited",)))

    async def _next(self, stop: asyncio.Event) -> tuple[Worker, tuple[Any, ...]] | None:
        """The next event of a worker, or None once `stop` is set."""
        stopped = asyncio.create_task(stop.wait())
        event = asyncio.create_task(self._events.get())
        await asyncio.wait([stopped, event], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if event.done():
            return event.result()
        event.cancel()
        return None

    async def start(self, stop: asyncio.Event) -> bool:
        """Start every worker and wait until all serve; False if `stop` came first."""
        for index in range(1, self.count + 1):
            self._start(index)
        while not all(worker.ready for worker in self.workers.values()):
            event = await self._next(stop)
            if event is None:
                return False
            worker, message = event
            if self._take(worker, message):
                raise SupervisorError(worker.failure or f"worker {worker.index} {_exit_text(worker.process.exitcode)}")
        return True

    def _take(self, worker: Worker, message: tuple[Any, ...]) -> bool:
        """Note what a worker said ("ready", "failed") or that it exited; True for the exit."""
        if message[0] == "ready":
            worker.ready, worker.failed_starts = True, 0
            if message[2]:
                self.web_url = message[2]
            if worker.restarts:
                log.warning("worker %d (%s, pid %s) serves again", worker.index, worker.name, worker.process.pid)
        elif message[0] == "failed":
            worker.failure = message[1]
        else:
            worker.exited = True
            return True
        return False

    async def keep(self, stop: asyncio.Event) -> None:
        """Restart the workers that die, until `stop`; raises SupervisorError when one keeps dying at start."""
        while (event := await self._next(stop)) is not None:
            worker, message = event
            if self._take(worker, message):
                self._died(worker)

    def _died(self, worker: Worker) -> None:
        how = _exit_text(worker.process.exitcode)
        if worker.process.pid is not None:
            metrics.worker_gone(worker.process.pid)  # its sessions and running matches went with it
        if not worker.ready:
            worker.failed_starts += 1
            if worker.failed_starts >= MAX_FAILED_STARTS:
                raise SupervisorError(
                    f"worker {worker.index} died {worker.failed_starts} times in a row before serving "
                    f"(last: {worker.failure or how}); stopping"
                )
        lived = time.monotonic() - worker.started
        worker.quick_deaths = 0 if lived >= STEADY else worker.quick_deaths + 1
        delay = min(MAX_BACKOFF, FIRST_BACKOFF * 2 ** max(0, worker.quick_deaths - 1))
        log.warning(
            "worker %d (%s, pid %s) %s%s; restarting it in %.1f s (restart %d)",
            worker.index,
            worker.name,
            worker.process.pid,
            how,
            f" before serving: {worker.failure}" if worker.failure and not worker.ready else "",
            delay,
            worker.restarts + 1,
        )
        self._restarts[worker.index] = asyncio.get_running_loop().call_later(delay, self._start, worker.index)

    async def stop(self) -> None:
        """SIGTERM every worker, wait for them to stop (killing any that takes too long)."""
        for timer in self._restarts.values():
            timer.cancel()
        self._restarts.clear()
        running = [worker.process for worker in self.workers.values() if not worker.exited]
        # The wait below alone reaps them: `_exited` joining a worker on the loop at the same time as the
        # thread does (two waitpid calls, one of which finds no child) left its exit code unread, and
        # a worker that had stopped was taken for one that did not and "killed".
        loop = asyncio.get_running_loop()
        for worker in self.workers.values():
            if not worker.exited:
                loop.remove_reader(worker.process.sentinel)
                with contextlib.suppress(OSError, ValueError):
                    loop.remove_reader(worker.pipe.fileno())
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        deadline = time.monotonic() + STOP_GRACE

        def wait() -> None:
            for process in running:
                process.join(max(0.0, deadline - time.monotonic()))
                if process.exitcode is None:
                    log.warning("%s did not stop within %.0f s; killing it", process.name, STOP_GRACE)
                    process.kill()
                    process.join()

        await asyncio.to_thread(wait)
        for worker in self.workers.values():
            if not worker.exited:
                worker.pipe.close()
        shutil.rmtree(self.siblings, ignore_errors=True)


def workers_api(config: ServerConfig, port: int) -> NodeAddress | None:
    """Where the supervisor's web UI reaches its workers' gRPC API: their shared port on loopback. None
    (signing in off) under TLS, whose certificate names the host people dial, not loopback."""
    if config.tls_cert is not None:
        return None
    host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(config.host, config.host)
    return NodeAddress(f"[{host}]:{port}" if ":" in host else f"{host}:{port}", port)


@contextlib.contextmanager
def metrics_endpoint(config: ServerConfig) -> Iterator[int | None]:
    """The supervisor's /metrics, adding up its workers' values (which they write to a folder of
    files, `arena.metrics`): the folder is named in the environment before any worker is spawned,
    and removed at the end. Yields the port, or None without --metrics-port."""
    if config.metrics_port is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="arena-metrics-") as folder:
        os.environ[metrics.MULTIPROCESS_DIR] = folder
        try:
            endpoint = metrics.serve(config.http_host, config.metrics_port)
            try:
                yield endpoint.server_port
            finally:
                metrics.stop(endpoint)
        finally:
            del os.environ[metrics.MULTIPROCESS_DIR]


async def supervise(config: ServerConfig, count: int, announce: Callable[[str], None] = print) -> None:
    """Run `count` workers until SIGINT or SIGTERM: the body of `arena serve --workers N` (N > 1)."""
    if count < 2:
        raise SupervisorError(f"a supervisor needs 2 workers or more, not {count}")
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("arena: %(message)s"))
    for logger in (log, web_process.log):  # the supervisor's own lines, and its web UI's keeper's
        logger.addHandler(handler)
        logger.propagate = False
    stop = stop_on(signal.SIGINT, signal.SIGTERM)
    in_worker = None if config.web_process else config.http_port
    with reserved_ports(config.host, config.port, in_worker) as (port, http_port):
        async with open_redis(config.redis_url, config.data_dir, config.redis_connections) as redis:
            new_admin_token = await take_over(Store(redis), config.admin_token)
            workers = dataclasses.replace(
                config,
                port=port,
                redis_url=config.redis_url or redis_url_of(redis),
                admin_token=None,
                supervised=True,
            )
            base = config.work.node or node_name()
            supervisor = Supervisor(workers, count, base, http_port)
            web: WebProcess | None = None
            with metrics_endpoint(config) as metrics_port:
                try:
                    # Started within the metrics endpoint's folder (its environment), so that its values are added up too.
                    if config.web_process and config.http_port is not None:
                        listener = web_process.web_listener(config.http_host, config.http_port)
                        if listener is not None:
                            named = dataclasses.replace(
                                workers, work=dataclasses.replace(workers.work, node=f"{base}-web")
                            )
                            web = WebProcess(listener, web_settings(named, redis, workers_api(config, port)))
                            await web.start()
                            supervisor.web_url = web.url
                    if await supervisor.start(stop):
                        announce_serving(
                            config,
                            f"{config.host}:{port}",
                            supervisor.web_url,
                            new_admin_token,
                            announce,
                            metrics_port,
                        )
                        names = ", ".join(f"{w.name} (pid {w.process.pid})" for w in supervisor.workers.values())
                        announce(f"arena: {count} workers: {names}")
                        await supervisor.keep(stop)
                    announce("arena: stopping")
                finally:
                    await supervisor.stop()
                    if web is not None:
                        await web.stop()
