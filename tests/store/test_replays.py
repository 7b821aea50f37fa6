"""Stored replay records: small in Redis, the same arena-replay/1 record for every reader, old ones still read."""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from functools import partial
from typing import Any

import grpc
import pytest
from redis.asyncio import Redis
from starlette.exceptions import HTTPException

from arena.bots import make_bot
from arena.games import Termination, make_game
from arena.match.runner import MatchRunner
from arena.match.seats import BotSeat
from arena.ratings import ResultRecord
from arena.store import CorruptReplay, MatchRecord, Store, keys
from arena.store.codec import compact_json
from arena.store.replays import DICTIONARIES, REPLAY_FORM, WRITE_DICTIONARY, decode_replay, encode_replay
from arena.store.work import MatchOrder, WorkQueue
from arena.v1 import arena_service_pb2 as api_pb
from arena.web.data import WebData
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio


async def played(game: str, bots: tuple[str, ...], number: int = 0, **params: Any) -> dict[str, Any]:
    """The replay record of a real match between built-in bots, as the node's runner makes it."""
    seats = [BotSeat(name, partial(make_bot, name, seed=number)) for name in bots]
    seed = hashlib.sha256(f"replays-{number}".encode()).digest()[:16]
    result = await MatchRunner(make_game(game, **params), seats, seed, match_id=f"t{number}").run()
    return result.record


async def stored(store: Store, match_id: str, replay: dict[str, Any] | None) -> MatchRecord:
    """A match listed and ended through the store's own write path."""
    seats = list(replay["seats"]) if replay else ["ann", "bob"]
    record = MatchRecord(match_id, "friday13", {"players": len(seats)}, seats, 1_000)
    await store.match_started(record)
    record.termination, record.ended_ms = Termination.NORMAL, 2_000
    await store.match_ended(record, replay)
    return record


async def test_a_friday13_match_is_stored_as_its_seed_and_actions_and_reads_back_the_same(redis: Redis) -> None:
    store = Store(redis)
    for number in range(4):
        replay = await played("friday13", ("heuristic", "random", "random", "heuristic"), number, players=4)
        await stored(store, f"m{number}", replay)
        raw = await redis.hget(keys.match(f"m{number}"), "replay")
        assert raw is not None and raw[:1] == REPLAY_FORM
        assert len(raw) < 400, len(raw)  # the JSON text is about 17,000 bytes
        found = await store.get_match(f"m{number}")
        assert found is not None and found[1] == replay
        assert json.dumps(found[1]) == json.dumps(replay)  # the same keys in the same order
        usage = await redis.memory_usage(keys.match(f"m{number}"))
        assert usage is not None and usage < 1_200, usage


async def test_a_record_with_a_clock_keeps_the_replay_form_and_reads_back_the_same() -> None:
    replay = await played("friday13", ("heuristic", "random", "random"), 7, players=3)
    moves = sum(len(entry["moves"]) for entry in replay["rounds"])
    replay["clock"] = {
        "per_move_ms": 1000,
        "bank_ms": 10000,
        "moves": [[number % 5, 10000] if number % 3 == 0 else None for number in range(moves)],
        "strikes": [[3, 0, "strike 1 of 3: illegal action: not among the legal actions sent"]],
    }
    stored_bytes = encode_replay(replay)
    assert stored_bytes[:1] == REPLAY_FORM
    assert json.dumps(decode_replay(stored_bytes, "c1")) == json.dumps(replay)


