"""The web UI in Debian's chromium against a real arena: every page, a replay stepped with the keyboard
and checked against the stored record, a live match followed to its end. Screenshots go to
test-artifacts/web/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from arena.games import kit_of
from arena.wire import convert
from tests.web.conftest import ARTIFACTS, MINUS, TOURNAMENT, WebArena, hold_live_match

DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page that fails the test on any script error or console error."""
    context = browser.new_context(viewport=DESKTOP)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    yield opened
    context.close()
    assert errors == []


def visit(page: Page, web: WebArena, route: str) -> None:
    page.goto(f"{web.url}#/{route}")
    # Only the hash changes between pages: wait until this route, not the last one, is drawn.
    # Generous: on a loaded machine (CI, other tests) a page with many rows can take a few seconds.
    expect(page.locator("main")).to_have_attribute("data-route", f"#/{route}", timeout=15000)
    expect(page.locator("main h1")).to_be_visible()
    expect(page.locator(".error"), f"#/{route}").to_have_count(0)


def pages(web: WebArena) -> dict[str, str]:
    return {
        "leaderboard": "",
        "leaderboard-board13": "leaderboards/board13",
        "bots": "bots",
        "bot": "bots/rb1",
        "matches": "matches?game=friday13",
        "replay-friday13": f"matches/{web.matches['friday13']}",
        "replay-amigo13": f"matches/{web.matches['amigo13']}",
        "replay-board13": f"matches/{web.matches['board13']}",
        "tournaments": "tournaments",
        "tournament": f"tournaments/{TOURNAMENT}",
        "api": "api",
    }


