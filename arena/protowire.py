"""Protocol buffers' wire format, for the few messages sent so often that building them costs.

A message's encoding is the concatenation of its fields' encodings, in any order, and a parser
merges what it reads: a singular field seen twice keeps the last value, a message field seen twice
is merged, a repeated field collects its elements in the order they come. So a message can be
sent as pieces encoded once and kept (an action's LegalAction, a card, the moves of a match so
far), joined with the few fields that change, without building and copying protobuf objects.
Field numbers come from the generated descriptors, so the .proto files stay the one definition.
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import Message

VARINT = 0
LENGTH_DELIMITED = 2

_SMALL = tuple(bytes((number,)) for number in range(0x80))


def varint(number: int) -> bytes:
    """A non-negative integer as a base-128 varint."""
    if number < 0x80:
        return _SMALL[number]
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def signed(number: int) -> bytes:
    """An int32 or int64 value: a negative one as its 64-bit two's complement (ten bytes)."""
    return varint(number if number >= 0 else number + (1 << 64))


def number_of(message: type[Message], field: str) -> int:
    """The number of `field` in the generated class `message`."""
    return int(message.DESCRIPTOR.fields_by_name[field].number)


def key(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def embedded(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a message, a string, bytes, or a packed repeated scalar)."""
    return varint(number << 3 | LENGTH_DELIMITED) + varint(len(payload)) + payload


def unsigned_field(number: int, value: int) -> bytes:
    """A uint32/uint64 field; 0 is left out, as proto3 leaves out a default."""
    return varint(number << 3) + varint(value) if value else b""


def signed_field(number: int, value: int) -> bytes:
    """An int32/int64 field; 0 is left out, as proto3 leaves out a default."""
    return varint(number << 3) + signed(value) if value else b""


def packed(number: int, values: Iterable[int]) -> bytes:
    """A repeated int32/uint32 field, packed (proto3's encoding); no elements, no bytes."""
    values = tuple(values)
    if not values:
        return b""
    one_byte_each = min(values) >= 0 and max(values) < 0x80  # then each value is its own varint
    return embedded(number, bytes(values) if one_byte_each else b"".join([signed(value) for value in values]))
