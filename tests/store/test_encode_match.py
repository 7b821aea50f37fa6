"""A match the runner played is stored from its seed and actions, and reads back as the record it made."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots import make_bot
from arena.games import make_game
from arena.games.base import Action
from arena.match import BotSeat, Clock, MatchRunner, MoveRequest, Seat
from arena.match.results import MatchResult
from arena.store import replays
from arena.store.codec import compact_json
from arena.store.replays import REPLAY_FORM, decode_replay, encode_match, encode_replay


@dataclass
class Timed(Seat):
    """A timed seat playing the random bot; with `cheat`, illegal answers at the given requests (three forfeit),
    and with `talk`, a debug text at every move."""

    name: str
    seed: int
    cheat: tuple[int, ...] = ()
    talk: bool = False
    asked: int = 0

    async def request(self, move: MoveRequest) -> Action:
        self.asked += 1
        if self.talk:
            move.debug = f"move {self.asked}: «{'why ' * (self.asked % 5)}»"
        if self.asked in self.cheat:
            return 10_000
        return move.legal_actions[(self.seed * 31 + self.asked * 7) % len(move.legal_actions)]


async def play(
    game_name: str, players: int, number: int, *, timed: int = 0, cheat: tuple[int, ...] = (), resumed: int = 0
) -> MatchResult:
    """A match of `players` seats, the first `timed` of them timed seats (the first with `cheat`), the rest
    built-in bots; with `resumed`, the first that many actions replayed as after a node's restart."""
    game = make_game(game_name, players=players) if game_name != "board13" else make_game("board13")
    seats: list[Seat] = [
        Timed(f"t{seat}", number + seat, cheat if seat == 0 else (), talk=seat == 1) for seat in range(timed)
    ]
    seats += [BotSeat("random", lambda g, s: make_bot("random", g, s, seed=number + s)) for _ in range(players - timed)]
    seed = hashlib.sha256(f"encode-match-{number}".encode()).digest()[:16]
    replayed: list[Action] = []
    if resumed:
        state = game.new_match(seed)
        while len(replayed) < resumed and not state.is_terminal():
            action = state.legal_actions()[number % len(state.legal_actions())]
            state.apply(action)
            replayed.append(action)
    return await MatchRunner(game, seats, seed, match_id=f"e{number}", clock=Clock(1.0, 10.0)).run(replayed)


def reads_back(stored: bytes, result: MatchResult) -> bool:
    """Whether the stored bytes read as the runner's own record, key for key and in the same order."""
    return compact_json(decode_replay(stored, result.match_id)) == compact_json(result.record)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from([("friday13", 3, 6), ("amigo13", 3, 6)]),
    data=st.data(),
    number=st.integers(0, 10_000),
)
def test_a_played_match_is_stored_in_the_replay_form_and_reads_back_as_its_record(
    game: tuple[str, int, int], data: st.DataObject, number: int
) -> None:
    name, low, high = game
    players = data.draw(st.integers(low, high), label="players")
    timed = data.draw(st.integers(0, players), label="timed seats")
    cheat = data.draw(st.sampled_from([(), (2,), (2, 5, 9)]), label="illegal answers")
    resumed = data.draw(st.sampled_from([0, 0, 7]), label="actions replayed")
    result = asyncio.run(play(name, players, number, timed=timed, cheat=cheat, resumed=resumed))
    assert len(result.actions) == sum(len(entry["moves"]) for entry in result.record["rounds"])
    stored = encode_match(result)
    assert stored[:1] == REPLAY_FORM
    assert reads_back(stored, result)


def test_a_match_with_a_clock_strikes_a_forfeit_and_debug_texts_reads_back_whole() -> None:
    result = asyncio.run(play("friday13", 4, 3, timed=2, cheat=(2, 5, 9)))
    record = result.record
    assert record["forfeits"] and len(record["strikes"]) == 3 and record["debug"] and record["clock"]
    stored = encode_match(result)
    assert stored[:1] == REPLAY_FORM
    assert reads_back(stored, result)
    assert len(stored) < len(encode_replay({**record, "extra": 1}))  # far smaller than the compressed JSON


def test_a_game_the_replay_form_cannot_hold_is_stored_as_its_compressed_record() -> None:
    result = asyncio.run(play("board13", 2, 4, timed=1))
    stored = encode_match(result)
    assert stored[:1] != REPLAY_FORM
    assert reads_back(stored, result)


def test_a_result_whose_actions_do_not_give_its_scores_is_stored_as_its_record() -> None:
    """The guard: actions that re-play to other scores than the match's are not trusted to stand for it."""
    result = asyncio.run(play("friday13", 3, 5))  # no clock: its moves would not match the actions' either
    assert result.record.get("clock") is None
    short = dataclasses.replace(result, actions=result.actions[:-12])
    stored = encode_match(short)
    assert reads_back(stored, short)


def test_a_result_not_made_by_a_runner_is_stored_as_its_record() -> None:
    result = asyncio.run(play("amigo13", 3, 6))  # no clock, whose moves would not match the actions either
    assert result.record.get("clock") is None
    for made_elsewhere in (dataclasses.replace(result, seed=b""), dataclasses.replace(result, actions=())):
        assert reads_back(encode_match(made_elsewhere), result)


def test_a_clock_the_columns_cannot_give_back_exactly_is_stored_whole() -> None:
    """The record takes the runner's clock as it is: one the columns would read back otherwise (a negative
    think time would read as an untimed move) is not written in them."""
    result = asyncio.run(play("friday13", 3, 8, timed=3))
    clock = result.clock
    assert clock is not None
    moves = [list(entry) if entry else entry for entry in clock["moves"]]
    moves[4] = [-1, moves[4][1]]
    odd = dataclasses.replace(result, clock={**clock, "moves": moves})
    stored = encode_match(odd)
    assert stored[:1] != REPLAY_FORM
    assert reads_back(stored, odd)
    assert decode_replay(stored, odd.match_id)["clock"]["moves"][4][0] == -1


def test_a_runners_match_is_written_from_its_state_without_re_playing_its_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every match's end goes this way: `encode_replay` (which writes and re-plays the record twice) is left
    to results their state does not stand for."""
    results = [asyncio.run(play("friday13", 4, 11, timed=4)), asyncio.run(play("amigo13", 5, 12, timed=2, resumed=7))]

    def refused(record: object) -> bytes:
        raise AssertionError("a runner's match went the way of a record not made by a runner")

    monkeypatch.setattr(replays, "encode_replay", refused)
    for result in results:
        stored = encode_match(result)
        assert stored[:1] == REPLAY_FORM
        assert reads_back(stored, result)
