"""Live pages pushed by Server-Sent Events against a real arena: the stream carries only the public
view (never a hand, the dummy or the seed), the page falls back to polling when the stream is cut,
the live move is drawn with cards, and a match shows the same on the web of a node that does not run
it (rebuilt from the events in Redis)."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import re
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from arena.match import Clock
from arena.node.work import WorkConfig
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RawBot, bearer, start_arena
from tests.web.conftest import TOURNAMENT, WebArena
from tests.web.test_pages import DESKTOP, page, visit

__all__ = ["page"]
"""The browser tests' page fixture, used here as it is."""
HELD = itertools.count(1)


class EventStream:
    """A Server-Sent Events response read event by event over a real HTTP connection."""

    def __init__(self, url: str, path: str) -> None:
        where = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=15)
        self.connection.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        self.raw = ""

    def next(self) -> tuple[str, Any]:
        """The next event's name and its data (heartbeat comments are skipped)."""
        name, data = "", ""
        while True:
            line = self.response.readline().decode()
            assert line, "the stream closed"
            self.raw += line
            if line.startswith("event: "):
                name = line.removeprefix("event: ").strip()
            elif line.startswith("data: "):
                data = line.removeprefix("data: ").strip()
            elif line == "\n" and name:
                return name, json.loads(data)

    def close(self) -> None:
        self.connection.close()


async def hold_live_match(arena: Arena, owner: str) -> tuple[str, RawBot]:
    """A friday13 match waiting on a bot answering by hand (owner `owner`'s), live until the test lets it go."""
    bot = RawBot(arena, await arena.bot(await arena.owner(owner), f"{owner}-bot", ("friday13",)))
    await bot.connect()
    seats = [f"{owner}-bot", "builtin:random", "builtin:heuristic"]
    return await arena.create_match("friday13", seats, seed="5eed", clock=Clock(60, 120)), bot


def hand_sizes(event: Any) -> list[int]:
    sizes: list[int] = event["live"]["view"]["hand_sizes"]
    return sizes


def test_a_match_stream_sends_each_move_public_only_then_ends(web_arena: WebArena) -> None:
    match_id, bot = web_arena.run(lambda: hold_live_match(web_arena.arena, "streamed"))
    stream = EventStream(web_arena.url, f"/api/matches/{match_id}/stream")
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
        request = web_arena.run(lambda: bot.expect("action_request")).action_request
        name, first = stream.next()
        assert name == "update" and first["match"]["running"]
        before = hand_sizes(first)
        web_arena.run(lambda: bot.act(match_id, request.request_id, request.legal_actions[0].id))
        name, moved = stream.next()
        while hand_sizes(moved)[0] == before[0]:
            name, moved = stream.next()
        assert name == "update" and hand_sizes(moved)[0] == before[0] - 1
        web_arena.run(lambda: bot.play_on(match_id))
        while name != "end":
            name, last = stream.next()
        assert not last["match"]["running"] and "replay" not in last
    finally:
        stream.close()
        web_arena.run(bot.close)
    record = web_arena.replay(match_id)
    # Nothing hidden while the match ran went out: no hand, no dummy, no seed, in any event.
    for hidden in ('"hands"', '"hand"', '"dummy"', '"draw_pile"', '"seed"'):
        assert hidden not in stream.raw
    for round_ in record["rounds"]:
        for hand in round_["hands"]:
            assert json.dumps(hand, separators=(",", ":")) not in stream.raw
        assert json.dumps(round_["dummy"], separators=(",", ":")) not in stream.raw


def test_the_stream_of_a_finished_tournament_or_match_ends_at_once(web_arena: WebArena) -> None:
    _, cup = web_arena.get(f"/api/tournaments/{TOURNAMENT}")
    stream = EventStream(web_arena.url, f"/api/tournaments/{TOURNAMENT}/stream")
    try:
        name, shown = stream.next()
        assert name == "end" and shown["finished_ms"] == cup["finished_ms"] and shown["playing"] == []
        assert shown["standings"] == cup["standings"]
        assert stream.response.read() == b"", "the stream closes after its end"
    finally:
        stream.close()
    stream = EventStream(web_arena.url, f"/api/matches/{web_arena.matches['friday13']}/stream")
    try:
        name, shown = stream.next()
        assert name == "end" and shown["match"]["winners"] and "replay" not in shown
    finally:
        stream.close()


@pytest.mark.parametrize("path", ["/api/matches/nope/stream", "/api/tournaments/nope/stream"])
def test_a_stream_of_nothing_is_a_404_with_a_one_line_detail(web_arena: WebArena, path: str) -> None:
    status, body = web_arena.get(path)
    assert status == 404 and "\n" not in body["detail"] and "nope" in body["detail"]


@pytest.fixture
def held(web_arena: WebArena) -> Iterator[tuple[str, RawBot, Any]]:
    """A live friday13 match waiting on a bot played by hand, and the bot's first request."""
    owner = f"held-{next(HELD)}"
    match_id, bot = web_arena.run(lambda: hold_live_match(web_arena.arena, owner))
    asked = web_arena.run(lambda: bot.expect("action_request")).action_request
    try:
        yield match_id, bot, asked
    finally:
        web_arena.run(lambda: bot.play_on(match_id))
        web_arena.run(bot.close)