async def test_a_four_seat_clock_of_spread_think_times_keeps_a_stored_match_small() -> None:
    """Every seat timed, think times spread over 0-900 ms, banks drawn down by a few slow moves."""
    replay = await played("friday13", ("heuristic", "random", "random", "heuristic"), 8, players=4)
    moves = sum(len(entry["moves"]) for entry in replay["rounds"])
    draw = random.Random(8)
    banks = [10_000] * 4
    timing: list[list[int] | None] = []
    for number in range(moves):
        think = draw.randrange(0, 900) if number % 37 else 1_000 + draw.randrange(0, 400)
        banks[number % 4] = max(0, banks[number % 4] - max(0, think - 1_000))
        timing.append([think, banks[number % 4]])
    timing[:5] = [None] * 5  # played before a resume: not timed
    replay["clock"] = {"per_move_ms": 1000, "bank_ms": 10000, "moves": timing, "strikes": []}
    without = len(encode_replay({key: value for key, value in replay.items() if key != "clock"}))
    stored_bytes = encode_replay(replay)
    assert stored_bytes[:1] == REPLAY_FORM
    assert decode_replay(stored_bytes, "c2") == replay
    # As JSON pairs in the header the clock cost 3.3 bytes a move; the banks now cost next to nothing.
    assert len(stored_bytes) - without < 2.5 * moves, (len(stored_bytes), without, moves)


async def test_a_clock_stored_in_the_header_by_an_older_arena_still_reads() -> None:
    replay = await played("friday13", ("random",) * 3, 9, players=3)
    moves = sum(len(entry["moves"]) for entry in replay["rounds"])
    replay["clock"] = {"per_move_ms": 500, "bank_ms": 2000, "moves": [[1, 2000]] * moves, "strikes": []}
    game = make_game("friday13", players=3)
    actions = bytes(
        game.action_from_text(f"{move['card']}>{move['pile']}") for entry in replay["rounds"] for move in entry["moves"]
    )
    header = {name: replay[name] for name in ("game", "params", "seats", "seed", "termination", "ranks", "forfeited")}
    header |= {"crc": zlib.crc32(compact_json(replay).encode()), "clock": replay["clock"]}
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS, 9, zdict=WRITE_DICTIONARY)
    older = REPLAY_FORM + packer.compress(compact_json(header).encode() + b"\n" + actions) + packer.flush()
    assert json.dumps(decode_replay(older, "c3")) == json.dumps(replay)


@pytest.mark.parametrize(
    "moves",
    [[[-1, 10]], [[1.5, 10]], [[1, 2, 3]], [True]],
    ids=["negative", "a float", "three numbers", "not a pair"],
)
async def test_a_clock_the_columns_cannot_hold_is_stored_compressed_whole(moves: list[Any]) -> None:
    replay = await played("friday13", ("random",) * 3, 10, players=3)
    count = sum(len(entry["moves"]) for entry in replay["rounds"])
    replay["clock"] = {"per_move_ms": 1000, "bank_ms": 10000, "moves": moves * count, "strikes": []}
    stored_bytes = encode_replay(replay)
    assert stored_bytes[:1] == b"x"
    assert decode_replay(stored_bytes, "c4") == replay


async def test_clock_columns_cut_short_are_a_corrupt_replay_not_a_crash() -> None:
    replay = await played("friday13", ("random",) * 3, 11, players=3)
    count = sum(len(entry["moves"]) for entry in replay["rounds"])
    replay["clock"] = {"per_move_ms": 1000, "bank_ms": 10000, "moves": [[300, 10000]] * count, "strikes": []}
    stored_bytes = encode_replay(replay)
    unpacker = zlib.decompressobj(zlib.MAX_WBITS, zdict=WRITE_DICTIONARY)
    plain = unpacker.decompress(stored_bytes[1:]) + unpacker.flush()
    for cut in (1, 2, count):
        packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS, 9, zdict=WRITE_DICTIONARY)
        damaged = REPLAY_FORM + packer.compress(plain[:-cut]) + packer.flush()
        with pytest.raises(CorruptReplay, match="does not re-play"):
            decode_replay(damaged, "c5")


