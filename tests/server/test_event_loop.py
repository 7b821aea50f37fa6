"""`arena serve --event-loop uvloop`: a node (and a supervisor's workers) on uvloop plays real matches
over real gRPC and stops cleanly."""

from __future__ import annotations

import asyncio
import gc

import grpc
import pytest
from redis.asyncio import Redis

from arena.app import YOUNG_COLLECTION, run_node
from arena.sdk import Client
from arena.store import keys
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb
from tests.conftest import free_port
from tests.server.conftest import RandomBot, bearer
from tests.server.test_workers import ADMIN, arena, register, serving, until


@pytest.mark.asyncio
@pytest.mark.parametrize("workers", ["1", "2"])
async def test_a_node_on_uvloop_plays_a_match_and_stops_cleanly(redis_url: str, workers: str) -> None:
    port = free_port()
    args = ("--event-loop", "uvloop", "--workers", workers, "--port", str(port), "--redis-url", redis_url)
    with serving(*args, "--http-port", "0") as server:
        server.wait_for(r"serving on .*; event loop: uvloop\)")
        address = f"127.0.0.1:{port}"
        tokens = await register(address, ["looped"])
        client = Client(RandomBot, address, tokens["looped"], max_matches=1, backoff=0.05)
        task = asyncio.create_task(client.run())
        try:
            await asyncio.wait_for(client.welcomed.wait(), 20)
            # With two workers the call may reach the other one: it seats the bot once its worker has
            # stated the session in Redis (its next heartbeat).
            redis = Redis.from_url(redis_url)
            try:
                await until(lambda: redis.hlen(keys.presence("looped")), "the session stated in Redis")
            finally:
                await redis.aclose()
            async with grpc.aio.insecure_channel(address) as channel:
                api = api_grpc.ArenaServiceStub(channel)
                request = api_pb.CreateMatchRequest(
                    game=pb.GameSpec(game="friday13"), seats=["looped", "builtin:random", "builtin:heuristic"]
                )
                created = await api.CreateMatch(request, metadata=bearer(ADMIN))
                for _ in range(600):
                    reply = await api.GetMatch(api_pb.GetMatchRequest(match_id=created.match_id))
                    if reply.match.ended_ms:
                        break
                    await asyncio.sleep(0.05)
            assert reply.match.termination == pb.TERMINATION_NORMAL
        finally:
            client.stop()
            await asyncio.gather(task, return_exceptions=True)
        assert server.stop() == 0


def test_an_unknown_event_loop_is_one_line() -> None:
    done = arena("serve", "--event-loop", "tokio")
    assert done.returncode == 2
    assert "Invalid value for '--event-loop': 'tokio' is not one of 'asyncio', 'uvloop'." in done.stderr


@pytest.mark.parametrize("event_loop", ["asyncio", "uvloop"])
def test_a_node_passes_over_its_young_objects_every_ten_thousand_allocations(event_loop: str) -> None:
    """`run_node` runs every node, supervisor and worker: each collects its youngest generation less often."""
    seen: list[tuple[int, int, int]] = []

    async def node() -> None:
        seen.append(gc.get_threshold())

    before = gc.get_threshold()
    try:
        run_node(node(), event_loop)
    finally:
        gc.set_threshold(*before)
    assert seen == [(YOUNG_COLLECTION, *before[1:])]
    assert before[0] < YOUNG_COLLECTION
