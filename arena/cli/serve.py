"""`arena serve` (one node of the arena) and `arena demo` (the whole arena on this machine).

The node's settings are read here once, from the options and their environment variables, into one
`ServerConfig` that is passed down; only the admin token is read by `arena.app.config_from_env`.
"""

from __future__ import annotations

import contextlib
import importlib.util
from pathlib import Path

import click

from arena.cli.options import BANK_MS, HOUR_MS, MOVE_MS, EnvOption
from arena.cli.output import console, print_tournament
from arena.logs import LogFormat
from arena.wire.address import DEFAULT_HOST, DEFAULT_PORT


@click.command()
@click.option(
    "--unsafe-no-sandbox",
    is_flag=True,
    cls=EnvOption,
    envvar="ARENA_UNSAFE_NO_SANDBOX",
    help="Run hosted bots even where their sandbox cannot be made (not root, no bubblewrap, no user namespaces or "
    "cgroups): as plain child processes, for bots you trust (env ARENA_UNSAFE_NO_SANDBOX).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 256),
    cls=EnvOption,
    envvar="ARENA_WORKERS",
    help="Node processes sharing the port and the Redis, under a supervisor that restarts them "
    "(env ARENA_WORKERS; default: one per core this process may use, its container's CPU limit counted; "
    "1: a single process, no supervisor).",
)
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True, help="Port to listen on."
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("arena-data"),
    show_default=True,
    help="Where the embedded Redis keeps its data (without --redis-url).",
)
@click.option(
    "--redis-url",
    cls=EnvOption,
    envvar="ARENA_REDIS_URL",
    help=(
        "Use this Redis (6.2 or newer) instead of the embedded one, e.g. redis://localhost:6379/0, or a master "
        "found through Sentinel: redis+sentinel://HOST:26379,HOST:26380/mymaster/0 (env ARENA_REDIS_URL)."
    ),
)
@click.option(
    "--tls-cert", type=click.Path(dir_okay=False, exists=True, path_type=Path), help="PEM certificate chain for TLS."
)
@click.option(
    "--tls-key", type=click.Path(dir_okay=False, exists=True, path_type=Path), help="PEM private key for TLS."
)
@click.option("--per-move-ms", type=MOVE_MS, default=1000, show_default=True, help="Default time per move.")
@click.option("--bank-ms", type=BANK_MS, default=10000, show_default=True, help="Default time bank per match.")
@click.option(
    "--grace-ms",
    type=click.IntRange(0, HOUR_MS),
    default=10000,
    show_default=True,
    help="How long a bot that lost its stream may take to resume before it forfeits.",
)
@click.option(
    "--ladder-size",
    "ladder_sizes",
    multiple=True,
    metavar="GAME=N",
    help="Seats of a ladder table, e.g. friday13=5 (repeatable; default 4 for the card games, 2 for board13).",
)
@click.option(
    "--http-port",
    type=click.IntRange(0, 65535),
    default=8080,
    show_default=True,
    help="Port of the web UI and its JSON API, on the same --host (0: any free port).",
)
@click.option(
    "--match-slots",
    type=click.IntRange(1, 10_000),
    default=64,
    show_default=True,
    cls=EnvOption,
    envvar="ARENA_MATCH_SLOTS",
    help="Work matches this node runs at once (env ARENA_MATCH_SLOTS).",
)
@click.option(
    "--claim-idle-ms",
    type=click.IntRange(100, HOUR_MS),
    default=10000,
    show_default=True,
    cls=EnvOption,
    envvar="ARENA_CLAIM_IDLE_MS",
    help="How long a match may go unrefreshed before a living node takes it over (env ARENA_CLAIM_IDLE_MS).",
)
@click.option(
    "--node-name",
    default="",
    cls=EnvOption,
    envvar="ARENA_NODE",
    help="This node's name in the work stream (env ARENA_NODE; default: host name and process id).",
)
@click.option(
    "--log-format",
    type=click.Choice([f.value for f in LogFormat]),
    default=LogFormat.TEXT.value,
    show_default=True,
    cls=EnvOption,
    envvar="ARENA_LOG_FORMAT",
    help="Log lines on stderr for people, or one JSON object a line with time, level, node, incarnation and "
    "match (env ARENA_LOG_FORMAT).",
)
@click.option(
    "--redis-connections",
    type=click.IntRange(8, 10_000),
    cls=EnvOption,
    envvar="ARENA_REDIS_CONNECTIONS",
    help="Connections of the node's Redis pool for commands (env ARENA_REDIS_CONNECTIONS; default: the store's, 128).",
)
@click.option(
    "--retain-days",
    type=click.IntRange(0, 36_500),
    default=30,
    show_default=True,
    cls=EnvOption,
    envvar="ARENA_RETAIN_DAYS",
    help="Finished matches older than this move from Redis to the disk archive (env ARENA_RETAIN_DAYS; 0: never).",
)
@click.option(
    "--archive-dir",
    type=click.Path(file_okay=False, path_type=Path),
    cls=EnvOption,
    envvar="ARENA_ARCHIVE_DIR",
    help="The archive of old matches, the same for every node (env ARENA_ARCHIVE_DIR; default: DATA_DIR/archive).",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(0, 65535),
    cls=EnvOption,
    envvar="ARENA_METRICS_PORT",
    help="Serve Prometheus metrics at /metrics on this port, on the same --host (env ARENA_METRICS_PORT; "
    "default: none). With several workers the supervisor serves them, added up.",
)
@click.option(
    "--max-sessions-per-bot",
    type=click.IntRange(1, 2000),
    default=8,
    show_default=True,
    cls=EnvOption,
    envvar="ARENA_MAX_SESSIONS_PER_BOT",
    help="Sessions one bot's token may hold on this node at once, so that no bot fills it "
    "(env ARENA_MAX_SESSIONS_PER_BOT; a hosted launch's token holds 2).",
)
@click.option(
    "--builtin-workers",
    type=click.IntRange(0, 256),
    default=0,
    show_default=True,
    cls=EnvOption,
    envvar="ARENA_BUILTIN_WORKERS",
    help="Worker processes in which built-in bots think, per node (env ARENA_BUILTIN_WORKERS; 0: the cores less one, "
    "at least one; under --workers N each node's share of them).",
)
@click.option(
    "--web-in-node",
    is_flag=True,
    cls=EnvOption,
    envvar="ARENA_WEB_IN_NODE",
    help="Serve the web UI in the node's own event loop instead of a process of its own (env ARENA_WEB_IN_NODE): "
    "one process less, but pages wait while the node plays matches.",
)
@click.option(
    "--no-web",
    is_flag=True,
    cls=EnvOption,
    envvar="ARENA_NO_WEB",
    help="Serve no web UI (env ARENA_NO_WEB): a node of a fleet whose pages other nodes serve.",
)
@click.option(
    "--event-loop",
    type=click.Choice(["asyncio", "uvloop"]),
    default="asyncio",
    show_default=True,
    cls=EnvOption,
    envvar="ARENA_EVENT_LOOP",
    help="The node's event loop (env ARENA_EVENT_LOOP); docs/BENCHMARKS.md compares their CPU a move.",
)
def serve(
    no_web: bool,
    web_in_node: bool,
    max_sessions_per_bot: int,
    builtin_workers: int,
    event_loop: str,
    metrics_port: int | None,
    retain_days: int,
    archive_dir: Path | None,
    unsafe_no_sandbox: bool,
    host: str,
    port: int,
    data_dir: Path,
    redis_url: str | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    per_move_ms: int,
    bank_ms: int,
    grace_ms: int,
    ladder_sizes: tuple[str, ...],
    http_port: int,
    match_slots: int,
    claim_idle_ms: int,
    node_name: str,
    log_format: str,
    redis_connections: int | None,
    workers: int | None,
) -> None:
    """Run the arena server: bots connect over gRPC, matches run here, state lives in Redis.

    A supervisor runs one node per worker (one per core unless --workers says otherwise) on the same
    port and Redis, restarts one that dies, and stops them all on SIGTERM or Ctrl-C.

    The admin token is read from ARENA_ADMIN_TOKEN or from the file named by ARENA_ADMIN_TOKEN_FILE,
    or made and printed once on first start. A password for --redis-url goes in the URL,
    e.g. redis://:PASSWORD@host:6379/0.
    """

    # The node's code is loaded only when a node starts, so that the other commands start fast.
    from arena.app import ConfigError, ServerConfig, config_from_env, run_node
    from arena.app import serve as serve_node
    from arena.cli.demo import kept_tokens
    from arena.match import Clock
    from arena.metrics import MetricsUnavailable
    from arena.node.builtin_pool import PoolConfig
    from arena.node.cpus import usable_cores
    from arena.node.hosted import HostedConfig
    from arena.node.ladder import LadderConfig, LadderError, parse_sizes
    from arena.node.retention import RetentionConfig
    from arena.node.sessions import Limits
    from arena.node.work import WorkConfig
    from arena.store import RedisUnavailable, sentinel
    from arena.store.embedded import CONNECTIONS, redacted
    from arena.web.listener import WebUnavailable
    from arena.workers import SupervisorError, held_port, supervise

    if event_loop == "uvloop" and importlib.util.find_spec("uvloop") is None:
        raise click.UsageError("--event-loop uvloop: uvloop is not installed here (pip install uvloop)")
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("give both --tls-cert and --tls-key, or neither")
    if no_web and web_in_node:
        raise click.UsageError("give --no-web or --web-in-node, not both")
    if redis_url and not redis_url.startswith(("redis://", "rediss://", "unix://", "redis+sentinel://")):
        raise click.UsageError(
            f"--redis-url {redacted(redis_url)!r} must start with redis://, rediss://, unix:// or redis+sentinel://"
        )
    if redis_url and sentinel.is_sentinel(redis_url):
        try:
            sentinel.parse(redis_url)
        except sentinel.SentinelUrlError as error:
            raise click.UsageError(f"--redis-url: {error}") from None
    try:
        ladder = LadderConfig(sizes=parse_sizes(ladder_sizes))
        config = config_from_env(
            ServerConfig(
                host=host,
                port=port,
                data_dir=data_dir,
                redis_url=redis_url,
                redis_connections=redis_connections or CONNECTIONS,
                tls_cert=tls_cert,
                tls_key=tls_key,
                clock=Clock(per_move_ms / 1000, bank_ms / 1000),
                limits=Limits(grace=grace_ms / 1000, max_sessions_per_bot=max_sessions_per_bot),
                builtin=PoolConfig(workers=builtin_workers),
                hosted=HostedConfig(unsafe_no_sandbox=unsafe_no_sandbox),
                work=WorkConfig(slots=match_slots, claim_idle=claim_idle_ms / 1000, node=node_name),
                ladder=ladder,
                http_host=host,
                http_port=None if no_web else http_port,
                web_process=not web_in_node,
                retention=RetentionConfig(days=retain_days, archive_dir=archive_dir),
                metrics_port=metrics_port,
                event_loop=event_loop,
                log_format=LogFormat(log_format),
            )
        )
    except (LadderError, ConfigError) as error:
        raise click.ClickException(str(error)) from None
    # On a data directory of `arena demo`, say where it keeps its tokens, after the first line (where it serves).
    hints = [] if redis_url else kept_tokens(data_dir, config.admin_token)

    def announce(line: str) -> None:
        print(line, flush=True)
        while hints:
            print(hints.pop(0), flush=True)

    count = workers or usable_cores()
    try:
        with contextlib.suppress(KeyboardInterrupt):
            if count == 1:
                with held_port(host, port):
                    run_node(serve_node(config, announce=announce), event_loop)
            else:
                run_node(supervise(config, count, announce=announce), event_loop)
    except (RedisUnavailable, WebUnavailable, MetricsUnavailable, SupervisorError) as error:
        raise click.ClickException(str(error)) from None
    except RuntimeError as error:
        if "bind" in str(error).lower():
            raise click.ClickException(f"cannot listen on {host}:{port}: is another server running there?") from None
        raise