async def test_records_the_replay_form_cannot_hold_are_stored_compressed_and_read_back_the_same() -> None:
    board = await played("board13", ("random", "random"), 1)
    amigo = await played("amigo13", ("random", "heuristic", "random"), 2, players=3)
    forfeited = {**await played("friday13", ("random",) * 3, 3, players=3), "forfeited": [1], "extra": "kept"}
    for record in (board, amigo, forfeited):
        stored_bytes = encode_replay(record)
        assert stored_bytes[:1] in (REPLAY_FORM, b"x")
        assert len(stored_bytes) < len(compact_json(record)) / 4
        assert decode_replay(stored_bytes, "m1") == record
    assert decode_replay(encode_replay({"format": "arena-replay/1"}), "m1") == {"format": "arena-replay/1"}
    assert encode_replay(forfeited)[:1] == b"x"  # the rules do not make "extra": kept whole


async def test_a_replay_stored_as_json_text_by_an_older_arena_still_reads(redis: Redis) -> None:
    store = Store(redis)
    replay = await played("friday13", ("random",) * 4, 5, players=4)
    await stored(store, "m1", None)
    await redis.hset(keys.match("m1"), "replay", compact_json(replay))
    found = await store.get_match("m1")
    assert found is not None and found[1] == replay


async def test_the_work_streams_result_script_stores_the_small_form(redis: Redis) -> None:
    work = WorkQueue(redis, "node-a")
    await work.ensure_group()
    replay = await played("friday13", ("heuristic",) * 4, 6, players=4)
    seats = tuple(replay["seats"])
    await work.submit([MatchOrder("m7", "friday13", {"players": 4}, seats, replay["seed"])])
    (delivery,) = await work.read(1, block_ms=100)
    record = MatchRecord("m7", "friday13", {"players": 4}, list(seats), 1_000, termination=Termination.NORMAL)
    result = ResultRecord("m7", seats, tuple(replay["scores"]), tuple(replay["ranks"]), Termination.NORMAL)
    assert await work.store_result(delivery, record, encode_replay(replay), result)
    raw = await redis.hget(keys.match("m7"), "replay")
    assert raw is not None and raw[:1] == REPLAY_FORM
    found = await Store(redis).get_match("m7")
    assert found is not None and found[1] == replay


def damaged(good: bytes) -> dict[str, bytes]:
    """Stored replays gone wrong in each way a reader can meet."""
    dictionary = DICTIONARIES[int.from_bytes(good[3:7], "big")]

    def packed(text: bytes) -> bytes:
        packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS, 9, zdict=dictionary)
        return packer.compress(text) + packer.flush()

    head, _, actions = zlib.decompressobj(zlib.MAX_WBITS, zdict=dictionary).decompress(good[1:]).partition(b"\n")
    other_crc = compact_json({**json.loads(head), "crc": 1}).encode()
    return {
        "garbage": b"\x00\x01 not a replay",
        "cut short": good[: len(good) // 2],
        "flipped byte": good[:40] + bytes([good[40] ^ 0xFF]) + good[41:],
        "unknown dictionary": good[:3] + b"\x00\x00\x00\x00" + good[7:],
        "broken json": b"{not json",
        "a list, not a record": packed(b"[1, 2]"),
        "compressed without a dictionary": zlib.compress(b'{"format":"arena-replay/1"}'),
        "rules give another record": REPLAY_FORM + packed(other_crc + b"\n" + actions),
        "an illegal action": REPLAY_FORM + packed(head + b"\n" + bytes([255]) + actions),
        "no header": REPLAY_FORM + packed(actions),
    }


async def test_a_damaged_stored_replay_is_a_one_line_error_naming_the_match(redis: Redis) -> None:
    store = Store(redis)
    good = encode_replay(await played("friday13", ("random",) * 4, 8, players=4))
    for number, (how, bad) in enumerate(damaged(good).items()):
        match_id = f"m{number}"
        await stored(store, match_id, None)
        await redis.hset(keys.match(match_id), "replay", bad)
        with pytest.raises(CorruptReplay) as raised:
            await store.get_match(match_id)
        message = str(raised.value)
        assert "\n" not in message and f"match {match_id} " in message, (how, message)
        assert len(await store.list_matches()) == number + 1  # the summaries still list


async def test_the_server_logs_a_damaged_replay_in_one_line_and_serves_on(
    arena: Arena, redis: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(redis)
    replay = await played("friday13", ("random",) * 4, 9, players=4)
    await stored(store, "m1", replay)
    await stored(store, "m2", replay)
    await redis.hset(keys.match("m1"), "replay", b"\x78\x9c garbage")
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await arena.api.GetMatch(api_pb.GetMatchRequest(match_id="m1"))
    assert raised.value.code() == grpc.StatusCode.DATA_LOSS
    details = raised.value.details() or ""
    assert details.startswith("the stored replay of match m1 is damaged") and "\n" not in details
    logged = [record.getMessage() for record in caplog.records if "stored replay of match m1" in record.getMessage()]
    assert logged and all("\n" not in line for line in logged)
    with pytest.raises(grpc.aio.AioRpcError) as watched:
        async for _ in arena.api.WatchMatch(api_pb.WatchMatchRequest(match_id="m1")):
            pass
    assert watched.value.code() == grpc.StatusCode.DATA_LOSS
    good = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id="m2"))
    assert json.loads(good.replay_json) == replay
    listed = await arena.api.ListMatches(api_pb.ListMatchesRequest())
    assert {match.match_id for match in listed.matches} == {"m1", "m2"}
    server = arena.server
    assert server.ratings is not None
    web = WebData(server.store, server.ratings)
    with pytest.raises(HTTPException) as answered:  # the web API answers 500 {"detail": that line}
        await web.match("m1")
    assert answered.value.status_code == 500
    assert str(answered.value.detail).startswith("the stored replay of match m1 is damaged")
    assert (await web.match("m2"))["replay"] == replay


