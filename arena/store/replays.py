"""How a finished match's replay record is kept in Redis: its seed and action ids, or compressed.

Readers always get the `arena-replay/1` record as the engine made it; only the stored bytes
change. A friday13 4-player record is about 17 KB of JSON: plain zlib makes it 1.7 KB, zlib
primed with a sample record (`replay_dictionaries.py`) 1.1 KB, and its seed and 200 action ids
(the rest is what the rules make of them) about 250 bytes.

Three stored forms read back, told apart by the first byte:
- `{`: the JSON text itself, as arenas before compression stored it;
- `R`: a re-play: zlib (with the dictionary) of a JSON header (game, params, seats, seed,
  termination, ranks, forfeited, the clock when the record has one, the forfeits, strikes and
  debug texts when it has them, and the CRC-32 of the record's JSON text), a newline, then the
  action ids, one byte each, and, when the record has a clock, its per-move times in two columns
  of LEB128 numbers (`_clock_columns`; the header then says how many action bytes there are).
  Read by re-playing the actions from the seed under the rules. A node writes a finished match in
  it from the seed and actions, its CRC that of the record the match's final state makes, whose
  seed and actions they are (`encode_match`); any other record only when that gives back exactly
  the record, checked before storing (`encode_replay`). A re-play whose CRC differs (rules changed
  since) is a clear error, never a silently different record;
- anything else: a zlib stream of the record's JSON made with a preset dictionary, for records
  the re-play form cannot hold (board13's, action ids above 255). Its header carries the
  dictionary's Adler-32, which names the dictionary to read it with.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from arena.games import GameError, State, Termination, make_game
from arena.games.cards import CardState
from arena.store.codec import compact_json
from arena.store.replay_dictionaries import FRIDAY13_1

if TYPE_CHECKING:
    from arena.match.results import MatchResult

WRITE_DICTIONARY = FRIDAY13_1
"""The dictionary new records are compressed with."""

DICTIONARIES = {zlib.adler32(dictionary): dictionary for dictionary in (FRIDAY13_1,)}
"""Every dictionary a stored record may name, by its Adler-32 (as a zlib header gives it)."""

_FDICT = 0x20
"""The zlib header's flag (second byte) for "a preset dictionary's Adler-32 follows"."""


class CorruptReplay(ValueError):
    """A stored replay record that reads as none of the stored forms; the message says which match."""


REPLAY_FORM = b"R"
"""The first byte of the re-play form."""

_HEADER = ("game", "params", "seats", "seed", "termination", "ranks", "forfeited")
"""The record's fields the re-play form keeps beside the actions; the rules make the rest."""
_OPTIONAL = ("forfeits", "strikes", "debug")
"""Fields a record has only when they hold something (`MatchResult.record`), kept in the header as they
are, after the clock (the record's CRC covers the order)."""


def encode_replay(record: Any) -> bytes:
    """The bytes to store for a replay record: the re-play form when it gives the record back."""
    text = compact_json(record).encode()
    replayed = _replay_form(record, text)
    return REPLAY_FORM + replayed if replayed is not None else _deflate(text)


def _replay_form(record: Any, text: bytes) -> bytes | None:
    """The re-play form's payload, or None when the record is not one the rules give back from it."""
    try:
        game = make_game(record["game"], **record["params"])
        actions = bytes(
            game.action_from_text(f"{move['card']}>{move['pile']}")
            for played in record["rounds"]
            for move in played["moves"]
        )
        header = {name: record[name] for name in _HEADER} | {"crc": zlib.crc32(text)}
        header |= {name: record[name] for name in _OPTIONAL if name in record}
        columns = b""
        if "clock" in record:
            columns = _clock_columns(record["clock"], _move_seats(record))
            _put_clock(header, record["clock"], actions)
    except (GameError, LookupError, TypeError, ValueError):  # not a card game's record, or an id above 255
        return None
    payload = _payload(header, actions, columns)
    try:
        if _replayed_text(payload, "")[1] == text:
            return payload
    except CorruptReplay:
        pass
    return None


def _replayed(payload: bytes, match_id: str) -> dict[str, Any]:
    """The record the re-play form's payload stands for, re-played under the rules."""
    return _replayed_text(payload, match_id)[0]


def _replayed_text(payload: bytes, match_id: str) -> tuple[dict[str, Any], bytes]:
    """The record the re-play form's payload stands for, re-played under the rules, and its JSON text (which
    its CRC is checked against: the writer compares it with the record's own, so it is made once)."""
    try:
        head, _, actions = _inflate(payload).partition(b"\n")
        header = json.loads(head)
        clock = header.get("clock")
        columns = b""
        if clock is not None and "moves" not in clock:
            # A clock stored before the columns existed has its "moves" in the header, as JSON.
            count = header.pop("actions")
            actions, columns = actions[:count], actions[count:]
        record = _played(header, actions)
        _add_fields(record, header, columns)
    except (zlib.error, GameError, LookupError, TypeError, ValueError) as error:
        raise CorruptReplay(
            f"the stored replay of match {match_id} does not re-play ({len(payload) + 1} bytes: {error})"
        ) from None
    text = compact_json(record).encode()
    if zlib.crc32(text) != header.get("crc"):
        raise CorruptReplay(
            f"the stored replay of match {match_id} re-plays to a different record under these rules (CRC mismatch)"
        )
    return record, text


