"""Batched turns (Hello.batches): several answers in one Actions message count each as its own Action, for
the matches they answer, for the errors of wrong ones and for the flood limit; the SDK reads and sends them."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from arena.match import Clock
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import Arena, RandomBot, RawBot

pytestmark = pytest.mark.asyncio

SLOW = Clock(per_move=10, bank=0)


def answers(requests: list[bot_pb.ActionRequest]) -> bot_pb.ConnectRequest:
    return bot_pb.ConnectRequest(
        actions=bot_pb.Actions(
            actions=[
                bot_pb.Action(match_id=r.match_id, request_id=r.request_id, action_id=r.legal_actions[0].id)
                for r in requests
            ]
        )
    )


async def test_one_actions_message_answers_the_turns_of_several_matches(arena: Arena) -> None:
    tokens = await arena.bots("many")
    bot = RawBot(arena, tokens["many"])
    await bot.connect(batches=True)
    seats = ["many", "builtin:random", "builtin:random"]
    matches = {await arena.create_match("friday13", seats, clock=SLOW) for _ in range(3)}
    waiting = await bot.requests(3)
    assert {r.match_id for r in waiting} == matches, "the bot's first turn of each match"
    await bot.call.write(answers(waiting))
    again = await bot.requests(3)
    assert {r.match_id for r in again} == matches, "each answer counted: every match asks for the next move"
    asked = {r.match_id: r.request_id for r in waiting}
    assert all(r.request_id > asked[r.match_id] for r in again)
    await bot.close()


async def test_each_wrong_action_of_a_batch_gets_its_own_error(arena: Arena) -> None:
    tokens = await arena.bots("wrong")
    bot = RawBot(arena, tokens["wrong"])
    await bot.connect(batches=True)
    match_id = await arena.create_match("friday13", ["wrong", "builtin:random", "builtin:random"], clock=SLOW)
    (request,) = await bot.requests(1)
    right = bot_pb.Action(match_id=match_id, request_id=request.request_id, action_id=request.legal_actions[0].id)
    stray = bot_pb.Action(match_id="m-none", request_id=7, action_id=1)
    late = bot_pb.Action(match_id=match_id, request_id=request.request_id + 50, action_id=1)
    await bot.call.write(bot_pb.ConnectRequest(actions=bot_pb.Actions(actions=[stray, right, late])))
    errors = [(await bot.expect("error")).error for _ in range(2)]
    assert [(e.code, e.match_id) for e in errors] == [
        (bot_pb.ERROR_CODE_UNKNOWN_MATCH, "m-none"),
        (bot_pb.ERROR_CODE_UNKNOWN_REQUEST, match_id),
    ]
    (following,) = await bot.requests(1)
    assert following.match_id == match_id and following.request_id > request.request_id, "the right one counted"
    await bot.close()


async def test_a_batch_of_unasked_actions_counts_each_against_the_flood_limit(arena: Arena) -> None:
    tokens = await arena.bots("flooder")
    bot = RawBot(arena, tokens["flooder"])
    await bot.connect(batches=True)
    burst = int(arena.server.sessions.limits.flood_burst)
    stray = [bot_pb.Action(match_id="m-none", request_id=number, action_id=1) for number in range(2 * burst)]
    await bot.call.write(bot_pb.ConnectRequest(actions=bot_pb.Actions(actions=stray)))
    codes = []
    with pytest.raises(grpc.aio.AioRpcError) as closed:
        while True:
            codes.append((await bot.expect("error")).error.code)
    assert closed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert codes == [bot_pb.ERROR_CODE_FLOOD], "one message, but over the burst: refused whole, none answered"
    await bot.close()


async def test_an_empty_batch_is_a_bad_message(arena: Arena) -> None:
    tokens = await arena.bots("empty")
    bot = RawBot(arena, tokens["empty"])
    await bot.connect(batches=True)
    await bot.call.write(bot_pb.ConnectRequest(actions=bot_pb.Actions()))
    error = (await bot.expect("error")).error
    assert error.code == bot_pb.ERROR_CODE_BAD_MESSAGE and "actions" in error.message
    await bot.close()


async def test_sdk_bots_reading_batches_play_many_matches_at_once(arena: Arena) -> None:
    tokens = await arena.bots("sdk-a", "sdk-b")
    for name in ("sdk-a", "sdk-b"):
        await arena.connect(RandomBot, tokens[name], max_matches=8)
    seats = ["sdk-a", "sdk-b", "builtin:random"]
    matches = await asyncio.gather(*(arena.create_match("friday13", seats) for _ in range(8)))
    for match_id in matches:
        summary, _ = await arena.finished(match_id, timeout=120)
        assert summary.termination == pb.TERMINATION_NORMAL, summary
