"""A match hosted on one node seats bots connected to another, through Redis streams: two real `arena serve`."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import pytest
from redis.asyncio import Redis

from arena.games import make_game
from arena.node.work import submit_match
from arena.sdk import Client
from arena.store import Store, keys
from arena.store.work import WorkQueue
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.conftest import free_port
from tests.server.conftest import RandomBot, bearer

ADMIN = "ata_relay-test"


@contextmanager
def node(redis_url: str, slots: int) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN, "ARENA_MATCH_SLOTS": str(slots)}
    serve = [
        sys.executable,
        "-m",
        "arena.cli",
        "serve",
        "--port",
        str(port),
        "--redis-url",
        redis_url,
        "--no-web",
    ]
    process = subprocess.Popen(serve, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    assert "serving on" in process.stdout.readline()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)


async def register(address: str, names: list[str]) -> dict[str, str]:
    async with grpc.aio.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        owner = (await api.CreateOwner(api_pb.CreateOwnerRequest(name="relay"), metadata=bearer(ADMIN))).token
        return {
            name: (await api.RegisterBot(api_pb.RegisterBotRequest(name=name), metadata=bearer(owner))).token
            for name in names
        }


@pytest.mark.asyncio
async def test_matches_seat_bots_connected_to_different_nodes(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    with node(redis_url, slots=8) as first, node(redis_url, slots=8) as second:
        tokens = await register(first, ["on-a", "on-b"])
        clients = [
            Client(RandomBot, first, tokens["on-a"], max_matches=8, backoff=0.05),
            Client(RandomBot, second, tokens["on-b"], max_matches=8, backoff=0.05),
        ]
        tasks = [asyncio.create_task(client.run()) for client in clients]
        try:
            for client in clients:
                await asyncio.wait_for(client.welcomed.wait(), 10)
            for _ in range(200):  # both nodes have stated their sessions
                if all([await redis.exists(keys.presence(bot)) for bot in ("on-a", "on-b")]):
                    break
                await asyncio.sleep(0.05)
            orders = [await submit_match(store, "friday13", ["on-a", "on-b", "builtin:random"]) for _ in range(6)]
            queue = WorkQueue(redis)
            for _ in range(600):
                if all([await queue.result(order.match_id) for order in orders]):
                    break
                await asyncio.sleep(0.05)
            results = [await queue.result(order.match_id) for order in orders]
        finally:
            for client in clients:
                client.stop()
            await asyncio.gather(*tasks, return_exceptions=True)
    try:
        assert all(result is not None for result in results), "matches did not finish"
        game = make_game("friday13", players=3)
        for order, result in zip(orders, results, strict=True):
            assert result is not None and result.termination == "normal", result
            found = await store.get_match(order.match_id)
            assert found is not None and found[1] is not None
            assert tuple(game.replay(found[1]).outcome().scores) == result.scores
    finally:
        await redis.aclose()
