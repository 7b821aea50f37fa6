"""The Python SDK against a real server: it plays, resumes after a lost stream, and says when refused."""

from __future__ import annotations

import asyncio
import socket

import pytest

from arena.node.sessions import Session
from arena.sdk import Bot, BotRejected, Client, Turn
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio


class LowestCard(Bot):
    """Reads the observation on every turn, as a real bot would."""

    def act(self, turn: Turn) -> int:
        assert turn.observation.seat == turn.seat
        assert set(turn.observation.legal_actions) == set(turn.legal_actions)
        return min(turn.legal_actions)


async def test_the_sdk_resumes_its_session_after_a_lost_stream_and_finishes_its_match(arena: Arena) -> None:
    tokens = await arena.bots("steady")
    client = await arena.connect(LowestCard, tokens["steady"], matches=1)
    first_session = client.session_id
    match_id = await arena.create_match("friday13", ["steady", "builtin:random", "builtin:random"])
    session: Session = arena.server.sessions.by_id[first_session]
    for _ in range(3):
        await asyncio.sleep(0.05)
        session.hang_up(session.stream, "dropped by the test")
    summary, record = await arena.finished(match_id)
    assert record["forfeited"] == [] and summary.termination == 1
    assert client.session_id == first_session
    assert [ended.match_id for ended in client.ended] == [match_id]


async def test_the_sdk_stops_with_a_clear_error_when_the_token_is_refused(arena: Arena) -> None:
    client = Client(LowestCard, arena.address, "atb_not-a-token")
    with pytest.raises(BotRejected, match="token is not valid"):
        await asyncio.wait_for(client.run(), 5)


async def test_the_sdk_given_several_nodes_moves_on_to_the_next_when_one_is_down(arena: Arena) -> None:
    tokens = await arena.bots("roamer")
    with socket.socket() as probe:  # a port nobody listens on: a node that is down
        probe.bind(("127.0.0.1", 0))
        down = f"127.0.0.1:{probe.getsockname()[1]}"
    client = Client(LowestCard, f"{down}, {arena.address}", tokens["roamer"], max_matches=1, matches=1, backoff=0.05)
    task = asyncio.create_task(client.run())
    try:
        await asyncio.wait_for(client.welcomed.wait(), 10)
        assert client.addresses == [down, arena.address]
        match_id = await arena.create_match("friday13", ["roamer", "builtin:random", "builtin:random"])
        summary, _ = await arena.finished(match_id)
        assert summary.termination == 1
    finally:
        client.stop()
        await asyncio.gather(task, return_exceptions=True)
