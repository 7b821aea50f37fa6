"""A page's first load asks for what it needs in as few rounds as it can: on a busy machine each round
between the browser and the server costs a wait for the CPU, so the scripts app.js imports are asked
for beside it, and a page's API calls that do not depend on each other go out together."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Request, Route, expect

from arena.web.app import STATIC
from tests.web.conftest import MINUS, WebArena

IMPORT = re.compile(r"""^import\b[^;]*?from\s+"\./([\w.]+)";?""", re.MULTILINE | re.DOTALL)


def imported(script: str) -> set[str]:
    """The modules `script` imports and those they import, by file name."""
    found: set[str] = set()
    waiting = [script]
    while waiting:
        for name in IMPORT.findall((STATIC / waiting.pop()).read_text()):
            if name not in found:
                found.add(name)
                waiting.append(name)
    return found


def test_every_module_the_page_imports_is_preloaded_beside_app_js() -> None:
    modules = imported("app.js")
    assert {"util.js", "replay.js", "account.js"} <= modules
    preloaded = set(
        re.findall(r'<link rel="modulepreload" href="/static/([\w.]+)">', (STATIC / "index.html").read_text())
    )
    assert preloaded == modules, f"index.html should preload exactly {sorted(modules)}"


@pytest.fixture
def asked(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A fresh page and the API paths it asks for, in order."""
    context = browser.new_context()
    page = context.new_page()
    paths: list[str] = []

    def note(request: Request) -> None:
        path = request.url.split("#")[0].split("/", 3)[-1]
        if path.startswith("api/"):
            paths.append("/" + path)

    page.on("request", note)
    yield page, paths
    context.close()


def drawn(page: Page, web: WebArena, route: str, together: str) -> None:
    """Open `route` with /api/games held unanswered until the page has also asked for `together`: were
    that asked for only once the games had arrived, the wait would time out."""
    held: list[Route] = []
    page.route("**/api/games", lambda route: held.append(route))
    with page.expect_request(lambda request: urlsplit(request.url).path == together, timeout=15000):
        page.goto(f"{web.url}#/{route}", wait_until="commit")
    deadline = time.monotonic() + 15
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(20)  # lets the held route's handler run
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("main")).to_have_attribute("data-route", f"#/{route}", timeout=15000)
    expect(page.locator("main h1")).to_be_visible()
    expect(page.locator(".error")).to_have_count(0)


def test_the_home_page_draws_its_board_from_one_round_of_two_requests(
    web_arena: WebArena, asked: tuple[Page, list[str]]
) -> None:
    page, paths = asked
    drawn(page, web_arena, "", together="/api/leaderboards")
    # The summary carries the board of the game it opens on; the board's own endpoint is only polled.
    assert sorted(paths[:2]) == ["/api/games", "/api/leaderboards"]
    assert len(paths) == 2 or paths[2].startswith("/api/leaderboards/")
    expect(page.locator("tr[data-bot]").first).to_be_visible()
    assert page.locator("tr[data-bot] td").first.inner_text() == "1"


def test_the_match_list_asks_for_the_games_and_its_first_page_together(
    web_arena: WebArena, asked: tuple[Page, list[str]]
) -> None:
    page, paths = asked
    drawn(page, web_arena, "matches", together="/api/matches")
    assert sorted(paths[:2]) == ["/api/games", "/api/matches?limit=50"]
    assert page.locator("table tbody tr").count() > 0


@pytest.mark.parametrize(
    ("zone", "shown", "full"),
    [
        ("Europe/Berlin", "2026-11-23 14:05", "2026-11-23 14:05:33 (UTC+01:00)"),
        ("America/St_Johns", "2026-11-23 09:35", f"2026-11-23 09:35:33 (UTC{MINUS}03:30)"),
        ("UTC", "2026-11-23 13:05", "2026-11-23 13:05:33 (UTC+00:00)"),
    ],
)
def test_a_time_is_shown_in_the_readers_zone_with_the_full_moment_as_its_tooltip(
    web_arena: WebArena, browser: Browser, zone: str, shown: str, full: str
) -> None:
    # Written out by hand, not with toLocaleString, whose first call costs a new page some 50 ms of CPU.
    context = browser.new_context(timezone_id=zone)
    try:
        page = context.new_page()
        page.goto(f"{web_arena.url}#/api")
        moment = page.evaluate(
            """async (ms) => { const { when } = await import('/static/util.js'); const t = when(ms);
            return [t.textContent, t.title, t.getAttribute('datetime')]; }""",
            1795439133000,  # 2026-11-23 13:05:33 UTC
        )
    finally:
        context.close()
    assert moment == [shown, full, "2026-11-23T13:05:33.000Z"]


STATIC_ENTRIES = """() => performance.getEntriesByType("resource")
    .filter((entry) => new URL(entry.name).pathname.startsWith("/static/"))
    .map((entry) => [new URL(entry.name).pathname, entry.transferSize])"""


def test_the_web_ui_opened_again_takes_every_script_and_style_from_the_browsers_cache(
    browser: Browser, web_arena: WebArena
) -> None:
    """A reader opening a link to the web UI in a running browser waits for the page and its data only:
    the scripts and styles are named under their version, which the browser keeps without asking again."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{web_arena.url}#/matches")
        expect(page.locator("main")).to_have_attribute("data-route", "#/matches", timeout=15000)
        first = page.evaluate(STATIC_ENTRIES)
        assert len(first) == 5 and all(size > 0 for _, size in first), first
        page.goto(f"{web_arena.url}?again#/bots")  # a new document, not a change of route within this one
        expect(page.locator("main")).to_have_attribute("data-route", "#/bots", timeout=15000)
        again = page.evaluate(STATIC_ENTRIES)
        assert sorted(path for path, _ in again) == sorted(path for path, _ in first)
        assert all(size == 0 for _, size in again), f"asked the server again: {again}"
    finally:
        context.close()
