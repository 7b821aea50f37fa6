"""Why a bot lost, on the match page: its forfeit and strikes in words, and the bots' debug text at
each step once the match has ended, while nobody but the talker's owner saw that text before.

One real match: an SDK bot that says a secret word about every move (`turn.debug`), a bot answering
by hand that plays three illegal actions and forfeits, and a built-in bot. While it runs, everything
another person can read of it (the web API, its live stream, GetMatch, WatchMatch) and every message
the other bot receives is kept, and none holds the word.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from playwright.sync_api import Page, expect

from arena.match import Clock
from arena.node.work import WorkConfig
from arena.sdk import Bot, Turn
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import RawBot, bearer
from tests.web.conftest import WebArena, arena_in_thread
from tests.web.test_clock import step_of
from tests.web.test_pages import page, visit

__all__ = ["page"]

SECRET = "okapi-4e1d"
"""The talker's word: until the match ends, only its owner may read it."""
ILLEGAL = 10_000
"""An action id no friday13 action has."""


class Talker(Bot):
    """Plays the lowest legal action and says why, with the secret word."""

    def act(self, turn: Turn) -> int:
        turn.debug(f"{SECRET}: lowest of {len(turn.legal_actions)} choices")
        return min(turn.legal_actions)


@dataclass
class Seen:
    """What others could read of the match while it ran."""

    match_id: str = ""
    api: str = ""
    get_match: str = ""
    get_match_other: str = ""
    """As the owner of the other bot."""
    watch: list[bytes] = field(default_factory=list)
    stream: str = ""
    received: list[bytes] = field(default_factory=list)
    """Every message the bot by hand received during the match."""


def read_stream(url: str) -> str:
    """The match's Server-Sent Events, as text, until its end event (the match has ended)."""
    lines = []
    with urllib.request.urlopen(url, timeout=60) as response:
        for raw in response:
            line = raw.decode()
            lines.append(line)
            if lines[-2:-1] == ["event: end\n"]:
                return "".join(lines)
    return "".join(lines)


async def follow(watch: Any, into: list[bytes]) -> None:
    """Keep every WatchMatch update until the stream ends."""
    while (update := await watch.read()) is not grpc.aio.EOF:
        into.append(update.SerializeToString())


async def play(web: WebArena, seen: Seen) -> None:
    arena = web.arena
    talker, other = await arena.owner("why"), await arena.owner("other")
    await arena.connect(Talker, await arena.bot(talker, "talker", ("friday13",)))
    loser = RawBot(arena, await arena.bot(other, "by-hand", ("friday13",)))
    await loser.connect()
    match_id = seen.match_id = await arena.create_match(
        "friday13", ["talker", "by-hand", "builtin:random"], seed="5eed", clock=Clock(60, 120)
    )
    watch = arena.api.WatchMatch(api_pb.WatchMatchRequest(match_id=match_id))
    stream: asyncio.Future[str] | None = None
    watching: asyncio.Future[None] | None = None
    strikes = 0
    while True:
        message = await loser.read(30)
        seen.received.append(message.SerializeToString())
        kind = message.WhichOneof("message")
        if kind == "action_request" and message.action_request.match_id == match_id:
            request = message.action_request
            talked = any(move.seat == 0 for move in request.observation.cards.moves)
            if stream is None and talked:
                # The talker has spoken and the match waits on this bot: look at it as anyone may.
                assert match_id in arena.server.host.live
                stream = asyncio.ensure_future(
                    asyncio.to_thread(read_stream, f"{web.url}api/matches/{match_id}/stream")
                )
                status, body = await asyncio.to_thread(web.get, f"api/matches/{match_id}")
                assert status == 200 and "live" in body
                seen.api = json.dumps(body)
                reply = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))
                assert not reply.match.ended_ms
                seen.get_match = reply.replay_json
                # The talker's owner reads what it said so far; the other bot's owner does not.
                as_owner = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id), metadata=bearer(talker))
                said = json.loads(as_owner.replay_json)["debug"]
                assert said and all(seat == 0 and text.startswith(SECRET) for _, seat, text in said)
                as_other = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id), metadata=bearer(other))
                seen.get_match_other = as_other.replay_json
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id), metadata=bearer("mistyped"))
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
                seen.watch.append((await watch.read()).SerializeToString())
                watching = asyncio.ensure_future(follow(watch, seen.watch))
            if stream is not None and strikes < 3:
                strikes += 1
                await loser.act(match_id, request.request_id, ILLEGAL)
            else:
                await loser.act(match_id, request.request_id, request.legal_actions[0].id)
        elif kind == "match_ended" and message.match_ended.match_id == match_id:
            break
    assert stream is not None and watching is not None and strikes == 3, "the bot by hand moved after the talker"
    await asyncio.wait_for(watching, 30)
    seen.stream = await asyncio.wait_for(stream, 60)
    await arena.finished(match_id)
    await loser.close()


