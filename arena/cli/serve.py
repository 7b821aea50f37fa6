"""What the `arena serve` and `arena match` commands do, apart from parsing their options."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path

import grpc

from arena.app import ServerConfig, config_from_env, serve
from arena.match import Clock
from arena.node.ladder import LadderConfig, LadderError, parse_sizes
from arena.node.sessions import Limits
from arena.store import RedisUnavailable
from arena.store.embedded import redacted
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb
from arena.web import WebUnavailable


class CommandError(Exception):
    """A one-line problem for the person at the command line."""


def run_server(
    host: str,
    port: int,
    data_dir: Path,
    redis_url: str | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    clock: Clock,
    grace: float,
    ladder_sizes: Sequence[str] = (),
    http_port: int | None = None,
) -> None:
    if (tls_cert is None) != (tls_key is None):
        raise CommandError("give both --tls-cert and --tls-key, or neither")
    try:
        ladder = LadderConfig(sizes=parse_sizes(ladder_sizes))
    except LadderError as error:
        raise CommandError(str(error)) from None
    if redis_url and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise CommandError(f"--redis-url {redacted(redis_url)!r} must start with redis://, rediss:// or unix://")
    config = config_from_env(
        ServerConfig(host, port, data_dir, redis_url, tls_cert, tls_key, clock, Limits(grace=grace), ladder=ladder)
    )
    config.http_host, config.http_port = host, http_port
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(config, announce=lambda line: print(line, flush=True)))
    except (RedisUnavailable, WebUnavailable) as error:
        raise CommandError(str(error)) from None
    except RuntimeError as error:
        if "bind" in str(error).lower():
            raise CommandError(f"cannot listen on {host}:{port}: is another server running there?") from None
        raise


def create_match(
    server: str, token: str, game: str, seats: list[str], seed: str, players: int, edition: str, clock: Clock | None
) -> api_pb.CreateMatchResponse:
    request = api_pb.CreateMatchRequest(
        game=pb.GameSpec(game=game, players=players, edition=edition), seats=seats, seed=seed
    )
    if clock is not None:
        request.clock.CopyFrom(pb.Clock(per_move_ms=round(clock.per_move * 1000), bank_ms=round(clock.bank * 1000)))

    async def call() -> api_pb.CreateMatchResponse:
        async with grpc.aio.insecure_channel(server) as channel:
            stub = api_grpc.ArenaServiceStub(channel)  # type: ignore[no-untyped-call]
            response: api_pb.CreateMatchResponse = await stub.CreateMatch(
                request, metadata=(("authorization", f"Bearer {token}"),), timeout=10
            )
            return response

    try:
        return asyncio.run(call())
    except grpc.aio.AioRpcError as error:
        if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise CommandError(f"cannot reach the server at {server}") from None
        raise CommandError(str(error.details())) from None
