"""What the pages show beyond the raw records, in Debian's chromium against a real arena: the home
page's game, winners and ends in words, a bot's own results, rivals, rating points and hosted
versions, linkable replay steps, tournament winners and paths, and the layout at desktop and phone
widths (no clipped cell, wide tables scroll in their own box). The main pages' screenshots at both
sizes go to docs/gallery/, which docs/WEB.md shows."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect

from tests.web.conftest import TOURNAMENT, WebArena
from tests.web.test_pages import PHONE, page, visit

__all__ = ["page"]
"""The browser tests' page fixture, used here as it is."""

GALLERY = Path(__file__).resolve().parents[2] / "docs" / "gallery"
"""docs/WEB.md's gallery: the layout test writes its screenshots there only when ARENA_GALLERY=1 (so that
a test run leaves the tree as it was), else to a temporary folder."""
LAPTOP: ViewportSize = {"width": 1280, "height": 800}
SIZES = {"desktop": LAPTOP, "phone": PHONE}
STARTED = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d$")
CLIPPED = """() => {
  // Every visible cell shows all it holds; a table wider than its box sits in a box that scrolls and
  // can be focused, and no box, caption or plot reaches past the window's right edge.
  const bad = [];
  const right = document.documentElement.clientWidth;
  for (const cell of document.querySelectorAll("main td, main th")) {
    if (!cell.offsetParent) continue;
    if (cell.scrollWidth > cell.clientWidth + 1) bad.push(`cell clipped: ${cell.textContent.slice(0, 40)}`);
  }
  for (const table of document.querySelectorAll("main table")) {
    const box = table.closest(".scroll");
    if (!box) { bad.push("a table outside a scrolling box"); continue; }
    if (box.getBoundingClientRect().right > right + 1) bad.push("a table's box passes the window's edge");
    if (table.scrollWidth > box.clientWidth + 1) {
      if (getComputedStyle(box).overflowX !== "auto") bad.push("a wide table in a box that does not scroll");
      if (box.getAttribute("tabindex") !== "0") bad.push("a scrolling box the keyboard cannot reach");
    }
  }
  for (const other of document.querySelectorAll("main .caption, main svg.plot, main h1, main h2, main p")) {
    if (other.getBoundingClientRect().right > right + 1) bad.push(`past the edge: ${other.textContent.slice(0, 40)}`);
    if (other.scrollWidth > other.clientWidth + 1) bad.push(`cut: ${other.textContent.slice(0, 40)}`);
  }
  return bad;
}"""
FITS = """() => [...document.querySelectorAll("main table")].filter((t) => t.offsetParent)
  .map((t) => [t.closest(".scroll").clientWidth, t.scrollWidth])"""


def main_pages(web: WebArena) -> dict[str, str]:
    return {
        "leaderboard": "",
        "matches": "matches",
        "bot": "bots/rb1",
        "replay-friday13": f"matches/{web.matches['friday13']}",
        "replay-board13": f"matches/{web.matches['board13']}",
        "tournaments": "tournaments",
        "tournament": f"tournaments/{TOURNAMENT}",
    }


def test_the_home_page_opens_on_the_game_with_ratings(web_arena: WebArena, page: Page) -> None:
    _, summary = web_arena.get("/api/leaderboards")
    visit(page, web_arena, "")
    expect(page.locator(".tabs a[aria-current=page]")).to_have_text(summary["game"])
    expect(page.locator("tbody tr")).not_to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("No rated")
    # amigo13 comes first by name: the home page must not fall back to it.
    assert summary["game"] != "amigo13"


def test_match_lists_mark_the_winners_and_say_only_an_abnormal_end(web_arena: WebArena, page: Page) -> None:
    _, listed = web_arena.get("/api/matches")
    visit(page, web_arena, "matches")
    expect(page.locator("main")).not_to_contain_text("normal")
    for match in listed["matches"]:
        row = page.locator(f"tr[data-match='{match['match_id']}']")
        winners = [match["seats"][seat] for seat in match["winners"]]
        expect(row.locator(".seat-result.winner")).to_have_count(len(winners))
        expect(row.locator(".seat-result.winner a")).to_have_text(winners)
        expect(row.locator("td.result")).to_have_text(f"won by {' and '.join(winners)}")
        expect(row.locator("time")).to_have_text(STARTED)