def _played(header: dict[str, Any], actions: bytes) -> dict[str, Any]:
    """What the rules make of the header's seed and the actions, with the header's ranks and forfeited seats."""
    state = make_game(header["game"], **header["params"]).new_match(bytes.fromhex(header["seed"]))
    for action in actions:
        state.apply(action)
    return _ranked(state, header)


def _ranked(state: State[Any], header: dict[str, Any]) -> dict[str, Any]:
    """The state's record for the header's seats and termination, with the header's ranks and forfeited seats."""
    record = state.record(header["seats"], Termination(header["termination"]))
    record["ranks"], record["forfeited"] = header["ranks"], header["forfeited"]
    return record


def _add_fields(record: dict[str, Any], header: dict[str, Any], columns: bytes, moves: list[Any] | None = None) -> None:
    """The header's clock (its `moves`, or read from `columns` when not given), forfeits, strikes and debug
    texts, added to the record in the order `MatchResult.record` gives them."""
    clock = header.get("clock")
    if clock is not None and "moves" not in clock:
        clock = {**clock, "moves": _clock_moves(clock, _move_seats(record), columns) if moves is None else moves}
        clock = {key: clock[key] for key in _CLOCK_KEYS if key in clock}
    if clock is not None:
        record["clock"] = clock
    for name in _OPTIONAL:
        if name in header:
            record[name] = header[name]


def _move_seats(record: dict[str, Any]) -> list[int]:
    """The seat of each move of a card game's record, in order."""
    return [move["seat"] for played in record["rounds"] for move in played["moves"]]


def encode_match(result: MatchResult) -> bytes:
    """The bytes to store for a match the runner played, made from its seed and actions.

    The CRC is of the record the match's final state makes from the header as a reader reads it: the state's
    `record` re-plays its moves from its seed (a replica re-dealt), and the stored seed and actions are
    checked to be the state's own, so readers get what the rules make of what is stored. The clock's columns
    are written only from whole, non-negative milliseconds, which read back exactly (`_clock_columns`), so
    the record takes the runner's clock as it is. The record is made and written as JSON once
    (`encode_replay` makes it, writes it twice and re-plays it twice). A result not made by a runner (a seed
    or actions that are not its state's, a state that is not a card game's) or a match the form cannot hold
    (action ids above 255) is `encode_replay` of its record."""
    state = result.state
    try:
        actions = bytes(result.actions)
    except ValueError:
        return encode_replay(result.record)
    if not isinstance(state, CardState) or state.seed != result.seed or state.actions() != actions:
        return encode_replay(result.record)
    fields = result.record_fields()
    clock = fields.get("clock")
    header: dict[str, Any] = {
        "game": result.game,
        "params": result.state.game.params(),
        "seats": list(result.seats),
        "seed": result.seed.hex(),
        "termination": result.termination.value,
    } | fields
    if clock is not None:
        _put_clock(header, clock, actions)
    try:
        header = json.loads(compact_json(header))  # as a reader will have it
        record = _ranked(state, header)
        columns = b""
        if clock is not None:
            columns = _clock_columns(clock, _move_seats(record))
        _add_fields(record, header, columns, None if clock is None else clock["moves"])
    except (GameError, LookupError, TypeError, ValueError):  # a clock of negative or non-integer times
        return encode_replay(result.record)
    header["crc"] = zlib.crc32(compact_json(record).encode())
    return REPLAY_FORM + _payload(header, actions, columns)


def _put_clock(header: dict[str, Any], clock: dict[str, Any], actions: bytes) -> None:
    """The clock in the header without its moves, which go in the columns after the actions it counts."""
    header["clock"] = {key: value for key, value in clock.items() if key != "moves"}
    header["actions"] = len(actions)


def _payload(header: dict[str, Any], actions: bytes, columns: bytes) -> bytes:
    """The re-play form's payload (after its first byte): the header's JSON, a newline, the actions, the
    clock's columns, compressed."""
    return _deflate(compact_json(header).encode() + b"\n" + actions + columns)


_CLOCK_KEYS = ("per_move_ms", "bank_ms", "moves", "strikes")
"""The clock's keys in the order the match runner writes them (the record's CRC covers the order)."""