STORED_BEFORE = bytes.fromhex(
    "5278f91a4251e8c59c316a04310c450b818b6050a54ee0cae0cab0596b46db1854f902b2fb30610f9076c9dd339b26a4489d"
    "46addefb52fd1fffd13bb1b7f67ad7ebdb76bcdfaf9beee7d8a4dd8e8b5eb4eddbf38c7fc0ff58b6d3f369f94be7ccfbe338"
    "3ffdd6e4da76dd3f5fe64452b742b95a200f45ebe034eb983347548f0cd24be261493a824070aadec97aca406bc435829a9a"
    "880e295c010be652d34c3c2160f4c05e29641baae6b67a5a6bc9a2b878943aa26310c6ce2510648092a46252fa26e8151d3c"
    "0649d4e728b3148f0284e74a634b4194730546cd6a5fe7da674c"
)
"""A 4-player friday13 match as this arena first stored it (`played(..., 0, players=4)`, 226 bytes)."""


async def test_a_match_stored_in_the_replay_form_reads_back_under_todays_rules() -> None:
    """Stored matches re-play under the rules: a change to friday13's deal, moves or record layout
    that breaks this breaks every stored match (read then as CorruptReplay), so it needs a new form."""
    record = decode_replay(STORED_BEFORE, "m1")
    assert record["scores"] == [14, 59, 43, 9] and record["format"] == "arena-replay/1"
    digest = hashlib.sha256(compact_json(record).encode()).hexdigest()
    assert digest == "3ac16efdc254e4ccad59d2846fd74fc618eec949eb93ff8348fe3dcdd905e008"


async def test_matches_left_running_are_aborted_without_reading_their_replay(redis: Redis) -> None:
    store = Store(redis)
    await store.match_started(MatchRecord("m1", "friday13", {"players": 2}, ["ann", "bob"], 1_000))
    await stored(store, "m2", None)
    await redis.sadd(keys.MATCHES_RUNNING, "m2")
    await redis.hset(keys.match("m2"), "replay", b"damaged")
    assert await store.abort_running() == ["m1", "m2"]
    for record in await store.list_matches():
        assert record.termination == Termination.ABORTED and record.ended_ms > 0
    assert not await redis.smembers(keys.MATCHES_RUNNING)
