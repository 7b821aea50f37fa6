"""The match runner's policy: strikes, default moves, forfeits and the clock."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from arena.bots import make_bot
from arena.games import make_game
from arena.games.base import Action, Game
from arena.match import (
    MAX_STRIKES,
    BotSeat,
    Clock,
    MatchRunner,
    MoveRequest,
    Seat,
    SeatGone,
    SeatTimeout,
    final_ranks,
)


def builtin(name: str) -> BotSeat:
    return BotSeat(name, lambda game, seat: make_bot(name, game, seat, seed=seat))


@dataclass
class ScriptedSeat(Seat):
    """A timed seat that misbehaves on purpose."""

    name: str
    behaviour: str
    rejections: list[str] = field(default_factory=list)
    requests: int = 0

    async def request(self, move: MoveRequest) -> Action:
        self.requests += 1
        if self.behaviour == "illegal":
            return 10_000
        if self.behaviour == "slow":
            await asyncio.sleep(1.0)
        if self.behaviour == "gone":
            raise SeatGone("the bot disconnected and did not come back")
        return move.legal_actions[0]

    async def reject(self, move: MoveRequest, reason: str) -> None:
        self.rejections.append(reason)


def run(game: Game, seats: list[Seat], clock: Clock | None = None, seed: bytes = b"runner"):  # type: ignore[no-untyped-def]
    return asyncio.run(MatchRunner(game, seats, seed, clock=clock).run())


def test_built_in_bots_finish_a_normal_match_with_a_replayable_record() -> None:
    game = make_game("friday13", players=4)
    result = run(game, [builtin("random"), builtin("heuristic"), builtin("mc"), builtin("random")])
    assert result.termination == "normal"
    assert result.forfeited == ()
    assert game.replay(result.record).outcome().scores == result.scores


def test_three_illegal_answers_forfeit_and_rank_the_seat_last() -> None:
    game = make_game("friday13", players=3)
    cheat = ScriptedSeat("cheat", "illegal")
    result = run(game, [cheat, builtin("random"), builtin("random")])
    assert cheat.requests == MAX_STRIKES, "a forfeited seat is asked no more"
    assert len(cheat.rejections) == MAX_STRIKES
    assert "illegal action" in cheat.rejections[0] and "strike 1 of 3" in cheat.rejections[0]
    assert result.termination == "forfeit"
    assert result.forfeited == (0,)
    assert result.ranks[0] == 3
    assert sorted(result.ranks[1:]) in ([1, 2], [1, 1])
    assert result.record["termination"] == "forfeit"
    assert game.replay(result.record).outcome().scores == result.scores


def test_a_late_answer_is_a_strike_and_the_others_do_not_wait_longer_than_the_clock() -> None:
    game = make_game("amigo13", players=3)
    sleeper = ScriptedSeat("sleeper", "slow")
    clock = Clock(per_move=0.02, bank=0.03)
    loop_started = asyncio.new_event_loop()
    try:
        started = loop_started.time()
        result = loop_started.run_until_complete(
            MatchRunner(game, [sleeper, builtin("random"), builtin("random")], b"late", clock=clock).run()
        )
        elapsed = loop_started.time() - started
    finally:
        loop_started.close()
    assert sleeper.requests == MAX_STRIKES
    assert "no answer within 0.050 s" in sleeper.rejections[0]
    assert "no answer within 0.020 s" in sleeper.rejections[1], "the bank is spent"
    assert result.forfeited == (0,)
    assert elapsed < 0.05 + 2 * 0.02 + 1.0


def test_a_seat_that_is_gone_forfeits_at_once_and_the_match_goes_on() -> None:
    game = make_game("friday13", players=3)
    ghost = ScriptedSeat("ghost", "gone")
    result = run(game, [builtin("random"), ghost, builtin("random")])
    assert ghost.requests == 1
    assert result.forfeited == (1,)
    assert result.ranks[1] == 3


def test_the_bank_pays_for_slow_moves() -> None:
    @dataclass
    class Thinker(Seat):
        name: str = "thinker"
        took: list[float] = field(default_factory=list)
        """How long each answer took by the loop's clock: a loaded machine wakes a sleeper late."""

        async def request(self, move: MoveRequest) -> Action:
            started = asyncio.get_running_loop().time()
            await asyncio.sleep(0.03)
            self.took.append(asyncio.get_running_loop().time() - started)
            return move.legal_actions[0]

    game = make_game("friday13", players=3)
    thinker = Thinker()
    runner = MatchRunner(game, [thinker, builtin("random"), builtin("random")], b"bank", clock=Clock(0.01, 5.0))
    result = asyncio.run(runner.run())
    record = result.seat_records[0]
    assert record.strikes == 0 and record.moves == len(thinker.took)
    assert 5.0 - record.bank >= record.moves * 0.02 * 0.99, "each move overran its 10 ms by 20 ms or more"
    # The runner's time of a move holds the seat's own (and a hop of the loop); charged whole, it would pass this.
    assert 5.0 - record.bank <= sum(thinker.took), "the 10 ms of each move are free"


def test_a_runner_needs_one_seat_per_player() -> None:
    with pytest.raises(ValueError, match="needs 4 seats, not 2"):
        MatchRunner(make_game("friday13", players=4), [builtin("random"), builtin("random")], b"x")


def test_forfeited_seats_share_the_last_rank() -> None:
    assert final_ranks([10, 5, 7, 1], forfeited=[3]) == (3, 1, 2, 4)
    assert final_ranks([10, 5, 7, 1], forfeited=[1, 3]) == (2, 3, 1, 3)
    assert final_ranks([4, 4, 9], forfeited=[]) == (1, 1, 3)


@dataclass
class LateThroughAnOutage(Seat):
    """A relayed seat's shape: it says "late" itself, and telling it of the strike takes a while with
    the store away, which it reports as time lost (`move.pause`) after the answer's deadline is settled."""

    name: str
    rejections: list[str] = field(default_factory=list)

    async def request(self, move: MoveRequest) -> Action:
        raise SeatTimeout("no answer within the time left")

    async def reject(self, move: MoveRequest, reason: str) -> None:
        move.pause(0.05)
        self.rejections.append(reason)


def test_time_lost_while_telling_a_late_seat_of_its_strike_leaves_the_match_running() -> None:
    game = make_game("friday13", players=3)
    late = LateThroughAnOutage("relayed")
    result = run(game, [late, builtin("random"), builtin("heuristic")], clock=Clock(0.2, 0.0))
    assert result.termination == "forfeit" and result.forfeited == (0,)
    assert len(late.rejections) == MAX_STRIKES
