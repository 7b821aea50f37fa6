"""An owner's self-service over HTTP against a real arena (real Redis, gRPC and the web UI on loopback):
signing in and out, what the cookie and Redis hold, CSRF and origin checks on every change, wrong
tokens slowed as the gRPC edge slows them, another owner's bot left alone, uploads bounded as they
stream, and a challenge whose match is played."""

from __future__ import annotations

import hashlib
import http.client
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis

from arena.hosted.unpacker import MAX_BYTES
from arena.node.clients import PeerLimits
from arena.node.work import WorkConfig
from arena.store import keys
from arena.store.web_sessions import SESSION_SECONDS
from tests.server.conftest import RandomBot
from tests.web.conftest import WebArena, arena_in_thread

PEERS = PeerLimits(wrong_tokens=3, wrong_token_seconds=1.0)
"""Few wrong tokens before the slow-down, and a short one, so that the test that passes them waits little."""
CHANGES = [
    ("/api/session/end", {}),
    ("/api/me/bots", {"name": "sneaky", "games": ["friday13"]}),
    ("/api/me/bots/ann-bot/token", {}),
    ("/api/me/bots/ann-bot/versions?run=python+bot.py&game=friday13", b"not a package"),
    ("/api/me/challenges", {"bot": "ann-bot", "opponents": ["builtin:random"]}),
]
"""Every POST a signed-in owner may send, with a body that would change something if it were let through."""


@dataclass
class SelfServe:
    web: WebArena
    tokens: dict[str, str] = field(default_factory=dict)
    """Owner and bot name -> its token."""


@pytest.fixture(scope="module")
def served(redis_server: str) -> Iterator[SelfServe]:
    found = SelfServe(None)  # type: ignore[arg-type]

    async def setup(web: WebArena) -> None:
        arena = web.arena
        for owner in ("ann", "ben"):
            found.tokens[owner] = await arena.owner(owner)
        found.tokens["ann-bot"] = await arena.bot(found.tokens["ann"], "ann-bot", ("friday13",))
        found.tokens["ben-bot"] = await arena.bot(found.tokens["ben"], "ben-bot", ("friday13",))
        await arena.connect(RandomBot, found.tokens["ann-bot"])

    with arena_in_thread(redis_server, WorkConfig(claim_idle=1.0), setup, "selfserve-arena", peers=PEERS) as web:
        found.web = web
        yield found


@pytest.fixture
def plain(redis_server: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server)
    yield client
    client.close()


@dataclass
class Answer:
    status: int
    body: Any
    headers: http.client.HTTPMessage


