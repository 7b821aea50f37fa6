"""Every loss explained: each strike and forfeit in the record names its seat, bot, kind, detail and move."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from arena.bots import make_bot
from arena.games import make_game
from arena.games.base import Action, Game
from arena.match import MAX_STRIKES, BotSeat, Clock, MatchResult, MatchRunner, MoveRequest, Seat, SeatGone
from arena.match.faults import Fault, FaultKind, explain, faults_of


def builtin(name: str) -> BotSeat:
    return BotSeat(name, lambda game, seat: make_bot(name, game, seat, seed=seat))


@dataclass
class Misbehaving(Seat):
    """A timed seat that answers its first `good` requests well, then misbehaves as told."""

    name: str
    behaviour: str
    good: int = 0
    asked: int = 0

    async def request(self, move: MoveRequest) -> Action:
        self.asked += 1
        if self.asked <= self.good:
            return move.legal_actions[0]
        if self.behaviour == "illegal":
            return min(set(range(1000)) - set(move.legal_actions))  # a real action id, not legal now
        if self.behaviour == "nonsense":
            return 10_000
        if self.behaviour == "slow":
            await asyncio.sleep(3600)
        if self.behaviour == "crash":
            raise SeatGone("exited with code 1", FaultKind.CRASHED)
        return move.legal_actions[0]


def play(game: Game, seats: list[Seat], clock: Clock | None = None) -> MatchResult:
    return asyncio.run(MatchRunner(game, seats, b"faults", clock=clock).run())


def test_illegal_actions_are_strikes_naming_the_action_and_the_third_forfeits_with_all_three() -> None:
    game = make_game("friday13", players=3)
    result = play(game, [builtin("random"), Misbehaving("cheat", "illegal", good=2), builtin("heuristic")])
    record = result.record
    strikes = record["strikes"]
    assert [entry["seat"] for entry in strikes] == [1] * MAX_STRIKES
    assert {entry["bot"] for entry in strikes} == {"cheat"} and {entry["kind"] for entry in strikes} == {"illegal"}
    # The action's text and id, and why the rules refuse it.
    assert all(" (id " in entry["detail"] and "): " in entry["detail"] for entry in strikes), strikes
    # The moves are the record's own numbering (the clock's), and each was really a move of seat 1.
    moves = [move for entry in record["rounds"] for move in entry["moves"]]
    assert [entry["move"] for entry in strikes] == [move for move, _, _ in record["clock"]["strikes"]]
    assert all(moves[entry["move"]]["seat"] == 1 for entry in strikes)
    assert record["forfeits"] == [
        {
            "seat": 1,
            "bot": "cheat",
            "kind": "strikes",
            "detail": ", ".join(f"illegal at move {entry['move']}" for entry in strikes),
            "move": strikes[-1]["move"],
        }
    ]


def test_an_action_id_of_no_action_is_an_illegal_strike_that_says_so() -> None:
    result = play(
        make_game("friday13", players=3), [Misbehaving("odd", "nonsense"), builtin("random"), builtin("random")]
    )
    detail = result.record["strikes"][0]["detail"]
    assert result.record["strikes"][0]["kind"] == "illegal"
    assert "10000" in detail and "friday13" in detail, detail


def test_a_late_seat_gets_strikes_saying_how_long_it_had() -> None:
    clock = Clock(per_move=0.05, bank=0.1)
    result = play(
        make_game("friday13", players=3), [Misbehaving("sleepy", "slow"), builtin("random"), builtin("random")], clock
    )
    first, second = result.record["strikes"][:2]
    assert (first["kind"], first["detail"]) == ("late", "no answer within 150 ms")  # limit plus the whole bank
    assert (second["kind"], second["detail"]) == ("late", "no answer within 50 ms")  # the bank is spent
    assert result.record["forfeits"][0]["kind"] == "strikes"


def test_a_crashed_seat_forfeits_with_its_kind_detail_and_move() -> None:
    game = make_game("friday13", players=3)
    result = play(game, [builtin("random"), builtin("random"), Misbehaving("fragile", "crash", good=3)])
    forfeit = result.record["forfeits"]
    assert forfeit == [
        {"seat": 2, "bot": "fragile", "kind": "crashed", "detail": "exited with code 1", "move": forfeit[0]["move"]}
    ]
    moves = [move for entry in result.record["rounds"] for move in entry["moves"]]
    assert moves[forfeit[0]["move"]]["seat"] == 2, "the move at which it was asked and was gone"
    assert [move["seat"] for move in moves[: forfeit[0]["move"]]].count(2) == 3, "after its three good answers"
    assert "strikes" not in result.record, "a forfeit without strikes"


def test_a_clean_match_has_no_fault_keys_and_nothing_to_explain() -> None:
    result = play(make_game("amigo13", players=3), [Misbehaving("fine", "fine"), builtin("random"), builtin("random")])
    assert {"forfeits", "strikes", "debug"} & result.record.keys() == set()
    assert explain(result.record) == []


def test_the_plain_words_name_seat_bot_kind_move_and_detail() -> None:
    result = play(
        make_game("friday13", players=3), [builtin("random"), Misbehaving("cheat", "illegal"), builtin("random")]
    )
    lines = explain(result.record)
    move = result.record["forfeits"][0]["move"]
    assert (
        lines[0] == f"seat 1 (cheat) forfeited at move {move}: three strikes: {result.record['forfeits'][0]['detail']}"
    )
    assert lines[1].startswith("seat 1 (cheat) got a strike at move ") and ": illegal action: " in lines[1]
    assert len(lines) == 1 + MAX_STRIKES


def test_a_record_of_before_the_fault_keys_still_explains_what_it_kept() -> None:
    old = {
        "seats": ["ann", "bob", "cid"],
        "forfeited": [1],
        "clock": {
            "per_move_ms": 1000,
            "bank_ms": 10000,
            "moves": [],
            "strikes": [
                [4, 1, "strike 1 of 3: no answer within 11.000 s; played cat:1 for you"],
                [7, 1, "strike 2 of 3: illegal action: seat 1 holds no cat:9; played cat:2 for you"],
            ],
        },
    }
    forfeits, strikes = faults_of(old)
    assert forfeits == [Fault(1, "bob", FaultKind.UNKNOWN, "", -1)]
    assert strikes == [
        Fault(1, "bob", FaultKind.LATE, "no answer within 11.000 s", 4),
        Fault(1, "bob", FaultKind.ILLEGAL, "illegal action: seat 1 holds no cat:9", 7),
    ]
    assert (
        explain(old)[0] == "seat 1 (bob) forfeited (the record does not say why: it was made before reasons were kept)"
    )
    assert explain(old)[1] == "seat 1 (bob) got a strike at move 4: late: no answer within 11.000 s"
