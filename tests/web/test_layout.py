"""The layout holds with real data at real size, in Debian's chromium: a 500-match tournament played by
bots with the longest names the arena accepts, and a match whose id is 100 characters long. On a
390x844 phone the match list, the leaderboard and a bot page show their key columns without
scrolling sideways; at 1280x800 nothing passes the window's edge; the match list pages back to its
oldest match and forward again, and says a mistyped filter beside its form; the tournament page stays
under 3,000 px."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from arena.games import Termination
from arena.node.work import WorkConfig
from arena.store import MatchRecord
from arena.store.store import now_ms
from arena.store.tournaments import TournamentStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, RandomBot, bearer
from tests.waiting import until
from tests.web.conftest import ARTIFACTS, WebArena, arena_in_thread
from tests.web.test_pages import PHONE, page, visit

__all__ = ["page"]

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
LONGEST = 40
"""The longest bot and tournament name the store accepts (`check_name`)."""
BOTS = [f"bot-{index}-".ljust(LONGEST, "x") for index in range(3)]
ENTRANTS = [*BOTS, "builtin:random", "builtin:heuristic"]
BIG = "cup-".ljust(LONGEST, "y")
ROUNDS = 50
"""Five entrants at tables of two: ten matches a round, 500 in all."""
LONG_ID = "long-".ljust(100, "z")
"""A match id of 100 characters, stored through the store as a node stores a match."""
STALLED = 120.0
"""Seconds without a finished match after which the tournament counts as stalled."""
PLAYED = 1500.0
"""Seconds the whole tournament may take: on a quiet machine about 120, on two cores shared with other
test workers and busy loops several times that; its progress is checked against STALLED meanwhile."""
pytestmark = pytest.mark.timeout(PLAYED + 300)  # the module's first test sets the tournament up
OVERFLOW = "() => document.documentElement.scrollWidth"
KEY_CELLS = """(selector) => [...document.querySelectorAll(selector)].filter((c) => c.offsetParent)
  .map((c) => { const r = c.getBoundingClientRect(); return [c.dataset.label || c.textContent.slice(0, 30), r.left, r.right]; })"""
"""Where each visible cell of a kind sits: every one must lie within the window, none past its right edge."""


@pytest.fixture(scope="module")
def big(redis_server: str) -> Iterator[WebArena]:
    """An arena that has played a 500-match board13 tournament (three connected bots with 40-character
    names and two built-ins), plus one match with a 100-character id."""

    async def played(web: WebArena) -> None:
        arena = web.arena
        owner = await arena.owner("layout")
        for name in BOTS:
            await arena.connect(RandomBot, await arena.bot(owner, name, ("board13",)), max_matches=8)
        spec = api_pb.TournamentSpec(
            name=BIG,
            game=pb.GameSpec(game="board13", scenario="crossfire"),  # 75 moves a random match; duel about 170
            entrants=ENTRANTS,
            table_size=2,
            rounds=ROUNDS,
            format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            rated=True,
            seed="layout",
        )
        await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec), metadata=bearer(ADMIN))
        store = arena.server.store
        tournaments = TournamentStore(store.redis)

        async def finished() -> bool:
            state = await tournaments.get(BIG)
            return state is not None and bool(state.finished_ms)

        # Counted, not watched: a watcher is sent the whole tournament (500 results read) after each result.
        # A loaded machine plays slower; a stalled tournament fails here.
        await until(
            finished, "the 500-match tournament finished", STALLED, 0.5, lambda: tournaments.results_stored(BIG)
        )
        record = MatchRecord(LONG_ID, "board13", {}, [BOTS[0], "builtin:random"], now_ms())
        await store.match_started(record)
        record.scores, record.ranks, record.termination, record.ended_ms = [1, 0], [1, 2], Termination.NORMAL, now_ms()
        await store.match_ended(record, None)

    with arena_in_thread(redis_server, WorkConfig(claim_idle=1.0), played, "layout-arena", ready=PLAYED) as web:
        yield web


def test_a_500_match_tournament_page_stays_short_and_folds_each_path(big: WebArena, page: Page) -> None:
    _, shown = big.get(f"/api/tournaments/{BIG}")
    assert shown["total"] == shown["done"] == 500
    for device, viewport in (("desktop", LAPTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        visit(page, big, f"tournaments/{BIG}")
        expect(page.locator("#paths tbody tr")).to_have_count(len(ENTRANTS))
        height = page.evaluate("document.documentElement.scrollHeight")
        page.screenshot(path=ARTIFACTS / f"tournament-500-{device}.png", full_page=True)
        assert height < 3000, f"the 500-match tournament page is {height} px tall on {device}"
        assert page.evaluate(OVERFLOW) <= viewport["width"], device
    expect(page.locator("dd", has_text="round-robin")).to_have_text(f"round-robin, {ROUNDS} rounds, rated")
    for bot, steps in shown["paths"].items():
        row = page.locator(f"#paths tr[data-bot='{bot}']")
        expect(row.locator("details summary")).to_have_text(f"{len(steps)} matches in {ROUNDS} rounds")
        expect(row.locator("details a")).to_have_count(len(steps))
    # Opened, a bot's path links every match it played, round by round.
    row = page.locator(f"#paths tr[data-bot='{BOTS[0]}']")
    row.locator("summary").click()
    first = shown["paths"][BOTS[0]][0]
    expect(row.locator("li[data-round='0'] a").first).to_have_attribute("href", f"#/matches/{first['match_id']}")
    expect(row.locator("li[data-round='0'] a").first).to_be_visible()


def fits(page: Page, width: int) -> list[str]:
    """What passes the window's edge or scrolls sideways in its box: the page itself, or a table."""
    bad = []
    if page.evaluate(OVERFLOW) > width:
        bad.append(f"the page is {page.evaluate(OVERFLOW)} px wide")
    tables = page.evaluate(
        """() => [...document.querySelectorAll("main table")].filter((t) => t.offsetParent)
        .map((t) => [t.closest(".table-box").querySelector(".caption").textContent.slice(0, 40),
                     t.closest(".scroll").clientWidth, t.scrollWidth])"""
    )
    bad.extend(f"{caption}: {wide} px in {box}" for caption, box, wide in tables if wide > box + 1)
    return bad


