"""A seat played over a bot's session (arena.node.remote_seat): what the bot is sent, its answers, a lost
stream, strikes and forfeits, driven against real Sessions and the match runner."""

from __future__ import annotations

import asyncio

import pytest

from arena.bots import make_bot
from arena.games import make_game
from arena.games.base import Termination
from arena.match import Clock, MatchInfo, MatchRunner, MoveRequest, Seat, SeatGone
from arena.match.seats import BotSeat
from arena.node.remote_seat import RemoteSeat, legal_actions_of
from arena.node.sessions import Limits, SessionRegistry
from arena.v1 import bot_service_pb2 as bot_pb
from arena.wire import convert
from tests.node.conftest import SLACK, BotDriver, hello

pytestmark = pytest.mark.asyncio

GAME = make_game("friday13", players=3)
ROOMY = Clock(per_move=5.0, bank=10.0)
"""A clock no honest in-process bot runs out of, however loaded the machine."""


def seat_for(registry: SessionRegistry, bot: str, match_id: str = "m1") -> RemoteSeat:
    session, _ = registry.open(bot, hello("friday13"))
    session.seated(match_id)
    return RemoteSeat(session, match_id, GAME, convert.encoder_for(GAME))


def info(seat: int, clock: Clock = ROOMY) -> MatchInfo:
    return MatchInfo("m1", GAME, seat, ("ann", "bob", "cy"), "c0ffee", clock)


async def test_a_seat_tells_its_match_and_asks_over_the_session_and_takes_the_bots_answer() -> None:
    registry = SessionRegistry(Limits())
    seat = seat_for(registry, "ann")
    bot = BotDriver(registry, seat.session).connect()
    await seat.start(info(0))
    (started,) = await bot.received_kind("match_started")
    assert (started.match_id, started.seat, list(started.seats)) == ("m1", 0, ["ann", "bob", "cy"])
    assert (started.game.game, started.game.players) == ("friday13", 3) and started.seed_commitment == "c0ffee"
    assert (started.clock.per_move_ms, started.clock.bank_ms) == (5000, 10000)
    assert seat.session.started["m1"] == started, "kept to be sent again to a resuming stream"

    state = GAME.new_match(b"seed")
    move = MoveRequest(1, state, 0, 2.5)
    action = await asyncio.wait_for(seat.request(move), SLACK)
    (request,) = bot.of_kind("action_request")
    assert action == request.legal_actions[0].id == state.legal_actions()[0]
    assert request.match_id == "m1" and request.request_id > 0 and request.time_left_ms == 2500
    assert [a.id for a in request.legal_actions] == state.legal_actions()
    assert all(a.text == GAME.action_text(a.id) for a in request.legal_actions)
    assert request.HasField("observation")
    assert seat.session.pending == {}, "an answered request waits no more"
    await bot.stop()


async def test_a_request_pending_across_a_lost_stream_is_sent_again_and_answered_on_the_resumed_stream() -> None:
    registry = SessionRegistry(Limits(grace=60.0))
    seat = seat_for(registry, "ann")
    first = BotDriver(registry, seat.session, answering=False).connect()
    await seat.start(info(0))
    asking = asyncio.create_task(seat.request(MoveRequest(1, GAME.new_match(b"seed"), 0, 30.0)))
    (lost,) = await first.received_kind("action_request")
    first.disconnect()
    await first.stop()

    session, resumed = registry.open("ann", hello(resume=seat.session.id))
    assert resumed
    second = BotDriver(registry, session).connect()
    action = await asyncio.wait_for(asking, SLACK)
    assert second.kinds()[:3] == ["welcome", "match_started", "action_request"]
    (again,) = second.of_kind("action_request")
    assert again.request_id == lost.request_id and action == again.legal_actions[0].id
    assert again.time_left_ms <= lost.time_left_ms, "the clock ran on while the stream was away"
    await second.stop()


async def test_a_request_fails_with_seat_gone_when_the_session_does_not_come_back_in_its_grace() -> None:
    grace = 0.1
    registry = SessionRegistry(Limits(grace=grace))
    seat = seat_for(registry, "ann")
    bot = BotDriver(registry, seat.session, answering=False).connect()
    asking = asyncio.create_task(seat.request(MoveRequest(1, GAME.new_match(b"seed"), 0, 30.0)))
    await bot.received_kind("action_request")
    bot.disconnect()
    with pytest.raises(SeatGone, match="its stream was lost and it did not resume within the grace period"):
        await asyncio.wait_for(asking, grace + SLACK)
    assert seat.session.pending == {}
    await bot.stop()


