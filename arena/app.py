"""Assembling and running the arena server: Redis, sessions, matches, gRPC with health and reflection."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import os
import shutil
import signal
import urllib.parse
from collections.abc import AsyncIterator, Callable, Coroutine, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection
from redis.asyncio import Redis, SSLConnection

from arena import logs, metrics, scratch
from arena.games import game_names
from arena.hosted import seccomp
from arena.hosted.sandbox import detect
from arena.logs import LogFormat
from arena.match import Clock
from arena.node import fds, telemetry
from arena.node.builtin_pool import BuiltinPool, PoolConfig
from arena.node.hosted import HostedConfig, HostedManager
from arena.node.ladder import Ladder, LadderConfig
from arena.node.matches import MatchHost
from arena.node.retention import Retention, RetentionConfig
from arena.node.sessions import Limits, Session, SessionRegistry
from arena.node.siblings import Siblings
from arena.node.tasks import cancel_and_wait
from arena.node.tournaments import TournamentProgress
from arena.node.work import WorkConfig, WorkHost, new_incarnation, node_name
from arena.server.health import StoreHealth
from arena.server.peers import PeerGuard, PeerLimits, server_options
from arena.server.service import ArenaServicer, BotServicer, add_bot_service
from arena.store import Store, open_redis, sentinel
from arena.store.archive import Archive
from arena.store.embedded import BLOCKING_CONNECTIONS, CONNECTIONS, blocking_client, redacted
from arena.store.ladder import LadderStore
from arena.store.ratings import RatingStore
from arena.v1 import arena_service_pb2, arena_service_pb2_grpc, bot_service_pb2
from arena.web.guard import WebLimits
from arena.web.node_api import NodeAddress
from arena.web.process import WebProcess, WebSettings, web_listener

if TYPE_CHECKING:
    from arena.web.server import WebServer
from arena.wire.address import DEFAULT_HOST, DEFAULT_PORT

log = logging.getLogger(__name__)

ADMIN_TOKEN_ENV = "ARENA_ADMIN_TOKEN"
ADMIN_TOKEN_FILE_ENV = "ARENA_ADMIN_TOKEN_FILE"
"""A file holding the admin token, so that the token need not sit in any process's environment."""
MAX_RECEIVE_BYTES = 1 << 20
"""The largest message a client may send; larger ones end the call with RESOURCE_EXHAUSTED."""
MAX_SEND_BYTES = 16 << 20
SERVICE_NAMES = (
    bot_service_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
    arena_service_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
)


@dataclass(frozen=True)
class ServerConfig:
    """A node's settings, read once at start (`arena serve`'s options and their environment variables,
    the admin token by `config_from_env`) and passed down to every part that needs one."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    data_dir: Path = Path("arena-data")
    redis_url: str | None = None
    redis_connections: int = CONNECTIONS
    """The size of the node's pool of Redis connections for commands."""
    tls_cert: Path | None = None
    tls_key: Path | None = None
    clock: Clock = field(default_factory=Clock)
    limits: Limits = field(default_factory=Limits)
    """Sessions: per node, per bot, per hosted launch; the grace and flood limits."""
    peers: PeerLimits = field(default_factory=PeerLimits)
    """What one client address may do on the gRPC edge: wrong tokens, live watches."""
    builtin: PoolConfig = field(default_factory=PoolConfig)
    """The built-in bots' worker processes: how many, and how many seats each holds."""
    web: WebLimits = field(default_factory=WebLimits)
    """What one client address may hold of the web UI: connections and live streams (the total of
    connections is at most the web UI's share of the file descriptors)."""
    admin_token: str | None = None
    """The admin token to set (from ARENA_ADMIN_TOKEN); None keeps the stored one or makes one."""
    hosted: HostedConfig = field(default_factory=HostedConfig)
    """How this node runs hosted bots: the sandbox's limits, or none at all (--unsafe-no-sandbox)."""
    work: WorkConfig = field(default_factory=WorkConfig)
    ladder: LadderConfig = field(default_factory=LadderConfig)
    """Ladder table sizes per game and the matchmaker's timing."""
    http_host: str = DEFAULT_HOST
    http_port: int | None = None
    """Where the web UI listens (0: any free port); None: no web UI."""
    web_process: bool = False
    """Serve the web UI from a process of its own (`arena.web.process`; `arena serve` does unless given
    --web-in-node), rather than in this node's event loop, where its pages wait while the node plays
    (kept for embedding an arena in a program or a test, and as the benchmark's reference)."""
    supervised: bool = False
    """A worker of `arena serve --workers N` (arena/workers.py): its supervisor already took over the store
    (`take_over`), and the workers share the gRPC port (SO_REUSEPORT), which the supervisor checked is free."""
    sibling_link: Path | None = None
    """A worker's link to its Unix socket, in a folder where its supervisor's other workers link theirs, so that
    a bot resuming a session held by another worker is forwarded there (`arena.node.siblings`)."""
    retention: RetentionConfig = field(default_factory=RetentionConfig)
    """How long finished matches stay in Redis before they move to the disk archive, and where it is."""
    metrics_port: int | None = None
    """Where Prometheus reads /metrics, on `http_host` (0: any free port); None: no endpoint. Under
    `--workers N` the supervisor serves it, adding up its workers' values."""
    event_loop: str = "asyncio"
    """The node's event loop: "asyncio", or "uvloop" (their CPU a move: docs/BENCHMARKS.md)."""
    log_format: LogFormat = LogFormat.TEXT
    """How the node writes its log lines to stderr: for people, or one JSON object a line (arena/logs.py)."""


