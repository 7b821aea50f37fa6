"""The gRPC health status follows the store: NOT_SERVING while Redis is away, SERVING once it is back."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from redis.asyncio import Redis

from arena.server import health
from arena.store import embedded
from tests.conftest import free_port, redis_server_binary
from tests.server.conftest import start_arena

pytestmark = pytest.mark.asyncio


class OwnRedis:
    """A Redis of this test's own, which it can stop and start again on the same port."""

    def __init__(self, folder: Path) -> None:
        self.port, self.folder = free_port(), folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--dir",
             str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        with redis.Redis(port=self.port) as client:
            while True:
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    assert time.monotonic() < deadline and self.process.poll() is None, "redis-server did not start"
                    time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def status_becomes(stub: health_pb2_grpc.HealthStub, wanted: int, within: float) -> float:
    """Seconds until the server's overall status is `wanted`; fails after `within`."""
    started = time.monotonic()
    while True:
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=""))
        if reply.status == wanted:
            return time.monotonic() - started
        assert time.monotonic() - started < within, f"health stayed {reply.status}, not {wanted}"
        await asyncio.sleep(0.05)


async def test_health_is_not_serving_while_redis_is_away_and_serving_once_it_is_back(own_redis: OwnRedis) -> None:
    # A status change is seen within one PING interval plus one PING timeout, plus room for a busy machine.
    within = health.INTERVAL + health.TIMEOUT + 10
    async with start_arena(own_redis.url) as arena:
        stub = health_pb2_grpc.HealthStub(grpc.aio.insecure_channel(arena.address))
        assert (await stub.Check(health_pb2.HealthCheckRequest(service=""))).status == health.SERVING
        own_redis.stop()
        await status_becomes(stub, health.NOT_SERVING, within)
        reply = await stub.Check(health_pb2.HealthCheckRequest(service="arena.v1.BotService"))
        assert reply.status == health.NOT_SERVING
        own_redis.start()
        await status_becomes(stub, health.SERVING, within)


async def test_the_health_task_stops_when_cancelled_even_if_its_ping_swallowed_the_cancellation(redis_url: str) -> None:
    """A cancellation can be lost inside a call under way: here Python 3.11's `asyncio.wait_for` returns its ping's
    reply when the ping ends in the same turn of the loop as the cancel. The loop used to go round for ever then, and
    asyncio's end of the run, which cancels the tasks left and waits for them, hung on it (a teardown did for 300 s)."""
    client = Redis.from_url(redis_url)
    answer = asyncio.Event()
    pinged = asyncio.Event()

    async def ping() -> bool:
        pinged.set()
        await answer.wait()
        return True

    client.ping = ping  # type: ignore[method-assign,assignment]
    follower = health.StoreHealth(health_aio.HealthServicer(), client, ("",), interval=0.01)
    task = asyncio.create_task(follower.run())
    try:
        await asyncio.wait_for(pinged.wait(), 10)
        answer.set()  # the reply and the cancel in one turn of the loop
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), 10)
    finally:
        task.cancel()
        await client.aclose()


async def test_commands_under_way_as_the_store_comes_back_meet_no_connection_being_closed(redis_url: str) -> None:
    """The node's commands share one pool with the health check. When the check saw the store come back it used
    to close the pool's idle connections; a command taking one of them between the close and its end wrote to a
    closing socket and failed ("Error UNKNOWN while writing to socket. Connection lost"), as a test's XRANGE did
    right after a ping of a busy node timed out."""
    client = embedded.client(redis_url)
    follower = health.StoreHealth(health_aio.HealthServicer(), client, ("",), interval=0.001)
    try:
        await asyncio.gather(*(client.ping() for _ in range(32)))  # idle connections in the pool
        failures: list[BaseException] = []
        stop = asyncio.Event()

        async def commands() -> None:
            while not stop.is_set():
                try:
                    await client.get("x")
                except redis.RedisError as error:
                    failures.append(error)
                await asyncio.sleep(0)

        workers = [asyncio.create_task(commands()) for _ in range(16)]
        for _ in range(50):
            follower.serving = False  # as after a ping that timed out
            checker = asyncio.create_task(follower.run())
            while not follower.serving:
                await asyncio.sleep(0.001)
            checker.cancel()
            await asyncio.gather(checker, return_exceptions=True)
        stop.set()
        await asyncio.gather(*workers)
        assert failures == []
    finally:
        await client.aclose()


async def test_after_the_store_restarts_the_nodes_commands_succeed_at_the_first_try(own_redis: OwnRedis) -> None:
    """Connections made before a restart point at a server that is gone; the pool must not hand them out."""
    client = embedded.client(own_redis.url)
    try:
        await asyncio.gather(*(client.ping() for _ in range(16)))
        own_redis.stop()
        own_redis.start()
        await asyncio.sleep(0.2)  # the closed sockets' ends reach the event loop
        assert await asyncio.gather(*(client.set(f"k{n}", n) for n in range(16))) == [True] * 16
    finally:
        await client.aclose()
