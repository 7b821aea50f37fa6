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
"""For the page itself and the files under their bare names (`/static/app.js`): a browser keeps them
but asks each time whether they changed (a 304 if not), since an upgraded node serves new ones there."""
IMMUTABLE = "public, max-age=31536000, immutable"
"""For the files under the folder's version (`/static/VERSION/app.js`), as the page names them: that
address never holds anything else, so a browser that has them asks nothing more for a year. Opening
the web UI again then costs the page and its API calls only, not a request for each script and style."""
STATIC_PATH = b'"/static/'


@dataclass(frozen=True)
class Asset:
    body: bytes
    packed: bytes | None
    """`body` gzip-compressed, where that is worth sending."""
    media_type: str
    etag: str


def _asset(name: str, body: bytes, gzip_minimum: int, gzip_level: int) -> Asset:
    packed = gzip.compress(body, gzip_level, mtime=0) if len(body) >= gzip_minimum else None
    guessed = mimetypes.guess_type(name)[0] or "application/octet-stream"
    etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
    return Asset(
        body, packed if packed and len(packed) < len(body) else None, TYPES.get(Path(name).suffix, guessed), etag
    )


def version_of(bodies: dict[str, bytes]) -> str:
    """A name for these files together: it changes when any of them does."""
    digest = hashlib.blake2b(digest_size=8)
    for name in sorted(bodies):
        digest.update(name.encode() + b"\0" + hashlib.blake2b(bodies[name]).digest())
    return digest.hexdigest()


class Assets:
    """The files of one folder (not its subfolders), by name; `index.html` names the others under
    `/static/VERSION/`, so that scripts it imports by relative names are under the same version too."""

    def __init__(self, folder: Path, gzip_minimum: int, gzip_level: int) -> None:
        bodies = {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}
        self.version = version_of(bodies)
        if "index.html" in bodies:
            bodies["index.html"] = bodies["index.html"].replace(STATIC_PATH, STATIC_PATH + self.version.encode() + b"/")
        self.files = {name: _asset(name, body, gzip_minimum, gzip_level) for name, body in bodies.items()}

    def response(self, name: str, request: Request, version: str | None = None) -> Response:
        """The file `name`; under `version`, the folder's, for ever cacheable (under another, as under none:
        a page of before an upgrade still gets a file, and asks again next time)."""
        asset = self.files.get(name)
        if asset is None:
            raise HTTPException(404, f"no file {name!r} in the web UI's static files")
        cache = IMMUTABLE if version == self.version else REVALIDATE
        headers = {"ETag": asset.etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
        if asset.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if asset.packed is not None and "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return Response(asset.packed, headers=headers, media_type=asset.media_type)
        return Response(asset.body, headers=headers, media_type=asset.media_type)
