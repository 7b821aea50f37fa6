"""The web UI draws countdown13 (tests/fourth_game) from its kit's drawing description ("facts"), live
and in replay, in a real browser, though app.js knows no game by name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from arena.node.work import WorkConfig
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.fourth_game.countdown import NAME, registered
from tests.server.conftest import ADMIN, RawBot, bearer
from tests.web.conftest import WebArena, arena_in_thread
from tests.web.test_pages import page, visit

__all__ = ["page"]
"""The browser tests' page fixture, used here as it is."""

PILE = 9


@pytest.fixture(scope="module", autouse=True)
def countdown_registered() -> Iterator[None]:
    with registered():
        yield


@pytest.fixture(scope="module")
def countdown_arena(redis_server: str) -> Iterator[WebArena]:
    """An arena that has played one countdown13 match between built-in bots."""

    async def played(web: WebArena) -> None:
        request = api_pb.CreateMatchRequest(
            game=pb.GameSpec(game=NAME, params={"pile": str(PILE)}), seats=["builtin:random", "builtin:random"]
        )
        match_id = (await web.arena.api.CreateMatch(request, metadata=bearer(ADMIN))).match_id
        await web.arena.finished(match_id)
        web.matches[NAME] = match_id

    with arena_in_thread(redis_server, WorkConfig(claim_idle=1.0), played, "countdown-web") as web:
        yield web


def test_a_replay_of_the_fourth_game_is_drawn_as_facts_step_by_step(countdown_arena: WebArena, page: Page) -> None:
    match_id = countdown_arena.matches[NAME]
    record = countdown_arena.replay(match_id)
    visit(page, countdown_arena, f"matches/{match_id}")
    left = page.locator(".facts-view dd").first
    expect(left).to_have_text(str(PILE))
    page.locator("#replay").focus()
    for move in record["rounds"][0]["moves"]:
        page.keyboard.press("ArrowRight")
        expect(page.locator("#move-text")).to_contain_text(
            f"Seat {move['seat']} (builtin:random) played {move['move']}."
        )
    expect(left).to_have_text("0")
    assert page.locator("td.final-score").all_inner_texts() == [str(score) for score in record["scores"]]


def test_a_live_match_of_the_fourth_game_shows_its_public_facts(countdown_arena: WebArena, page: Page) -> None:
    async def hold() -> tuple[str, RawBot]:
        arena = countdown_arena.arena
        bot = RawBot(arena, await arena.bot(await arena.owner("slow"), "slow", (NAME,)))
        await bot.connect()
        request = api_pb.CreateMatchRequest(game=pb.GameSpec(game=NAME), seats=["slow", "builtin:random"])
        return (await arena.api.CreateMatch(request, metadata=bearer(ADMIN))).match_id, bot

    match_id, bot = countdown_arena.run(hold)
    request = countdown_arena.run(lambda: bot.expect("action_request")).action_request
    try:
        visit(page, countdown_arena, f"matches/{match_id}")
        expect(page.locator(".live-badge")).to_be_visible()
        expect(page.locator(".facts-view dd").first).to_have_text("13")
        expect(page.locator(".facts-view li.to-move")).to_have_text("Seat 0: slow (to move)")
        _, shown = countdown_arena.get(f"/api/matches/{match_id}")
        assert shown["live"]["record"]["rounds"] == [{"moves": []}], "the lucky numbers stay hidden"
        assert shown["live"]["view"] == {
            "kind": "facts",
            "current_player": 0,
            "facts": [["Counters left", 13], ["Takes so far", 0]],
        }
    finally:
        countdown_arena.run(lambda: bot.act(match_id, request.request_id, request.legal_actions[0].id))
        countdown_arena.run(lambda: bot.play_on(match_id))
        countdown_arena.run(bot.close)
    expect(page.locator("#replay")).to_be_visible(timeout=10000)
