"""Who is calling: the bearer token in the metadata, checked against the stored hashes.

A missing or unknown token is UNAUTHENTICATED; a valid token for something its holder may not
touch is PERMISSION_DENIED. Reading public data needs no token.
"""

from __future__ import annotations

from typing import Any, NoReturn

import grpc

from arena.store import Principal, Store

METADATA_KEY = "authorization"
SCHEME = "bearer "


def bearer_token(metadata: Any) -> str | None:
    for key, value in metadata or ():
        if key.lower() == METADATA_KEY and isinstance(value, str) and value.lower().startswith(SCHEME):
            return value[len(SCHEME) :].strip()
    return None


async def abort(context: grpc.aio.ServicerContext, code: grpc.StatusCode, message: str) -> NoReturn:
    await context.abort(code, message)
    raise AssertionError("context.abort returns only by raising")


async def authenticate(store: Store, context: grpc.aio.ServicerContext) -> Principal:
    token = bearer_token(context.invocation_metadata())
    if not token:
        await abort(
            context, grpc.StatusCode.UNAUTHENTICATED, "no token: send the metadata 'authorization: Bearer <token>'"
        )
    principal = await store.authenticate(token)
    if principal is None:
        await abort(context, grpc.StatusCode.UNAUTHENTICATED, "the token is not valid (rotated, or mistyped)")
    return principal


async def require(store: Store, context: grpc.aio.ServicerContext, *kinds: str, why: str = "") -> Principal:
    """The caller, who must hold a token of one of `kinds`."""
    principal = await authenticate(store, context)
    if principal.kind not in kinds:
        wanted = " or ".join(with_article(kind) for kind in kinds)
        text = why or f"this needs {wanted} token, not {with_article(principal.kind)} token"
        await abort(context, grpc.StatusCode.PERMISSION_DENIED, text)
    return principal


def with_article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