@dataclass
class RunningServer:
    """A started server: where it listens, and its parts (tests reach into them)."""

    address: str
    port: int
    server: grpc.aio.Server
    store: Store
    sessions: SessionRegistry
    host: MatchHost
    new_admin_token: str | None
    ratings: RatingStore | None = None
    work: WorkHost | None = None
    ladder: Ladder | None = None
    web: WebServer | None = None
    """The web UI when it runs in this node's event loop."""
    hosted_refusal: str = ""
    """Why this node runs no hosted bots ("" when it does)."""
    metrics_port: int | None = None
    """Where this node serves /metrics, if it does."""
    socket_path: str = ""
    """The hosted bots' Unix socket."""
    peer_guard: PeerGuard | None = None
    """The limits per client address on the gRPC edge, and what they count now."""
    web_process: WebProcess | None = None
    """The web UI when it runs in a process of its own."""

    @property
    def web_url(self) -> str:
        """Where the web UI is ("" without one)."""
        found = self.web or self.web_process
        return found.url if found is not None else ""


def server_credentials(cert: Path, key: Path) -> grpc.ServerCredentials:
    return grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())])


@contextlib.asynccontextmanager
async def running(config: ServerConfig, redis: Redis) -> AsyncIterator[RunningServer]:
    """Start the arena on `redis`; stop it (matches aborted, sessions closed) on exit."""
    archive = Archive(config.retention.directory(config.data_dir))
    store = Store(redis, blocking_client(redis), archive, sentinel.durability(config.redis_url))
    # Workers leave this to their supervisor: a restarted one would abort the others' running matches.
    new_admin_token = None if config.supervised else await take_over(store, config.admin_token)
    fd_budget = fds.FdBudget(fds.plan(fds.raise_soft_limit(), config.redis_connections + BLOCKING_CONNECTIONS))
    log.debug("%s", fd_budget.plan.describe())
    sessions = SessionRegistry(config.limits, fds=fd_budget)
    peer_guard = PeerGuard(config.peers)
    host = MatchHost(store, sessions, config.clock, BuiltinPool(config.builtin))
    ratings = RatingStore(redis, archive=archive)
    ladder = Ladder(LadderStore(redis), ratings, sessions, host, config.ladder)
    sessions.on_change = ladder.session_changed
    server = grpc.aio.server(
        interceptors=[peer_guard],
        options=[
            ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
            ("grpc.max_send_message_length", MAX_SEND_BYTES),
            # Off for a lone node, so that a second server on its port fails instead of silently sharing it.
            ("grpc.so_reuseport", int(config.supervised)),
            *server_options(fd_budget.plan),
        ],
    )
    siblings = None if config.sibling_link is None else Siblings(config.sibling_link, MAX_RECEIVE_BYTES, MAX_SEND_BYTES)
    add_bot_service(BotServicer(store, sessions, siblings), server)
    # Hosted bots connect through a Unix socket: their network namespace has no other way out.
    # Its folder is the node's alone (0700); each sandbox binds the socket itself in, so no other
    # local user can reach it, while every launch's own uid may connect (the socket is 0666).
    scratch.sweep()  # the folders of nodes killed before they could remove their own
    socket_dir = scratch.make(scratch.SOCKETS)
    socket_path = str(socket_dir / "bots.sock")
    server.add_insecure_port(f"unix:{socket_path}")
    try:
        system_calls: bytes | None = seccomp.program()
    except seccomp.SeccompUnavailable as error:
        system_calls = None
        log.warning("hosted bots run without a seccomp filter: %s", error)
    sandbox = await detect(config.hosted.limits, hidden=(config.data_dir, socket_dir), seccomp=system_calls)
    hosted = HostedManager(store, sessions, socket_path, sandbox, config.hosted, config.work.node or node_name())
    if hosted.refusal:
        log.warning("%s", hosted.refusal)
    host.start_seats = hosted.start_seats
    servicer = ArenaServicer(store, sessions, host, ratings, ladder, hosted)
    arena_service_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable_server_reflection(
        (*SERVICE_NAMES, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME), server
    )
    address = f"{config.host}:{config.port}"
    if config.tls_cert is not None and config.tls_key is not None:
        port = server.add_secure_port(address, server_credentials(config.tls_cert, config.tls_key))
    else:
        port = server.add_insecure_port(address)
    await server.start()
    Path(socket_path).chmod(0o666)
    if siblings is not None:
        siblings.join(socket_path)
    hosted.start()
    store_health = StoreHealth(health, redis, ("", *SERVICE_NAMES))
    await store_health.set(True)
    health_task = asyncio.create_task(store_health.run(), name="health")
    work = WorkHost(store, host, config.work)

    def session_changed(session: Session) -> None:
        ladder.session_changed(session)
        work.seats_changed()

    sessions.on_change = session_changed
    ladder.waiting = work.waiting_for
    work.on_wait = ladder.bots_changed
    work.result_hooks.append(TournamentProgress(store))
    work.result_hooks.append(telemetry.match_ended)
    work.result_hooks.append(ladder.match_ended)
    await work.start()
    ladder_task = asyncio.create_task(ladder.run(), name="ladder")
    retention_task = asyncio.create_task(Retention(redis, archive, config.retention).run(), name="retention")
    sampler = telemetry.Sampler(redis, sessions, host, game_names())
    sampler_task = asyncio.create_task(sampler.run(), name="metrics")
    web: WebServer | None = None
    web_process: WebProcess | None = None
    endpoint = None
    try:
        if config.metrics_port is not None and not config.supervised:
            endpoint = metrics.serve(config.http_host, config.metrics_port)
        listener = None if config.http_port is None else web_listener(config.http_host, config.http_port)
        # The web UI acts for signed-in owners through the node's Unix socket: local, and its folder the node's alone.
        own_api = NodeAddress(f"unix:{socket_path}", port, config.tls_cert is not None)
        if listener is not None and config.web_process:
            web_process = WebProcess(listener, web_settings(config, redis, own_api))
            await web_process.start()
        elif listener is not None:
            # FastAPI and uvicorn load here, in a node that serves pages itself.
            from arena.web.data import WebData
            from arena.web.server import start_web

            web_limits = dataclasses.replace(config.web, connections=min(config.web.connections, fd_budget.plan.web))
            web = await start_web(WebData(store, ratings), listener, web_limits, fd_budget, own_api, config.peers)
        yield RunningServer(
            f"{config.host}:{port}",
            port,
            server,
            store,
            sessions,
            host,
            new_admin_token,
            ratings,
            work,
            ladder,
            web,
            hosted.refusal,
            None if endpoint is None else endpoint.server_port,
            socket_path,
            peer_guard,
            web_process,
        )
    finally:
        if endpoint is not None:
            metrics.stop(endpoint)
        if web is not None:
            await web.stop()
        if web_process is not None:
            await web_process.stop()
        await health.enter_graceful_shutdown()
        await ladder.stop(ladder_task)
        await cancel_and_wait([retention_task, sampler_task, health_task], "retention, metrics and health")
        await work.stop()
        await host.shutdown()
        await hosted.stop()
        sandbox.close()
        sessions.close_all()
        await server.stop(grace=1.0)
        if siblings is not None:
            await siblings.close()
        shutil.rmtree(socket_dir, ignore_errors=True)
        await store.blocking.aclose()