async def test_a_match_of_session_seats_plays_to_its_end_and_leaves_every_session_free() -> None:
    registry = SessionRegistry(Limits())
    seats = [seat_for(registry, name) for name in ("ann", "bob", "cy")]
    bots = [BotDriver(registry, seat.session).connect() for seat in seats]
    runner = MatchRunner(GAME, seats, b"seed", match_id="m1", clock=ROOMY)
    result = await asyncio.wait_for(runner.run(), 60)
    assert result.termination == Termination.NORMAL and result.forfeited == ()
    alone = GAME.new_match(b"seed")  # every bot answered its first legal action: the same match, played here
    while not alone.is_terminal():
        alone.apply(alone.legal_actions()[0])
    assert result.scores == alone.outcome().scores
    for index, (seat, bot) in enumerate(zip(seats, bots, strict=True)):
        (ended,) = await bot.received_kind("match_ended")  # sent as the match ends, not awaited by it
        assert list(ended.scores) == list(result.scores) and list(ended.ranks) == list(result.ranks)
        assert ended.seed == b"seed".hex(), "the seed is told at the end, so the bot can check the deal"
        assert len(bot.of_kind("action_request")) == result.seat_records[index].moves
        assert bot.of_kind("error") == []
        assert seat.session.matches == set() and seat.session.started == {}, "the seat is free again"
        assert seat.session.played == {"m1"} and seat.session.pending == {}
        await bot.stop()


def with_builtin_opponents(seat: Seat) -> list[Seat]:
    """`seat` first, then two in-process random bots: untimed, so only the first seat's clock matters."""
    return [seat, *(BotSeat(name, lambda g, s: make_bot("random", g, s, s)) for name in ("bob", "cy"))]


async def test_late_answers_are_strikes_told_as_late_the_third_forfeits_and_a_later_answer_is_refused() -> None:
    registry = SessionRegistry(Limits())
    seat = seat_for(registry, "ann")
    bot = BotDriver(registry, seat.session, answering=False).connect()
    runner = MatchRunner(GAME, with_builtin_opponents(seat), b"seed", match_id="m1", clock=Clock(0.05, 0.0))
    result = await asyncio.wait_for(runner.run(), 60)
    assert result.forfeited == (0,) and result.termination == Termination.FORFEIT
    assert result.ranks[0] == max(result.ranks), "the forfeiting seat is ranked last"
    errors = await bot.received_kind("error", 4)
    assert [e.code for e in errors] == [bot_pb.ERROR_CODE_LATE] * 3 + [bot_pb.ERROR_CODE_FORFEIT]
    assert all(e.match_id == "m1" for e in errors) and "strike 1 of 3: no answer within" in errors[0].message
    assert "3 strikes: you forfeit match m1" in errors[3].message
    assert len(bot.of_kind("action_request")) == 3, "a forfeited seat is asked nothing more"

    # The bot answers its first request now, long after the runner played a default move for it.
    bot.answer(bot.of_kind("action_request")[0])
    refused = (await bot.received_kind("error", 5))[4]
    assert refused.code == bot_pb.ERROR_CODE_UNKNOWN_MATCH, "the match ended: it is none of the bot's any more"
    await bot.stop()


async def test_illegal_answers_are_strikes_told_as_illegal_and_the_third_forfeits() -> None:
    registry = SessionRegistry(Limits())
    seat = seat_for(registry, "ann")
    bot = BotDriver(registry, seat.session, action_id=9999).connect()
    runner = MatchRunner(GAME, with_builtin_opponents(seat), b"seed", match_id="m1", clock=ROOMY)
    result = await asyncio.wait_for(runner.run(), 60)
    assert result.forfeited == (0,)
    errors = await bot.received_kind("error", 4)
    assert [e.code for e in errors] == [bot_pb.ERROR_CODE_ILLEGAL_ACTION] * 3 + [bot_pb.ERROR_CODE_FORFEIT]
    assert "illegal action" in errors[0].message
    await bot.stop()


async def test_a_late_answer_to_a_running_match_is_refused_as_an_unknown_request() -> None:
    registry = SessionRegistry(Limits())
    seat = seat_for(registry, "ann")
    bot = BotDriver(registry, seat.session, answering=False).connect()
    move = MoveRequest(1, GAME.new_match(b"seed"), 0, 0.05)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(move.time_left):  # the runner's clock for the move
            await seat.request(move)
    (late,) = bot.of_kind("action_request")
    assert seat.session.pending == {}, "a request the runner stopped waiting for is forgotten"
    bot.answer(late)
    (refused,) = await bot.received_kind("error")
    assert (refused.code, refused.request_id) == (bot_pb.ERROR_CODE_UNKNOWN_REQUEST, late.request_id)
    assert "too late" in refused.message
    await bot.stop()


async def test_every_match_of_one_game_shares_one_table_of_legal_actions() -> None:
    table = legal_actions_of(make_game("friday13", players=3))
    assert legal_actions_of(make_game("friday13", players=3)) is table
    assert legal_actions_of(make_game("friday13", players=4)) is not table, "parameters make another game"
    action = GAME.new_match(b"seed").legal_actions()[0]
    (legal,) = bot_pb.ActionRequest.FromString(table[action]).legal_actions
    assert legal.id == action and legal.text == GAME.action_text(action)
    assert table[action] is table[action], "each action's encoding is made once"