def _clock_columns(clock: dict[str, Any], seats: list[int]) -> bytes:
    """The clock's per-move entries as numbers: first, per move, its think time plus one (0 for a move
    nobody timed), then, per timed move, how far the bank left differs from what the rules make of the
    think time (the seat's bank before, less what the move took over the limit), zigzag-coded.

    `seats` gives each move's seat. The second column is almost all zeros (a bank changes only when a
    move takes longer than the limit, and then as the think time says), so a match's clock costs about
    what its think times do: 200 spread evenly over 0-900 ms, a few over the limit, add about 470 bytes
    compressed to the stored record, against 660 as JSON pairs in the header (answers of 0-3 ms: 150
    against 200)."""
    per_move, banks = clock["per_move_ms"], [clock["bank_ms"]] * (max(seats, default=0) + 1)
    if type(per_move) is not int or type(banks[0]) is not int:
        raise TypeError("the clock's limits are whole milliseconds")
    moves = clock["moves"]
    if len(moves) != len(seats):
        raise ValueError(f"the clock has {len(moves)} moves and the record {len(seats)}")
    thinks = bytearray()
    residuals = bytearray()
    # Every match's end comes here: the one-byte numbers (nearly all of them) skip the general coder.
    for entry, seat in zip(moves, seats, strict=True):
        if entry is None:
            thinks.append(0)
            continue
        think, bank = entry
        if type(think) is not int or type(bank) is not int:  # bools and floats would not read back the same
            raise TypeError("clock entries are whole milliseconds")
        if think < 0:  # -1 would be written as 0, an untimed move
            raise ValueError(f"a clock entry is negative ({think})")
        if think < 0x7F:
            thinks.append(think + 1)
        else:
            _leb128(thinks, think + 1)
        over = think - per_move
        expected = banks[seat] - over if over > 0 else banks[seat]
        residual = bank - (expected if expected > 0 else 0)
        if residual == 0:
            residuals.append(0)
        else:
            _leb128(residuals, _zigzag(residual))
        banks[seat] = bank
    return bytes(thinks + residuals)


def _clock_moves(clock: dict[str, Any], seats: list[int], columns: bytes) -> list[list[int] | None]:
    """The clock's "moves" back from `_clock_columns`; ValueError when the bytes do not hold them."""
    per_move, banks = clock["per_move_ms"], [clock["bank_ms"]] * (max(seats, default=0) + 1)
    # Nearly always every number is one byte: the bytes are the numbers.
    numbers = list(columns) if not columns or max(columns) < 0x80 else list(_numbers(columns))
    if len(numbers) < len(seats):
        raise ValueError("the clock's columns end early")
    position = len(seats)
    moves: list[list[int] | None] = []
    for plus_one, seat in zip(numbers[:position], seats, strict=True):
        if plus_one == 0:
            moves.append(None)
            continue
        if position == len(numbers):
            raise ValueError("the clock's columns end early")
        think = plus_one - 1
        over = think - per_move
        expected = banks[seat] - over if over > 0 else banks[seat]
        bank = (expected if expected > 0 else 0) + _unzigzag(numbers[position])
        position += 1
        banks[seat] = bank
        moves.append([think, bank])
    if position != len(numbers):
        raise ValueError("bytes left over after the clock's columns")
    return moves


def _zigzag(number: int) -> int:
    return number * 2 if number >= 0 else -number * 2 - 1


def _unzigzag(number: int) -> int:
    return number // 2 if number % 2 == 0 else -(number + 1) // 2


def _leb128(out: bytearray, number: int) -> bytearray:
    if number < 0:
        raise ValueError(f"a clock entry is negative ({number})")
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return out


def _numbers(data: bytes) -> Iterator[int]:
    number = shift = 0
    for byte in data:
        number |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            continue
        yield number
        number = shift = 0
    if shift:
        raise ValueError("the clock's columns end inside a number")


def _deflate(text: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS, 9, zdict=WRITE_DICTIONARY)
    return packer.compress(text) + packer.flush()


def decode_replay(stored: bytes | str, match_id: str) -> dict[str, Any]:
    """The replay record from its stored bytes, in any of the forms above; CorruptReplay says why not."""
    data = stored.encode() if isinstance(stored, str) else stored
    if data[:1] == REPLAY_FORM:
        return _replayed(data[1:], match_id)
    try:
        record = json.loads(data if data[:1] == b"{" else _inflate(data))
    except (zlib.error, ValueError) as error:
        raise CorruptReplay(
            f"the stored replay of match {match_id} is damaged ({len(data)} bytes: {error}); its summary still reads"
        ) from None
    if not isinstance(record, dict):
        raise CorruptReplay(
            f"the stored replay of match {match_id} is not a replay record (a JSON {type(record).__name__})"
        )
    return record


def _inflate(data: bytes) -> bytes:
    if len(data) < 6 or not data[1] & _FDICT:
        raise zlib.error("not a zlib stream with a preset dictionary")
    dictionary = DICTIONARIES.get(int.from_bytes(data[2:6], "big"))
    if dictionary is None:
        raise zlib.error(f"it names an unknown dictionary {data[2:6].hex()}")
    unpacker = zlib.decompressobj(zlib.MAX_WBITS, zdict=dictionary)
    text = unpacker.decompress(data) + unpacker.flush()
    if not unpacker.eof:
        raise zlib.error("the zlib stream is cut short")
    return text