@pytest.fixture(scope="module")
def lost(redis_server: str) -> Iterator[tuple[WebArena, Seen]]:
    seen = Seen()

    async def played(web: WebArena) -> None:
        await play(web, seen)

    with arena_in_thread(redis_server, WorkConfig(claim_idle=1.0), played, "why-arena") as web:
        yield web, seen


def test_no_one_but_the_owner_reads_the_debug_text_while_the_match_runs(lost: tuple[WebArena, Seen]) -> None:
    web, seen = lost
    assert seen.api and seen.get_match and seen.watch and seen.stream and seen.received
    assert SECRET not in seen.api and SECRET not in seen.get_match
    assert "debug" not in json.loads(seen.get_match)
    assert seen.get_match_other and SECRET not in seen.get_match_other
    assert "event: end" in seen.stream
    assert [SECRET not in text for text in seen.stream.split("\n\n")] == [True] * len(seen.stream.split("\n\n"))
    assert not [update for update in seen.watch if SECRET.encode() in update]
    assert not [message for message in seen.received if SECRET.encode() in message]
    # Once the match has ended, everyone reads it: the replay holds every one of the talker's texts.
    record = web.replay(seen.match_id)
    assert record["debug"] and all(seat == 0 and text.startswith(SECRET) for _, seat, text in record["debug"])
    status, body = web.get(f"api/matches/{seen.match_id}")
    assert status == 200 and body["replay"]["debug"] == record["debug"]


def test_the_api_names_the_forfeit_and_each_strike_in_words(lost: tuple[WebArena, Seen]) -> None:
    web, seen = lost
    status, body = web.get(f"api/matches/{seen.match_id}")
    assert status == 200 and body["match"]["termination"] == "forfeit"
    forfeits = [fault for fault in body["faults"] if fault["forfeit"]]
    strikes = [fault for fault in body["faults"] if not fault["forfeit"]]
    assert [(f["seat"], f["bot"], f["kind"]) for f in forfeits] == [(1, "by-hand", "strikes")]
    assert [(f["seat"], f["bot"], f["kind"]) for f in strikes] == [(1, "by-hand", "illegal")] * 3
    moves = [f["move"] for f in strikes]
    assert forfeits[0]["words"] == (
        f"seat 1 (by-hand) forfeited at move {moves[2]}: three strikes: "
        + ", ".join(f"illegal at move {move}" for move in moves)
    )
    assert strikes[0]["words"].startswith(f"seat 1 (by-hand) got a strike at move {moves[0]}: illegal action: ")


def test_the_match_page_shows_why_and_what_the_bot_said(lost: tuple[WebArena, Seen], page: Page) -> None:
    web, seen = lost
    record = web.replay(seen.match_id)
    body: dict[str, Any] = web.get(f"api/matches/{seen.match_id}")[1]
    forfeit = next(fault for fault in body["faults"] if fault["forfeit"])
    visit(page, web, f"matches/{seen.match_id}")
    listed = page.locator("#faults li")
    expect(listed).to_have_count(4)
    expect(listed.first).to_contain_text(forfeit["words"])
    # Its button goes to the step of the forfeit, which names it there.
    listed.first.get_by_role("button").click()
    expect(page.locator("#step-status")).to_contain_text(f"Step {step_of(record, forfeit['move'])} of")
    expect(page.locator("#move-faults")).to_have_text(forfeit["words"])
    # At one of the talker's moves, what it said about it.
    move, _, text = record["debug"][0]
    visit(page, web, f"matches/{seen.match_id}?step={step_of(record, move)}")
    expect(page.locator("#move-debug")).to_contain_text(f"Seat 0 (talker) said:{text}")
    page.keyboard.press("ArrowRight")  # the next move is another seat's: nothing said
    expect(page.locator("#move-debug")).to_have_text("")
