"""The tournament pages tell the truth: a tournament with a match aborted for good, one waiting for a bot
that is not connected, a cancelled one, and two duplicate ones whose head-to-head order is settled and
not yet settled, each as the JSON API says, in a real browser."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from arena.node.work import WorkConfig
from arena.store.work import Delivery, MatchEvents
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, bearer
from tests.web.conftest import ARTIFACTS, MINUS, WebArena, arena_in_thread
from tests.web.test_pages import page, visit

__all__ = ["page"]

FAULT = "injected fault: the node failed while starting the match"
STOPPED = "stopped by an error on node "
"""How the node words the reason of a match its error stopped (the error's text follows)."""


def spec(name: str, entrants: list[str], rounds: int = 1) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=entrants,
        table_size=3,
        rounds=rounds,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    )


PAIRED = ["builtin:random", "builtin:heuristic"]
"""Entrants of the duplicate board13 tournaments: the heuristic wins every deal of these seeds against
random, so its advantage is the same on every deal and a few deals establish it (a match takes ms). Only
the admin chooses a seed."""


def paired_spec(name: str, rounds: int, seatings: int) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="board13"),
        entrants=PAIRED,
        table_size=2,
        rounds=rounds,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        duplicate=True,
        seatings=seatings,
        seed=name,
    )


async def populate(arena: Arena) -> None:
    """lost: its one match fails on the node in every attempt; waiting: for "ghost"; halted: cancelled;
    settled: four duplicate deals, early: one (no interval yet)."""
    work = arena.server.work
    assert work is not None
    play = work._play

    async def faulty(delivery: Delivery, events: MatchEvents) -> None:
        if delivery.order.tournament == "lost":
            raise RuntimeError(FAULT)
        await play(delivery, events)

    work._play = faulty  # type: ignore[method-assign]
    owner = await arena.owner("olga")
    await arena.bot(owner, "ghost")
    for name, entrants, rounds in [
        ("lost", ["builtin:random", "builtin:heuristic", "builtin:mc"], 1),
        ("waiting", ["ghost", "builtin:random", "builtin:mc"], 1),
        ("halted", ["ghost", "builtin:random", "builtin:heuristic"], 2),
    ]:
        await arena.api.CreateTournament(
            api_pb.CreateTournamentRequest(spec=spec(name, entrants, rounds)), metadata=bearer(owner)
        )
    await arena.api.CancelTournament(api_pb.CancelTournamentRequest(name="halted"), metadata=bearer(owner))
    for paired in (paired_spec("settled", rounds=4, seatings=2), paired_spec("early", rounds=1, seatings=0)):
        await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=paired), metadata=bearer(ADMIN))
    for name in ("lost", "settled", "early"):
        async for update in arena.api.WatchTournament(api_pb.WatchTournamentRequest(name=name), timeout=60):
            if update.tournament.finished_ms:
                break
    while True:
        waiting = (await arena.api.GetTournament(api_pb.GetTournamentRequest(name="waiting"))).tournament
        if list(waiting.waiting_for) == ["ghost"]:
            return
        await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
def faulty_arena(redis_server: str) -> Iterator[WebArena]:
    # The ghost's matches wait for it as long as the tests run.
    work = WorkConfig(claim_idle=1.0, seat_wait=60.0, max_attempts=10_000)

    async def faulty(web: WebArena) -> None:
        await populate(web.arena)

    with arena_in_thread(redis_server, work, faulty, "faulty-arena") as web:
        yield web


def tournament(web: WebArena, name: str) -> dict[str, Any]:
    status, shown = web.get(f"/api/tournaments/{name}")
    assert status == 200, shown
    found: dict[str, Any] = shown
    return found


def test_the_api_tells_aborted_waiting_and_cancelled_tournaments_apart(faulty_arena: WebArena) -> None:
    lost = tournament(faulty_arena, "lost")
    assert (lost["status"], lost["status_text"], lost["done"], lost["aborted"]) == (
        "finished-with-aborts",
        "finished with 1 aborted",
        0,
        1,
    )
    assert [(a["match_id"], a["rerun"]) for a in lost["aborted_matches"]] == [
        ("lost-0", "lost-0-try2"),
        ("lost-0-try2", "lost-0-try3"),
        ("lost-0-try3", ""),
    ]
    assert all(a["reason"].startswith(STOPPED) and FAULT in a["reason"] for a in lost["aborted_matches"])
    waiting = tournament(faulty_arena, "waiting")
    assert (waiting["status"], waiting["due"], waiting["waiting_for"]) == ("running", 1, ["ghost"])
    halted = tournament(faulty_arena, "halted")
    assert (halted["status"], halted["cancelled"], halted["cancelled_by"], halted["done"]) == (
        "cancelled",
        2,
        "olga",
        0,
    )
    _, listed = faulty_arena.get("/api/tournaments")
    assert {t["spec"]["name"]: t["status_text"] for t in listed["tournaments"]} == {
        "lost": "finished with 1 aborted",
        "waiting": "running",
        "halted": "cancelled",
        "settled": "finished",
        "early": "finished",
    }


