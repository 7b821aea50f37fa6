"""Redis behind Sentinel: `redis+sentinel://` URLs, a client that follows failovers, and writes a replica holds.

With one Redis, the arena's store dies with its machine. With Sentinel, a replica is promoted when
the master fails, and redis-py's Sentinel client asks the sentinels where the master is now
whenever a connection breaks. Replication is asynchronous, though: a write the master
acknowledged may never reach the replica that is promoted. So a node confirms what must not be
lost (a stored result and its rating) with WAIT before it acknowledges the match's order: a
result that a failover loses was never acknowledged, its order is still pending on the promoted
replica, and a node plays the match to its end again from its replicated events.

The URL: `redis+sentinel://[:PASSWORD@]HOST:PORT[,HOST:PORT...]/SERVICE[/DB][?OPTIONS]`, where
OPTIONS are `sentinel_password` (if the sentinels require one), `replicas` (how many replicas must
hold a result before it counts, default 1) and `wait_ms` (how long one WAIT waits, default 1000).
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

import redis.exceptions
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool

from arena.store import keys

SCHEME = "redis+sentinel"
DEFAULT_REPLICAS = 1
DEFAULT_WAIT_MS = 1000


class SentinelUrlError(ValueError):
    """A `redis+sentinel://` URL that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class SentinelUrl:
    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None
    sentinel_password: str | None = None
    replicas: int = DEFAULT_REPLICAS
    wait_ms: int = DEFAULT_WAIT_MS


def is_sentinel(url: str) -> bool:
    return url.startswith(f"{SCHEME}://")


def parse(url: str) -> SentinelUrl:
    """The parts of a `redis+sentinel://` URL; SentinelUrlError names what is wrong."""
    example = f"e.g. {SCHEME}://127.0.0.1:26379,127.0.0.1:26380/mymaster/0"
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != SCHEME:
        raise SentinelUrlError(f"a Sentinel URL starts with {SCHEME}://, {example}")
    userinfo, _, hosts = parts.netloc.rpartition("@")
    sentinels = []
    for host in hosts.split(","):
        name, colon, port = host.rpartition(":")
        if not colon or not name or not port.isdigit() or not 0 < int(port) < 65536:
            raise SentinelUrlError(f"{host!r} in the Sentinel URL is not HOST:PORT; {example}")
        sentinels.append((name.strip("[]"), int(port)))
    path = [part for part in parts.path.split("/") if part]
    if not path or len(path) > 2:
        raise SentinelUrlError(f"the Sentinel URL names no service (the master's name in Sentinel); {example}")
    if len(path) == 2 and not path[1].isdigit():
        raise SentinelUrlError(f"the database {path[1]!r} in the Sentinel URL is not a number; {example}")
    options = dict(urllib.parse.parse_qsl(parts.query))
    unknown = set(options) - {"sentinel_password", "replicas", "wait_ms"}
    if unknown:
        raise SentinelUrlError(
            f"unknown option {sorted(unknown)[0]!r} in the Sentinel URL; it takes sentinel_password, replicas, wait_ms"
        )
    numbers = {}
    for name, default, lowest in (("replicas", DEFAULT_REPLICAS, 0), ("wait_ms", DEFAULT_WAIT_MS, 1)):
        text = options.get(name, str(default))
        if not text.isdigit() or int(text) < lowest:
            raise SentinelUrlError(f"{name}={text!r} in the Sentinel URL must be a whole number of at least {lowest}")
        numbers[name] = int(text)
    user, _, password = userinfo.partition(":")
    return SentinelUrl(
        tuple(sentinels),
        urllib.parse.unquote(path[0]),
        int(path[1]) if len(path) == 2 else 0,
        urllib.parse.unquote(user) or None,
        urllib.parse.unquote(password) or None,
        options.get("sentinel_password"),
        numbers["replicas"],
        numbers["wait_ms"],
    )


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """A pool that finds the master through Sentinel and, when full, waits for a connection (as the
    node's other pools do) instead of failing at once."""


def master_client(url: str, redis_class: type[Redis], **sizing: Any) -> Redis:
    """A client of the master `url` names, through its sentinels, with a pool sized as `sizing` says."""
    parsed = parse(url)
    timeouts = {key: sizing[key] for key in ("socket_timeout", "socket_connect_timeout") if key in sizing}
    manager = Sentinel(  # type: ignore[no-untyped-call]
        list(parsed.sentinels),
        sentinel_kwargs={"password": parsed.sentinel_password, **timeouts},
        username=parsed.username,
        password=parsed.password,
        db=parsed.db,
    )
    client: Redis = manager.master_for(parsed.service, redis_class, BlockingSentinelPool, **sizing)
    return client


def same_master(of: Redis, max_connections: int, timeout: float, **overrides: Any) -> Redis | None:
    """Another client of the master `of` follows, with a pool of its own; None when `of` is no Sentinel client."""
    pool = of.connection_pool
    if not isinstance(pool, SentinelConnectionPool):
        return None
    kwargs = {key: value for key, value in pool.connection_kwargs.items() if key != "connection_pool"}
    kwargs.update(overrides)
    manager: Sentinel = pool.sentinel_manager
    client: Redis = manager.master_for(
        pool.service_name, Redis, BlockingSentinelPool, max_connections=max_connections, timeout=timeout, **kwargs
    )
    return client


@dataclass(frozen=True)
class Durability:
    """How many replicas must hold a result before the node counts on it, and how long one WAIT waits."""

    replicas: int = 0
    wait_ms: int = DEFAULT_WAIT_MS


NONE = Durability()
"""A plain Redis: the master's word is all there is."""


def durability(url: str | None) -> Durability:
    """What `url` asks for: a Sentinel URL its `replicas`; any other Redis only the master's own word."""
    if url and is_sentinel(url):
        parsed = parse(url)
        return Durability(parsed.replicas, parsed.wait_ms)
    return NONE


class NotReplicated(redis.exceptions.ConnectionError):
    """No replica confirmed a write in time: the node waits and asks again, as for an unreachable Redis."""


async def replicated(client: Redis, wanted: Durability) -> int:
    """Wait until `wanted.replicas` replicas (or every replica the master has, if fewer) hold every write
    made so far, by any connection; returns how many do. NotReplicated when they do not within the wait.

    WAIT counts the writes of its own connection, so it follows a write of its own (a mark) in one
    pipeline: the mark's offset is past every write acknowledged before it.
    """
    if wanted.replicas <= 0:
        return 0
    role = await client.execute_command("ROLE")  # type: ignore[no-untyped-call]
    connected = len(role[2]) if role and role[0] in (b"master", "master") else 0
    needed = min(wanted.replicas, connected)
    if needed == 0:
        return 0  # a lone master (the replicas are gone, or it was just promoted): its word is all there is
    async with client.pipeline(transaction=False) as pipe:
        pipe.set(keys.REPLICATION_MARK, "1")
        pipe.execute_command("WAIT", needed, wanted.wait_ms)
        _, holding = await pipe.execute()
    if int(holding) < needed:
        raise NotReplicated(f"{holding} of {needed} replicas confirmed the write within {wanted.wait_ms} ms")
    return int(holding)
