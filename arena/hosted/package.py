"""A hosted bot's package: its folder as a gzip-compressed tar, with a size limit and a content hash.

Packing is deterministic (sorted entries, no owners, no times), so the same folder always gives
the same bytes and the same SHA-256. A package holds only files and folders: a link to a file
inside the folder is packed as a copy of that file (npm's `node_modules/.bin` links), any other
link, device or fifo is left out. The packed bytes are checked by the very reader a node uses
(arena/hosted/unpacker.py), so a folder the node would refuse is refused here, with its words.
Nodes never read a package in their own process: they check and unpack it in the sandbox.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

from arena.hosted.unpacker import MAX_BYTES, Refused, unpack
from arena.store import StoreError

SKIPPED = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Folders never packed: caches and version control, not part of what the bot runs."""


class PackageError(StoreError):
    """A folder or package that cannot be a hosted bot; the message says why."""


@dataclass(frozen=True)
class Package:
    """Packed bytes and what identifies them."""

    data: bytes
    sha256: str
    unpacked_bytes: int
    files: int


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def pack(folder: Path, limit: int = MAX_BYTES) -> Package:
    """The folder as a package; PackageError when it is missing, empty, above `limit` bytes or refused by the reader."""
    if not folder.is_dir():
        raise PackageError(f"{folder} is not a folder")
    root = folder.resolve()
    sources = {path: source for path in sorted(_walk(folder)) if (source := _source(root, path)) is not None}
    files = [source for source in sources.values() if source.is_file()]
    if not files:
        raise PackageError(f"{folder} holds no files: nothing to run")
    total = sum(source.stat().st_size for source in files)
    if total > limit:
        raise PackageError(f"{folder} holds {megabytes(total)}; a hosted bot may hold at most {megabytes(limit)}")
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for path, source in sources.items():
            info = _plain(archive.gettarinfo(str(source), arcname=path.relative_to(folder).as_posix()))
            if info.isfile():
                with source.open("rb") as content:
                    archive.addfile(info, content)
            else:
                archive.addfile(info)
    data = buffer.getvalue()
    try:
        unpack(io.BytesIO(data).read, None)
    except Refused as refused:
        raise PackageError(f"{folder} cannot be a hosted bot: {refused}") from None
    return Package(data, hashlib.sha256(data).hexdigest(), total, len(files))


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for path in folder.iterdir():
        if path.name in SKIPPED:
            continue
        found.append(path)
        if path.is_dir() and not path.is_symlink():
            found.extend(_walk(path))
    return found


def _source(root: Path, path: Path) -> Path | None:
    """What `path` is packed from: itself (a file or folder), the file a link inside `root` points to, or nothing."""
    if not path.is_symlink():
        return path if path.is_file() or path.is_dir() else None
    target = path.resolve()
    return target if target.is_file() and target.is_relative_to(root) else None


def _plain(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """Strip owners and times (so that packing is deterministic), and every mode bit but the executable one."""
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 0
    info.mode = 0o755 if info.isdir() or info.mode & 0o111 else 0o644
    return info
