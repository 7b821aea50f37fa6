"""The clock in replays: per move, how long a connected bot thought, its bank left and its strikes,
kept through the stored re-play form and shown on the replay page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from arena.match import Clock
from arena.node.work import WorkConfig
from tests.server.conftest import RandomBot, RawBot
from tests.web.conftest import WebArena, arena_in_thread
from tests.web.test_pages import page, visit

__all__ = ["page"]


@pytest.fixture(scope="module")
def clock_arena(redis_server: str) -> Iterator[WebArena]:
    """One match with a strike (an illegal first answer), one with a connected bot answering on time,
    and one of built-in bots only."""

    async def played(web: WebArena) -> None:
        arena = web.arena
        owner = await arena.owner("clocks")
        raw = RawBot(arena, await arena.bot(owner, "by-hand", ("friday13",)))
        await raw.connect()
        struck = await arena.create_match(
            "friday13", ["by-hand", "builtin:random", "builtin:heuristic"], seed="c1", clock=Clock(2.0, 5.0)
        )
        request = (await raw.expect("action_request")).action_request
        await raw.act(struck, request.request_id, 1000)
        await raw.expect("error")
        await raw.play_on(struck)
        await arena.connect(RandomBot, await arena.bot(owner, "steady", ("friday13",)))
        timed = await arena.create_match("friday13", ["builtin:random", "steady", "builtin:random"], seed="c2")
        untimed = await arena.create_match("friday13", ["builtin:random", "builtin:heuristic", "builtin:random"])
        for match_id in (struck, timed, untimed):
            await arena.finished(match_id)
        web.matches = {"struck": struck, "timed": timed, "untimed": untimed}

    with arena_in_thread(redis_server, WorkConfig(claim_idle=1.0), played, "clock-arena") as web:
        yield web


def moves(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [move for entry in record["rounds"] for move in entry["moves"]]


def test_the_record_keeps_each_timed_move_and_each_strike_through_the_store(clock_arena: WebArena) -> None:
    struck = clock_arena.replay(clock_arena.matches["struck"])
    clock = struck["clock"]
    assert (clock["per_move_ms"], clock["bank_ms"]) == (2000, 5000)
    played = moves(struck)
    assert len(clock["moves"]) == len(played)
    # The connected seat's moves are timed, the built-in bots' are not.
    assert all((timing is not None) == (move["seat"] == 0) for timing, move in zip(clock["moves"], played, strict=True))
    [[index, seat, message]] = clock["strikes"]
    assert index == next(i for i, move in enumerate(played) if move["seat"] == 0) and seat == 0
    assert message.startswith("strike 1 of 3: illegal action")
    assert all(0 <= bank <= 5000 and think >= 0 for think, bank in filter(None, clock["moves"]))
    assert "clock" not in clock_arena.replay(clock_arena.matches["untimed"])
    # The web API serves the same record.
    status, body = clock_arena.get(f"api/matches/{clock_arena.matches['struck']}")
    assert status == 200 and body["replay"]["clock"] == clock


def step_of(record: dict[str, Any], move: int) -> int:
    """The replay page's step of the record's move number `move`: one start frame per round, then its moves."""
    step = 0
    for entry in record["rounds"]:
        step += 1
        if move < len(entry["moves"]):
            return step + move
        move -= len(entry["moves"])
        step += len(entry["moves"])
    raise AssertionError("no such move")


def test_the_replay_page_shows_think_time_bank_and_strikes(clock_arena: WebArena, page: Page) -> None:
    match_id = clock_arena.matches["struck"]
    record = clock_arena.replay(match_id)
    [[index, _, message]] = record["clock"]["strikes"]
    visit(page, clock_arena, f"matches/{match_id}?step={step_of(record, index)}")
    line = page.locator("#move-clock")
    expect(line).to_contain_text(f"Seat 0: {message}")
    think, bank = record["clock"]["moves"][index]
    left = f"{bank // 1000} s" if bank % 1000 == 0 else f"{bank / 1000:.1f} s"
    expect(line).to_contain_text(f"Thought {think} ms; bank {left} left.")
    # A built-in bot's move right after it: not timed.
    page.keyboard.press("ArrowRight")
    expect(line).to_contain_text("Not timed")
    expect(line).not_to_contain_text("strike")
    # The round's first frame states the match's clock.
    page.keyboard.press("Home")
    expect(line).to_have_text("Clock: 2 s a move and a bank of 5 s per seat.")

    visit(page, clock_arena, f"matches/{clock_arena.matches['untimed']}?step=1")
    expect(page.locator("#move-clock")).to_have_text("No clock: every seat was a built-in bot.")