def test_a_bot_page_shows_its_own_rank_score_rating_change_and_rivals(web_arena: WebArena, page: Page) -> None:
    _, bot = web_arena.get("/api/bots/rb1")
    visit(page, web_arena, "bots/rb1")
    for match in bot["matches"]:
        row = page.locator(f"tr[data-match='{match['match_id']}']")
        seat = match["seats"].index("rb1")
        rank = re.compile(rf"^{match['ranks'][seat]}(st|nd|rd|th) of {len(match['seats'])}$")
        expect(row.locator(".own-rank")).to_have_text(rank)
        expect(row.locator(".own-score")).to_have_text(str(match["scores"][seat]))
        change = match["rating_change"]
        if change is not None:
            sign = "+" if change > 0 else "\N{MINUS SIGN}" if change < 0 else ""
            expect(row.locator(".own-change")).to_have_text(f"{sign}{abs(change):.2f}")
    rivals = page.locator("#rivals tbody tr")
    expect(rivals).to_have_count(len(bot["rivals"]))
    for rival in bot["rivals"]:
        cells = page.locator(f"#rivals tr[data-opponent='{rival['opponent']}'] td")
        expect(cells.nth(1)).to_have_text(str(rival["matches"]))
        expect(cells.nth(2)).to_have_text(str(rival["wins"]))
        expect(cells.nth(3)).to_have_text(str(rival["losses"]))


def test_the_rating_plot_marks_each_match_and_links_to_it(web_arena: WebArena, page: Page) -> None:
    _, bot = web_arena.get("/api/bots/rb1")
    history = bot["ratings"]["friday13"]["history"]
    visit(page, web_arena, "bots/rb1")
    points = page.locator("section[data-game=friday13] svg.plot a.point")
    expect(points).to_have_count(len(history))
    assert points.evaluate_all("ps => ps.map(p => p.dataset.match)") == [point["match_id"] for point in history]
    last = history[-1]
    expect(points.last.locator("title")).to_have_text(
        f"Match {len(history)}, {last['match_id']}: mu {last['mu']:.2f} ± {last['sigma']:.2f}"
    )
    # The keyboard reaches the points, each shows a focus ring, and Enter opens its match.
    points.last.focus()
    assert page.evaluate("document.activeElement.dataset.match") == last["match_id"]
    ring = points.last.locator("circle").evaluate("c => getComputedStyle(c).stroke")
    assert ring == "rgb(240, 165, 0)"
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_have_attribute("data-route", f"#/matches/{last['match_id']}")


