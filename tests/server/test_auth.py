"""Tokens: who may do what, hashes only at rest, rotation."""

from __future__ import annotations

import grpc
import pytest
import redis

from arena.store import token_hash
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import ADMIN, Arena, RandomBot, RawBot, bearer

pytestmark = pytest.mark.asyncio


async def status_of(call: object) -> grpc.StatusCode:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


async def test_creating_an_owner_needs_the_admin_token(arena: Arena) -> None:
    owner = await arena.owner("alice")
    request = api_pb.CreateOwnerRequest(name="bob")
    assert await status_of(arena.api.CreateOwner(request)) == grpc.StatusCode.UNAUTHENTICATED
    assert (
        await status_of(arena.api.CreateOwner(request, metadata=bearer("ata_wrong"))) == grpc.StatusCode.UNAUTHENTICATED
    )
    assert (
        await status_of(arena.api.CreateOwner(request, metadata=bearer("nonsense"))) == grpc.StatusCode.UNAUTHENTICATED
    )
    assert await status_of(arena.api.CreateOwner(request, metadata=bearer(owner))) == grpc.StatusCode.PERMISSION_DENIED
    assert await status_of(arena.api.CreateOwner(request, metadata=bearer(ADMIN))) == grpc.StatusCode.OK


async def test_owner_names_are_unique_and_checked(arena: Arena) -> None:
    await arena.owner("alice")
    again = arena.api.CreateOwner(api_pb.CreateOwnerRequest(name="alice"), metadata=bearer(ADMIN))
    assert await status_of(again) == grpc.StatusCode.ALREADY_EXISTS
    bad = arena.api.CreateOwner(api_pb.CreateOwnerRequest(name="no spaces!"), metadata=bearer(ADMIN))
    assert await status_of(bad) == grpc.StatusCode.INVALID_ARGUMENT


async def test_bots_are_registered_by_their_owner_only(arena: Arena) -> None:
    owner = await arena.owner("alice")
    bot_token = await arena.bot(owner, "alpha")
    request = api_pb.RegisterBotRequest(name="beta", games=["friday13"])
    assert await status_of(arena.api.RegisterBot(request)) == grpc.StatusCode.UNAUTHENTICATED
    assert await status_of(arena.api.RegisterBot(request, metadata=bearer(ADMIN))) == grpc.StatusCode.PERMISSION_DENIED
    assert (
        await status_of(arena.api.RegisterBot(request, metadata=bearer(bot_token))) == grpc.StatusCode.PERMISSION_DENIED
    )
    unknown_game = api_pb.RegisterBotRequest(name="gamma", games=["chess"])
    assert (
        await status_of(arena.api.RegisterBot(unknown_game, metadata=bearer(owner))) == grpc.StatusCode.INVALID_ARGUMENT
    )
    taken = api_pb.RegisterBotRequest(name="alpha")
    assert await status_of(arena.api.RegisterBot(taken, metadata=bearer(owner))) == grpc.StatusCode.ALREADY_EXISTS
    listed = await arena.api.ListBots(api_pb.ListBotsRequest())
    assert [(bot.name, bot.owner) for bot in listed.bots] == [("alpha", "alice")]


async def test_an_owner_may_not_touch_another_owners_bot(arena: Arena) -> None:
    alice = await arena.owner("alice")
    mallory = await arena.owner("mallory")
    await arena.bot(alice, "alpha")
    rotate = api_pb.RotateBotTokenRequest(name="alpha")
    assert (
        await status_of(arena.api.RotateBotToken(rotate, metadata=bearer(mallory))) == grpc.StatusCode.PERMISSION_DENIED
    )
    missing = api_pb.RotateBotTokenRequest(name="nobody")
    assert await status_of(arena.api.RotateBotToken(missing, metadata=bearer(alice))) == grpc.StatusCode.NOT_FOUND
    assert await status_of(arena.api.RotateBotToken(rotate, metadata=bearer(ADMIN))) == grpc.StatusCode.OK


async def test_a_rotated_token_stops_working_at_once(arena: Arena) -> None:
    owner = await arena.owner("alice")
    old = await arena.bot(owner, "alpha")
    await arena.connect(RandomBot, old)
    response = await arena.api.RotateBotToken(api_pb.RotateBotTokenRequest(name="alpha"), metadata=bearer(owner))
    assert response.token != old
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await RawBot(arena, old).connect()
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    fresh = RawBot(arena, response.token)
    welcome = await fresh.connect()
    assert welcome.bot_name == "alpha"
    await fresh.close()


async def test_connect_needs_a_bot_token(arena: Arena) -> None:
    owner = await arena.owner("alice")
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await RawBot(arena, "").connect()
    assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as wrong_kind:
        await RawBot(arena, owner).connect()
    assert wrong_kind.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "bot token" in (wrong_kind.value.details() or "")


async def test_creating_matches_needs_the_admin_token(arena: Arena) -> None:
    owner = await arena.owner("alice")
    request = api_pb.CreateMatchRequest(seats=["builtin:random"] * 3)
    request.game.game = "friday13"
    assert await status_of(arena.api.CreateMatch(request)) == grpc.StatusCode.UNAUTHENTICATED
    assert await status_of(arena.api.CreateMatch(request, metadata=bearer(owner))) == grpc.StatusCode.PERMISSION_DENIED


def everything_stored(url: str) -> str:
    """Every key and value under arena:, as text."""
    client = redis.Redis.from_url(url, decode_responses=True)
    parts: list[str] = []
    for key in client.scan_iter("arena:*"):
        kind = client.type(key)
        if kind == "stream":
            parts += [str(key), str(client.xrange(key))]
            continue
        values = client.hgetall(key) if kind == "hash" else client.smembers(key) if kind == "set" else [client.get(key)]
        parts += [str(key), str(values)]
    client.close()
    return "\n".join(parts)


async def test_only_token_hashes_are_stored(arena: Arena, redis_url: str) -> None:
    owner = await arena.owner("alice")
    bot = await arena.bot(owner, "alpha")
    stored = everything_stored(redis_url)
    for secret in (ADMIN, owner, bot):
        assert secret not in stored
        assert token_hash(secret) in stored
