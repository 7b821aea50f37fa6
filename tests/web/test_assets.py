"""The web UI's own files, as a browser gets them from a real server: compressed where that helps, tagged
so that a kept copy is checked rather than sent again, and nothing outside the static folder."""

from __future__ import annotations

import gzip
import json

import pytest

from arena.web.app import STATIC
from tests.web.conftest import WebArena
from tests.web.test_web_process import get


@pytest.mark.parametrize("name", sorted(path.name for path in STATIC.iterdir()))
def test_each_file_is_sent_as_it_is_on_disk_plain_or_gzipped(web_arena: WebArena, name: str) -> None:
    on_disk = (STATIC / name).read_bytes()
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
    assert get(web_arena.url, "/")[2] == (STATIC / "index.html").read_bytes()


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
