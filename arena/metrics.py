"""What a node tells Prometheus: every metric the arena exports, by name, in one place.

The metrics are module-level objects of `prometheus_client`, so that the layers that count (the
store's Redis client, the match runner, the node's sessions and hosted bots) need nothing passed
down. A node started by `arena serve --workers N` runs N processes: the supervisor sets
`PROMETHEUS_MULTIPROC_DIR` before any worker imports this module, each worker then writes its
values to files there, and the supervisor's endpoint adds them up (`multiprocess_mode` says how for
gauges). A single process serves its own values. Names, labels and meaning: README, "Operating the
arena".
"""

from __future__ import annotations

import os
from pathlib import Path
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, multiprocess, start_http_server

MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""The variable `prometheus_client` reads at import: where worker processes keep their values."""

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds: a bot answering on loopback takes about a millisecond, the default clock allows 1 s a move
plus a 10 s bank."""
REDIS_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0, 5.0)

SESSIONS = Gauge("arena_sessions_connected", "Bot sessions connected to this node.", multiprocess_mode="livesum")
MATCHES_RUNNING = Gauge(
    "arena_matches_running", "Matches this node is running now.", ["game"], multiprocess_mode="livesum"
)
MATCHES_FINISHED = Counter(
    "arena_matches_finished", "Matches this node finished, by how they ended.", ["game", "termination"]
)
MOVES = Counter("arena_moves", "Moves the bots of this node's matches made (late or illegal ones included).", ["game"])
MOVE_SECONDS = Histogram(
    "arena_move_seconds",
    "How long a bot took to answer a move request, as its clock counts it (timed seats only).",
    ["game"],
    buckets=LATENCY_BUCKETS,
)
STRIKES = Counter(
    "arena_strikes", "Strikes given: a late answer, an illegal action, or a failed request.", ["game", "reason"]
)
FORFEITS = Counter("arena_forfeits", "Seats that forfeited a match (three strikes, or gone).", ["game"])
LADDER_WAITING = Gauge(
    "arena_ladder_waiting",
    "Ladder tickets (one per free match slot of a bot) waiting for a table, per game (read from Redis).",
    ["game"],
    multiprocess_mode="mostrecent",
)
WORK_PENDING = Gauge(
    "arena_work_pending",
    "Work orders a node has taken from the shared stream and not yet acknowledged (read from Redis).",
    multiprocess_mode="mostrecent",
)
WORK_WAITING = Gauge(
    "arena_work_waiting",
    "Work orders in the shared stream that no node has taken yet (read from Redis).",
    multiprocess_mode="mostrecent",
)
WORK_OLDEST_SECONDS = Gauge(
    "arena_work_oldest_pending_seconds",
    "Age of the oldest work order taken and not acknowledged; grows while a node is stuck or dead.",
    multiprocess_mode="mostrecent",
)
REDIS_SECONDS = Histogram(
    "arena_redis_seconds", "Redis round trips of this node, commands and pipelines.", buckets=REDIS_BUCKETS
)
REDIS_ERRORS = Counter("arena_redis_errors", "Redis commands that failed, by kind.", ["kind"])
HOSTED_LAUNCHES = Counter("arena_hosted_launches", "Hosted bot processes started, by outcome.", ["outcome"])
SANDBOX_FAILURES = Counter(
    "arena_sandbox_failures",
    "Hosted bot launches that ended badly: could not start, never connected, or killed for a limit.",
    ["reason"],
)
UPLOADS_REFUSED = Counter(
    "arena_uploads_refused",
    "SubmitBot calls refused at once because their owner (scope=owner) or the node (scope=node) had as many running as allowed.",
    ["scope"],
)
UPLOADS_RUNNING = Gauge(
    "arena_uploads_running",
    "SubmitBot calls this node runs now (upload, check, validation).",
    multiprocess_mode="livesum",
)

RESUMES_FORWARDED = Counter(
    "arena_resumes_forwarded",
    "Hellos resuming a session this worker does not hold, offered to its sibling workers, by outcome: forwarded "
    "(a sibling resumed it; the stream passes through this worker), not_held (none did: a new session).",
    ["outcome"],
)
REFUSALS = Counter(
    "arena_limit_refusals",
    "Requests refused by a fair-share limit, by limit: sessions_node, sessions_bot, sessions_launch, fds, "
    "web_address, web_total, web_idle (closed before a request came), streams_address, streams_total, "
    "watch_address, watch_total, wrong_token (each one presented), wrong_tokens_address (an address refused for "
    "them), builtin_busy.",
    ["limit"],
)
WEB_CONNECTIONS = Gauge("arena_web_connections", "Connections the web UI holds open now.", multiprocess_mode="livesum")
LIVE_STREAMS = Gauge(
    "arena_live_streams",
    "Live streams open now: the web UI's Server-Sent Events (sse) and gRPC watches (watch).",
    ["kind"],
    multiprocess_mode="livesum",
)
BUILTIN_SEATS = Gauge(
    "arena_builtin_seats",
    "Built-in bot seats held by this node's process pool of built-in bots.",
    multiprocess_mode="livesum",
)
BUILTIN_RESTARTS = Counter(
    "arena_builtin_worker_restarts", "Workers of the built-in bots' process pool that died and were started again."
)


def multiprocess_dir() -> Path | None:
    """Where this process's values go when it is one of several workers; None in a lone process."""
    folder = os.environ.get(MULTIPROCESS_DIR)
    return Path(folder) if folder else None


class MetricsUnavailable(RuntimeError):
    """The metrics endpoint cannot listen where it was asked to; the message says where and why."""


def serve(host: str, port: int) -> WSGIServer:
    """Serve /metrics on `host`:`port` (0: any free port) from a thread; `stop` ends it.

    In a supervisor of workers (PROMETHEUS_MULTIPROC_DIR set) the endpoint adds up every worker's
    values; in a lone node it shows this process's."""
    registry = REGISTRY
    if multiprocess_dir() is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    try:
        server, _ = start_http_server(port, addr=host, registry=registry)
    except OSError as error:
        raise MetricsUnavailable(f"cannot serve metrics on {host}:{port}: {error.strerror}") from None
    return server


def stop(server: WSGIServer) -> None:
    server.shutdown()
    server.server_close()


def worker_gone(pid: int) -> None:
    """Drop a dead worker's live gauges (its sessions and running matches are gone with it)."""
    if multiprocess_dir() is not None:
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]


TOURNAMENT_VIEWS = Counter(
    "arena_tournament_views",
    "Views of watched tournaments built (each reads every result of its tournament); one per change for all "
    "of a tournament's watchers, within a share of the node's time (arena.node.tournament_views).",
)
TOURNAMENT_REFUSALS = Counter(
    "arena_tournament_refusals",
    "Tournaments refused at creation for a fair-share or consent rule, by reason: pending (the owner's "
    "pending tournament matches would pass the limit), invitation (another owner's bot that accepts no "
    "invitations), seed (an owner chose the seed).",
    ["reason"],
)

CHALLENGE_REFUSALS = Counter(
    "arena_challenge_refusals",
    "Challenges refused for a limit or the consent rule, by reason: running (the owner's challenges running "
    "at once), hourly (started in the last hour), invitation (another owner's bot that accepts no "
    "invitations), not_yours (a challenger that is another owner's bot).",
    ["reason"],
)
