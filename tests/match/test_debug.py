"""A bot's debug output: at most 1 KiB a move and 64 KiB a match per seat, cut and marked, kept with the replay."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from arena.bots import make_bot
from arena.games import make_game
from arena.games.base import Action
from arena.match import BotSeat, MatchRunner, MoveRequest, Seat
from arena.match.debug import CUT, MATCH_BYTES, MOVE_BYTES, DebugLog, cut


def test_a_text_within_the_limit_is_kept_whole_and_a_longer_one_is_cut_at_a_character_and_marked() -> None:
    assert cut("thinking") == "thinking"
    exact = "x" * MOVE_BYTES
    assert cut(exact) == exact
    long = "é" * MOVE_BYTES  # two bytes each: the cut must not split one
    kept = cut(long)
    assert kept.endswith(CUT) and len(kept.encode()) <= MOVE_BYTES
    assert set(kept.removesuffix(CUT)) == {"é"} and len(kept.encode()) > MOVE_BYTES - 4


def test_each_seat_has_its_own_budget_per_match_and_the_text_that_crosses_it_is_cut_and_marked() -> None:
    log = DebugLog(2)
    line = "y" * MOVE_BYTES
    for move in range(MATCH_BYTES // MOVE_BYTES):
        assert log.add(move, 0, line) == line
    assert log.add(64, 0, "one more") == "", "the budget is spent"
    assert log.add(65, 1, "the other seat still talks") == "the other seat still talks"

    crossing = DebugLog(1)
    for move in range(MATCH_BYTES // MOVE_BYTES - 1):
        crossing.add(move, 0, line)
    crossing.add(63, 0, "z" * (MOVE_BYTES - 100))
    kept = crossing.add(64, 0, "w" * 500)
    assert kept.endswith(CUT) and len(kept.encode()) == 100
    assert crossing.add(65, 0, "w") == ""
    assert sum(len(text.encode()) for _, _, text in crossing.entries) == MATCH_BYTES


@dataclass
class Talker(Seat):
    """A timed seat that says something about every move, and a lot about every fifth."""

    name: str
    said: list[str] = field(default_factory=list)

    async def request(self, move: MoveRequest) -> Action:
        text = f"{self.name} move {len(self.said)}: {len(move.legal_actions)} choices"
        if len(self.said) % 5 == 4:
            text += " because" * 500
        self.said.append(text)
        move.debug = text
        return (
            move.legal_actions[-1] if len(self.said) == 2 else 10_000 if len(self.said) == 3 else move.legal_actions[0]
        )


def test_the_runner_keeps_each_seats_texts_at_their_moves_illegal_answers_included() -> None:
    game = make_game("friday13", players=3)
    talker = Talker("talker")
    live: list[tuple[int, int, str]] = []
    runner = MatchRunner(
        game,
        [BotSeat("random", lambda g, s: make_bot("random", g, s, seed=s)), talker, Talker("other")],
        b"debug",
        on_debug=lambda move, seat, text: live.append((move, seat, text)),
    )
    record = asyncio.run(runner.run()).record
    debug = record["debug"]
    assert [tuple(entry) for entry in debug] == live, "the live listener hears exactly what the record keeps"
    moves = [move for entry in record["rounds"] for move in entry["moves"]]
    for move, seat, text in debug:
        assert moves[move]["seat"] == seat, "each text sits at its seat's own move"
        assert len(text.encode()) <= MOVE_BYTES
    mine = [text for _, seat, text in debug if seat == 1]
    assert mine[:2] == talker.said[:2] and mine[2] == talker.said[2], "the illegal answer's text is kept too"
    assert mine[4] == cut(talker.said[4]) and mine[4].endswith(CUT)
    assert {seat for _, seat, _ in debug} == {1, 2}, "built-in bots say nothing"
    assert record["strikes"][0]["move"] == [move for move, seat, _ in debug if seat == 1][2]
