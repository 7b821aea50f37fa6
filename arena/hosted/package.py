"""A hosted bot's package: its folder as a gzip-compressed tar, with a size limit and a content hash.

Packing is deterministic (sorted entries, no owners, no times), so the same folder always gives
the same bytes and the same SHA-256. Unpacking re-checks everything, since the bytes come from
the network: only regular files, folders and links that stay inside, no more than the limit.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

from arena.store import StoreError

MAX_BYTES = 20 * 1000 * 1000
"""The most a bot's files may hold, unpacked (20 MB); the package itself is smaller."""
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
    """The folder as a package; PackageError when it is missing, empty or above `limit` bytes."""
    if not folder.is_dir():
        raise PackageError(f"{folder} is not a folder")
    entries = sorted(path for path in _walk(folder))
    files = [path for path in entries if path.is_file() and not path.is_symlink()]
    if not files:
        raise PackageError(f"{folder} holds no files: nothing to run")
    total = sum(path.stat().st_size for path in files)
    if total > limit:
        raise PackageError(f"{folder} holds {megabytes(total)}; a hosted bot may hold at most {megabytes(limit)}")
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for path in entries:
            archive.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False, filter=_plain)
    data = buffer.getvalue()
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


def _plain(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Strip owners and times (so that packing is deterministic); leave out devices and fifos."""
    if not (info.isfile() or info.isdir() or info.issym()):
        return None
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = 0
    return info


def inspect(data: bytes, limit: int = MAX_BYTES) -> Package:
    """Check uploaded bytes without unpacking them: a readable tar.gz of files within `limit`."""
    total, count = 0, 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive:
                if member.isfile():
                    total += member.size
                    count += 1
                elif not (member.isdir() or member.issym()):
                    raise PackageError(f"the package holds {member.name!r}, which is neither a file nor a folder")
                if total > limit:
                    raise PackageError(f"the package unpacks to more than {megabytes(limit)}, the limit")
    except (tarfile.TarError, OSError, EOFError) as error:
        raise PackageError(f"the package is not a readable .tar.gz ({error})") from None
    if count == 0:
        raise PackageError("the package holds no files: nothing to run")
    return Package(data, hashlib.sha256(data).hexdigest(), total, count)


def unpack(data: bytes, target: Path, limit: int = MAX_BYTES) -> None:
    """Unpack checked bytes into the empty folder `target`; links and paths may not leave it."""
    inspect(data, limit)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            archive.extractall(target, filter="data")
    except tarfile.TarError as error:
        raise PackageError(f"the package cannot be unpacked safely: {error}") from None
