"""Tournaments finish or say why not: waited-for bots, cancels, re-runs of aborted matches, aborts for good.

A real arena on the session's real Redis, with its web UI; `arena tournament` runs as a separate
process against it. Aborts come from a registered bot that is not connected when its match is due:
the node waits `seat_wait` seconds for it, then (with `max_attempts=1`) stores the match as aborted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import urllib.request
from typing import Any

import grpc
import pytest

from arena.node.tournaments import round_orders
from arena.node.work import WorkConfig
from arena.store.tournaments import TournamentStore
from arena.store.work import WorkQueue
from arena.tournaments import MAX_MATCH_ATTEMPTS
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RandomBot, bearer, start_arena
from tests.waiting import until

BUILTINS = ["builtin:random", "builtin:heuristic", "builtin:mc"]


def spec(name: str, entrants: list[str], **fields: Any) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=entrants,
        table_size=3,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        **fields,
    )


async def arena_cli(arena: Arena, *args: str, token: str = ADMIN) -> asyncio.subprocess.Process:
    env = {**os.environ, "ARENA_SERVER": arena.address, "ARENA_TOKEN": token, "COLUMNS": "200"}
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arena.cli",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def cli(arena: Arena, *args: str, token: str = ADMIN) -> tuple[int, str, str]:
    process = await arena_cli(arena, *args, token=token)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def web_json(arena: Arena, path: str) -> Any:
    assert arena.server.web is not None
    url = arena.server.web.url + path.lstrip("/")

    def get() -> Any:
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.loads(response.read())

    return await asyncio.to_thread(get)


async def info(arena: Arena, name: str) -> api_pb.TournamentInfo:
    found: api_pb.TournamentInfo = (await arena.api.GetTournament(api_pb.GetTournamentRequest(name=name))).tournament
    return found


def facts(row: dict[str, Any]) -> dict[str, Any]:
    """What the CLI's JSON, the web's JSON and the API must agree on."""
    return {
        key: row[key]
        for key in (
            "status",
            "done",
            "due",
            "rerunning",
            "aborted",
            "cancelled",
            "total",
            "waiting_for",
            "aborted_matches",
        )
    }


async def agreed(arena: Arena, name: str) -> dict[str, Any]:
    """`arena tournament show --json`, the row of `list --json` and the web API say the same; returns it."""
    code, shown, err = await cli(arena, "tournament", "show", name, "--json")
    assert code == 0, err
    code, listed, err = await cli(arena, "tournament", "list", "--json")
    assert code == 0, err
    row = facts(json.loads(shown))
    assert [facts(t) for t in json.loads(listed) if t["tournament"] == name] == [row]
    page = await web_json(arena, f"/api/tournaments/{name}")
    web_list = await web_json(arena, "/api/tournaments")
    assert facts(page) == row
    assert [facts(t) for t in web_list["tournaments"] if t["spec"]["name"] == name] == [row]
    whole: dict[str, Any] = json.loads(shown)
    return whole


@pytest.mark.asyncio
async def test_a_bot_that_never_connects_is_waited_for_and_its_tournament_can_be_cancelled(redis_url: str) -> None:
    # Seats are waited for half a second at a time, again and again: without a cancel the ghost's orders never end.
    work = WorkConfig(claim_idle=1.0, seat_wait=0.5, max_attempts=10_000)
    async with start_arena(redis_url, work=work, http_port=0) as arena:
        olga = await arena.owner("olga")
        ghost = await arena.bot(olga, "ghost")
        mallory = await arena.owner("mallory")
        request = api_pb.CreateTournamentRequest(spec=spec("haunt", ["ghost", *BUILTINS]))
        created = (await arena.api.CreateTournament(request, metadata=bearer(olga))).tournament
        assert (created.total, created.due, created.status) == (4, 4, api_pb.TOURNAMENT_STATUS_RUNNING)
        runner = await arena_cli(arena, "tournament", "run", "haunt")

        async def only_ghost_left() -> bool:
            now = await info(arena, "haunt")
            return now.done == 1

        await until(only_ghost_left, "the match without the ghost finished")
        now = await info(arena, "haunt")
        assert list(now.waiting_for) == ["ghost"], "the ghost's matches wait for it"
        assert (now.due, now.status, now.finished_ms) == (3, api_pb.TOURNAMENT_STATUS_RUNNING, 0)
        row = await agreed(arena, "haunt")
        assert row["status"] == "running" and row["waiting_for"] == ["ghost"]
        code, shown, _ = await cli(arena, "tournament", "show", "haunt")
        assert code == 0 and "waiting for: ghost (registered, not connected to any node)" in shown

        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.api.CancelTournament(api_pb.CancelTournamentRequest(name="haunt"), metadata=bearer(mallory))
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "created by 'olga': only its creator or the admin may cancel it" in str(refused.value.details())
        code, out, err = await cli(arena, "tournament", "cancel", "haunt", token=olga)
        assert code == 0, err
        assert out.strip() == "tournament haunt: cancelled; 3 matches will not start, 0 still running"
        # The ghost comes now: orders that were waiting for its seat at the cancel still must not start.
        await arena.connect(RandomBot, ghost, max_matches=4)

        ran_out, ran_err = await asyncio.wait_for(runner.communicate(), 60)
        assert runner.returncode == 1, ran_err
        assert "haunt: waiting for ghost (registered, not connected to any node)" in ran_err.decode()
        assert ran_err.decode().strip().endswith("arena: tournament haunt was cancelled by olga: 1 of 4 matches played")
        assert "haunt: friday13 round-robin, 1/4 matches, cancelled" in ran_out.decode()

        row = await agreed(arena, "haunt")
        assert (row["status"], row["cancelled"], row["done"], row["due"], row["ended"]) == ("cancelled", 3, 1, 0, True)
        assert row["waiting_for"] == [] and row["cancelled_by"] == "olga"
        code, listed, _ = await cli(arena, "tournament", "list")
        assert "cancelled" in listed and "finished" not in listed
        again = await arena.api.CancelTournament(api_pb.CancelTournamentRequest(name="haunt"), metadata=bearer(ADMIN))
        assert again.already_cancelled and again.cancelled == 0

        # The nodes skip the cancelled orders: the stream empties, and none of the ghost's matches ever started.
        queue = WorkQueue(arena.server.store.redis)

        async def no_orders_left() -> bool:
            return await queue.backlog() == 0

        await until(no_orders_left, "the cancelled orders skipped")
        listed_matches = await arena.api.ListMatches(api_pb.ListMatchesRequest(tournament_id="haunt", limit=50))
        assert [m.seats for m in listed_matches.matches] == [BUILTINS]
        for number in range(3):  # haunt-3 is the match of the built-in bots alone
            assert await arena.server.store.get_match(f"haunt-{number}") is None


@pytest.mark.asyncio
async def test_a_match_aborted_once_is_re_run_with_the_same_seed_and_seats_and_the_tournament_finishes(
    redis_url: str,
) -> None:
    work = WorkConfig(claim_idle=1.0, seat_wait=3.0, max_attempts=1)
    async with start_arena(redis_url, work=work, http_port=0) as arena:
        tokens = await arena.bots("late")
        request = api_pb.CreateTournamentRequest(spec=spec("again", ["late", *BUILTINS[:2]], rounds=2))
        await arena.api.CreateTournament(request, metadata=bearer(ADMIN))

        async def both_aborted_once() -> bool:
            now = await info(arena, "again")
            return [(m.match_id, m.rerun_match_id) for m in now.aborted_matches] == [
                ("again-0", "again-0-try2"),
                ("again-1", "again-1-try2"),
            ]

        await until(both_aborted_once, "both first attempts aborted and re-queued")
        now = await info(arena, "again")
        assert (now.rerunning, now.status, list(now.waiting_for)) == (2, api_pb.TOURNAMENT_STATUS_RUNNING, ["late"])
        assert all("never started: bot 'late' is not connected" in m.reason for m in now.aborted_matches), (
            now.aborted_matches
        )
        await arena.connect(RandomBot, tokens["late"])
        final = None
        async for update in arena.api.WatchTournament(api_pb.WatchTournamentRequest(name="again"), timeout=60):
            final = update.tournament
        assert final is not None and final.finished_ms
        assert (final.status, final.done, final.total, final.aborted, final.rerunning) == (
            api_pb.TOURNAMENT_STATUS_FINISHED,
            2,
            2,
            0,
            0,
        )
        assert [m.attempt for m in final.aborted_matches] == [1, 1], "each match needed one re-run"
        assert all(row.games == 2 for row in final.standings)

        state = await TournamentStore(arena.server.store.redis).get("again")
        assert state is not None
        orders = [order for r in range(2) for order in round_orders(state.spec, r)]
        for order in orders:
            aborted = await arena.server.store.get_match(order.match_id)
            assert aborted is not None and aborted[0].termination == "aborted", "the aborted attempt stays on record"
            rerun = await arena.server.store.get_match(f"{order.match_id}-try2")
            assert rerun is not None and rerun[1] is not None
            assert rerun[0].termination == "normal" and tuple(rerun[0].seats) == order.seats
            assert rerun[1]["seed"] == order.seed, "a re-run deals the same cards"
        row = await agreed(arena, "again")
        assert (row["status"], row["finished"], row["done"]) == ("finished", True, 2)
        code, out, err = await cli(arena, "tournament", "run", "again")
        assert code == 0, err
        assert "again: friday13 round-robin, 2/2 matches, finished" in out
        assert "again-0 (match 0, attempt 1): never started: bot 'late' is not connected; re-run as again-0-try2" in out


@pytest.mark.asyncio
async def test_matches_aborted_past_the_limit_make_the_final_status_say_so_with_the_reason(redis_url: str) -> None:
    work = WorkConfig(claim_idle=1.0, seat_wait=0.3, max_attempts=1)
    async with start_arena(redis_url, work=work, http_port=0) as arena:
        await arena.bots("gone")
        request = api_pb.CreateTournamentRequest(spec=spec("lost", ["gone", *BUILTINS]))
        await arena.api.CreateTournament(request, metadata=bearer(ADMIN))
        code, out, err = await cli(arena, "tournament", "run", "lost")
        assert code == 1
        assert err.strip().endswith(
            "arena: tournament lost finished with 3 of 4 matches aborted (arena tournament show lost says why)"
        )
        assert "lost: friday13 round-robin, 1/4 matches, finished with 3 aborted" in out
        final = await info(arena, "lost")
        assert final.finished_ms and final.status == api_pb.TOURNAMENT_STATUS_FINISHED_WITH_ABORTS
        assert (final.done, final.aborted, final.due, final.rerunning) == (1, 3, 0, 0)
        chains: dict[int, list[tuple[str, str]]] = {}
        for attempt in final.aborted_matches:
            assert "never started: bot 'gone' is not connected" in attempt.reason, attempt
            chains.setdefault(attempt.number, []).append((attempt.match_id, attempt.rerun_match_id))
        assert chains == {
            n: [(f"lost-{n}", f"lost-{n}-try2"), (f"lost-{n}-try2", f"lost-{n}-try3"), (f"lost-{n}-try3", "")]
            for n in (0, 1, 2)
        }
        assert MAX_MATCH_ATTEMPTS == 3
        row = await agreed(arena, "lost")
        assert (row["status"], row["finished"], row["ended"]) == ("finished-with-aborts", False, True)
        code, listed, _ = await cli(arena, "tournament", "list")
        assert "finished with 3 aborted" in listed
        code, shown, _ = await cli(arena, "tournament", "show", "lost")
        assert "lost-2-try3 (match 2, attempt 3): never started: bot 'gone' is not connected; not re-run" in shown
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.api.CancelTournament(api_pb.CancelTournamentRequest(name="lost"), metadata=bearer(ADMIN))
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "has finished (finished with 3 aborted)" in str(refused.value.details())


@pytest.mark.asyncio
async def test_a_cancel_leaves_a_started_match_to_finish_and_a_node_never_starts_a_cancelled_one(
    redis_url: str,
) -> None:
    """The store's half of cancelling, which the nodes call: `may_start` right before a match starts."""
    async with start_arena(redis_url, work=WorkConfig(claim_idle=1.0, seat_wait=30.0)) as arena:
        await arena.bots("nobody")
        request = api_pb.CreateTournamentRequest(spec=spec("gate", ["nobody", *BUILTINS[:2]], rounds=3))
        await arena.api.CreateTournament(request, metadata=bearer(ADMIN))
        tournaments = TournamentStore(arena.server.store.redis)
        state = await tournaments.get("gate")
        assert state is not None
        orders = {order.match_id: order for r in range(3) for order in round_orders(state.spec, r)}
        # A node marks gate-1 started (its seats were ready) before the cancel comes.
        assert await tournaments.may_start(orders["gate-1"])
        response = await arena.api.CancelTournament(api_pb.CancelTournamentRequest(name="gate"), metadata=bearer(ADMIN))
        assert (response.cancelled, response.running) == (2, 1)
        assert response.tournament.status == api_pb.TOURNAMENT_STATUS_CANCELLED and not response.tournament.finished_ms
        assert await tournaments.may_start(orders["gate-1"]), "a started match plays on (a resumed one too)"
        assert not await tournaments.may_start(orders["gate-2"]), "a cancelled match never starts"
        assert await tournaments.may_start(dataclasses.replace(orders["gate-2"], tournament="")), "not a tournament's"