class Browser:
    """What a browser of this arena sends: its cookie, and (when told) the CSRF token and an Origin."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.origin = f"http://{self.host}:{self.port}"
        self.cookie = ""
        self.csrf = ""

    def request(
        self, method: str, path: str, body: Any = None, *, csrf: str | None = None, origin: str | None = None
    ) -> Answer:
        headers = {"Accept": "application/json", "Origin": origin or self.origin}
        if self.cookie:
            headers["Cookie"] = f"arena_session={self.cookie}"
        if csrf is not None:
            headers["X-CSRF-Token"] = csrf
        data = None
        if isinstance(body, bytes):
            data = body
            headers["Content-Type"] = "application/gzip"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            connection.request(method, path, data, headers)
            response = connection.getresponse()
            raw = response.read()
            return Answer(response.status, json.loads(raw) if raw else None, response.headers)
        finally:
            connection.close()

    def sign_in(self, token: str) -> Answer:
        answer = self.request("POST", "/api/session", {"token": token})
        if answer.status == 200:
            cookie = SimpleCookie(answer.headers["set-cookie"])
            self.cookie = cookie["arena_session"].value
            self.csrf = answer.body["csrf"]
        return answer

    def post(self, path: str, body: Any = None) -> Answer:
        return self.request("POST", path, {} if body is None else body, csrf=self.csrf)


def signed_in(served: SelfServe, owner: str = "ann") -> Browser:
    """A browser signed in as `owner`, once the wrong tokens an earlier test sent are forgiven."""
    browser = Browser(served.web.url)
    deadline = time.monotonic() + PEERS.wrong_tokens * PEERS.wrong_token_seconds + 5
    while (answer := browser.sign_in(served.tokens[owner])).status == 429 and time.monotonic() < deadline:
        time.sleep(PEERS.wrong_token_seconds / 5)
    assert answer.status == 200, answer.body
    return browser


def principal(served: SelfServe, token: str) -> Any:
    return served.web.run(lambda: served.web.arena.server.store.authenticate(token))


def test_signing_in_sets_an_httponly_strict_cookie_and_keeps_no_token_readable(
    served: SelfServe, plain: redis.Redis
) -> None:
    browser = Browser(served.web.url)
    answer = browser.sign_in(served.tokens["ann"])
    assert answer.status == 200 and answer.body["owner"] == "ann"
    cookie = answer.headers["set-cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert {"httponly", "path", "max-age"} <= attributes and "secure" not in attributes  # plain HTTP here
    assert "samesite=strict" in cookie.lower()
    assert served.tokens["ann"] not in cookie and browser.cookie not in answer.body["csrf"]
    # Redis holds the session under the id's hash, with an expiry, and nothing that reads as the token.
    key = keys.web_session(hashlib.sha256(browser.cookie.encode()).hexdigest())
    held = plain.hgetall(key)
    assert held[b"owner"] == b"ann"
    assert 0 < plain.ttl(key) <= SESSION_SECONDS
    secret = served.tokens["ann"].encode()
    assert all(secret not in value and browser.cookie.encode() not in value for value in held.values())
    assert not any(browser.cookie in str(name) for name in plain.keys("arena:web-session:*"))

    seen = browser.request("GET", "/api/session")
    assert seen.body["owner"] == "ann" and seen.body["csrf"] == browser.csrf
    assert seen.headers["cache-control"] == "no-store" and answer.headers["cache-control"] == "no-store"
    deadline = time.monotonic() + 10  # the nodes' presence in Redis is written a moment after a bot connects
    while not (mine := browser.request("GET", "/api/me/bots")).body["bots"][0]["connected"]:
        assert time.monotonic() < deadline, mine.body
        time.sleep(0.05)
    assert [(bot["name"], bot["kind"], bot["connected"]) for bot in mine.body["bots"]] == [("ann-bot", "remote", True)]

    out = browser.post("/api/session/end")
    assert out.status == 200 and "arena_session=" in out.headers["set-cookie"]
    assert not plain.exists(key)
    assert browser.request("GET", "/api/session").body["owner"] is None
    gone = browser.request("GET", "/api/me/bots")
    assert gone.status == 401 and gone.body["detail"] == "sign in first (your session ended, or expired)"


def test_a_wrong_token_is_refused_in_one_line_and_slowed_as_the_grpc_api_slows_them(served: SelfServe) -> None:
    browser = Browser(served.web.url)
    for token in ["ato_not-a-token"] * PEERS.wrong_tokens:
        answer = browser.sign_in(token)
        assert (answer.status, answer.body) == (
            401,
            {"detail": "the token is not valid (rotated, or mistyped)", "field": "token"},
        )
    slowed = browser.sign_in(served.tokens["ann"])  # even the right one waits its turn
    assert slowed.status == 429
    assert slowed.body["detail"].startswith("too many wrong tokens from this address; wait 1 s")
    bot_token = browser.request("POST", "/api/session", {"token": ""})
    assert bot_token.status in (422, 429)
    signed_in(served)  # once the address has waited its turn
    refused = Browser(served.web.url).sign_in(served.tokens["ann-bot"])
    assert (refused.status, refused.body["detail"]) == (403, "sign in with an owner token (ato_...), not a bot token")


def test_every_change_without_the_sessions_csrf_token_or_from_another_site_is_refused(
    served: SelfServe, plain: redis.Redis
) -> None:
    browser = signed_in(served)
    for path, body in CHANGES:
        missing = browser.request("POST", path, body)
        assert missing.status == 403, path
        assert missing.body["detail"] == "the request carries no CSRF token (X-CSRF-Token): reload the page and retry"
        other = browser.request("POST", path, body, csrf=browser.csrf, origin="http://evil.example")
        assert other.status == 403, path
        assert other.body["detail"].startswith("a change sent from another site (http://evil.example) is refused")
        anonymous = Browser(served.web.url).request("POST", path, body, csrf=browser.csrf)
        assert anonymous.status == 401, path
    # A wrong CSRF token is refused too, and counts as a wrong token.
    wrong = browser.request("POST", "/api/me/challenges", CHANGES[-1][1], csrf="0" * 64)
    assert (wrong.status, wrong.body["detail"]) == (
        403,
        "the CSRF token is not this session's: reload the page and retry",
    )
    # Nothing happened: the session lives, no bot was registered, the token still works, no match was made.
    assert browser.request("GET", "/api/session").body["owner"] == "ann"
    assert not plain.exists(keys.bot("sneaky"))
    assert principal(served, served.tokens["ann-bot"]) is not None
    assert not plain.exists(keys.hosted("ann-bot"))
    assert plain.zcard(keys.challenges_hour("ann")) == 0


def test_another_owners_bot_cannot_be_rotated_or_uploaded_to(served: SelfServe, plain: redis.Redis) -> None:
    browser = signed_in(served, "ann")
    rotated = browser.post("/api/me/bots/ben-bot/token")
    assert (rotated.status, rotated.body["detail"]) == (403, "bot 'ben-bot' belongs to another owner")
    assert principal(served, served.tokens["ben-bot"]) is not None
    uploaded = browser.request(
        "POST",
        "/api/me/bots/ben-bot/versions?run=python+bot.py&game=friday13",
        b"\x1f\x8b" + bytes(100),
        csrf=browser.csrf,
    )
    assert (uploaded.status, uploaded.body["detail"]) == (403, "bot 'ben-bot' belongs to another owner")
    assert not plain.exists(keys.hosted("ben-bot"))
    logs = browser.request("GET", "/api/me/bots")
    assert [bot["name"] for bot in logs.body["bots"]] == ["ann-bot"]


def test_registering_and_rotating_show_the_token_once_with_the_command_that_connects_it(served: SelfServe) -> None:
    browser = signed_in(served, "ben")
    bad = browser.post("/api/me/bots", {"name": "no spaces", "games": ["friday13"]})
    assert (bad.status, bad.body) == (
        422,
        {"detail": "a bot name is 1-40 letters, digits, '-', '_' or '.'", "field": "name"},
    )
    taken = browser.post("/api/me/bots", {"name": "ann-bot", "games": ["friday13"]})
    assert (taken.status, taken.body["field"]) == (409, "name")
    made = browser.post("/api/me/bots", {"name": "ben-two", "games": ["friday13", "board13"], "language": "python"})
    assert made.status == 200, made.body
    token = made.body["token"]
    assert principal(served, token).name == "ben-two"
    port = served.web.arena.server.port
    assert (
        made.body["command"] == f"python sample_bots/python/heuristic_bot.py --server 127.0.0.1:{port} --token {token}"
    )
    rotated = browser.post("/api/me/bots/ben-two/token")
    assert rotated.status == 200
    assert principal(served, token) is None
    assert principal(served, rotated.body["token"]).name == "ben-two"


def test_a_too_large_upload_is_refused_before_it_is_read_whole(served: SelfServe) -> None:
    browser = signed_in(served)
    path = "/api/me/bots/ann-bot/versions?run=python+bot.py&game=friday13"
    headers = {
        "Cookie": f"arena_session={browser.cookie}",
        "X-CSRF-Token": browser.csrf,
        "Content-Type": "application/gzip",
    }
    # Declared too large: refused with nothing of the body sent.
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=30)
    connection.putrequest("POST", path)
    for name, value in {**headers, "Content-Length": str(MAX_BYTES + 1)}.items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413
    assert json.loads(response.read())["detail"] == (
        "the package is 20,000,001 bytes, over the limit of 20.0 MB: leave out what the bot does not need"
    )
    connection.close()
    # Sent in chunks without a length: refused once it passes the limit, its end never sent.
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=30)
    connection.putrequest("POST", path)
    for name, value in {**headers, "Transfer-Encoding": "chunked"}.items():
        connection.putheader(name, value)
    connection.endheaders()
    piece = bytes(1 << 20)
    chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    for _ in range(MAX_BYTES // len(piece) + 1):
        connection.send(chunk)
    response = connection.getresponse()  # no final chunk: the server answered without the body's end
    assert response.status == 413
    assert json.loads(response.read())["detail"] == (
        "the package is over the limit of 20.0 MB: leave out what the bot does not need"
    )
    connection.close()
    assert principal(served, served.tokens["ann"]) is not None


def test_a_challenge_makes_a_match_refusals_are_one_line(served: SelfServe) -> None:
    browser = signed_in(served)
    refused = browser.post(
        "/api/me/challenges", {"bot": "ann-bot", "opponents": ["ben-bot", "builtin:random"], "game": "friday13"}
    )
    assert refused.status == 403
    assert "\n" not in refused.body["detail"] and "ben-bot" in refused.body["detail"]
    none = browser.post("/api/me/challenges", {"bot": "ann-bot", "opponents": []})
    assert (none.status, none.body) == (422, {"detail": "choose at least one opponent", "field": "opponents"})
    seats = ["ann-bot", "builtin:random", "builtin:heuristic"]
    made = browser.post("/api/me/challenges", {"bot": "ann-bot", "opponents": seats[1:], "game": "friday13"})
    assert made.status == 200, made.body
    assert made.body["seats"] == seats and made.body["game"] == "friday13"
    summary, _ = served.web.run(lambda: served.web.arena.finished(made.body["match_id"]))
    assert list(summary.seats) == seats
