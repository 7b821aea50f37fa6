"""The policy for late, illegal and missing answers: strikes, default moves, forfeits, resume."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.games import make_game
from arena.match import MAX_STRIKES, Clock
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import Arena, RawBot, start_arena

pytestmark = pytest.mark.asyncio

STEADY = Clock(per_move=1.0, bank=0.0)
"""For a test that answers late once and then on time: a second for each answer, so that the answer to the request
after the strike is not one more strike on a loaded machine (250 ms raced a fixed sleep there)."""


async def raw_bot(arena: Arena, name: str = "raw") -> RawBot:
    tokens = await arena.bots(name)
    bot = RawBot(arena, tokens[name])
    await bot.connect()
    return bot


def moves_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [move for entry in record["rounds"] for move in entry["moves"]]


def default_moves(record: dict[str, Any]) -> list[str]:
    """The engine's default action text before each move of the record."""
    game = make_game(record["game"], **record["params"])
    state = game.new_match(bytes.fromhex(record["seed"]))
    defaults = []
    for move in moves_of(record):
        defaults.append(game.action_text(state.default_action()))
        state.apply_text(text_of(move))
    return defaults


def text_of(move: dict[str, Any]) -> str:
    return move["card"] if move["card"].split(":")[0] == move["pile"] else f"{move['card']}>{move['pile']}"


async def test_a_late_answer_is_a_strike_and_the_server_plays_the_default_move(arena: Arena) -> None:
    bot = await raw_bot(arena)
    match_id = await arena.create_match("friday13", ["raw", "builtin:random", "builtin:random"], clock=STEADY)
    request = (await bot.expect("action_request")).action_request
    assert 0 < request.time_left_ms <= 1000
    [late] = await bot.errors(1)  # the strike: the request went unanswered past its second
    await bot.act(match_id, request.request_id, request.legal_actions[0].id)
    [ignored] = await bot.errors(1)
    assert late.code == bot_pb.ERROR_CODE_LATE
    assert "strike 1 of 3" in late.message and late.match_id == match_id
    assert ignored.code == bot_pb.ERROR_CODE_UNKNOWN_REQUEST and ignored.request_id == request.request_id
    ended = await bot.play_on(match_id)
    assert list(ended.forfeited) == []
    _, record = await arena.finished(match_id)
    index = next(i for i, move in enumerate(moves_of(record)) if move["seat"] == 0)
    assert text_of(moves_of(record)[index]) == default_moves(record)[index]


async def test_an_illegal_action_is_a_strike_and_the_server_plays_the_default_move(arena: Arena) -> None:
    bot = await raw_bot(arena)
    match_id = await arena.create_match("amigo13", ["raw", "builtin:random", "builtin:random"])
    request = (await bot.expect("action_request")).action_request
    legal = {action.id for action in request.legal_actions}
    illegal = next(action for action in range(96) if action not in legal)
    await bot.act(match_id, request.request_id, illegal)
    [error] = await bot.errors(1)
    assert error.code == bot_pb.ERROR_CODE_ILLEGAL_ACTION
    assert "strike 1 of 3" in error.message and "played" in error.message
    await bot.play_on(match_id)
    _, record = await arena.finished(match_id)
    index = next(i for i, move in enumerate(moves_of(record)) if move["seat"] == 0)
    assert text_of(moves_of(record)[index]) == default_moves(record)[index]


async def test_three_strikes_forfeit_the_match_and_rank_the_seat_last_while_the_others_finish(arena: Arena) -> None:
    bot = await raw_bot(arena)
    match_id = await arena.create_match("friday13", ["raw", "builtin:heuristic", "builtin:random", "builtin:mc"])
    for strike in range(1, MAX_STRIKES + 1):
        request = (await bot.expect("action_request")).action_request
        await bot.act(match_id, request.request_id, 1000 + strike)
        error = (await bot.expect("error")).error
        assert error.code == bot_pb.ERROR_CODE_ILLEGAL_ACTION
        assert f"strike {strike} of {MAX_STRIKES}" in error.message
    forfeit = (await bot.expect("error")).error
    assert forfeit.code == bot_pb.ERROR_CODE_FORFEIT and forfeit.match_id == match_id
    ended = (await bot.expect("match_ended", timeout=20)).match_ended
    assert list(ended.forfeited) == [0]
    assert ended.ranks[0] == 4 and sorted(ended.ranks[1:])[0] == 1
    assert ended.termination == pb.TERMINATION_FORFEIT
    _, record = await arena.finished(match_id)
    assert record["forfeited"] == [0] and record["ranks"][0] == 4
    assert len(moves_of(record)) == 4 * 50


async def test_a_bot_that_resumes_within_the_grace_period_gets_its_pending_request_again(arena: Arena) -> None:
    bot = await raw_bot(arena)
    match_id = await arena.create_match(
        "friday13", ["raw", "builtin:random", "builtin:random"], clock=Clock(per_move=5, bank=0)
    )
    request = (await bot.expect("action_request")).action_request
    bot.call.cancel()
    await asyncio.sleep(0.2)
    welcome = await bot.connect(resume=True)
    assert welcome.resumed
    again = (await bot.expect("action_request")).action_request
    assert again.request_id == request.request_id and again.match_id == match_id
    assert again.observation == request.observation
    assert again.time_left_ms < request.time_left_ms
    await bot.act(match_id, again.request_id, again.legal_actions[0].id)
    ended = await bot.play_on(match_id)
    assert list(ended.forfeited) == []
    await bot.close()


async def test_a_bot_gone_longer_than_the_grace_period_forfeits(redis_url: str) -> None:
    from arena.node.sessions import Limits

    async with start_arena(redis_url, limits=Limits(grace=0.3)) as arena:
        bot = await raw_bot(arena)
        match_id = await arena.create_match(
            "friday13", ["raw", "builtin:random", "builtin:random"], clock=Clock(per_move=10, bank=0)
        )
        await bot.expect("action_request")
        started = asyncio.get_running_loop().time()
        bot.call.cancel()
        summary, record = await arena.finished(match_id, timeout=10)
        assert asyncio.get_running_loop().time() - started < 5
        assert record["forfeited"] == [0] and summary.ranks[0] == 3
        assert summary.termination == pb.TERMINATION_FORFEIT
        welcome = await bot.connect(resume=True)
        assert not welcome.resumed and welcome.session_id != ""
        await bot.close()
