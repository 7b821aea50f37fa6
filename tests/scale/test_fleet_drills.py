"""A fleet of two `arena serve` nodes on one Redis, as an orchestrator runs them, faults and all.

- A node is killed with SIGKILL and started again under its own name and port a few seconds later
  (what a container runtime does), its bots connected to it alone: no match is forfeited or
  aborted, and every match is rated once.
- A node is stopped with SIGSTOP past its lease and then let go: it writes nothing for the matches
  it lost (another node finished them), and no result is counted twice.

Deadlines come from what they wait for: the claim delay, the heartbeat's lapse, the grace period,
and the time the tournament takes on a quiet machine, with room for a loaded one.
"""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import pytest
from redis.asyncio import Redis

from arena.node.tournaments import create_tournament
from arena.store import Store
from arena.store.relay import HEARTBEAT_TTL_MS
from arena.store.tournaments import TournamentStore
from tests.scale.fleet import (
    CLAIM_IDLE_MS,
    GRACE_MS,
    bots,
    each_match_rated_once,
    finished,
    fleet,
    matches_done,
    round_robin,
)


@pytest.mark.asyncio
async def test_a_node_restarted_under_its_own_name_costs_no_forfeit_and_no_abort(
    redis_url: str, tmp_path: Path
) -> None:
    redis = Redis.from_url(redis_url)
    spec = round_robin("restart", ("ann", "bob", "cy", "dan"), rounds=2)
    with fleet(redis_url, tmp_path) as (victim, survivor):
        # Each bot connected to one node alone: the victim's come back to it once it is back.
        placed = {"ann": victim.address, "bob": victim.address, "cy": survivor.address, "dan": survivor.address}
        async with bots(placed):
            await create_tournament(Store(redis), spec, "admin", admin=True)
            await matches_done(redis, "restart", spec.total_matches // 3, within=120)
            victim.signal(signal.SIGKILL)
            await asyncio.sleep(3)
            victim.start()  # the same name and port, as an orchestrator restarts a container
            # The victim's orders wait out the claim delay; its bots' seats elsewhere, the heartbeat's lapse.
            recovery = (CLAIM_IDLE_MS + HEARTBEAT_TTL_MS + GRACE_MS) / 1000
            await finished(redis, "restart", within=recovery + 240, nodes=(victim, survivor))
        endings = await each_match_rated_once(redis, spec)
    await redis.aclose()
    assert endings == ["normal"] * spec.total_matches, f"forfeits or aborts: {endings}"
    assert await TournamentStore(Redis.from_url(redis_url)).aborts_noted("restart") == 0


@pytest.mark.asyncio
async def test_a_node_paused_past_its_lease_writes_nothing_for_the_matches_it_lost(
    redis_url: str, tmp_path: Path
) -> None:
    redis = Redis.from_url(redis_url)
    spec = round_robin("pause", ("ann", "bob", "cy", "dan"), rounds=2)
    with fleet(redis_url, tmp_path) as (paused, living):
        # Bots may reach both nodes: a stopped node's streams end by keepalive, and they move on.
        both = f"{paused.address},{living.address}"
        async with bots(dict.fromkeys(("ann", "bob", "cy", "dan"), both)):
            await create_tournament(Store(redis), spec, "admin", admin=True)
            await matches_done(redis, "pause", spec.total_matches // 3, within=120)
            paused.signal(signal.SIGSTOP)
            # What it stored before it stopped is its own, though it may not have acknowledged the order yet:
            # the living node that takes such an order over finds the result stored and plays nothing.
            await asyncio.sleep(0.5)
            stored_before = {
                m for n in range(spec.total_matches) if await Store(redis).get_match(m := spec.match_id(n))
            }
            # Past its lease: the living node claims its orders and plays them on.
            await asyncio.sleep(CLAIM_IDLE_MS / 1000 * 4)
            paused.signal(signal.SIGCONT)
            await finished(redis, "pause", within=240, nodes=(paused, living))
        await each_match_rated_once(redis, spec)
        # Every match the living node took over was stored by it: the paused node, back, stored none of them,
        # unless the living node handed the order on again (a new order, which any node may then take).
        resumed = {line.split("resuming match ")[1].split()[0] for line in living.lines if "resuming match " in line}
        assert resumed, f"the living node took over no match of the paused one; see {living.log}"
        handed_on = {
            hit[1]
            for line in living.lines
            if (hit := re.search(r"match (\S+): (handed on, |.*giving the order back)", line))
        }
        store = Store(redis)
        for match_id in resumed - handed_on - stored_before:
            found = await store.get_match(match_id)
            assert found is not None and found[0].node.startswith("node-b#"), (match_id, found and found[0].node)
    await redis.aclose()
