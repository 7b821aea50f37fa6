"""A session resumes on whichever worker of `arena serve --workers 2` the kernel hands the new connection to.

A real supervisor with two real workers on one port. A bot that drops its connection at every new
request and comes back on a new one (a new source port, so the kernel picks either worker) must be
resumed every time, be sent its pending request again, and finish the match with no forfeit.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import urllib.request
from typing import Any

import grpc
import pytest
from redis.asyncio import Redis

from arena.node.work import submit_match
from arena.sdk import Client
from arena.store import Store
from arena.store.work import WorkQueue
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb
from tests.conftest import free_port
from tests.server.conftest import RandomBot, bearer
from tests.server.test_workers import register, serving, until

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]  # real `arena serve --workers` processes (the slow tier)


async def connect(address: str, token: str, resume: str = "") -> tuple[grpc.aio.Channel, Any, bot_pb.Welcome]:
    """A new connection (a new source port: either worker may get it), its Connect stream, and its Welcome."""
    channel = grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
    call = bot_grpc.BotServiceStub(channel).Connect(metadata=bearer(token))
    await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(games=["friday13"], resume_session_id=resume)))
    first = await asyncio.wait_for(call.read(), 30)
    assert first.WhichOneof("message") == "welcome", first
    return channel, call, first.welcome


async def hopper(address: str, token: str) -> tuple[int, bot_pb.MatchEnded]:
    """Play one match, leaving at every request first seen and answering it once resumed; (hops, its end)."""
    channel, call, welcome = await connect(address, token)
    session = welcome.session_id
    seen: set[int] = set()
    hops = 0
    try:
        while True:
            message = await asyncio.wait_for(call.read(), 30)
            assert message is not grpc.aio.EOF, "the stream ended"
            kind = message.WhichOneof("message")
            if kind == "match_ended":
                return hops, message.match_ended
            if kind != "action_request":
                continue
            request = message.action_request
            if request.request_id not in seen:
                seen.add(request.request_id)
                await channel.close()
                hops += 1
                channel, call, welcome = await connect(address, token, session)
                assert (welcome.resumed, welcome.session_id) == (True, session), (hops, welcome)
                continue  # the request comes again on the resumed stream
            action = bot_pb.Action(
                match_id=request.match_id, request_id=request.request_id, action_id=request.legal_actions[0].id
            )
            await call.write(bot_pb.ConnectRequest(action=action))
    finally:
        await channel.close()


def forwarded(metrics_port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as response:
        text = response.read().decode()
    found = re.search(r'^arena_resumes_forwarded_total\{outcome="forwarded"\} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


async def test_a_bot_reconnecting_at_every_request_resumes_on_either_worker_and_plays_on(redis_url: str) -> None:
    port, metrics_port = free_port(), free_port()
    redis = Redis.from_url(redis_url)
    args = ("--workers", "2", "--port", str(port), "--redis-url", redis_url, "--metrics-port", str(metrics_port))
    clients: list[Client] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        with serving(*args, "--no-web") as server:
            server.wait_for("serving on")
            address = f"127.0.0.1:{port}"
            tokens = await register(address, ["hop", "r1", "r2", "thief"])
            clients = [Client(RandomBot, address, tokens[name], backoff=0.05) for name in ("r1", "r2")]
            tasks = [asyncio.create_task(client.run()) for client in clients]
            order = await submit_match(Store(redis), "friday13", ["hop", "r1", "r2"])
            hops, ended = await asyncio.wait_for(hopper(address, tokens["hop"]), 120)
            # Each hop lands on either worker: with none forwarded after this many, forwarding is broken.
            assert hops >= 12, hops
            assert forwarded(metrics_port) >= 1
            assert ended.match_id == order.match_id and ended.termination == pb.TERMINATION_NORMAL, ended
            queue = WorkQueue(redis)

            async def stored() -> bool:
                return await queue.result(order.match_id) is not None

            await until(stored, "the match's result")
            result = await queue.result(order.match_id)
            assert result is not None and result.termination == "normal" and not result.forfeited, result

            # Another bot's token cannot take a session over, on either worker: it gets a new one of its own.
            _, _, held = await connect(address, tokens["hop"])
            for _ in range(8):
                channel, _, welcome = await connect(address, tokens["thief"], held.session_id)
                await channel.close()
                assert not welcome.resumed and welcome.session_id != held.session_id, welcome
                assert welcome.bot_name == "thief"
            # An unknown session id opens a new session once every worker has said it does not hold it.
            channel, _, welcome = await connect(address, tokens["hop"], "s-nosuchsession")
            await channel.close()
            assert not welcome.resumed and welcome.session_id != "s-nosuchsession", welcome

            # kill -9 a worker: restarted under its index, it links its new socket, and resumes reach it again.
            workers = server.workers()
            index, (victim, pid) = 2, sorted(workers.items())[1]
            mark = len(server.lines)
            os.kill(pid, signal.SIGKILL)
            server.wait_for(rf"worker {index} \({re.escape(victim)}r1, pid \d+\) serves again", after=mark)
            before = forwarded(metrics_port)
            for _ in range(4):  # new sessions: each on either worker, so some on the restarted one
                channel, _, fresh = await connect(address, tokens["hop"])
                for _ in range(6):
                    again, _, welcome = await connect(address, tokens["hop"], fresh.session_id)
                    await again.close()
                    assert (welcome.resumed, welcome.session_id) == (True, fresh.session_id), welcome
                await channel.close()
            assert forwarded(metrics_port) > before, "no resume went through the restarted worker's link"
    finally:
        for client in clients:
            client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        await redis.aclose()
