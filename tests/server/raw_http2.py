"""A gRPC call made by hand over HTTP/2, to send what no gRPC library would: a message frame cut short.

Just enough of RFC 9113 and RFC 7541 (HPACK) for one stream on a plaintext connection; strings the
server sends Huffman-coded are kept undecoded (gRPC's own headers are not).
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass, field

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY = 0x1, 0x1, 0x4, 0x8, 0x20
STREAM = 1

STATIC_TABLE = [
    (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"),
    (":scheme", "http"), (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"),
    (":status", "304"), (":status", "400"), (":status", "404"), (":status", "500"), ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""), ("accept", ""),
    ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""), ("cache-control", ""),
    ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""), ("content-length", ""),
    ("content-location", ""), ("content-range", ""), ("content-type", ""), ("cookie", ""), ("date", ""),
    ("etag", ""), ("expect", ""), ("expires", ""), ("from", ""), ("host", ""), ("if-match", ""),
    ("if-modified-since", ""), ("if-none-match", ""), ("if-range", ""), ("if-unmodified-since", ""),
    ("last-modified", ""), ("link", ""), ("location", ""), ("max-forwards", ""), ("proxy-authenticate", ""),
    ("proxy-authorization", ""), ("range", ""), ("referer", ""), ("refresh", ""), ("retry-after", ""),
    ("server", ""), ("set-cookie", ""), ("strict-transport-security", ""), ("transfer-encoding", ""),
    ("user-agent", ""), ("vary", ""), ("via", ""), ("www-authenticate", ""),
]  # fmt: skip


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def grpc_message(body: bytes, declared: int | None = None) -> bytes:
    """A gRPC length-prefixed message; `declared` lies about its length."""
    return b"\x00" + struct.pack(">I", len(body) if declared is None else declared) + body


def _literal(name: str, value: str) -> bytes:
    """A literal header field without indexing, new name, no Huffman coding (strings under 127 bytes)."""
    encoded = [text.encode() for text in (name, value)]
    assert all(len(text) < 127 for text in encoded)
    return b"\x00" + b"".join(bytes([len(text)]) + text for text in encoded)


class Hpack:
    """An HPACK decoder for one connection."""

    def __init__(self) -> None:
        self.dynamic: list[tuple[str, str]] = []

    def _entry(self, index: int) -> tuple[str, str]:
        if index <= len(STATIC_TABLE):
            return STATIC_TABLE[index - 1]
        return self.dynamic[index - len(STATIC_TABLE) - 1]

    @staticmethod
    def _integer(data: bytes, at: int, bits: int) -> tuple[int, int]:
        mask = (1 << bits) - 1
        value = data[at] & mask
        at += 1
        if value < mask:
            return value, at
        shift = 0
        while True:
            byte = data[at]
            at += 1
            value += (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, at

    def _string(self, data: bytes, at: int) -> tuple[str, int]:
        huffman = bool(data[at] & 0x80)
        length, at = self._integer(data, at, 7)
        raw = data[at : at + length]
        return (f"<huffman {raw.hex()}>" if huffman else raw.decode()), at + length

    def decode(self, data: bytes) -> list[tuple[str, str]]:
        fields: list[tuple[str, str]] = []
        at = 0
        while at < len(data):
            byte = data[at]
            if byte & 0x80:
                index, at = self._integer(data, at, 7)
                fields.append(self._entry(index))
                continue
            if byte & 0xE0 == 0x20:
                _, at = self._integer(data, at, 5)  # a table size update
                continue
            indexing = bool(byte & 0x40)
            index, at = self._integer(data, at, 6 if indexing else 4)
            if index:
                name = self._entry(index)[0]
            else:
                name, at = self._string(data, at)
            value, at = self._string(data, at)
            fields.append((name, value))
            if indexing:
                self.dynamic.insert(0, (name, value))
        return fields


@dataclass
class Outcome:
    """How the server ended the stream: its trailers (with grpc-status), or an RST_STREAM code."""

    headers: list[tuple[str, str]] = field(default_factory=list)
    reset: int | None = None

    def get(self, name: str) -> str | None:
        return next((value for key, value in reversed(self.headers) if key == name), None)

    @property
    def status(self) -> int | None:
        found = self.get("grpc-status")
        return int(found) if found is not None else None


async def call(address: str, path: str, metadata: dict[str, str], data: bytes, timeout: float = 5.0) -> Outcome:
    """Open a stream on `path`, send `data` as its body and end the stream; how the server ended it."""
    host, port = address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        headers = {":method": "POST", ":scheme": "http", ":path": path, ":authority": address,
                   "content-type": "application/grpc", "te": "trailers", **metadata}  # fmt: skip
        block = b"".join(_literal(name, value) for name, value in headers.items())
        writer.write(PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, END_HEADERS, STREAM, block))
        writer.write(frame(DATA, END_STREAM, STREAM, data))
        await writer.drain()
        return await asyncio.wait_for(_outcome(reader, writer), timeout)
    finally:
        writer.close()


async def _outcome(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Outcome:
    hpack = Hpack()
    outcome = Outcome()
    block = b""
    ended = False
    while True:
        head = await reader.readexactly(9)
        length = int.from_bytes(head[:3], "big")
        kind, flags, stream = head[3], head[4], int.from_bytes(head[5:9], "big") & 0x7FFFFFFF
        payload = await reader.readexactly(length)
        if kind == SETTINGS and not flags & ACK:
            writer.write(frame(SETTINGS, ACK, 0))
        elif kind == PING and not flags & ACK:
            writer.write(frame(PING, ACK, 0, payload))
        elif kind == GOAWAY:
            raise ConnectionError(f"GOAWAY {payload.hex()}")
        elif stream == STREAM and kind == RST_STREAM:
            outcome.reset = int.from_bytes(payload, "big")
            return outcome
        elif stream == STREAM and kind in (HEADERS, CONTINUATION):
            if kind == HEADERS:
                if flags & PADDED:
                    payload = payload[1 : len(payload) - payload[0]]
                if flags & PRIORITY:
                    payload = payload[5:]
                ended = bool(flags & END_STREAM)
            block += payload
            if flags & END_HEADERS:
                outcome.headers += hpack.decode(block)
                block = b""
                if ended:
                    return outcome
        elif stream == STREAM and kind == DATA and flags & END_STREAM:
            return outcome