def web_settings(config: ServerConfig, redis: Redis, node_api: NodeAddress | None = None) -> WebSettings:
    """What the web UI's process of a node (or of a supervisor of workers) on `redis` needs; it acts for
    signed-in owners through the gRPC API at `node_api`."""
    return WebSettings(
        redis_url=config.redis_url or redis_url_of(redis),
        archive_dir=config.retention.directory(config.data_dir).absolute(),
        limits=config.web,
        log_format=config.log_format,
        node=config.work.node,
        incarnation=config.work.incarnation,
        node_api=node_api,
        peers=config.peers,
    )


def redis_url_of(redis: Redis) -> str:
    """A URL of the Redis that `redis` talks to, password included, for another process to open a client
    of its own (the embedded Redis's Unix socket, or a server on TCP)."""
    pool = redis.connection_pool
    kwargs = pool.connection_kwargs
    auth = {key: str(kwargs[key]) for key in ("username", "password") if kwargs.get(key)}
    db = int(kwargs.get("db") or 0)
    if "path" in kwargs:
        return f"unix://{kwargs['path']}?{urllib.parse.urlencode({**auth, 'db': db})}"
    user = ""
    if auth:
        quoted = {key: urllib.parse.quote(value, safe="") for key, value in auth.items()}
        user = f"{quoted.get('username', '')}:{quoted.get('password', '')}@"
    host = str(kwargs.get("host", "localhost"))
    shown = f"[{host}]" if ":" in host else host
    scheme = "rediss" if issubclass(pool.connection_class, SSLConnection) else "redis"
    return f"{scheme}://{user}{shown}:{kwargs.get('port', 6379)}/{db}"