def test_a_hosted_bot_page_lists_its_versions(web_arena: WebArena, hosted_bot: str, page: Page) -> None:
    visit(page, web_arena, f"bots/{hosted_bot}")
    rows = page.locator("#hosted-versions tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("td.status")).to_have_text("failed: it crashed on its first move")
    expect(rows.nth(1).locator("td.status")).to_have_text("ok (active)")
    expect(rows.nth(0).locator("time")).to_have_text(STARTED)
    visit(page, web_arena, "bots/rb1")
    expect(page.locator("#hosted-versions")).to_have_count(0)


def test_a_replay_step_is_in_the_url_and_a_linked_step_opens_there(web_arena: WebArena, page: Page) -> None:
    match_id = web_arena.matches["friday13"]
    record = web_arena.replay(match_id)
    visit(page, web_arena, f"matches/{match_id}?step=5")
    expect(page.locator("#step-status")).to_contain_text("Step 5 of")
    move = record["rounds"][0]["moves"][4]
    expect(page.locator("#move-text .card").first).to_have_attribute("data-card", move["card"])
    page.locator("#replay").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-status")).to_contain_text("Step 6 of")
    assert page.evaluate("location.hash") == f"#/matches/{match_id}?step=6"
    page.reload()
    expect(page.locator("#step-status")).to_contain_text("Step 6 of")
    page.keyboard.press("Home")
    page.locator("#replay").focus()
    page.keyboard.press("Home")
    assert page.evaluate("location.hash") == f"#/matches/{match_id}"


def test_a_board13_result_is_said_in_words_and_its_legend_matches_the_board(web_arena: WebArena, page: Page) -> None:
    match_id = web_arena.matches["board13"]
    record = web_arena.replay(match_id)
    words = {"goal": "goal reached", "passes": "both sides passed", "ply_limit": "move limit reached"}
    visit(page, web_arena, f"matches/{match_id}")
    expect(page.locator(".table-box .caption").last).to_have_text(f"Result: {words[record['rounds'][0]['end']]}")
    expect(page.locator("main")).not_to_contain_text("ply_limit")
    # Every ending the rules name has its words (this match's seed ends it one way only).
    said = page.evaluate(
        "async (ends) => { const { endWords } = await import('/static/util.js'); return ends.map(endWords); }",
        list(words),
    )
    assert said == list(words.values())
    page.locator("#replay").focus()
    page.keyboard.press("ArrowRight")
    changed = page.locator(".field.changed").first
    expect(changed).to_be_visible()
    ring = "e => [getComputedStyle(e).outlineColor, getComputedStyle(e).outlineStyle]"
    assert changed.evaluate(ring) == page.locator(".legend .swatch.changed").evaluate(ring)
    frame = "e => [getComputedStyle(e, '::after').borderStyle, getComputedStyle(e, '::after').borderColor]"
    highlighted = page.locator(".field.highlighted")
    if highlighted.count():
        assert highlighted.first.evaluate(frame) == page.locator(".legend .swatch.highlighted").evaluate(frame)
    assert page.locator(".legend .swatch.highlighted").evaluate(frame)[0] == "dotted"
    expect(page.locator(".board-legend")).to_contain_text("orange ring: a field the last move changed")


def test_the_tournaments_list_names_the_winner_and_the_page_each_bots_path(web_arena: WebArena, page: Page) -> None:
    _, cup = web_arena.get(f"/api/tournaments/{TOURNAMENT}")
    visit(page, web_arena, "tournaments")
    expect(page.locator(f"tr[data-tournament='{TOURNAMENT}'] td.winner")).to_have_text(
        f"★ {cup['standings'][0]['bot']}"
    )
    visit(page, web_arena, f"tournaments/{TOURNAMENT}")
    rows = page.locator("#paths tbody tr")
    expect(rows.locator("th")).to_have_text([row["bot"] for row in cup["standings"]])
    for bot, steps in cup["paths"].items():
        for step in steps:
            link = page.locator(f"#paths tr[data-bot='{bot}'] [data-round='{step['round']}'] a")
            expect(link).to_have_attribute("href", f"#/matches/{step['match_id']}")
            ordinal = {1: "1st", 2: "2nd", 3: "3rd"}[step["rank"]]
            expect(link).to_have_text(f"{ordinal} of {step['players']}")


@pytest.mark.parametrize("device", SIZES)
def test_the_main_pages_clip_nothing_and_go_to_the_gallery(
    web_arena: WebArena, page: Page, device: str, tmp_path: Path
) -> None:
    viewport = SIZES[device]
    page.set_viewport_size(viewport)
    gallery = GALLERY if os.environ.get("ARENA_GALLERY") == "1" else tmp_path
    gallery.mkdir(parents=True, exist_ok=True)
    for name, route in main_pages(web_arena).items():
        visit(page, web_arena, route)
        page.wait_for_timeout(100)  # the scrolling boxes are marked in the frame after drawing
        page.screenshot(path=gallery / f"{name}-{device}.png")
        assert (gallery / f"{name}-{device}.png").stat().st_size > 1000
        assert page.evaluate(CLIPPED) == [], f"{name} on {device}"
        if device == "desktop" and name in ("matches", "bot", "leaderboard", "tournaments"):
            # At 1280 px these tables fit whole: no column (Started) is hidden past the box's edge.
            widths = page.evaluate(FITS)
            assert all(wide <= box for box, wide in widths), f"{name} scrolls at 1280 px: {widths}"
    if device == "phone":
        visit(page, web_arena, f"matches/{web_arena.matches['friday13']}")
        expect(page.locator(".keys")).to_be_hidden()
        height = page.evaluate("document.querySelector('#replay').getBoundingClientRect().height")
        assert height < 1600, f"the replay is {height} px tall on a phone"
        tops = page.locator(".pile").evaluate_all("ps => ps.map(p => p.getBoundingClientRect().top)")
        assert len(set(tops)) == 1, "the three piles share a row"
        visit(page, web_arena, "bots/rb1")
        sizes = page.locator("svg.plot text").evaluate_all("ts => ts.map(t => t.getBoundingClientRect().height)")
        assert min(sizes) >= 11, f"plot labels {min(sizes)} px high on a phone"


def test_every_link_and_control_shows_where_the_keyboard_is(web_arena: WebArena, page: Page) -> None:
    visit(page, web_arena, "matches")
    for _ in range(12):
        page.keyboard.press("Tab")
    focused = page.evaluate(
        "(() => { const e = document.activeElement; const s = getComputedStyle(e);"
        " return [e.tagName, s.outlineStyle, s.outlineWidth]; })()"
    )
    assert focused[0] in ("A", "INPUT", "SELECT", "BUTTON") and focused[1] == "solid" and focused[2] == "3px"
