"""An owner's pages in Debian's chromium against a real arena: signing in and out, a wrong token said
beside its field, a bot registered and its token rotated (shown once, with the command to connect it),
a challenge whose match opens at its link, a forged change from another site that does nothing, the
pages at phone size without sideways scrolling, and (in the sandbox) a hosted version uploaded from
the browser that passes its validation match."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from arena.hosted.package import pack
from arena.node.work import WorkConfig
from arena.store import keys
from tests.hosted.conftest import HOSTED
from tests.server.conftest import RandomBot
from tests.web.conftest import ARTIFACTS, WebArena, arena_in_thread
from tests.web.test_layout import fits
from tests.web.test_pages import DESKTOP, PHONE

REPO = Path(__file__).resolve().parents[2]
VALIDATION = HOSTED.connect_timeout + HOSTED.validation.timeout
"""Seconds an upload may take: its bot's start in the sandbox and its validation match."""
REFUSED = re.compile(r"Failed to load resource: the server responded with a status of 4(01|03|09|13|22|29) ")
"""What chromium logs for each refusal these tests provoke on purpose (a wrong token, a taken name, ...)."""


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page that fails the test on any script error, or console error but the refusals provoked."""
    context = browser.new_context(viewport=DESKTOP)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda message: (
            errors.append(message.text) if message.type == "error" and not REFUSED.match(message.text) else None
        ),
    )
    yield opened
    context.close()
    assert errors == []


@pytest.fixture(scope="module")
def owners(redis_server: str) -> Iterator[tuple[WebArena, dict[str, str]]]:
    """An arena that runs hosted bots, with owners "ann" (her bot connected) and "ben"; their tokens."""
    tokens: dict[str, str] = {}

    async def setup(web: WebArena) -> None:
        arena = web.arena
        for owner in ("ann", "ben"):
            tokens[owner] = await arena.owner(owner)
        tokens["ann-bot"] = await arena.bot(tokens["ann"], "ann-bot", ("friday13", "board13"))
        await arena.connect(RandomBot, tokens["ann-bot"])

    with arena_in_thread(redis_server, WorkConfig(claim_idle=1.0), setup, "owner-pages", hosted=HOSTED) as web:
        deadline = time.monotonic() + 10  # the nodes' presence in Redis is written a moment after a bot connects
        while not any(bot["connected"] for bot in web.get("/api/bots")[1]["bots"]):
            assert time.monotonic() < deadline, "ann-bot is not shown connected"
            time.sleep(0.05)
        yield web, tokens


def bot_of(web: WebArena, token: str) -> str | None:
    """The bot whose token `token` is, or None."""
    found = web.run(lambda: web.arena.server.store.authenticate(token))
    return found.name if found is not None else None


def sign_in(page: Page, web: WebArena, token: str) -> None:
    page.goto(f"{web.url}#/me")
    expect(page.locator("main h1")).to_have_text("Sign in")
    page.get_by_label("Owner token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("main h1")).to_have_text("My bots")


def test_an_owner_signs_in_and_out_and_a_wrong_token_is_said_beside_its_field(
    owners: tuple[WebArena, dict[str, str]], page: Page
) -> None:
    web, tokens = owners
    page.goto(f"{web.url}#/me")
    page.get_by_label("Owner token").fill("ato_mistyped")
    page.get_by_role("button", name="Sign in").click()
    error = page.locator("[data-error-for='token']")
    expect(error).to_have_text("the token is not valid (rotated, or mistyped)")
    expect(page.get_by_label("Owner token")).to_have_attribute("aria-invalid", "true")
    sign_in(page, web, tokens["ann"])
    expect(page.locator(".bot-card[data-bot='ann-bot'] h2 a")).to_have_attribute("href", "#/bots/ann-bot")
    expect(page.locator(".bot-card[data-bot='ann-bot'] dd").nth(2)).to_have_text("yes")  # connected
    # The session cookie is not the page scripts' to read.
    assert page.evaluate("document.cookie") == ""
    cookie = next(c for c in page.context.cookies() if c["name"] == "arena_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and tokens["ann"] not in cookie["value"]
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("main h1")).to_have_text("Sign in")
    page.reload()
    expect(page.locator("main h1")).to_have_text("Sign in")


def test_a_bot_registered_and_rotated_shows_its_token_once_with_the_command(
    owners: tuple[WebArena, dict[str, str]], page: Page
) -> None:
    web, tokens = owners
    sign_in(page, web, tokens["ben"])
    form = page.locator("form#register")
    form.get_by_label("Name").fill("bad name")
    form.get_by_role("button", name="Register").click()
    expect(form.locator("[data-error-for='name']")).to_have_text("a bot name is 1-40 letters, digits, '-', '_' or '.'")
    form.get_by_label("Name").fill("ben-web")
    form.get_by_role("button", name="Register").click()
    box = page.locator(".token-box")
    expect(box.locator("h2")).to_have_text("New token for ben-web")
    token = box.locator("code.token").inner_text()
    assert bot_of(web, token) == "ben-web"
    port = web.arena.server.port
    expect(box.locator("code.command")).to_have_text(
        f"python sample_bots/python/heuristic_bot.py --server 127.0.0.1:{port} --token {token}"
    )
    expect(box.get_by_role("button", name="Copy token")).to_be_visible()
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator(".bot-card[data-bot='ben-web']").get_by_role("button", name="Rotate token").click()
    expect(box.locator("code.token")).not_to_have_text(token)
    rotated = box.locator("code.token").inner_text()
    assert bot_of(web, token) is None
    assert bot_of(web, rotated) == "ben-web"
    page.reload()  # shown once: gone from the page once it is left
    expect(page.locator(".bot-card[data-bot='ben-web']")).to_be_visible()
    expect(page.locator(".token-box")).to_have_count(0)


def test_a_challenge_from_the_page_creates_a_match_seen_at_its_link(
    owners: tuple[WebArena, dict[str, str]], page: Page
) -> None:
    web, tokens = owners
    sign_in(page, web, tokens["ann"])
    page.get_by_role("link", name="Start a challenge").click()
    expect(page.locator("main h1")).to_have_text("Challenge")
    page.get_by_label("Your bot").select_option("ann-bot")
    page.get_by_label("Seat 2").select_option("builtin:heuristic")
    page.get_by_label("Game").select_option("board13")
    page.get_by_role("button", name="Start the match").click()
    link = page.locator("#challenge-result a")
    expect(link).to_be_visible()
    match_id = link.inner_text()
    page.screenshot(path=ARTIFACTS / "challenge-desktop.png", full_page=True)
    link.click()
    expect(page.locator("main")).to_have_attribute("data-route", f"#/matches/{match_id}")
    expect(page.locator("main h1")).to_contain_text(match_id)
    summary, _ = web.run(lambda: web.arena.finished(match_id))
    assert list(summary.seats) == ["ann-bot", "builtin:heuristic"]
    # A refusal is one line under the form.
    page.goto(f"{web.url}#/challenge")
    page.get_by_label("Seat 2").select_option("builtin:random")
    page.get_by_label("Game").select_option("friday13")  # three to five players, two seats
    page.get_by_role("button", name="Start the match").click()
    refusal = page.locator("form#challenge [data-error-for='']")
    expect(refusal).to_be_visible()
    assert "\n" not in refusal.inner_text() and refusal.inner_text()


def test_a_forged_change_from_another_site_does_nothing(owners: tuple[WebArena, dict[str, str]], page: Page) -> None:
    web, tokens = owners
    sign_in(page, web, tokens["ann"])
    before = web.run(lambda: web.arena.server.store.redis.zcard(keys.challenges_hour("ann")))
    # Another site (localhost is not 127.0.0.1 to the browser) posts to the arena from the owner's browser.
    other = web.url.replace("127.0.0.1", "localhost")
    page.goto(f"{other}#/bots")
    page.evaluate(
        """async (target) => {
          for (const path of ["api/me/bots", "api/me/bots/ann-bot/token", "api/me/challenges"]) {
            await fetch(target + path, { method: "POST", mode: "no-cors", credentials: "include",
              headers: { "Content-Type": "text/plain" }, body: JSON.stringify({ name: "forged", games: ["friday13"],
              bot: "ann-bot", opponents: ["builtin:random", "builtin:random"], game: "friday13" }) });
          }
        }""",
        web.url,
    )
    assert web.run(lambda: web.arena.server.store.get_bot("forged")) is None
    assert bot_of(web, tokens["ann-bot"]) == "ann-bot"
    assert web.run(lambda: web.arena.server.store.redis.zcard(keys.challenges_hour("ann"))) == before
    page.goto(f"{web.url}#/me")
    expect(page.locator("main h1")).to_have_text("My bots")  # still signed in on the arena's own pages


def test_the_owner_pages_fit_a_phone_without_scrolling_sideways(
    owners: tuple[WebArena, dict[str, str]], page: Page
) -> None:
    web, tokens = owners
    page.set_viewport_size(PHONE)
    page.goto(f"{web.url}#/me")
    expect(page.locator("main h1")).to_have_text("Sign in")
    assert fits(page, PHONE["width"]) == []
    sign_in(page, web, tokens["ann"])
    page.locator(".bot-card[data-bot='ann-bot']").get_by_role("button", name="Rotate token").click()  # dismissed
    page.screenshot(path=ARTIFACTS / "my-bots-phone.png", full_page=True)
    assert fits(page, PHONE["width"]) == []
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator(".bot-card[data-bot='ann-bot']").get_by_role("button", name="Rotate token").click()
    expect(page.locator(".token-box code.command")).to_be_visible()
    assert fits(page, PHONE["width"]) == []
    page.goto(f"{web.url}#/challenge")
    expect(page.locator("main h1")).to_have_text("Challenge")
    page.screenshot(path=ARTIFACTS / "challenge-phone.png", full_page=True)
    assert fits(page, PHONE["width"]) == []


@pytest.mark.sandbox
def test_a_hosted_version_uploaded_from_the_browser_passes_its_validation(
    owners: tuple[WebArena, dict[str, str]], page: Page, tmp_path: Path
) -> None:
    web, tokens = owners
    package = tmp_path / "bot.tar.gz"
    package.write_bytes(pack(REPO / "sample_bots" / "python").data)
    sign_in(page, web, tokens["ann"])
    card = page.locator(".bot-card[data-bot='ann-bot']")
    # Too large: refused on the page before a byte is sent, one line beside the file.
    (tmp_path / "big.tar.gz").write_bytes(bytes(20_000_001))
    card.get_by_label("Package (.tar.gz of the bot's folder)").set_input_files(tmp_path / "big.tar.gz")
    card.get_by_label("Run command").fill("python random_bot.py")
    card.get_by_role("button", name="Upload and validate").click()
    expect(card.locator("[data-error-for='package']")).to_have_text(
        "the package is 20,000,001 bytes, over the limit of 20.0 MB: leave out what the bot does not need"
    )
    card.get_by_label("Package (.tar.gz of the bot's folder)").set_input_files(package)
    card.get_by_label("Validation game").select_option("friday13")
    card.get_by_role("button", name="Upload and validate").click()
    result = page.locator(".bot-card[data-bot='ann-bot'] .upload-result p")
    expect(result).to_contain_text("Version 1: ok", timeout=VALIDATION * 1000)
    row = page.locator(".bot-card[data-bot='ann-bot'] tr[data-version='1']")
    expect(row).to_have_attribute("data-status", "ok")
    expect(page.locator(".bot-card[data-bot='ann-bot'] details.run")).not_to_have_count(0)
    page.screenshot(path=ARTIFACTS / "my-bots-desktop.png", full_page=True)
    # Another owner's bot is not theirs to upload to: ben sees only his own cards.
    page.get_by_role("button", name="Sign out").click()
    sign_in(page, web, tokens["ben"])
    expect(page.locator(".bot-card[data-bot='ann-bot']")).to_have_count(0)
