"""Who is calling, and the status a refused or failed call ends with.

A missing or unknown token is UNAUTHENTICATED; a valid token for something its holder may not
touch is PERMISSION_DENIED. Reading public data needs no token. An unknown token counts against
the caller's address (arena.server.peers), which is refused for a while after too many.

Every RPC runs `guarded` (see `guard_rpcs`): a store (Redis) that cannot be reached or refuses
a command ends the call with UNAVAILABLE and `STORE_UNREACHABLE`; any other unexpected error
with INTERNAL and `FAILED_INTERNALLY`, the error itself going to the server's log only.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
import redis.exceptions

from arena.server.peers import CALLER, METADATA_KEY
from arena.store import Principal, Store

log = logging.getLogger(__name__)

SCHEME = "bearer "
STORE_UNREACHABLE = "the arena's store (Redis) is unreachable; retry in a few seconds"
FAILED_INTERNALLY = "the arena failed on this call (its log says why); retry, and tell its operator if it persists"
T = TypeVar("T")


@dataclass(frozen=True)
class Refusal:
    """The status a call is to end with."""

    code: grpc.StatusCode
    message: str


def bearer_token(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key.lower() == METADATA_KEY and isinstance(value, str) and value.lower().startswith(SCHEME):
            return value[len(SCHEME) :].strip()
    return None


async def abort(context: grpc.aio.ServicerContext, code: grpc.StatusCode, message: str) -> NoReturn:
    await context.abort(code, message)
    raise AssertionError("context.abort returns only by raising")


async def identify(store: Store, metadata: Any) -> Principal | Refusal:
    """Whose token `metadata` carries, or why the call is refused; store failures raise."""
    token = bearer_token(metadata)
    if not token:
        return Refusal(grpc.StatusCode.UNAUTHENTICATED, "no token: send the metadata 'authorization: Bearer <token>'")
    principal = await store.authenticate(token)
    if principal is None:
        caller = CALLER.get()
        if caller is not None:
            await caller.wrong_token()
        return Refusal(grpc.StatusCode.UNAUTHENTICATED, "the token is not valid (rotated, or mistyped)")
    return principal


async def authenticate(store: Store, context: grpc.aio.ServicerContext) -> Principal:
    found = await identify(store, context.invocation_metadata())
    if isinstance(found, Refusal):
        await abort(context, found.code, found.message)
    return found


async def require(store: Store, context: grpc.aio.ServicerContext, *kinds: str, why: str = "") -> Principal:
    """The caller, who must hold a token of one of `kinds`."""
    principal = await authenticate(store, context)
    if principal.kind not in kinds:
        await abort(context, grpc.StatusCode.PERMISSION_DENIED, why or wrong_kind(principal, *kinds))
    return principal


def wrong_kind(principal: Principal, *kinds: str) -> str:
    wanted = " or ".join(with_article(kind) for kind in kinds)
    return f"this needs {wanted} token, not {with_article(principal.kind)} token"


def with_article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


# -- failures -----------------------------------------------------------------------------------


def failure(error: Exception, what: str) -> Refusal:
    """The status for an exception that escaped RPC `what`; logs it (a person reads the log, not the client)."""
    if isinstance(error, redis.exceptions.RedisError):
        log.warning("%s: the store failed: %s: %s", what, type(error).__name__, error)
        return Refusal(grpc.StatusCode.UNAVAILABLE, STORE_UNREACHABLE)
    log.error("%s failed", what, exc_info=error)
    return Refusal(grpc.StatusCode.INTERNAL, FAILED_INTERNALLY)


async def _fail(context: grpc.aio.ServicerContext, error: Exception, what: str) -> None:
    if isinstance(error, grpc.aio.AbortError | grpc.aio.UsageError):
        raise error  # context.abort's own signal, or a call already ended
    if context.done():
        return  # the client is gone (cancelled); nobody to tell
    refusal = failure(error, what)
    await abort(context, refusal.code, refusal.message)


def guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """`method` (an async servicer method or async generator), its unexpected errors ending the call as `failure` says."""
    what = method.__name__
    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def streaming(self: Any, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            try:
                async for response in method(self, request, context):
                    yield response
            except Exception as error:
                await _fail(context, error, what)

        return streaming

    @functools.wraps(method)
    async def call(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except Exception as error:
            await _fail(context, error, what)
            return None

    return call


def guard_rpcs(*services: Any) -> Callable[[type[T]], type[T]]:
    """A class decorator: every RPC of `services` (service descriptors) that the class implements in async code runs `guarded`."""

    def decorate(cls: type[T]) -> type[T]:
        for service in services:
            for rpc in service.methods:
                method = getattr(cls, rpc.name, None)
                if inspect.iscoroutinefunction(method) or inspect.isasyncgenfunction(method):
                    setattr(cls, rpc.name, guarded(method))
        return cls

    return decorate
