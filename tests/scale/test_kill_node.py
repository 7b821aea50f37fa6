"""Two `arena serve` processes on one Redis; one is killed with SIGKILL in the middle of a tournament.

The other node takes over the dead node's matches and resumes them from their event streams. The
tournament ends with every match counted once (its result stored once, the ratings changed once
per match) and every result is what the engine gives for the match's seed and recorded moves.
The bots are SDK random bots that know both nodes' addresses, the cheapest that play real
sessions; deadlines come from the claim delay, the heartbeat's lapse and the grace period.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from arena.games import make_game
from arena.node.tournaments import create_tournament
from arena.store import Store, keys
from arena.store.codec import text
from arena.store.relay import HEARTBEAT_TTL_MS
from tests.scale.fleet import CLAIM_IDLE_MS, GRACE_MS, bots, each_match_rated_once, finished, fleet, round_robin


async def running_at(redis: Redis, node: str) -> dict[str, int]:
    """The matches pending at (any incarnation of) `node` and how many actions each has in its event stream."""
    consumers: Any = await redis.xinfo_consumers(keys.WORK, keys.WORK_GROUP)
    pending: list[Any] = []
    for consumer in consumers:
        name = text(consumer["name"])
        if name.startswith(f"{node}#"):
            pending += await redis.xpending_range(keys.WORK, keys.WORK_GROUP, "-", "+", 100, consumername=name)
    found = {}
    for entry in pending:
        entries: Any = await redis.xrange(keys.WORK, entry["message_id"], entry["message_id"])
        for _, fields in entries:
            match_id = json.loads(fields[b"order"])["match_id"]
            found[match_id] = await redis.xlen(keys.match_events(match_id)) - 1
    return found


@pytest.mark.asyncio
async def test_a_killed_nodes_matches_are_resumed_elsewhere_and_counted_once(redis_url: str, tmp_path: Path) -> None:
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    spec = round_robin("kill9", ("ann", "bob", "cy", "dan"), rounds=2)
    with fleet(redis_url, tmp_path) as (victim, survivor):
        both = f"{victim.address},{survivor.address}"
        async with bots(dict.fromkeys(spec.entrants, both)):
            await create_tournament(store, spec, "admin", admin=True)
            deadline = time.monotonic() + 120
            interrupted: dict[str, int] = {}
            while not interrupted:
                assert time.monotonic() < deadline, "the first node never had a match under way"
                interrupted = {m: n for m, n in (await running_at(redis, victim.name)).items() if n > 0}
                await asyncio.sleep(0.02)
            victim.signal(signal.SIGKILL)
            recovery = (CLAIM_IDLE_MS + HEARTBEAT_TTL_MS + GRACE_MS) / 1000
            await finished(redis, "kill9", within=recovery + 240, nodes=(survivor,))
        endings = await each_match_rated_once(redis, spec)
    assert endings == ["normal"] * spec.total_matches, endings
    game = make_game("friday13", players=3)
    for match_id in (spec.match_id(n) for n in range(spec.total_matches)):
        found = await store.get_match(match_id)
        assert found is not None and found[1] is not None
        summary, record = found[0], found[1]
        outcome = game.replay(record).outcome()
        assert (list(outcome.scores), list(outcome.ranks)) == (summary.scores, summary.ranks)
    for match_id, recorded in interrupted.items():
        stored = await store.get_match(match_id)
        assert stored is not None and stored[1] is not None
        moves = [move for entry in stored[1]["rounds"] for move in entry["moves"]]
        assert len(moves) >= recorded, f"{match_id} resumed after its {recorded} recorded moves"
        assert stored[0].node.startswith(f"{survivor.name}#"), "the survivor played it to its end"
    await redis.aclose()