def test_on_a_phone_the_key_columns_are_in_view_without_scrolling_sideways(big: WebArena, page: Page) -> None:
    page.set_viewport_size(PHONE)
    width = PHONE["width"]
    key_cells = {
        "matches": "td.seats-cell, td.result",
        "leaderboards/board13": "tbody td",
        f"bots/{BOTS[0]}": "td.seats-cell, td.own-rank, td.own-score, td.own-change",
    }
    for route, cells in key_cells.items():
        visit(page, big, route)
        page.screenshot(path=ARTIFACTS / f"layout-{route.split('/')[0]}-phone.png", full_page=True)
        assert fits(page, width) == [], route
        placed = page.evaluate(KEY_CELLS, cells)
        assert placed, f"no {cells} shown on {route}"
        outside = [(label, left, right) for label, left, right in placed if left < 0 or right > width + 1]
        assert outside == [], f"{route}: cells past the screen's edge"
    # The leaderboard's rating and the bot page's change are labelled, as their headings would say.
    visit(page, big, "leaderboards/board13")
    rating = page.locator("tbody tr").first.locator("td").nth(2)
    assert rating.evaluate("c => getComputedStyle(c, '::before').content") == '"Rating "'
    visit(page, big, f"bots/{BOTS[0]}")
    change = page.locator("td.own-change").first
    assert change.evaluate("c => getComputedStyle(c, '::before').content") == '"Rating ± "'


def test_at_1280_px_nothing_passes_the_edge_with_the_longest_names_and_ids(big: WebArena, page: Page) -> None:
    page.set_viewport_size(LAPTOP)
    for route in (
        "matches",
        f"matches?before={big.get('/api/matches?limit=60')[1]['matches'][-1]['match_id']}",
        f"bots/{BOTS[0]}",
        "leaderboards/board13",
        "tournaments",
        f"tournaments/{BIG}",
        f"matches?tournament={BIG}",
    ):
        visit(page, big, route)
        assert fits(page, LAPTOP["width"]) == [], route
    visit(page, big, "matches")
    row = page.locator(f"tr[data-match='{LONG_ID}']")
    expect(row.locator("a").first).to_have_text(LONG_ID)
    started = row.locator("time").bounding_box()
    assert started is not None and started["x"] + started["width"] <= LAPTOP["width"], "Started is off screen"
    page.screenshot(path=ARTIFACTS / "layout-matches-desktop.png", full_page=True)


