"""How a finished match's replay record is kept in Redis: its seed and action ids, or compressed.

Readers always get the `arena-replay/1` record as the engine made it; only the stored bytes
change. A friday13 4-player record is about 17 KB of JSON: plain zlib makes it 1.7 KB, zlib
primed with a sample record (`replay_dictionaries.py`) 1.1 KB, and its seed and 200 action ids
(the rest is what the rules make of them) about 250 bytes.

Three stored forms read back, told apart by the first byte:
- `{`: the JSON text itself, as arenas before compression stored it;
- `R`: a re-play: zlib (with the dictionary) of a JSON header (game, params, seats, seed,
  termination, ranks, forfeited, the clock when the record has one, and the CRC-32 of the
  record's JSON text), a newline, then the
  action ids, one byte each. Read by re-playing the actions from the seed under the rules;
  written only when that gives back exactly the record, checked before storing. A re-play whose
  CRC differs (rules changed since) is a clear error, never a silently different record;
- anything else: a zlib stream of the record's JSON made with a preset dictionary, for records
  the re-play form cannot hold (board13's, action ids above 255). Its header carries the
  dictionary's Adler-32, which names the dictionary to read it with.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from arena.games import GameError, Termination, make_game
from arena.store.codec import compact_json
from arena.store.replay_dictionaries import FRIDAY13_1

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
        if "clock" in record:
            header["clock"] = record["clock"]
    except (GameError, LookupError, TypeError, ValueError):  # not a card game's record, or an id above 255
        return None
    payload = _deflate(compact_json(header).encode() + b"\n" + actions)
    try:
        if compact_json(_replayed(payload, "")).encode() == text:
            return payload
    except CorruptReplay:
        pass
    return None


def _replayed(payload: bytes, match_id: str) -> dict[str, Any]:
    """The record the re-play form's payload stands for, re-played under the rules."""
    try:
        head, _, actions = _inflate(payload).partition(b"\n")
        header = json.loads(head)
        state = make_game(header["game"], **header["params"]).new_match(bytes.fromhex(header["seed"]))
        for action in actions:
            state.apply(action)
        record = state.record(header["seats"], Termination(header["termination"]))
        record["ranks"], record["forfeited"] = header["ranks"], header["forfeited"]
        if "clock" in header:
            record["clock"] = header["clock"]
    except (zlib.error, GameError, LookupError, TypeError, ValueError) as error:
        raise CorruptReplay(
            f"the stored replay of match {match_id} does not re-play ({len(payload) + 1} bytes: {error})"
        ) from None
    if zlib.crc32(compact_json(record).encode()) != header.get("crc"):
        raise CorruptReplay(
            f"the stored replay of match {match_id} re-plays to a different record under these rules (CRC mismatch)"
        )
    return record


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
