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

from arena.app import RunningServer, ServerConfig, running
from arena.match import Clock
from arena.node.sessions import Limits
from arena.sdk import Bot, BuiltinBot, Client, Match
from arena.store.embedded import client as node_redis
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
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
    redis = node_redis(redis_url)  # the node's own kind of client: pooled as in `arena serve`, and metered
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


class RawBot:
    """A bot speaking the protocol by hand, to send exactly what a test needs."""

    def __init__(self, arena: Arena, token: str) -> None:
        self.arena = arena
        self.token = token
        self.channel = grpc.aio.insecure_channel(arena.address)
        self.call: Any = None
        self.session_id = ""

    async def connect(
        self, *, resume: bool = False, games: tuple[str, ...] = (), max_matches: int = 4, batches: bool = False
    ) -> Any:
        """Open a stream and say Hello; returns the Welcome."""
        stub = bot_grpc.BotServiceStub(self.channel)
        self.call = stub.Connect(metadata=bearer(self.token))
        hello = bot_pb.Hello(
            games=games,
            max_matches=max_matches,
            resume_session_id=self.session_id if resume else "",
            batches=batches,
        )
        await self.call.write(bot_pb.ConnectRequest(hello=hello))
        welcome = (await self.expect("welcome")).welcome
        self.session_id = welcome.session_id
        return welcome

    async def read(self, timeout: float = 5) -> Any:
        message = await asyncio.wait_for(self.call.read(), timeout)
        assert message is not grpc.aio.EOF, "the server closed the stream"
        return message

    async def expect(self, kind: str, timeout: float = 5) -> Any:
        """The next message of `kind`, skipping MatchStarted and MatchEnded unless asked for."""
        while True:
            message = await self.read(timeout)
            got = message.WhichOneof("message")
            if got == kind:
                return message
            if got not in ("match_started", "match_ended"):
                raise AssertionError(f"expected {kind}, got {message}")

    async def act(self, match_id: str, request_id: int, action_id: int) -> None:
        action = bot_pb.Action(match_id=match_id, request_id=request_id, action_id=action_id)
        await self.call.write(bot_pb.ConnectRequest(action=action))

    async def play_on(self, until_ended: str) -> Any:
        """Answer every request with its first legal action until match `until_ended` ends; returns MatchEnded."""
        while True:
            message = await self.read(10)
            kind = message.WhichOneof("message")
            if kind == "action_request":
                request = message.action_request
                await self.act(request.match_id, request.request_id, request.legal_actions[0].id)
            elif kind == "match_ended" and message.match_ended.match_id == until_ended:
                return message.match_ended

    async def requests(self, count: int) -> list[Any]:
        """The next `count` ActionRequests, whether they come alone or batched (`action_requests`)."""
        found: list[Any] = []
        while len(found) < count:
            message = await self.read(10)
            kind = message.WhichOneof("message")
            if kind == "action_request":
                found.append(message.action_request)
            elif kind == "action_requests":
                found.extend(message.action_requests.requests)
            else:
                assert kind in ("match_started", "match_ended"), message
        return found

    async def errors(self, count: int) -> list[Any]:
        """The next `count` Error messages, answering requests with their first legal action meanwhile."""
        errors: list[Any] = []
        while len(errors) < count:
            message = await self.read(10)
            kind = message.WhichOneof("message")
            if kind == "error":
                errors.append(message.error)
            elif kind == "action_request":
                request = message.action_request
                await self.act(request.match_id, request.request_id, request.legal_actions[0].id)
        return errors

    async def close(self) -> None:
        if self.call is not None:
            self.call.cancel()
        await self.channel.close()
