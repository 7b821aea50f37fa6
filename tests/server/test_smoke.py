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
