"""The package reader: a hosted bot's .tar.gz, checked member by member before a byte is written.

The node never parses an upload itself. This module runs as a script of its own, inside the
launch's sandbox under the launch's unprivileged uid (or, on a node started with
`--unsafe-no-sandbox`, as a plain child process): it reads the compressed package on its stdin
and either only checks it (`--check`, at submit) or writes it into its working directory (the
sandbox's /bot, a size- and inode-limited tmpfs) and then becomes the bot (`-- ARGV...`).

It is written for hostile input, so it takes nothing from `tarfile` (whose filters have had
bypasses: symlink chains longer than PATH_MAX, CVE-2025-4517): gzip is inflated by zlib a
bounded piece at a time, tar headers are read 512 bytes at a time, and a pax header is read
only when small and only for the keys a package needs. Memory stays bounded (a few MB) and so
does the work: the limits below stop the read at the first member past them, whatever the
archive claims. Only regular files and folders are written, with their modes reduced to 0644 or
0755; every name is checked whole before anything of it is made.

It imports nothing but the standard library and runs with `python -I -S`, so that it starts in
milliseconds and reads no file of the bot's before it has checked the package.
"""

from __future__ import annotations

import os
import resource
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

MAX_BYTES = 20 * 1000 * 1000
"""The most a bot's files may hold, unpacked (20 MB); the package itself is smaller."""
MAX_MEMBERS = 2000
"""The most files and folders a package may make, the folders its paths imply included."""
MAX_NAME = 255
"""The longest name of one file or folder, in bytes (Linux's NAME_MAX)."""
MAX_PATH = 1024
"""The longest path of a member, in bytes."""
MAX_PAX = 4096
"""The largest pax extended header read; a package's own (a long path) needs a little over 1 KB."""
PAX_USED = frozenset({"path", "size"})
"""The pax keys a package's members may set."""
PAX_IGNORED = frozenset({"mtime", "atime", "ctime", "uid", "gid", "uname", "gname"})
"""Pax keys other packers write that say nothing the unpacked files keep (times and owners are not kept)."""
BLOCK = 512
STEP = 1 << 16
"""The most bytes read or inflated at once."""
SHOWN = 80
"""The most characters of a member's name a refusal shows."""
REFUSED = 65
"""The exit code of a refused package (EX_DATAERR)."""
TYPES = {
    b"1": "a hard link", b"2": "a symbolic link", b"3": "a character device", b"4": "a block device",
    b"6": "a fifo", b"7": "a contiguous file", b"g": "a global pax header", b"L": "a GNU long name",
    b"K": "a GNU long link name", b"S": "a GNU sparse file", b"D": "a GNU folder dump", b"M": "a GNU multi-volume part",
    b"N": "a GNU old long name", b"V": "a GNU volume header",
}  # fmt: skip
"""What each refused tar type is, for the refusal's words."""


class Refused(ValueError):
    """A package that is not unpacked; the message (one line) says which member and why."""


@dataclass(frozen=True)
class Summary:
    """What a package holds."""

    files: int
    folders: int
    bytes: int


def shown(name: str) -> str:
    """A member's name for a one-line message: quoted, cut short."""
    return repr(name[:SHOWN] + "…" if len(name) > SHOWN else name)


class Inflated:
    """The decompressed bytes of a gzip stream (several members in a row are one stream), taken in bounded pieces."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self._read = read
        self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._input = b""
        self._buffer = bytearray()
        self._at = 0
        """Where the bytes not taken yet start in `_buffer`."""

    def take(self, size: int) -> bytes:
        """Exactly `size` more bytes (EOFError when the stream ends first); `size` is small, so is the buffer."""
        while len(self._buffer) - self._at < size:
            if self._at:
                del self._buffer[: self._at]
                self._at = 0
            if self._inflate.eof:
                self._input = self._inflate.unused_data or self._read(STEP)
                if not self._input:
                    raise EOFError
                self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            if not self._input:
                self._input = self._read(STEP)
                if not self._input:
                    raise EOFError
            self._buffer += self._inflate.decompress(self._input, STEP)
            self._input = self._inflate.unconsumed_tail
        taken = bytes(self._buffer[self._at : self._at + size])
        self._at += size
        return taken

    def pieces(self, size: int) -> Iterator[bytes]:
        """`size` more bytes as pieces of at most STEP bytes."""
        while size > 0:
            piece = self.take(min(size, STEP))
            size -= len(piece)
            yield piece


@dataclass(frozen=True)
class Member:
    number: int
    path: str
    """Relative, normalised (no '.' parts, no trailing slash)."""
    folder: bool
    size: int
    executable: bool


def _octal(field: bytes, what: str, number: int) -> int:
    text = field.rstrip(b"\0 ").lstrip(b" ")
    if text[:1] and text[0] & 0x80:
        raise Refused(f"member {number} has a binary {what} field: a package's numbers fit the plain tar fields")
    try:
        return int(text or b"0", 8)
    except ValueError:
        raise Refused(f"the package is not a readable .tar.gz (member {number} has a bad {what} field)") from None


def _checksum_ok(header: bytes) -> bool:
    """The header's checksum, as POSIX sums it (unsigned bytes) or as some old tars did (signed)."""
    stored = _octal(header[148:156], "checksum", 0)
    blank = header[:148] + b" " * 8 + header[156:]
    unsigned = sum(blank)
    return stored == unsigned or stored == unsigned - 256 * sum(byte > 127 for byte in blank)