def test_the_live_page_follows_the_stream_and_draws_the_move_with_cards(
    web_arena: WebArena, page: Page, held: tuple[str, RawBot, Any]
) -> None:
    match_id, bot, request = held
    polled: list[str] = []
    page.on("request", lambda r: polled.append(r.url) if r.url.endswith(f"/api/matches/{match_id}") else None)
    visit(page, web_arena, f"matches/{match_id}")
    expect(page.locator("main")).to_have_attribute("data-transport", "stream")
    hand = page.locator(".seat[data-seat='0'] .label").first
    cards = int((hand.text_content() or "").split()[1])
    loaded = len(polled)
    web_arena.run(lambda: bot.act(match_id, request.request_id, request.legal_actions[0].id))
    expect(hand).to_have_text(f"Hand: {cards - 1} cards (hidden)", timeout=5000)
    assert len(polled) == loaded, "the move came by the stream, not by polling"
    played = page.locator("#move-text .card")
    expect(played.first).to_be_visible()
    # Cards drawn as cards, not written as `ladder:4`.
    expect(page.locator("#move-text")).not_to_have_text(re.compile(r"[a-z]+:\d"))
    expect(page.locator("#move-text")).to_have_text(
        re.compile(r"^Seat \d \(.+\) played \S+ on the \w+ pile: total \d+\.")
    )


def test_the_live_page_polls_when_the_stream_is_cut(
    web_arena: WebArena, browser: Browser, held: tuple[str, RawBot, Any]
) -> None:
    match_id, bot, request = held
    # Its own page: the cut connection is logged as a console error, which the shared fixture refuses.
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route("**/stream", lambda route: route.abort("connectionreset"))
    try:
        visit(page, web_arena, f"matches/{match_id}")
        expect(page.locator("main")).to_have_attribute("data-transport", "poll")
        hand = page.locator(".seat[data-seat='0'] .label").first
        cards = int((hand.text_content() or "").split()[1])
        web_arena.run(lambda: bot.act(match_id, request.request_id, request.legal_actions[0].id))
        expect(hand).to_have_text(f"Hand: {cards - 1} cards (hidden)", timeout=5000)
        expect(page.locator(".live-badge")).to_be_visible()
    finally:
        context.close()
    assert errors == []


@contextlib.contextmanager
def second_node(web: WebArena, redis_server: str) -> Iterator[str]:
    """A second arena node on the same Redis, with its own web UI: its URL."""
    stack = contextlib.AsyncExitStack()

    async def start() -> str:
        other = await stack.enter_async_context(start_arena(redis_server, http_port=0, work=WorkConfig(claim_idle=1.0)))
        assert other.server.web is not None
        return other.server.web.url

    try:
        yield web.run(start)
    finally:
        web.run(stack.aclose)


async def hold_tournament_match(arena: Arena, owner: str) -> tuple[str, str, RawBot]:
    """A one-match tournament (a work-stream match, which any node may run) waiting on a bot played
    by hand: the tournament's name, the match id and the bot."""
    bot = RawBot(arena, await arena.bot(await arena.owner(owner), f"{owner}-bot", ("friday13",)))
    await bot.connect(games=("friday13",))
    spec = api_pb.TournamentSpec(
        name=f"{owner}-cup",
        game=pb.GameSpec(game="friday13"),
        entrants=[f"{owner}-bot", "builtin:random", "builtin:heuristic"],
        table_size=3,
        rounds=1,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        seed=owner,
    )
    await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec), metadata=bearer(ADMIN))
    return spec.name, f"{spec.name}-0", bot


def test_a_match_looks_the_same_on_every_nodes_web_and_its_tournament_links_it(
    web_arena: WebArena, redis_server: str, page: Page
) -> None:
    name, match_id, bot = web_arena.run(lambda: hold_tournament_match(web_arena.arena, "two-nodes"))
    try:
        request = web_arena.run(lambda: bot.expect("action_request", timeout=30)).action_request
        assert request.match_id == match_id
        visit(page, web_arena, f"tournaments/{name}")
        expect(page.locator("main")).to_have_attribute("data-transport", "stream")
        expect(page.locator("#playing a")).to_have_attribute("href", f"#/matches/{match_id}")
        # The match runs on the first node; a node started now has only Redis to show it from.
        with second_node(web_arena, redis_server) as elsewhere:
            other = page.context.new_page()
            views = []
            for shown, url in ((page, web_arena.url), (other, elsewhere)):
                shown.goto(f"{url}#/matches/{match_id}")
                expect(shown.locator(".live-badge").first).to_be_visible()
                views.append(shown.locator(".seat[data-seat='0'] .label").first)
            expect(views[1]).to_have_text(views[0].text_content() or "")
            cards = int((views[0].text_content() or "").split()[1])
            web_arena.run(lambda: bot.act(match_id, request.request_id, request.legal_actions[0].id))
            for view in views:
                expect(view).to_have_text(f"Hand: {cards - 1} cards (hidden)", timeout=5000)
            expect(other.locator("#move-text .card").first).to_be_visible()
            other.close()
    finally:
        web_arena.run(lambda: bot.play_on(match_id))
        web_arena.run(bot.close)
    # The finished tournament ends its stream: the page shows it finished, with no match being played.
    expect(page.locator("#playing")).to_have_count(0, timeout=10000)
