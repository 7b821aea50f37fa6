"""Two `arena serve` processes on one Redis; one is killed with SIGKILL in the middle of a tournament.

The other node takes over the dead node's matches and resumes them from their event streams. The
tournament ends with every match counted once (its result stored once, the ratings changed once
per match) and every result is what the engine gives for the match's seed and recorded moves.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from redis.asyncio import Redis

from arena.games import make_game
from arena.node.tournaments import create_tournament
from arena.store import Store, keys
from arena.store.codec import text
from arena.store.ratings import RatingStore
from arena.store.tournaments import TournamentStore
from arena.store.work import WorkQueue
from arena.tournaments import TournamentFormat, TournamentSpec
from tests.conftest import free_port

ENTRANTS = ("builtin:mc", "builtin:heuristic", "builtin:random")


@contextmanager
def nodes(redis_url: str, count: int) -> Iterator[list[subprocess.Popen[str]]]:
    env = {**os.environ, "ARENA_ADMIN_TOKEN": "ata_kill-test", "ARENA_CLAIM_IDLE_MS": "1500", "ARENA_MATCH_SLOTS": "3"}
    env["ARENA_WORKERS"] = "1"  # one process per node: its consumer name is host-pid (see `consumer`)
    processes = []
    try:
        for _ in range(count):
            serve = [sys.executable, "-m", "arena.cli", "serve", "--port", str(free_port()), "--redis-url", redis_url]
            process = subprocess.Popen(
                [*serve, "--http-port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
            )
            assert process.stdout is not None
            line = process.stdout.readline()
            assert "serving on" in line, line
            processes.append(process)
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def node_of(process: subprocess.Popen[str]) -> str:
    """The node's default name; its consumer in the work stream is `NAME#INCARNATION`."""
    return f"{socket.gethostname()}-{process.pid}"


async def running_at(redis: Redis, node: str) -> dict[str, int]:
    """The matches pending at (any incarnation of) `node` and how many actions each has in its event stream."""
    consumers: Any = await redis.xinfo_consumers(keys.WORK, keys.WORK_GROUP)
    pending: list[Any] = []
    for consumer in consumers:
        if text(consumer["name"]).startswith(f"{node}#"):
            name = text(consumer["name"])
            pending += await redis.xpending_range(keys.WORK, keys.WORK_GROUP, "-", "+", 100, consumername=name)
    found = {}
    for entry in pending:
        entries: Any = await redis.xrange(keys.WORK, entry["message_id"], entry["message_id"])
        for _, fields in entries:
            match_id = json.loads(fields[b"order"])["match_id"]
            found[match_id] = await redis.xlen(keys.match_events(match_id)) - 1
    return found


@pytest.mark.asyncio
async def test_a_killed_nodes_matches_are_resumed_elsewhere_and_counted_once(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    spec = TournamentSpec(
        "kill9",
        "friday13",
        ENTRANTS,
        format=TournamentFormat.ROUND_ROBIN,
        table_size=3,
        rounds=4,
        duplicate=True,
        rated=True,
        seed="kill",
    )
    try:
        with nodes(redis_url, 2) as (victim, survivor):
            await create_tournament(store, spec, "admin")
            deadline = time.monotonic() + 30
            interrupted: dict[str, int] = {}
            while time.monotonic() < deadline:
                interrupted = {m: n for m, n in (await running_at(redis, node_of(victim))).items() if n > 0}
                if interrupted:
                    break
                await asyncio.sleep(0.02)
            assert interrupted, "the first node never had a match under way"
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            tournaments = TournamentStore(redis)
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                state = await tournaments.get("kill9")
                if state is not None and state.finished_ms:
                    break
                assert survivor.poll() is None, "the surviving node stopped"
                await asyncio.sleep(0.1)
            else:
                raise TimeoutError("the tournament did not finish after the kill")
            while await WorkQueue(redis).backlog():  # every order acknowledged: ratings written too
                assert time.monotonic() < deadline, "orders left unacknowledged"
                await asyncio.sleep(0.05)
        results = await tournaments.results("kill9")
        assert sorted(r.match_id for r in results) == sorted(spec.match_id(n) for n in range(spec.total_matches))
        assert all(r.termination == "normal" for r in results)
        game = make_game("friday13", players=3)
        for result in results:
            found = await store.get_match(result.match_id)
            assert found is not None and found[1] is not None
            record = found[1]
            outcome = game.replay(record).outcome()
            assert (tuple(outcome.scores), tuple(outcome.ranks)) == (result.scores, result.ranks)
            assert record["seats"] == list(result.seats)
        for match_id, recorded in interrupted.items():
            stored = await store.get_match(match_id)
            assert stored is not None and stored[1] is not None
            record = stored[1]
            moves = [move for entry in record["rounds"] for move in entry["moves"]]
            assert len(moves) >= recorded, f"{match_id} resumed after its {recorded} recorded moves"
        ratings = await RatingStore(redis).ratings("friday13", ENTRANTS)
        assert {bot: row.games for bot, row in ratings.items()} == dict.fromkeys(ENTRANTS, spec.total_matches)
    finally:
        await redis.aclose()