def test_the_match_list_pages_back_to_its_oldest_match_and_forward_again(big: WebArena, page: Page) -> None:
    _, listed = big.get(f"/api/matches?tournament={BIG}&limit=500")
    ids = [match["match_id"] for match in listed["matches"]]
    assert len(ids) == 500 and listed["older"] is None, "the tournament's 500 matches, oldest last"
    route = f"#/matches?tournament={BIG}"
    visit(page, big, route[2:])
    rows = page.locator("tbody tr")
    shown = "rs => rs.map((r) => r.dataset.match)"
    expect(rows).to_have_count(50)
    assert rows.evaluate_all(shown) == ids[:50]
    expect(page.locator(".pager .page-prev")).to_have_count(0)
    page.locator(".pager .page-next").click()
    expect(page.locator("main")).to_have_attribute("data-route", f"{route}&before={ids[49]}")
    expect(page.locator(".caption")).to_have_text(f"Newest first, older than match {ids[49]}")
    assert rows.evaluate_all(shown) == ids[50:100]
    page.locator(".pager .page-next").click()
    expect(page.locator("main")).to_have_attribute("data-route", f"{route}&before={ids[99]}")
    assert rows.evaluate_all(shown) == ids[100:150]
    page.locator(".pager .page-prev").click()
    expect(page.locator("main")).to_have_attribute("data-route", f"{route}&after={ids[100]}")
    assert rows.evaluate_all(shown) == ids[50:100]
    # Past the 500th match of the whole list (the layout match is newer): the last page has no older one.
    visit(page, big, f"matches?tournament={BIG}&before={ids[449]}")
    expect(rows).to_have_count(50)
    assert rows.evaluate_all(shown) == ids[450:500]
    expect(page.locator(".pager .page-next")).to_have_count(0)
    page.locator(".pager .page-first").click()
    expect(page.locator("main")).to_have_attribute("data-route", route)
    expect(rows).to_have_count(50)
    # Without filters the list reaches past 500 matches too: the layout match and the tournament's 500.
    _, oldest = big.get(f"/api/matches?before={ids[498]}")
    assert oldest["matches"][0]["match_id"] == ids[499]


@pytest.fixture
def quiet_404s(browser: Browser) -> Iterator[Page]:
    """A page failing the test on any script error; the browser's own lines about the 404s a mistyped
    filter gets from the API are expected."""
    context = browser.new_context(viewport=LAPTOP)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda message: (
            errors.append(message.text) if message.type == "error" and "status of 404" not in message.text else None
        ),
    )
    yield opened
    context.close()
    assert errors == []


@pytest.mark.parametrize(
    ("query", "field", "said"),
    [
        ("bot=no-such-bot", "bot", "No bot named “no-such-bot”: the bots page lists them."),
        ("tournament=no-such-cup", "tournament", "No tournament named “no-such-cup”: the tournaments page lists them."),
        ("game=chess", "game", "No game “chess”: the arena plays amigo13, board13, friday13."),
    ],
)
def test_a_mistyped_filter_is_said_beside_the_form(
    big: WebArena, quiet_404s: Page, query: str, field: str, said: str
) -> None:
    page = quiet_404s
    page.goto(f"{big.url}#/matches?{query}")
    expect(page.locator("main")).to_have_attribute("data-route", f"#/matches?{query}", timeout=15000)
    expect(page.locator("main h1")).to_have_text("Matches")
    expect(page.locator("form.filters")).to_be_visible()
    expect(page.locator("#filter-error")).to_have_text(said)
    expect(page.locator(f"form.filters [name='{field}']")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("main")).not_to_contain_text("/api/")
    # Corrected in the form, the list comes back.
    page.locator("form.filters [name='bot']").fill(BOTS[0])
    page.locator("form.filters [name='tournament']").fill("")
    page.locator("form.filters [name='game']").select_option("")
    page.locator("form.filters button").click()
    expect(page.locator("main")).to_have_attribute("data-route", f"#/matches?bot={BOTS[0]}")
    expect(page.locator("#filter-error")).to_have_count(0)
    expect(page.locator("tbody tr")).to_have_count(50)
