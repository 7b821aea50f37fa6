"""A resume reaching a worker that does not hold the session, forwarded to the sibling that does.

Two real nodes in this process, on one Redis, linked as a supervisor's workers are
(`ServerConfig.sibling_link`); the bot connects to each one's own port, so which worker holds the
session and which one forwards is chosen by the test, not by the kernel. What a lone node does with a
broken, garbled or half-closed stream must hold through the forward too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.node.sessions import Limits
from arena.node.work import WorkConfig
from arena.v1 import bot_service_pb2 as bot_pb
from tests.server.conftest import Arena, RawBot, bearer, start_arena

pytestmark = pytest.mark.asyncio


@contextlib.asynccontextmanager
async def two_workers(redis_url: str, folder: Path) -> AsyncIterator[tuple[Arena, Arena]]:
    limits = Limits(grace=5.0)
    async with (
        start_arena(redis_url, sibling_link=folder / "w1", limits=limits, work=_work("a")) as holder,
        start_arena(redis_url, sibling_link=folder / "w2", limits=limits, supervised=True, work=_work("b")) as other,
    ):
        yield holder, other


def _work(name: str) -> WorkConfig:
    return WorkConfig(node=f"siblings-{name}")


async def resumed_through(other: Arena, token: str, session_id: str) -> Any:
    """A stream to `other` resuming `session_id` (bytes in, bytes out, so that a test can send garbage)."""
    connect = other.channel.stream_stream(
        "/arena.v1.BotService/Connect", request_serializer=lambda raw: raw, response_deserializer=lambda raw: raw
    )
    call = connect(metadata=bearer(token))
    hello = bot_pb.Hello(games=["friday13"], resume_session_id=session_id)
    await call.write(bot_pb.ConnectRequest(hello=hello).SerializeToString())
    first = bot_pb.ConnectResponse.FromString(await asyncio.wait_for(call.read(), 10))
    assert first.welcome.resumed and first.welcome.session_id == session_id, first
    return call


async def ended_with(call: Any) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as closed:
        while True:
            assert await asyncio.wait_for(call.read(), 10) is not grpc.aio.EOF, "ended with OK"
    return closed.value


async def test_a_resume_on_the_other_worker_keeps_the_session_and_what_the_stream_does_goes_through(
    redis_url: str, tmp_path: Path
) -> None:
    async with two_workers(redis_url, tmp_path) as (holder, other):
        tokens = await holder.bots("sib")
        bot = RawBot(holder, tokens["sib"])
        welcome = await bot.connect(games=("friday13",))
        session = holder.server.sessions.by_id[welcome.session_id]
        await bot.close()

        # Garbage through the forward: closed as a lone node closes it; the session waits out its grace.
        call = await resumed_through(other, tokens["sib"], welcome.session_id)
        assert session.attached
        await call.write(b"\xff\xff\xff\xff\x0f not protobuf")
        closed = await ended_with(call)
        assert closed.code() == grpc.StatusCode.INVALID_ARGUMENT, closed
        assert "could not be parsed" in (closed.details() or "")
        assert not other.server.sessions.by_id, "the forwarding worker holds no session of its own"

        # A half-close: the holder's answer (CANCELLED, the grace it waits) reaches the bot.
        call = await resumed_through(other, tokens["sib"], welcome.session_id)
        await call.done_writing()
        closed = await ended_with(call)
        assert closed.code() == grpc.StatusCode.CANCELLED, closed
        assert "session waits 5 s for a Hello that resumes it" in (closed.details() or ""), closed.details()

        # The bot drops the forwarded stream: the holder's session waits for it, and a resume on the holder finds it.
        call = await resumed_through(other, tokens["sib"], welcome.session_id)
        call.cancel()
        again = RawBot(holder, tokens["sib"])
        again.session_id = welcome.session_id
        assert (await again.connect(resume=True, games=("friday13",))).resumed
        assert holder.server.sessions.by_id[welcome.session_id] is session and not session.gone
        await again.close()


async def test_the_holder_going_away_ends_the_forwarded_stream_with_its_status(redis_url: str, tmp_path: Path) -> None:
    limits = Limits(grace=5.0)
    async with start_arena(redis_url, sibling_link=tmp_path / "w2", limits=limits, work=_work("b")) as other:
        async with start_arena(
            redis_url, sibling_link=tmp_path / "w1", limits=limits, supervised=True, work=_work("a")
        ) as holder:
            tokens = await holder.bots("left")
            bot = RawBot(holder, tokens["left"])
            welcome = await bot.connect(games=("friday13",))
            await bot.close()
            call = await resumed_through(other, tokens["left"], welcome.session_id)
        # The holder stopped: the stream ends, as it would have on the holder itself.
        with contextlib.suppress(grpc.aio.AioRpcError):
            while await asyncio.wait_for(call.read(), 10) is not grpc.aio.EOF:
                pass
        # Gone with its worker, the session is not found again: the bot gets a new one on the worker it reaches.
        later = RawBot(other, tokens["left"])
        later.session_id = welcome.session_id
        fresh = await later.connect(resume=True, games=("friday13",))
        assert not fresh.resumed and fresh.session_id != welcome.session_id
        await later.close()