def test_the_tournament_pages_show_status_aborted_attempts_with_reasons_and_whom_they_wait_for(
    faulty_arena: WebArena, page: Page
) -> None:
    visit(page, faulty_arena, "tournaments")
    expect(page.locator("tr[data-tournament=lost] .status")).to_contain_text("0 / 1 (finished with 1 aborted)")
    expect(page.locator("tr[data-tournament=waiting] .status")).to_contain_text("(running); waiting for ghost")
    expect(page.locator("tr[data-tournament=halted] .status")).to_contain_text("0 / 2 (cancelled)")

    visit(page, faulty_arena, "tournaments/lost")
    expect(page.locator(".status")).to_have_attribute("data-status", "finished-with-aborts")
    expect(page.locator(".status")).to_have_text("finished with 1 aborted")
    expect(page.locator("dd.counts")).to_have_text("0 done, 0 due, 0 re-running, 1 aborted, 0 cancelled")
    attempts = page.locator("tr[data-match]")
    expect(attempts).to_have_count(3)
    expect(attempts.first).to_be_hidden()  # folded under their count, however few
    page.get_by_text("3 aborted attempts: why, and their re-runs").click()
    expect(attempts.first).to_be_visible()
    expect(attempts.last.locator("a")).to_have_text("attempt 3")
    expect(attempts.last.locator("a")).to_have_attribute("title", "lost-0-try3")
    expect(attempts.last.locator(".reason")).to_contain_text(STOPPED)
    expect(attempts.last.locator(".reason")).to_contain_text(FAULT)
    expect(attempts.last).to_contain_text("not re-run")
    expect(attempts.first).to_contain_text("re-run as attempt 2")
    expect(attempts.first.locator("a").last).to_have_attribute("href", "#/matches/lost-0-try2")
    page.screenshot(path=ARTIFACTS / "tournament-aborted.png", full_page=True)

    visit(page, faulty_arena, "tournaments/waiting")
    expect(page.locator(".status")).to_have_text("running")
    expect(page.locator("dd.waiting")).to_have_text("ghost (registered, not connected to any node)")

    visit(page, faulty_arena, "tournaments/halted")
    expect(page.locator(".status")).to_have_text("cancelled")
    expect(page.locator("dl.facts")).to_contain_text("by olga")
    expect(page.locator("tr[data-match]")).to_have_count(0)


def test_the_api_pairs_bots_on_shared_deals_and_names_the_neighbours_not_yet_settled(faulty_arena: WebArena) -> None:
    settled = tournament(faulty_arena, "settled")
    assert [row["bot"] for row in settled["standings"]] == ["builtin:heuristic", "builtin:random"]
    assert [(row["games"], row["deals"]) for row in settled["standings"]] == [(8, 4), (8, 4)]
    (pair,) = settled["head_to_head"]
    heuristic, random = (row["mean_score"] for row in settled["standings"])
    assert (pair["first"], pair["second"], pair["deals"], pair["established"]) == (*reversed(PAIRED), 4, True)
    # Higher board13 points are better: the advantage is the first's mean minus the second's.
    assert pair["advantage"] == pytest.approx(heuristic - random, abs=1e-3) and pair["advantage"] > 0
    assert settled["unsettled"] == []
    early = tournament(faulty_arena, "early")
    (pair,) = early["head_to_head"]
    assert (pair["deals"], pair["ci95"], pair["established"]) == (1, None, False)
    assert early["unsettled"] == [list(reversed(PAIRED))]


def test_the_tournament_page_shows_established_and_unsettled_pairs_and_the_seating(
    faulty_arena: WebArena, page: Page
) -> None:
    pair = tournament(faulty_arena, "settled")["head_to_head"][0]
    visit(page, faulty_arena, "tournaments/settled")
    expect(page.locator("dd.seating")).to_have_text("duplicate, seat-fair, 2 seatings per deal")
    expect(page.locator("#standings thead th")).to_contain_text(["Games", "Deals"])
    size = f"{pair['advantage']:.2f} ± {pair['ci95']:.2f}"
    better = page.locator('#head-to-head td[data-row="builtin:heuristic"][data-col="builtin:random"]')
    worse = page.locator('#head-to-head td[data-row="builtin:random"][data-col="builtin:heuristic"]')
    expect(better).to_have_text(f"+{size}")
    expect(better).to_have_class("num h2h-better")
    expect(better).to_have_attribute(
        "aria-label",
        f"builtin:heuristic scores {pair['advantage']:.2f} points better per deal than builtin:random over 4 shared "
        f"deals (95% interval ±{pair['ci95']:.2f}): established",
    )
    expect(worse).to_have_text(f"{MINUS}{size}")
    expect(worse).to_have_class("num h2h-worse")
    expect(worse).to_have_attribute("title", re.compile("^builtin:random scores .* worse per deal .*: established$"))
    expect(page.locator("#head-to-head .order-notes")).to_have_text(
        "Every neighbour's place in the standings is established."
    )
    page.screenshot(path=ARTIFACTS / "tournament-settled.png", full_page=True)

    visit(page, faulty_arena, "tournaments/early")
    expect(page.locator("dd.seating")).to_have_text("duplicate, seat-fair")
    cell = page.locator('#head-to-head td[data-row="builtin:heuristic"][data-col="builtin:random"]')
    expect(cell).to_have_class("num h2h-open")
    expect(cell).to_have_attribute(
        "aria-label", re.compile(r"over 1 shared deal \(too few shared deals for an interval\)")
    )
    expect(page.locator("#head-to-head .order-notes p")).to_have_text(
        "Not yet established (more deals may settle them, or show them equal):"
    )
    expect(page.locator("#head-to-head .order-notes li")).to_have_text(["builtin:heuristic above builtin:random"])