def _pax(data: bytes, number: int) -> dict[str, bytes]:
    """The records `LEN KEY=VALUE\\n` of a pax header."""
    records: dict[str, bytes] = {}
    at = 0
    while at < len(data) and data[at] != 0:
        space = data.find(b" ", at)
        try:
            length = int(data[at:space]) if space > at else 0
        except ValueError:
            length = 0
        record = data[at : at + length]
        if length <= 0 or space < 0 or len(record) != length or not record.endswith(b"\n") or b"=" not in record:
            raise Refused(f"the package is not a readable .tar.gz (member {number} has a malformed pax header)")
        key_bytes, value = record[space - at + 1 : -1].split(b"=", 1)
        records[key_bytes.decode("utf-8", "replace")] = value
        at += length
    return records


def _name(raw: bytes, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"member {number} has a name that is not UTF-8") from None


def _path(name: str, number: int) -> str:
    """`name` made relative and normal ("" for the bot's folder itself, as `./`), or Refused for one that could
    leave the package or trouble whoever reads it."""
    if not name:
        raise Refused(f"member {number} has an empty name")
    if name.startswith("/"):
        raise Refused(f"the package member {shown(name)} has an absolute path: names are relative to the bot's folder")
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in name):
        raise Refused(f"the package member {shown(name)} has a control character in its name")
    encoded = len(name.encode())
    if encoded > MAX_PATH:
        raise Refused(f"the package member {shown(name)} has a path of {encoded:,} bytes; the most is {MAX_PATH:,}")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise Refused(f"the package member {shown(name)} has '..' in its path")
    for part in parts:
        if len(part.encode()) > MAX_NAME:
            raise Refused(f"the package member {shown(name)} has a name part of over {MAX_NAME} bytes")
    return "/".join(parts)


def members(stream: Inflated) -> Iterator[Member]:
    """The package's members in order, each checked; the caller takes each file's data (`size` bytes, then padding)."""
    number = 0
    pax: dict[str, bytes] | None = None
    """The pax header read for the member that comes next, if any."""
    while True:
        header = stream.take(BLOCK)
        if header == bytes(BLOCK):
            if pax is not None:
                raise Refused("the package ends with a pax header that belongs to no member")
            return
        if pax is None:
            number += 1
            if number > MAX_MEMBERS:  # repeated folders make nothing new, but they are read too
                raise Refused(f"the package holds more than {MAX_MEMBERS:,} members")
        if not _checksum_ok(header):
            raise Refused(f"the package is not a readable .tar.gz (member {number} has a bad header checksum)")
        if header[257:263] not in (b"ustar\0", b"ustar "):
            raise Refused(f"the package is not a readable .tar.gz (member {number} is not a ustar header)")
        kind = header[156:157]
        size = _octal(header[124:136], "size", number)
        if kind in (b"x", b"X"):
            if pax is not None:
                raise Refused(f"member {number} has two pax headers")
            if size > MAX_PAX:
                raise Refused(f"member {number} has a pax header of {size:,} bytes; the most read is {MAX_PAX:,}")
            pax = _pax(b"".join(stream.pieces(size)), number)
            stream.take(-size % BLOCK)
            continue
        name = _name(header[:100].split(b"\0", 1)[0], number)
        prefix = _name(header[345:500].split(b"\0", 1)[0], number)
        if prefix:
            name = f"{prefix}/{name}"
        records, pax = pax or {}, None
        if "path" in records:
            name = _name(records["path"], number)
        if "size" in records:
            try:
                size = int(records["size"])
            except ValueError:
                raise Refused(f"the package member {shown(name)} has a bad pax size") from None
        if kind not in (b"0", b"\0", b"5"):
            what = TYPES.get(kind, f"of the unknown tar type {kind!r}")
            raise Refused(f"the package member {shown(name)} is {what}: a package holds only files and folders")
        unused = sorted(set(records) - PAX_USED - PAX_IGNORED)
        if unused:
            raise Refused(
                f"the package member {shown(name)} has the pax key {shown(unused[0])}, which a package may not use"
            )
        folder = kind == b"5"
        if size < 0 or (folder and size):
            raise Refused(f"the package member {shown(name)} has a bad size")
        path = _path(name, number)
        if not path and not folder:
            raise Refused(f"member {number} is a file with an empty name")
        mode = _octal(header[100:108], "mode", number)
        yield Member(number, path, folder, size, bool(mode & 0o111))


