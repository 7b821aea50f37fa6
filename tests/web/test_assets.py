"""The web UI's own files, as a browser gets them from a real server: compressed where that helps, tagged
so that a kept copy is checked rather than sent again, and nothing outside the static folder."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from arena.web.app import STATIC
from arena.web.assets import IMMUTABLE, Assets, version_of
from tests.web.conftest import WebArena
from tests.web.test_web_process import get

VERSION = version_of({path.name: path.read_bytes() for path in STATIC.iterdir() if path.is_file()})


def served(name: str) -> bytes:
    """What the web UI sends for file `name`: as on disk, but the page names the files under their version."""
    body = (STATIC / name).read_bytes()
    return body.replace(b'"/static/', f'"/static/{VERSION}/'.encode()) if name == "index.html" else body


@pytest.mark.parametrize("name", sorted(path.name for path in STATIC.iterdir()))
def test_each_file_is_sent_as_it_is_on_disk_plain_or_gzipped(web_arena: WebArena, name: str) -> None:
    on_disk = served(name)
    status, headers, plain = get(web_arena.url, f"/static/{name}")
    assert status == 200 and plain == on_disk and "content-encoding" not in headers
    assert headers["content-type"].endswith("charset=utf-8")
    status, packed_headers, packed = get(web_arena.url, f"/static/{name}", {"Accept-Encoding": "gzip, deflate"})
    assert status == 200 and packed_headers["vary"] == "Accept-Encoding"
    if packed_headers.get("content-encoding") == "gzip":
        assert gzip.decompress(packed) == on_disk and len(packed) < len(on_disk)
    else:
        assert packed == on_disk and len(on_disk) < 1024, f"{name} should be sent compressed"


def test_the_page_and_its_scripts_have_their_types_and_the_home_page_is_index_html(web_arena: WebArena) -> None:
    types = {
        name: get(web_arena.url, f"/static/{name}")[1]["content-type"] for name in ("app.js", "app.css", "index.html")
    }
    assert types == {
        "app.js": "text/javascript; charset=utf-8",
        "app.css": "text/css; charset=utf-8",
        "index.html": "text/html; charset=utf-8",
    }
    assert get(web_arena.url, "/")[2] == served("index.html")


def test_the_page_names_every_file_under_a_version_kept_for_ever_and_a_change_makes_a_new_version(
    web_arena: WebArena, tmp_path: Path
) -> None:
    page = get(web_arena.url, "/")[2].decode()
    named = set(re.findall(r'"/static/([^"]+)"', page))
    assert named == {f"{VERSION}/{name}" for name in ("app.css", "app.js", "util.js", "replay.js", "account.js")}
    for path in named:
        status, headers, body = get(web_arena.url, f"/static/{path}")
        assert (status, headers["cache-control"], body) == (200, IMMUTABLE, served(path.split("/")[1])), path
    # Under any other version (a page of before an upgrade) a file is still sent, but to be asked for again.
    status, headers, body = get(web_arena.url, "/static/0123456789abcdef/app.js")
    assert (status, headers["cache-control"], body) == (200, "no-cache", served("app.js"))
    assert get(web_arena.url, f"/static/{VERSION}/nope.js")[0] == 404
    # The version follows every file's content, and only that.
    for path in STATIC.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    assert Assets(tmp_path, 1024, 6).version == VERSION
    (tmp_path / "util.js").write_bytes((STATIC / "util.js").read_bytes() + b"\n")
    changed = Assets(tmp_path, 1024, 6)
    assert (
        changed.version != VERSION and f"/static/{changed.version}/app.js".encode() in changed.files["index.html"].body
    )


def test_a_kept_copy_is_revalidated_with_its_tag_and_a_changed_one_is_sent_again(web_arena: WebArena) -> None:
    _, headers, body = get(web_arena.url, "/static/app.js")
    assert headers["cache-control"] == "no-cache" and headers["etag"].startswith('"')
    status, again, empty = get(web_arena.url, "/static/app.js", {"If-None-Match": headers["etag"]})
    assert (status, empty, again["etag"]) == (304, b"", headers["etag"])
    status, _, sent = get(web_arena.url, "/static/app.js", {"If-None-Match": '"an-older-version"'})
    assert (status, sent) == (200, body)
    assert get(web_arena.url, "/static/app.css")[1]["etag"] != headers["etag"]


@pytest.mark.parametrize(
    "path", ["/static/nope.js", "/static/..%2Fapp.py", "/static/%2E%2E/app.py", "/static/../data.py", "/static/"]
)
def test_nothing_but_the_static_files_is_served_and_a_miss_says_so_in_one_line(web_arena: WebArena, path: str) -> None:
    status, _, body = get(web_arena.url, path)
    assert status == 404, (path, status, body[:80])
    assert b"import " not in body and b"def " not in body
    detail = json.loads(body)["detail"]
    assert "\n" not in detail and detail