@pytest.mark.parametrize(("device", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_every_page_opens_without_errors_on_desktop_and_phone(
    web_arena: WebArena, page: Page, device: str, viewport: ViewportSize
) -> None:
    page.set_viewport_size(viewport)
    for name, route in pages(web_arena).items():
        visit(page, web_arena, route)
        page.screenshot(path=ARTIFACTS / f"{name}-{device}.png", full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name} is wider than the {device} window"


def test_leaderboard_bot_and_tournament_pages_show_the_stored_numbers(web_arena: WebArena, page: Page) -> None:
    _, board = web_arena.get("/api/leaderboards/friday13")
    visit(page, web_arena, "leaderboards/friday13")
    rows = page.locator("tbody tr")
    expect(rows).to_have_count(len(board["rows"]))
    first = board["rows"][0]
    marker = " provisional" if first["provisional"] else ""
    expect(rows.first).to_contain_text(
        f"{first['bot']}{marker}{first['conservative']:.2f}{first['mu']:.2f} ± {first['sigma']:.2f}"
    )
    order = board["neighbours"][0]
    expect(rows.first.locator("td.order")).to_have_text(
        f"established since {order['since_games']} matches{' or earlier' if order['since_earlier'] else ''}"
        if order["established"]
        else "not established yet"
    )

    _, bot = web_arena.get("/api/bots/rb1")
    visit(page, web_arena, "bots/rb1")
    expect(page.locator("dl.facts")).to_contain_text("Ownerolga")
    plot = page.locator("section[data-game=friday13] svg.plot")
    expect(plot.locator("polygon.band")).to_have_count(1)
    points = plot.locator("polyline.mu").get_attribute("points") or ""
    assert len(points.split()) == len(bot["ratings"]["friday13"]["history"])

    visit(page, web_arena, f"tournaments/{TOURNAMENT}")
    expect(page.locator("progress")).to_have_attribute("value", "2")
    expect(page.locator("main")).not_to_contain_text("null")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    expect(page.locator("#standings tbody tr .ci")).to_have_count(3)
    expect(page.locator("dd.seating")).to_have_text("each deal played once")


def advantage_cell(advantage: float, ci95: float) -> str:
    """A head-to-head cell as the page writes it: signed advantage per deal ± the interval's half-width."""
    sign = "+" if advantage > 0 else MINUS if advantage < 0 else ""
    return f"{sign}{abs(advantage):.2f} ± {ci95:.2f}"


def advantage_said(row: str, column: str, advantage: float, pair: dict[str, Any]) -> str:
    """The cell's label in words, for a screen reader and as its tooltip."""
    how = f"{abs(advantage):.2f} penalty {'better' if advantage > 0 else 'worse'} per deal than"
    if advantage == 0:
        how = "the same penalty per deal as"
    verdict = "established" if pair["established"] else "not established yet"
    return (
        f"{row} scores {how} {column} over {pair['deals']} shared deals (95% interval ±{pair['ci95']:.2f}): {verdict}"
    )


def test_the_tournament_page_shows_every_pair_head_to_head_from_both_sides(web_arena: WebArena, page: Page) -> None:
    _, shown = web_arena.get(f"/api/tournaments/{TOURNAMENT}")
    visit(page, web_arena, f"tournaments/{TOURNAMENT}")
    matrix = page.locator("#head-to-head")
    bots = [row["bot"] for row in shown["standings"]]
    expect(matrix.locator("tbody th[scope=row]")).to_have_text(bots)
    expect(matrix.locator("tbody td")).to_have_count(len(bots) ** 2)
    expect(matrix.locator("td.h2h-self")).to_have_count(len(bots))
    for pair in shown["head_to_head"]:
        first, second, advantage = pair["first"], pair["second"], pair["advantage"]
        state = "open"
        if pair["established"]:
            state = "better" if advantage > 0 else "worse"
        cell = matrix.locator(f'td[data-row="{first}"][data-col="{second}"]')
        mirror = matrix.locator(f'td[data-row="{second}"][data-col="{first}"]')
        expect(cell).to_have_text(advantage_cell(advantage, pair["ci95"]))
        expect(mirror).to_have_text(advantage_cell(-advantage, pair["ci95"]))
        expect(cell).to_have_attribute("data-state", state)
        expect(mirror).to_have_attribute("data-state", {"better": "worse", "worse": "better", "open": "open"}[state])
        expect(cell).to_have_attribute("aria-label", advantage_said(first, second, advantage, pair))
        expect(mirror).to_have_attribute("aria-label", advantage_said(second, first, -advantage, pair))
    # rb1 plays at random unseeded, so two deals may (rarely) settle both neighbours' order.
    notes = page.locator("#head-to-head .order-notes")
    if shown["unsettled"]:
        expect(notes.locator("p")).to_have_text("Not yet established (more deals may settle them, or show them equal):")
        expect(notes.locator("li")).to_have_text([f"{upper} above {lower}" for upper, lower in shown["unsettled"]])
    else:
        expect(notes).to_have_text("Every neighbour's place in the standings is established.")
    page.screenshot(path=ARTIFACTS / "tournament-head-to-head.png", full_page=True)


def test_stepping_through_a_card_replay_with_the_keyboard_shows_what_the_record_says(
    web_arena: WebArena, page: Page
) -> None:
    match_id = web_arena.matches["friday13"]
    record = web_arena.replay(match_id)
    visit(page, web_arena, f"matches/{match_id}")
    page.locator("#replay").focus()
    first_round = record["rounds"][0]
    for seat, hand in enumerate(first_round["hands"]):
        shown = page.locator(f".seat[data-seat='{seat}'] .hand .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        assert sorted(shown) == sorted(hand)
    for number, move in enumerate(first_round["moves"], start=1):
        page.keyboard.press("ArrowRight")
        expect(page.locator("#step-status")).to_contain_text(f"move {number} of {len(first_round['moves'])}")
        expect(page.locator("#move-text")).to_contain_text(f"Seat {move['seat']} ({record['seats'][move['seat']]})")
        expect(page.locator("#move-text .card").first).to_have_attribute("data-card", move["card"])
        pile = page.locator(f".pile[data-pile='{move['pile']}']")
        expect(pile).to_have_attribute("data-total", str(move["total"]))
        expect(pile.locator(".card").last).to_have_attribute("data-card", move["card"])
        taken = page.locator("#move-text .cards .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
        assert taken == move["took"]
    penalties = page.locator("tr[data-round='0'] td").all_inner_texts()
    assert [int(text) for text in penalties] == first_round["penalties"]
    page.keyboard.press("PageDown")
    expect(page.locator("#step-status")).to_contain_text(f"round 2 of {len(record['rounds'])} · move 0")
    page.keyboard.press("End")
    final = page.locator("tr.final td").all_inner_texts()
    assert final == [f"{score} (rank {rank})" for score, rank in zip(record["scores"], record["ranks"], strict=True)]
    page.screenshot(path=ARTIFACTS / "replay-friday13-end.png", full_page=True)
    page.keyboard.press("Home")
    expect(page.locator("#step-status")).to_contain_text("Step 0 of")


def test_a_replay_plays_pauses_at_a_chosen_speed_and_downloads(web_arena: WebArena, page: Page) -> None:
    match_id = web_arena.matches["board13"]
    record = web_arena.replay(match_id)
    steps = sum(len(entry["moves"]) + 1 for entry in record["rounds"]) - 1
    visit(page, web_arena, f"matches/{match_id}")
    status, play = page.locator("#step-status"), page.locator("#replay button.play")
    shown = "s => Number(s.textContent.match(/^Step (\\d+)/)[1])"
    page.locator("#replay select.speed").select_option("16")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "true")
    # It steps on by itself, and holds still once paused.
    page.wait_for_function(f"() => {shown}(document.querySelector('#step-status')) >= 3")
    play.click()
    expect(play).to_have_attribute("aria-pressed", "false")
    held = status.evaluate(shown)
    page.wait_for_timeout(300)  # five steps' time at 16 a second: a player still running would have moved
    assert status.evaluate(shown) == held
    # Space plays from the keyboard; at the end it stops, ready to play again from the start.
    page.locator("#replay").focus()
    page.keyboard.press("Space")
    expect(status).to_contain_text(f"Step {steps} of {steps}", timeout=steps / 16 * 1000 * 5 + 5000)
    expect(play).to_have_attribute("aria-pressed", "false")
    expect(play).to_have_text("▶ Play")
    with page.expect_download() as saved:
        page.locator("a.download").click()
    assert saved.value.suggested_filename == f"{match_id}.json"
    assert json.loads(Path(saved.value.path()).read_text()) == record


def rgb(colour: str) -> str:
    """`#1d5fae` as the browser's computed style writes it: `rgb(29, 95, 174)`."""
    red, green, blue = (int(colour[index : index + 2], 16) for index in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


@pytest.mark.parametrize("game", ["amigo13", "friday13"])
def test_every_card_shows_its_own_suits_colour_and_shape(web_arena: WebArena, page: Page, game: str) -> None:
    """amigo13's blue cards are blue (they were drawn in friday13's first colour, a green)."""
    listed = {entry["name"]: entry for entry in web_arena.get("/api/games")[1]}
    suits = listed[game]["drawing"]["suits"]
    visit(page, web_arena, f"matches/{web_arena.matches[game]}")
    # The first frame shows every hand: cards of all four suits.
    shown = page.locator(".seat .hand .card").evaluate_all(
        "cards => cards.map(c => [c.dataset.suit, getComputedStyle(c).color, c.querySelector('svg > *').tagName,"
        " c.classList.contains('wild')])"
    )
    assert {suit for suit, *_ in shown} == set(suits)
    shapes = {"circle": "circle", "triangle": "polygon", "square": "rect", "star": "polygon"}
    for suit, colour, shape, wild in shown:
        assert (colour, shape, wild) == (rgb(suits[suit]["colour"]), shapes[suits[suit]["shape"]], suits[suit]["wild"])
    if game == "amigo13":
        red, green, blue = (int(suits["blue"]["colour"][index : index + 2], 16) for index in (1, 3, 5))
        assert blue > max(red, green), "the blue suit is drawn blue"
        assert len({look["colour"] for look in suits.values()}) == 4


def test_a_board13_replay_shows_the_boards_the_rules_give(web_arena: WebArena, page: Page) -> None:
    match_id = web_arena.matches["board13"]
    record = web_arena.replay(match_id)
    game = convert.game_from_spec(convert.spec_from_params(record["game"], record["params"]))
    state = game.new_match(bytes.fromhex(record["seed"]))
    visit(page, web_arena, f"matches/{match_id}")
    page.locator("#replay").focus()
    for move in record["rounds"][0]["moves"][:6]:
        state.apply_text(kit_of(game.name).move_text(game, move))
        page.keyboard.press("ArrowRight")
        expect(page.locator("#move-text")).to_contain_text(f"played {move['move']}.")
        shown = page.locator(".field").evaluate_all("fields => fields.map(f => [f.dataset.field, f.dataset.piece])")
        assert {field: piece for field, piece in shown if piece} == state.public_observation().to_dict()["pieces"]
    page.keyboard.press("End")
    expect(page.locator(".field")).to_have_count(49)
    final = game.replay(record).public_observation().to_dict()["pieces"]
    shown = page.locator(".field").evaluate_all("fields => fields.map(f => [f.dataset.field, f.dataset.piece])")
    assert {field: piece for field, piece in shown if piece} == final
    assert page.locator("td.final-score").all_inner_texts() == [str(score) for score in record["scores"]]


def test_a_live_match_shows_its_public_view_follows_the_moves_and_becomes_a_replay(
    web_arena: WebArena, page: Page
) -> None:
    match_id, bot = web_arena.run(lambda: hold_live_match(web_arena.arena))
    try:
        request = web_arena.run(lambda: bot.expect("action_request")).action_request
        visit(page, web_arena, f"matches/{match_id}")
        expect(page.locator(".live-badge")).to_be_visible()
        expect(page.locator(".hand")).to_have_count(0)
        expect(page.locator(".seat[data-seat='0']")).to_contain_text("cards (hidden)")
        page.set_viewport_size(PHONE)
        page.screenshot(path=ARTIFACTS / "live-match-phone.png", full_page=True)
        _, shown = web_arena.get(f"/api/matches/{match_id}")
        cards = shown["live"]["view"]["hand_sizes"][0]
        hand = page.locator(".seat[data-seat='0'] .label").first
        expect(hand).to_have_text(f"Hand: {cards} cards (hidden)")
        web_arena.run(lambda: bot.act(match_id, request.request_id, request.legal_actions[0].id))
        expect(hand).to_have_text(f"Hand: {cards - 1} cards (hidden)", timeout=5000)
        expect(page.locator(".live-badge")).to_be_visible()
    finally:
        web_arena.run(lambda: bot.play_on(match_id))
        web_arena.run(bot.close)
    expect(page.locator("#replay")).to_be_visible(timeout=10000)
    expect(page.locator("#match-status")).to_have_text("ended: played to the end")
    expect(page.locator(".seat[data-seat='0'] .hand .card").first).to_be_visible()
