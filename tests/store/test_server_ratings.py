"""Finished matches rate their bots through the server; everything survives a restart of server and Redis."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
import redis

from arena.app import ServerConfig, running
from arena.node.sessions import Limits
from arena.store import open_redis
from arena.store.ratings import RatingStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.conftest import free_port, redis_server_binary
from tests.server.conftest import ADMIN, Arena, RandomBot, RawBot, start_arena

pytestmark = pytest.mark.asyncio


async def rated(ratings: RatingStore, game: str, match_id: str, timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await ratings.is_applied(game, match_id):
        assert asyncio.get_running_loop().time() < deadline, f"match {match_id} was not rated"
        await asyncio.sleep(0.02)


def ratings_of(arena: Arena) -> RatingStore:
    assert arena.server.ratings is not None
    return arena.server.ratings


async def test_a_finished_match_rates_its_bots_once(arena: Arena) -> None:
    tokens = await arena.bots("solo")
    await arena.connect(RandomBot, tokens["solo"])
    match_id = await arena.create_match("friday13", ["solo", "builtin:random", "builtin:heuristic"])
    await arena.finished(match_id)
    ratings = ratings_of(arena)
    await rated(ratings, "friday13", match_id)
    board = await ratings.leaderboard("friday13")
    assert sorted(row.bot for row in board) == ["builtin:heuristic", "builtin:random", "solo"]
    assert all(row.games == 1 and row.last_ms > 0 for row in board)
    stored = await ratings.results("friday13")
    assert [result.match_id for result in stored] == [match_id]


@contextlib.contextmanager
def external_redis(data_dir: Path) -> Iterator[str]:
    """A redis-server process with AOF on in `data_dir`, stopped (SIGTERM: AOF written) on exit; its URL."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    options = {"--port": str(port), "--bind": "127.0.0.1", "--appendonly": "yes", "--save": "", "--dir": str(data_dir)}
    argv = [redis_server_binary(), *itertools.chain.from_iterable(options.items())]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.025)
        yield url
    finally:
        client.close()
        process.terminate()
        process.wait(timeout=10)


@contextlib.asynccontextmanager
async def arena_on(data_dir: Path, kind: str) -> AsyncIterator[Arena]:
    """A server on an embedded Redis, or on a redis-server process, keeping its data in `data_dir`."""
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(external_redis(data_dir / "redis")) if kind == "external" else None
        async with served(data_dir, url) as arena:
            yield arena


@contextlib.asynccontextmanager
async def served(data_dir: Path, url: str | None) -> AsyncIterator[Arena]:
    async with open_redis(url, data_dir) as redis:
        config = ServerConfig(port=0, data_dir=data_dir, admin_token=ADMIN, limits=Limits(grace=1.0))
        async with running(config, redis) as server:
            channel = grpc.aio.insecure_channel(server.address)
            arena = Arena(server, channel, api_grpc.ArenaServiceStub(channel))
            try:
                yield arena
            finally:
                for client, _ in arena.clients:
                    client.stop()
                await asyncio.gather(*(task for _, task in arena.clients), return_exceptions=True)
                await channel.close()


@pytest.mark.parametrize("kind", ["embedded", "external"])
async def test_bots_matches_and_ratings_survive_a_restart_of_the_server_and_of_redis(tmp_path: Path, kind: str) -> None:
    data = tmp_path / "data"
    async with arena_on(data, kind) as arena:
        tokens = await arena.bots("keeper")
        await arena.connect(RandomBot, tokens["keeper"])
        match_id = await arena.create_match("amigo13", ["keeper", "builtin:random", "builtin:heuristic"])
        summary, _ = await arena.finished(match_id)
        await rated(ratings_of(arena), "amigo13", match_id)
        board = await ratings_of(arena).leaderboard("amigo13")
        history = await ratings_of(arena).history("amigo13", "keeper")
    assert any(path.name.startswith("appendonly") for path in data.rglob("*")), "no append-only file written"
    async with arena_on(data, kind) as arena:
        bots = await arena.api.ListBots(api_pb.ListBotsRequest())
        assert [bot.name for bot in bots.bots] == ["keeper"]
        again = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))
        assert again.match == summary and again.replay_json
        assert await ratings_of(arena).leaderboard("amigo13") == board
        assert await ratings_of(arena).history("amigo13", "keeper") == history
        assert await ratings_of(arena).is_applied("amigo13", match_id)
        # The bot's token still works after the restart.
        await arena.connect(RandomBot, tokens["keeper"])


async def test_a_forfeit_is_rated_with_the_runners_ranks_the_forfeiting_bot_last(redis_url: str) -> None:
    async with start_arena(redis_url, limits=Limits(grace=0.2)) as arena:
        tokens = await arena.bots("quitter")
        bot = RawBot(arena, tokens["quitter"])
        await bot.connect()
        match_id = await arena.create_match("friday13", ["quitter", "builtin:random", "builtin:heuristic"])
        await bot.expect("action_request")
        await bot.close()
        summary, _ = await arena.finished(match_id)
        ratings = ratings_of(arena)
        await rated(ratings, "friday13", match_id)
        (stored,) = await ratings.results("friday13")
        assert stored.termination == "forfeit" and stored.forfeited == (0,)
        assert stored.ranks[0] == 3 and list(summary.ranks) == list(stored.ranks)
        board = await ratings.leaderboard("friday13")
        assert board[-1].bot == "quitter" and board[-1].mu < 25