def incarnate(config: ServerConfig) -> ServerConfig:
    """`config` for this process start: the node's name (given, or the host's name and process id) and a new
    incarnation, so that nothing a node wrote before a restart under the same name passes for its own."""
    work = dataclasses.replace(config.work, node=config.work.node or node_name(), incarnation=new_incarnation())
    return dataclasses.replace(config, work=work)


async def take_over(store: Store, admin_token: str | None) -> str | None:
    """What a starting arena does once on its Redis: store the admin token (returns a newly made one, else None).

    Work-stream matches an earlier run left running are not its business: their orders are pending,
    and a living node resumes each from its events. Matches that arenas before the work stream
    played outside it (CreateMatch, one-node ladder tables) cannot be resumed: they are marked aborted.
    """
    aborted = await store.abort_running()
    if aborted:
        log.warning("marked %d matches of an earlier version's run as aborted", len(aborted))
    return await store.ensure_admin_token(admin_token)


def stop_on(*signums: signal.Signals) -> asyncio.Event:
    """An event the running loop sets on any of `signums`. Asked for before anything starts: a signal
    that arrives while a node starts, or just after it says "serving on", then stops it the orderly
    way once it has started, instead of killing it half-made (SIGTERM's default) or cancelling its
    start-up midway (asyncio's SIGINT)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in signums:
        loop.add_signal_handler(signum, stop.set)
    return stop


async def serve(config: ServerConfig, announce: Callable[[str], None] = print) -> None:
    """Run until SIGINT or SIGTERM: the body of `arena serve`."""
    config = incarnate(config)
    logs.configure(config.log_format, config.work.node, config.work.incarnation)
    stop = stop_on(signal.SIGINT, signal.SIGTERM)
    async with (
        open_redis(config.redis_url, config.data_dir, config.redis_connections) as redis,
        running(config, redis) as arena,
    ):
        announce_serving(config, arena.address, arena.web_url, arena.new_admin_token, announce, arena.metrics_port)
        await stop.wait()
        announce("arena: stopping")


def announce_serving(
    config: ServerConfig,
    address: str,
    web: str,
    new_admin_token: str | None,
    announce: Callable[[str], None],
    metrics_port: int | None = None,
) -> None:
    """The lines `arena serve` prints once it serves: where, the web UI, a newly made admin token."""
    where = redacted(config.redis_url) if config.redis_url else f"embedded, data in {config.data_dir}"
    scheme = "TLS" if config.tls_cert else "plaintext"
    # The loop actually running, not the one asked for: uvloop is named when it runs.
    loop = type(asyncio.get_running_loop()).__module__.split(".")[0]
    running_on = "" if loop == "asyncio" else f"; event loop: {loop}"
    announce(f"arena: serving on {address} ({scheme}; Redis: {where}{running_on})")
    if web:
        announce(f"arena: web UI on {web}")
    if metrics_port is not None:
        announce(f"arena: metrics on http://{config.http_host}:{metrics_port}/metrics")
    if new_admin_token:
        announce(
            f"arena: admin token (shown once, stored hashed; set {ADMIN_TOKEN_ENV} or "
            f"{ADMIN_TOKEN_FILE_ENV} to replace it):"
        )
        announce(new_admin_token)


YOUNG_COLLECTION = 10_000
"""Container allocations (net of frees) between two passes of the cyclic garbage collector over its youngest
generation in a node's processes; Python's default is 700.

