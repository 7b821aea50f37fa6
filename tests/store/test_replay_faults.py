"""A stored replay keeps its forfeits, strikes and debug texts, in the small re-play form where it can."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from redis.asyncio import Redis

from arena.bots import make_bot
from arena.games import make_game
from arena.games.base import Action
from arena.match import BotSeat, Clock, MatchRunner, MoveRequest, Seat
from arena.store import Store, keys
from arena.store.replays import REPLAY_FORM, decode_replay, encode_replay
from tests.store.test_replays import stored

pytestmark = pytest.mark.asyncio


@dataclass
class Chatty(Seat):
    """A timed seat that explains every move, with a few illegal answers (three: it forfeits)."""

    name: str
    asked: int = 0

    async def request(self, move: MoveRequest) -> Action:
        self.asked += 1
        move.debug = f"move {self.asked}: I hold {len(move.legal_actions)} cards — «{'why ' * (self.asked % 7)}»"
        return 10_000 if self.asked in (2, 5, 9) else move.legal_actions[0]


async def faulty_record(game_name: str, players: int) -> dict[str, object]:
    game = make_game(game_name, players=players)
    seats: list[Seat] = [Chatty("chatty")]
    seats += [BotSeat("random", lambda g, s: make_bot("random", g, s, seed=s)) for _ in range(players - 1)]
    result = await MatchRunner(game, seats, b"stored-faults", clock=Clock(1.0, 10.0)).run()
    return result.record


async def test_a_record_with_forfeits_strikes_and_debug_texts_keeps_the_small_form_and_reads_back_the_same(
    redis: Redis,
) -> None:
    record = await faulty_record("friday13", 4)
    assert record["forfeits"] and len(record["strikes"]) == 3 and record["debug"]  # type: ignore[arg-type]
    await stored(Store(redis), "f1", record)
    raw = await redis.hget(keys.match("f1"), "replay")
    assert raw is not None and raw[:1] == REPLAY_FORM
    found = await Store(redis).get_match("f1")
    assert found is not None and json.dumps(found[1]) == json.dumps(record)  # same keys, same order
    # The texts compress well beside the moves: a few hundred bytes more than the same match without them.
    bare = encode_replay({key: value for key, value in record.items() if key not in ("forfeits", "strikes", "debug")})
    assert len(raw) - len(bare) < 1_000, (len(raw), len(bare))


async def test_a_record_the_replay_form_cannot_hold_keeps_them_in_the_compressed_form() -> None:
    record = await faulty_record("board13", 2)
    assert record["forfeits"] and record["debug"]
    stored_bytes = encode_replay(record)
    assert stored_bytes[:1] != REPLAY_FORM
    assert json.dumps(decode_replay(stored_bytes, "b1")) == json.dumps(record)
