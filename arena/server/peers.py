"""Fair shares per client address on the gRPC edge: wrong tokens are slowed, live watches are capped.

grpcio tells a call who its peer is (`context.peer()`: "ipv4:1.2.3.4:5678", "ipv6:[::1]:5678",
"unix:"), but it tells the server nothing when a connection is accepted: connections cannot be
counted or refused per address. The node caps them per listener instead, closes those that never
finish their HTTP/2 handshake and those idle without a call (`server_options`), and this module
limits per address what a call can do once it runs: `PeerGuard`, a server interceptor.

On the Unix socket every peer reads "unix:": it is the hosted bots' way in, all of them under the
node's own sandbox, so an address there names no one. Locking it out after wrong tokens would let
one hosted bot lock every other one out; so there wrong tokens are answered one at a time, each
`UNIX_WRONG_TOKEN_DELAY` late: at most one a second for the whole socket, however many calls a
hosted process holds, while a right token (every honest launch's) is answered at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena import metrics
from arena.node.clients import AddressCounts, client_address
from arena.node.clients import PeerLimits as PeerLimits  # kept importable from here, where the edge uses them
from arena.node.clients import WrongTokens as WrongTokens
from arena.node.fds import FdPlan

UNIX = "unix"
"""The address of every peer on the Unix socket."""
UNIX_WRONG_TOKEN_DELAY = 1.0
"""Seconds a wrong token on the Unix socket waits for its refusal, after the ones before it."""
REFUSAL_WAIT = 1.0
"""Seconds a refused call that streams its requests is given to deliver its first message (see Connect)."""
WATCHES = frozenset({"/arena.v1.ArenaService/WatchMatch", "/arena.v1.ArenaService/WatchTournament"})
"""The long-lived calls anyone may open without a token."""
METADATA_KEY = "authorization"
"""The metadata that carries a token (arena.server.auth reads it)."""


def server_options(fd_plan: FdPlan) -> list[tuple[str, int]]:
    """grpc.aio.server options that keep one client from holding the node's connections."""
    return [
        # Per listener (TCP and the Unix socket each): beyond it a connection is closed as it is
        # accepted, before its handshake, so the descriptors left stay the node's.
        ("grpc.max_allowed_incoming_connections", fd_plan.grpc),
        # A connection that sends no HTTP/2 preface within 10 s is closed (default 120 s).
        ("grpc.server_handshake_timeout_ms", 10_000),
        # A connection with no call for a minute is sent GOAWAY; a bot's Connect stream is a call,
        # so a playing bot is never idle, and a client's channel reconnects on its next call.
        ("grpc.max_connection_idle_ms", 60_000),
        # Calls at once on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; clients queue beyond).
        ("grpc.max_concurrent_streams", 100),
        # Ping a quiet connection every minute; one whose peer vanished is closed 20 s later.
        ("grpc.keepalive_time_ms", 60_000),
        ("grpc.keepalive_timeout_ms", 20_000),
        # SDK bots ping every 10 s to find a stopped node (arena.sdk.client.KEEPALIVE): allowed, no faster.
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
    ]


def address_of(peer: str) -> str:
    """The client a gRPC peer string names (`client_address`), or `UNIX` for every peer on the Unix socket."""
    kind, _, rest = peer.partition(":")
    if kind == "unix":
        return UNIX
    return client_address(rest.rsplit(":", 1)[0].strip("[]"))


@dataclass(frozen=True)
class Caller:
    """The guard and the address of the call running (set by `PeerGuard` for calls that carry a token)."""

    guard: PeerGuard
    address: str

    async def wrong_token(self) -> None:
        """The call's token was not valid: remember it against the address, or (on the Unix socket) answer late."""
        metrics.REFUSALS.labels("wrong_token").inc()
        if self.address == UNIX:
            async with self.guard.unix_wrong_tokens:
                await asyncio.sleep(UNIX_WRONG_TOKEN_DELAY)
        else:
            self.guard.wrong.failed(self.address)


CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("arena_grpc_caller", default=None)
"""Read by arena.server.auth when a token proves wrong."""


class PeerGuard(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc's own classes are untyped
    """Refuses calls with a token from an address that presented too many wrong ones, and caps live watches."""

    def __init__(self, limits: PeerLimits | None = None) -> None:
        self.limits = limits or PeerLimits()
        self.wrong = WrongTokens(self.limits)
        self.watching = AddressCounts(self.limits.watches_per_address, self.limits.watches)
        self.unix_wrong_tokens = asyncio.Lock()
        """Held while a wrong token on the Unix socket waits out its delay: they are answered one at a time."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(details)
        if handler is None:
            return None
        token = any(key.lower() == METADATA_KEY for key, _ in details.invocation_metadata or ())
        watch = details.method in WATCHES
        if not token and not watch:
            return handler
        guard = functools.partial(self._guarded, token, watch, handler.request_streaming)
        for field in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            behavior = getattr(handler, field)
            if behavior is not None:
                return handler._replace(**{field: _wrapped(behavior, guard)})
        return handler

    @contextlib.asynccontextmanager
    async def _guarded(
        self, token: bool, watch: bool, streaming: bool, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[None]:
        address = address_of(context.peer())
        if token and address != UNIX:
            wait = self.wrong.wait(address)
            if wait > 0:
                metrics.REFUSALS.labels("wrong_tokens_address").inc()
                await _refuse(context, streaming, grpc.StatusCode.UNAUTHENTICATED, self.wrong.refusal(wait))
        if watch:
            full = self.watching.take(address)
            if full:
                metrics.REFUSALS.labels(f"watch_{full}").inc()
                text = (
                    f"this address holds its maximum of {self.limits.watches_per_address} live watches; end one first"
                    if full == "address"
                    else f"this node serves its maximum of {self.limits.watches} live watches; retry in a minute"
                )
                await _refuse(context, streaming, grpc.StatusCode.RESOURCE_EXHAUSTED, text)
            metrics.LIVE_STREAMS.labels("watch").inc()
        reset = CALLER.set(Caller(self, address)) if token else None
        try:
            yield
        finally:
            if reset is not None:
                CALLER.reset(reset)
            if watch:
                self.watching.give_back(address)
                metrics.LIVE_STREAMS.labels("watch").dec()


async def _refuse(context: grpc.aio.ServicerContext, streaming: bool, code: grpc.StatusCode, text: str) -> None:
    if streaming:
        # As in Connect: ending a call before its first message arrived makes grpc's Python client
        # report INTERNAL instead of this status, so take the first message (briefly) first.
        with contextlib.suppress(TimeoutError, DecodeError):
            await asyncio.wait_for(context.read(), REFUSAL_WAIT)
    await context.abort(code, text)


Guard = Callable[[grpc.aio.ServicerContext], contextlib.AbstractAsyncContextManager[None]]


def _wrapped(behavior: Callable[..., Any], guard: Guard) -> Callable[..., Any]:
    """`behavior` (an async servicer method or async generator) run inside `guard`."""
    if inspect.isasyncgenfunction(behavior):

        async def streaming(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            async with guard(context):
                async for response in behavior(request, context):
                    yield response

        return streaming

    async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
        async with guard(context):
            return await behavior(request, context)

    return call
