"""Bad input from bots: each gets a clear error or a closed stream, and the server serves on."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.app import MAX_RECEIVE_BYTES
from arena.match import Clock
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from tests.server.conftest import Arena, RandomBot, RawBot, bearer

pytestmark = pytest.mark.asyncio

SLOW = Clock(per_move=10, bank=0)


async def still_serving(arena: Arena) -> None:
    """The server answers health checks and plays a whole match between other bots."""
    health = health_pb2_grpc.HealthStub(arena.channel)
    response = await health.Check(health_pb2.HealthCheckRequest(service=""))
    assert response.status == health_pb2.HealthCheckResponse.SERVING
    tokens = await arena.bots("fine")
    await arena.connect(RandomBot, tokens["fine"])
    match_id = await arena.create_match("friday13", ["fine", "builtin:random", "builtin:random"])
    summary, _ = await arena.finished(match_id)
    assert summary.termination != 0


async def connected(arena: Arena, name: str) -> RawBot:
    tokens = await arena.bots(name)
    bot = RawBot(arena, tokens[name])
    await bot.connect()
    return bot


async def test_an_unknown_request_id_is_reported_and_ignored(arena: Arena) -> None:
    bot = await connected(arena, "raw")
    match_id = await arena.create_match("friday13", ["raw", "builtin:random", "builtin:random"], clock=SLOW)
    request = (await bot.expect("action_request")).action_request
    await bot.act(match_id, request.request_id + 1000, request.legal_actions[0].id)
    error = (await bot.expect("error")).error
    assert error.code == bot_pb.ERROR_CODE_UNKNOWN_REQUEST and error.request_id == request.request_id + 1000
    await bot.act(match_id, request.request_id, request.legal_actions[0].id)
    ended = await bot.play_on(match_id)
    assert list(ended.forfeited) == []
    await bot.close()


async def test_an_action_out_of_turn_is_reported_and_ignored(arena: Arena) -> None:
    bot = await connected(arena, "raw")
    match_id = await arena.create_match("amigo13", ["raw", "builtin:random", "builtin:random"], clock=SLOW)
    request = (await bot.expect("action_request")).action_request
    await bot.act(match_id, request.request_id, request.legal_actions[0].id)
    await bot.act(match_id, request.request_id, request.legal_actions[0].id)
    # The two built-in bots may move before the repeat is read, so the bot's next request can
    # arrive ahead of the error; it must still be answered afterwards.
    pending = None
    while True:
        message = await bot.read()
        kind = message.WhichOneof("message")
        if kind == "error":
            break
        assert kind == "action_request" and pending is None, f"expected error, got {message}"
        pending = message.action_request
    assert message.error.code == bot_pb.ERROR_CODE_UNKNOWN_REQUEST
    assert "not waiting" in message.error.message
    if pending is not None:
        await bot.act(match_id, pending.request_id, pending.legal_actions[0].id)
    await bot.play_on(match_id)
    await bot.close()


async def test_an_action_for_another_bots_match_is_reported_and_ignored(arena: Arena) -> None:
    mine = await connected(arena, "mine")
    other = await connected(arena, "other")
    my_match = await arena.create_match("friday13", ["mine", "builtin:random", "builtin:random"], clock=SLOW)
    their_match = await arena.create_match("friday13", ["other", "builtin:random", "builtin:random"], clock=SLOW)
    their_request = (await other.expect("action_request")).action_request
    await mine.act(their_match, their_request.request_id, their_request.legal_actions[0].id)
    [error] = await mine.errors(1)
    assert error.code == bot_pb.ERROR_CODE_UNKNOWN_MATCH and error.match_id == their_match
    await other.act(their_match, their_request.request_id, their_request.legal_actions[0].id)
    await asyncio.gather(mine.play_on(my_match), other.play_on(their_match))
    await mine.close()
    await other.close()


async def test_an_oversized_message_closes_that_stream_only(arena: Arena) -> None:
    bot = await connected(arena, "big")
    await bot.call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(client="x" * (MAX_RECEIVE_BYTES + 1))))
    with pytest.raises(grpc.aio.AioRpcError) as closed:
        while True:
            await asyncio.wait_for(bot.call.read(), 5)
    assert closed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    await bot.close()
    await still_serving(arena)


async def test_a_malformed_message_closes_that_stream_only(arena: Arena) -> None:
    tokens = await arena.bots("garbage")
    connect = arena.channel.stream_stream(
        "/arena.v1.BotService/Connect", request_serializer=lambda raw: raw, response_deserializer=lambda raw: raw
    )
    call = connect(metadata=bearer(tokens["garbage"]))
    await call.write(b"\xff\xff\xff\xff\x0f not protobuf")
    with pytest.raises(grpc.aio.AioRpcError) as closed:
        while True:
            await asyncio.wait_for(call.read(), 5)
    assert closed.value.code() == grpc.StatusCode.INVALID_ARGUMENT, closed.value
    assert "could not be parsed" in (closed.value.details() or "")
    good = await connected(arena, "later-garbage")
    garbage = arena.channel.stream_stream(
        "/arena.v1.BotService/Connect", request_serializer=lambda raw: raw, response_deserializer=lambda raw: raw
    )(metadata=bearer(good.token))
    await garbage.write(bot_pb.ConnectRequest(hello=bot_pb.Hello()).SerializeToString())
    await asyncio.wait_for(garbage.read(), 5)
    await garbage.write(b"\xff\xff\xff")
    with pytest.raises(grpc.aio.AioRpcError) as later:
        while True:
            await asyncio.wait_for(garbage.read(), 5)
    assert later.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    await good.close()
    await still_serving(arena)


async def test_a_message_flood_closes_the_stream_with_a_flood_error(arena: Arena) -> None:
    bot = await connected(arena, "flood")
    limits = arena.server.sessions.limits
    burst = int(limits.flood_burst)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for _ in range(burst):
        await bot.act("m-none", 1, 1)
    codes = [(await bot.expect("error")).error.code for _ in range(burst)]
    assert set(codes) == {bot_pb.ERROR_CODE_UNKNOWN_MATCH}

    # One more at a time, each after the answer to the last, so that no write races the close. The
    # bucket refills at the flood rate meanwhile: on a loaded machine more messages pass before it runs
    # dry, but never more than the burst and what the elapsed time earned.
    def allowed() -> float:
        return burst + limits.flood_rate * (loop.time() - started) + 1

    while codes[-1] != bot_pb.ERROR_CODE_FLOOD and len(codes) <= allowed():
        await bot.act("m-none", 1, 1)
        codes.append((await bot.expect("error")).error.code)
    assert codes[-1] == bot_pb.ERROR_CODE_FLOOD, f"{len(codes)} messages passed in {loop.time() - started:.2f} s"
    with pytest.raises(grpc.aio.AioRpcError) as closed:
        await bot.read()
    assert closed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "unsolicited messages" in closed.value.details()
    await bot.close()
    await still_serving(arena)


async def test_the_first_message_must_be_a_hello(arena: Arena) -> None:
    tokens = await arena.bots("rude")
    stub = bot_grpc.BotServiceStub(arena.channel)
    call = stub.Connect(metadata=bearer(tokens["rude"]))
    await call.write(bot_pb.ConnectRequest(action=bot_pb.Action(match_id="m1", request_id=1, action_id=1)))
    with pytest.raises(grpc.aio.AioRpcError) as closed:
        await asyncio.wait_for(call.read(), 5)
    assert closed.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "Hello" in closed.value.details()


async def test_a_second_hello_is_reported_and_ignored(arena: Arena) -> None:
    bot = await connected(arena, "twice")
    await bot.call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello()))
    error = (await bot.expect("error")).error
    assert error.code == bot_pb.ERROR_CODE_BAD_MESSAGE
    await bot.close()


async def test_a_hello_naming_an_unknown_game_is_refused(arena: Arena) -> None:
    tokens = await arena.bots("chess")
    bot = RawBot(arena, tokens["chess"])
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await bot.connect(games=("chess",))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "chess" in refused.value.details()
    await bot.close()
