"""A real arena server on loopback, on the session's real Redis, with helpers to drive it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest_asyncio
from redis.asyncio import Redis

from arena.match import Clock
from arena.sdk import Bot, BuiltinBot, Client, Match
from arena.server.app import RunningServer, ServerConfig, running
from arena.server.sessions import Limits
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb

ADMIN = "ata_test-admin-token"


class RandomBot(BuiltinBot):
    policy = "random"


class HeuristicBot(BuiltinBot):
    policy = "heuristic"


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Arena:
    """A running server and a client channel to it."""

    server: RunningServer
    channel: grpc.aio.Channel
    api: Any
    clients: list[tuple[Client, asyncio.Task[None]]] = field(default_factory=list)

    @property
    def address(self) -> str:
        return self.server.address

    async def owner(self, name: str = "alice") -> str:
        response = await self.api.CreateOwner(api_pb.CreateOwnerRequest(name=name), metadata=bearer(ADMIN))
        token: str = response.token
        return token

    async def bot(self, owner_token: str, name: str, games: tuple[str, ...] = ("friday13", "amigo13")) -> str:
        response = await self.api.RegisterBot(
            api_pb.RegisterBotRequest(name=name, games=games, language="python"), metadata=bearer(owner_token)
        )
        token: str = response.token
        return token

    async def bots(self, *names: str) -> dict[str, str]:
        """Register bots of one owner; returns their tokens by name."""
        owner = await self.owner("owner-" + "-".join(names)[:30])
        return {name: await self.bot(owner, name) for name in names}

    async def connect(
        self, bot_class: Callable[[Match], Bot], token: str, *, max_matches: int = 4, **options: Any
    ) -> Client:
        client = Client(bot_class, self.address, token, max_matches=max_matches, backoff=0.05, **options)
        task = asyncio.create_task(client.run())
        self.clients.append((client, task))
        await asyncio.wait_for(client.welcomed.wait(), 5)
        return client

    async def create_match(
        self,
        game: str,
        seats: list[str],
        *,
        seed: str = "",
        clock: Clock | None = None,
        players: int = 0,
        edition: str = "",
    ) -> str:
        request = api_pb.CreateMatchRequest(
            game=pb.GameSpec(game=game, players=players, edition=edition), seats=seats, seed=seed
        )
        if clock is not None:
            request.clock.CopyFrom(pb.Clock(per_move_ms=int(clock.per_move * 1000), bank_ms=int(clock.bank * 1000)))
        response = await self.api.CreateMatch(request, metadata=bearer(ADMIN))
        match_id: str = response.match_id
        return match_id

    async def finished(self, match_id: str, timeout: float = 30) -> tuple[pb.MatchSummary, dict[str, Any]]:
        """Wait for the match to end; its summary and full replay record."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            response = await self.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))
            if response.match.ended_ms:
                return response.match, json.loads(response.replay_json) if response.replay_json else {}
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"match {match_id} did not end in {timeout} s")
            await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def start_arena(redis_url: str, **config: Any) -> AsyncIterator[Arena]:
    config.setdefault("port", 0)
    config.setdefault("admin_token", ADMIN)
    config.setdefault("limits", Limits(grace=2.0))
    redis = Redis.from_url(redis_url)
    try:
        async with running(ServerConfig(**config), redis) as server:
            channel = grpc.aio.insecure_channel(server.address)
            arena = Arena(server, channel, api_grpc.ArenaServiceStub(channel))
            try:
                yield arena
            finally:
                for client, _ in arena.clients:
                    client.stop()
                await asyncio.gather(*(task for _, task in arena.clients), return_exceptions=True)
                await channel.close()
    finally:
        await redis.aclose()


@pytest_asyncio.fixture
async def arena(redis_url: str) -> AsyncIterator[Arena]:
    async with start_arena(redis_url) as started:
        yield started
