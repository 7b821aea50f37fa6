from __future__ import annotations

import pytest

from tests.server.conftest import Arena, HeuristicBot, RandomBot

pytestmark = pytest.mark.asyncio


async def test_a_match_between_connected_bots_ends_and_is_stored(arena: Arena) -> None:
    tokens = await arena.bots("ann", "bob", "cid")
    await arena.connect(RandomBot, tokens["ann"])
    await arena.connect(HeuristicBot, tokens["bob"])
    await arena.connect(RandomBot, tokens["cid"])
    match_id = await arena.create_match("friday13", ["ann", "bob", "cid", "builtin:heuristic"])
    summary, record = await arena.finished(match_id)
    assert summary.termination == 1
    assert record["seats"] == ["ann", "bob", "cid", "builtin:heuristic"]


async def test_a_board13_match_between_an_sdk_bot_and_a_builtin_bot_ends_and_is_stored(arena: Arena) -> None:
    tokens = await arena.bots("stone")
    client = await arena.connect(HeuristicBot, tokens["stone"])
    match_id = await arena.create_match("board13", ["stone", "builtin:random"], players=2)
    summary, record = await arena.finished(match_id)
    assert summary.termination == 1 and record["game"] == "board13"
    assert [ended.match_id for ended in client.ended] == [match_id]
