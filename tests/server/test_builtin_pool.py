"""Built-in bots think in the pool's worker processes: no built-in bot slows another match, a
worker that dies is started again, and a full pool refuses a seat in one line."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import statistics
import time

import pytest
from prometheus_client import REGISTRY

from arena.bots import StaticTurn, make_bot
from arena.games import make_game
from arena.node.builtin_pool import PoolConfig
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import Arena, RandomBot, start_arena

pytestmark = pytest.mark.asyncio


def counter(name: str, labels: dict[str, str] | None = None) -> float:
    return REGISTRY.get_sample_value(name, labels or {}) or 0.0


async def honest_match_seconds(arena: Arena, seats: list[str]) -> float:
    started = time.perf_counter()
    match_id = await arena.create_match("friday13", seats)
    summary, _ = await arena.finished(match_id, timeout=300)
    assert summary.termination == pb.TERMINATION_NORMAL
    return time.perf_counter() - started


async def test_a_match_of_sdk_bots_is_not_slowed_by_built_in_monte_carlo_matches(redis_url: str) -> None:
    """A tournament of builtin:mc once took an honest match from 0.12 s to 73.6 s (the search held the GIL)."""
    async with start_arena(redis_url) as arena:
        tokens = await arena.bots("h1", "h2", "h3")
        for token in tokens.values():
            await arena.connect(RandomBot, token)
        honest = list(tokens)
        alone = statistics.median([await honest_match_seconds(arena, honest) for _ in range(3)])
        searching = [await arena.create_match("friday13", ["builtin:mc"] * 4) for _ in range(6)]
        await asyncio.sleep(0.5)  # the workers have started and search
        beside = statistics.median([await honest_match_seconds(arena, honest) for _ in range(3)])
        # Generous: the workers leave the node a core of its own, but share the machine's cores.
        assert beside < 5 * alone + 1.0, f"alone {alone:.3f} s, beside builtin:mc {beside:.3f} s"
        assert arena.server.host.builtin.held() > 0, "the Monte Carlo matches still ran beside the honest ones"
        assert len(searching) == 6  # left to the arena's stop: minutes of search on a small machine


async def test_a_built_in_bot_keeps_its_state_for_the_whole_match_in_its_worker(redis_url: str) -> None:
    """The server's match ends as the same bots, seeded alike and kept for the whole match, play it here."""
    async with start_arena(redis_url) as arena:
        seed = bytes.fromhex("0d0e0a0d")
        match_id = await arena.create_match("friday13", ["builtin:random"] * 3, seed=seed.hex())
        summary, _ = await arena.finished(match_id)
    game = make_game("friday13", players=3)
    state = game.new_match(seed)
    bots = [
        make_bot("random", game, index, seed=int.from_bytes(hashlib.sha256(seed + bytes([index])).digest()[:4], "big"))
        for index in range(3)
    ]
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(bots[seat].act(StaticTurn(seat, state.legal_actions(), state.observation(seat))))
    assert list(summary.scores) == list(state.outcome().scores)


async def test_a_worker_that_dies_is_started_again_and_its_matches_end_normally(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        restarts = counter("arena_builtin_worker_restarts_total")
        match_id = await arena.create_match("board13", ["builtin:mc"] * 2)
        pool = arena.server.host.builtin
        deadline = time.monotonic() + 60
        while not any(worker.process is not None for worker in pool.workers):
            assert time.monotonic() < deadline, "a worker starts for the match's first move"
            await asyncio.sleep(0.01)
        for worker in pool.workers:
            if worker.process is not None:
                os.kill(worker.process.pid, signal.SIGKILL)
        summary, _ = await arena.finished(match_id, timeout=300)
        assert summary.termination == pb.TERMINATION_NORMAL
        assert counter("arena_builtin_worker_restarts_total") >= restarts + 1
        assert pool.held() == 0, "an ended match gives its seats back"


async def test_a_full_pool_makes_a_match_wait_for_room_and_serves_it_once_room_is_made(redis_url: str) -> None:
    """A match is an order on the work stream: one that finds the pool full is not refused but waits (each look
    counted as a refusal of the pool), and starts once an ended match gives its seats back."""
    async with start_arena(redis_url, builtin=PoolConfig(workers=1, seats_per_worker=3)) as arena:
        before = counter("arena_limit_refusals_total", {"limit": "builtin_busy"})
        first = await arena.create_match("friday13", ["builtin:mc"] * 3)  # thinks a while: holds the pool
        second = await arena.create_match("friday13", ["builtin:random"] * 3)
        deadline = time.monotonic() + 60
        while counter("arena_limit_refusals_total", {"limit": "builtin_busy"}) == before:
            assert time.monotonic() < deadline, "the second match finds the pool full while the first plays"
            await asyncio.sleep(0.01)
        # The seats come back as the first game ends, before its record is stored: so the second may start a
        # little before the first's ended_ms, never while the first is still being played.
        live = arena.server.host.live
        overlaps = 0
        while first in live:
            if second in live and not live[first].runner.state.is_terminal():
                overlaps += 1
            assert time.monotonic() < deadline + 240, "the first match ends"
            await asyncio.sleep(0.005)
        assert overlaps == 0, "the second match started only once the first game was over and gave its seats back"
        await arena.finished(first)
        summary, _ = await arena.finished(second)
        assert summary.termination == pb.TERMINATION_NORMAL