A node allocates much and keeps little: observations, requests and records live for a move or a match, and
their cycles are few. In `benchmarks/grpc_throughput.py`'s server (10 s of 32 matches, timed with
gc.callbacks) the collector ran about 520 young passes at 700, 140 at 10,000, and took 0.12 to 0.15 s
rather than 0.38 to 0.42 s: about 3% of the server's CPU. Its longest pause grew for a young pass (5 to 6 ms
rather than 1) and shrank overall (20 to 29 ms rather than 54 to 58, the oldest generation's passes being
rarer). Garbage in cycles waits at most that many allocations longer: a few MB at most."""


def run_node(main: Coroutine[Any, Any, None], event_loop: str) -> None:
    """Run a node's (or a supervisor's) coroutine to its end on the chosen event loop."""
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
    if event_loop == "uvloop":
        import uvloop

        uvloop.run(main)
    else:
        asyncio.run(main)


class ConfigError(ValueError):
    """A setting from the environment cannot be used; the one-line message names it and what to fix."""


def config_from_env(config: ServerConfig, environ: MutableMapping[str, str] = os.environ) -> ServerConfig:
    """`config` with the admin token from ARENA_ADMIN_TOKEN or from the file ARENA_ADMIN_TOKEN_FILE names.

    ARENA_ADMIN_TOKEN leaves the environment here, so that no process this one starts inherits it."""
    token = environ.pop(ADMIN_TOKEN_ENV, "")
    path = environ.get(ADMIN_TOKEN_FILE_ENV, "")
    if token and path:
        raise ConfigError(f"set only one of {ADMIN_TOKEN_ENV} and {ADMIN_TOKEN_FILE_ENV}")
    if path:
        token = read_token_file(path)
    return dataclasses.replace(config, admin_token=token or None)


def read_token_file(path: str) -> str:
    try:
        token = Path(path).read_text().strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise ConfigError(f"cannot read {ADMIN_TOKEN_FILE_ENV} {path}: {reason}") from None
    if not token:
        raise ConfigError(f"{ADMIN_TOKEN_FILE_ENV} {path} is empty: write the admin token (ata_...) into it")
    if len(token.split()) != 1:
        raise ConfigError(f"{ADMIN_TOKEN_FILE_ENV} {path} must hold the admin token alone, one word (ata_...)")
    return token
