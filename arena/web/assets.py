"""The web UI's own files (arena/web/static), served from memory: read, compressed and tagged once when
the app is made, then answered without touching the disk.

Starlette's StaticFiles stats and reads each file in a worker thread, and the gzip middleware compresses
it again on every request: 3 to 6 ms of the web process's CPU a file, and two hand-offs between threads,
for the six files of a page's first load. On a machine busy with matches each hand-off waits for a core;
from memory a file costs one write."""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
REVALIDATE = "no-cache"
"""A browser keeps a file but asks each time whether it changed (a 304 if not): the names carry no
version, and an upgraded node serves new files under the same names."""


@dataclass(frozen=True)
class Asset:
    body: bytes
    packed: bytes | None
    """`body` gzip-compressed, where that is worth sending."""
    media_type: str
    etag: str


def _asset(path: Path, gzip_minimum: int, gzip_level: int) -> Asset:
    body = path.read_bytes()
    packed = gzip.compress(body, gzip_level, mtime=0) if len(body) >= gzip_minimum else None
    guessed = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
    return Asset(body, packed if packed and len(packed) < len(body) else None, TYPES.get(path.suffix, guessed), etag)


class Assets:
    """The files of one folder (not its subfolders), by name."""

    def __init__(self, folder: Path, gzip_minimum: int, gzip_level: int) -> None:
        self.files = {
            path.name: _asset(path, gzip_minimum, gzip_level) for path in sorted(folder.iterdir()) if path.is_file()
        }

    def response(self, name: str, request: Request) -> Response:
        asset = self.files.get(name)
        if asset is None:
            raise HTTPException(404, f"no file {name!r} in the web UI's static files")
        headers = {"ETag": asset.etag, "Cache-Control": REVALIDATE, "Vary": "Accept-Encoding"}
        if asset.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if asset.packed is not None and "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return Response(asset.packed, headers=headers, media_type=asset.media_type)
        return Response(asset.body, headers=headers, media_type=asset.media_type)