@click.command()
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the demo's data (embedded Redis) here; a temporary directory by default.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True, help="Port to serve on."
)
@click.option("--quick", is_flag=True, help="Short tournaments (a few seconds), for a first look and for tests.")
@click.option(
    "--stay",
    is_flag=True,
    help="Keep serving after the tournaments, until Ctrl-C, and print the commands that bring your own bot.",
)
@click.option(
    "--http-port",
    type=click.IntRange(0, 65535),
    default=8080,
    show_default=True,
    help="Port of the web UI (0: any free port).",
)
def demo(data_dir: Path | None, port: int, quick: bool, stay: bool, http_port: int) -> None:
    """The whole arena in one command: a server, the sample bots, rated tournaments, the leaderboards.

    Starts a server on the embedded Redis, registers the sample bots (Python random, heuristic and
    Monte Carlo, and the Node bot when node and npm are installed), starts them as gRPC client
    processes on the ladder, runs a rated round-robin tournament of friday13 and one of amigo13,
    and prints their tables and the leaderboards.
    """
    import asyncio

    from arena.cli.demo import run_demo  # the node's code, loaded only when a node starts

    try:
        asyncio.run(run_demo(data_dir, port, quick, stay, console(), http_port, print_tournament))
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C or SIGTERM (arena.cli.demo.Stop), a second one
        console().print("demo: stopped")
    except (OSError, RuntimeError, TimeoutError) as problem:
        raise click.ClickException(str(problem)) from None