class Tree:
    """The files and folders made so far (or, checking, that would be): every rule about names in one place."""

    def __init__(self) -> None:
        self.kinds: dict[str, bool] = {"": True}
        """Path -> is a folder; "" is the bot's folder itself."""
        self.files = 0
        self.bytes = 0

    def add(self, member: Member) -> list[str]:
        """Record `member`; returns the folders to make first (its parents not yet made), or Refused."""
        parts = member.path.split("/")
        missing = []
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            kind = self.kinds.get(parent)
            if kind is False:
                raise Refused(f"the package member {shown(member.path)} is inside {shown(parent)}, which is a file")
            if kind is None:
                missing.append(parent)
        existing = self.kinds.get(member.path)
        if existing is not None and not (existing and member.folder):
            raise Refused(f"the package member {shown(member.path)} appears twice")
        if len(self.kinds) - 1 + len(missing) + (existing is None) > MAX_MEMBERS:
            raise Refused(f"the package holds more than {MAX_MEMBERS:,} files and folders")
        if not member.folder:
            if self.bytes + member.size > MAX_BYTES:
                raise Refused(f"the package unpacks to more than {MAX_BYTES / 1e6:.1f} MB, the limit")
            self.bytes += member.size
            self.files += 1
        for parent in missing:
            self.kinds[parent] = True
        self.kinds[member.path] = member.folder
        return missing

    def summary(self) -> Summary:
        return Summary(self.files, sum(self.kinds.values()) - 1, self.bytes)


def unpack(read: Callable[[int], bytes], into: int | None) -> Summary:
    """Read a package from `read` and write it under the folder open as `into` (None: only check it).

    Refused (one line) at the first member that breaks a rule, before any byte of that member is written.
    """
    stream = Inflated(read)
    tree = Tree()
    number = 0
    try:
        for member in members(stream):
            number = member.number
            for folder in tree.add(member):
                _make_folder(folder, into)
            if member.folder:
                if member.path:
                    _make_folder(member.path, into, exist_ok=True)
                continue
            _write(member, stream, into)
    except EOFError:
        raise Refused(f"the package ends in the middle of member {number + 1}: it is cut short") from None
    except zlib.error as error:
        raise Refused(f"the package is not a readable .tar.gz ({error})") from None
    if tree.files == 0:
        raise Refused("the package holds no files: nothing to run")
    return tree.summary()


def _make_folder(path: str, into: int | None, exist_ok: bool = False) -> None:
    if into is None:
        return
    try:
        os.mkdir(path, 0o755, dir_fd=into)
    except FileExistsError:
        if not exist_ok:
            raise
    os.chmod(path, 0o755, dir_fd=into, follow_symlinks=False)


def _write(member: Member, stream: Inflated, into: int | None) -> None:
    if into is None:
        for _ in stream.pieces(member.size):
            pass
    else:
        # O_EXCL and O_NOFOLLOW: nothing that exists is ever followed or overwritten.
        fd = os.open(member.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=into)
        try:
            for piece in stream.pieces(member.size):
                view = memoryview(piece)
                while view:
                    view = view[os.write(fd, view) :]
            os.fchmod(fd, 0o755 if member.executable else 0o644)
        finally:
            os.close(fd)
    stream.take(-member.size % BLOCK)


def _read_stdin(size: int) -> bytes:
    return os.read(0, size)


def main(args: list[str]) -> int:
    """`--check`: check the package on stdin and say what it holds; `[--file-bytes N] -- ARGV...`: unpack it
    into the working directory, then run ARGV with stdin on /dev/null and at most N bytes per file written."""
    check = args[:1] == ["--check"]
    file_bytes = 0
    if args[:1] == ["--file-bytes"]:
        file_bytes, args = int(args[1]), args[2:]
    argv = args[1:] if args[:1] == ["--"] else []
    if not check and not argv:
        print("usage: unpacker.py --check | [--file-bytes N] -- ARGV...", file=sys.stderr)
        return 2
    os.umask(0o022)
    into = None if check else os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        summary = unpack(_read_stdin, into)
    except Refused as refused:
        print(f"the package was refused: {refused}", file=sys.stderr)
        return REFUSED
    except OSError as error:  # the sandbox's disk or inode cap, most likely
        print(f"the package could not be unpacked: {error.strerror or error}", file=sys.stderr)
        return REFUSED
    while _read_stdin(STEP):  # what follows the archive's end (padding): the writer then sees its bytes taken
        pass
    if check:
        print(f"checked: {summary.files} files, {summary.folders} folders, {summary.bytes} bytes", file=sys.stderr)
        return 0
    if into is not None:
        os.close(into)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if file_bytes:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"cannot start {argv[0]!r}: {error.strerror or error}", file=sys.stderr)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
