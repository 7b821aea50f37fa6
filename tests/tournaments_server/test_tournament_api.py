"""Tournaments over the API: create (admin or owner), get with live standings, list, watch until the end."""

from __future__ import annotations

import asyncio
import math
import time

import grpc
import pytest
from prometheus_client import REGISTRY

from arena.games import make_game
from arena.node.work import WorkConfig
from arena.server.tournament_rpcs import WATCH_REFRESH
from arena.store.work import WorkQueue
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RandomBot, bearer, start_arena

BUILTINS = ["builtin:random", "builtin:heuristic", "builtin:mc"]


def spec(name: str, entrants: list[str], **fields: object) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=entrants,
        table_size=3,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        **fields,  # type: ignore[arg-type]
    )


async def watch_to_end(arena: Arena, name: str) -> list[api_pb.TournamentInfo]:
    updates = []
    async for update in arena.api.WatchTournament(api_pb.WatchTournamentRequest(name=name), timeout=60):
        updates.append(update.tournament)
    return updates


@pytest.mark.asyncio
async def test_an_owner_creates_a_tournament_of_connected_and_builtin_bots_and_watches_it_to_the_end(
    redis_url: str,
) -> None:
    async with start_arena(redis_url, work=WorkConfig(claim_idle=1.0)) as arena:
        owner = await arena.owner("olga")
        await arena.connect(RandomBot, await arena.bot(owner, "rb1"))
        request = api_pb.CreateTournamentRequest(
            spec=spec("cup", ["rb1", *BUILTINS[:2]], rounds=2, duplicate=True, rated=True)
        )
        created = (await arena.api.CreateTournament(request, metadata=bearer(owner))).tournament
        # 2 rounds of one table of 3, each deal in all 6 orders of its bots.
        assert (created.done, created.total, created.created_by) == (0, 12, "olga")
        assert [row.bot for row in created.standings] == ["rb1", *BUILTINS[:2]]
        assert math.isnan(created.standings[0].mean_score)
        updates = await watch_to_end(arena, "cup")
        assert [u.done for u in updates] == sorted(u.done for u in updates)
        final = updates[-1]
        assert final.finished_ms and final.done == final.total == 12
        assert sum(row.games for row in final.standings) == 36
        assert all(row.deals == 2 for row in final.standings)
        pairs = [(pair.first, pair.second, pair.deals) for pair in final.head_to_head]
        standing = [row.bot for row in final.standings]
        assert pairs == [(standing[i], standing[j], 2) for i in range(3) for j in range(i + 1, 3)]
        assert all(row.sigma > 0 for row in final.standings)
        got = (await arena.api.GetTournament(api_pb.GetTournamentRequest(name="cup"))).tournament
        assert got == final
        listed = (await arena.api.ListTournaments(api_pb.ListTournamentsRequest())).tournaments
        assert [(t.spec.name, t.done, len(t.standings)) for t in listed] == [("cup", 12, 0)]
        matches = await arena.api.ListMatches(api_pb.ListMatchesRequest(tournament_id="cup", limit=50))
        assert len(matches.matches) == 12
        game = make_game("friday13", players=3)
        for summary in matches.matches:
            found = await arena.server.store.get_match(summary.match_id)
            assert found is not None and found[1] is not None
            assert list(game.replay(found[1]).outcome().scores) == list(summary.scores)
        assert await WorkQueue(arena.server.store.redis).backlog() == 0


@pytest.mark.asyncio
async def test_bad_tournaments_are_refused_with_a_reason(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        await check_refusals(arena)


async def check_refusals(arena: Arena) -> None:
    owner = await arena.owner("olga")

    async def refused(request_spec: api_pb.TournamentSpec, token: str = ADMIN) -> grpc.aio.AioRpcError:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=request_spec), metadata=bearer(token))
        return caught.value

    error = await refused(spec("t1", ["nobody", *BUILTINS[:2]]))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "no bot named 'nobody'" in str(error.details())
    error = await refused(spec("t2", BUILTINS[:2]))
    assert "2 entrants cannot fill a table of 3" in str(error.details())
    error = await refused(api_pb.TournamentSpec(name="t3", game=pb.GameSpec(game="friday13"), entrants=BUILTINS))
    assert "choose a format" in str(error.details())
    error = await refused(spec("t4", BUILTINS), token="atb_not-a-token")
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec("t5", BUILTINS)), metadata=bearer(owner))
    error = await refused(spec("t5", BUILTINS))
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await arena.api.GetTournament(api_pb.GetTournamentRequest(name="nope"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


@pytest.mark.asyncio
async def test_eight_watchers_of_a_tournament_share_its_views(redis_url: str) -> None:
    # Each view reads every result of its tournament: built per watcher, anyone's 16 watch streams of a big
    # tournament would outweigh the node's matches (arena.node.tournament_views).
    async with start_arena(redis_url, work=WorkConfig(claim_idle=1.0)) as arena:
        owner = await arena.owner("wanda")
        await arena.connect(RandomBot, await arena.bot(owner, "rb1"))
        request = api_pb.CreateTournamentRequest(spec=spec("shared", ["rb1", *BUILTINS[:2]], rounds=2, duplicate=True))
        await arena.api.CreateTournament(request, metadata=bearer(owner))
        before = REGISTRY.get_sample_value("arena_tournament_views_total") or 0.0
        started = time.monotonic()
        watched = await asyncio.gather(*(watch_to_end(arena, "shared") for _ in range(8)))
        seconds = time.monotonic() - started
        built = (REGISTRY.get_sample_value("arena_tournament_views_total") or 0.0) - before
    for updates in watched:
        assert updates[-1].finished_ms and updates[-1].done == 12
    # For all eight together: one build per change, and one per WATCH_REFRESH while nothing changes.
    # Built per watcher, each of the eight would have made one for each of its updates.
    shared = max(len(updates) for updates in watched) + seconds / WATCH_REFRESH + 2
    assert 1 <= built <= shared, (built, seconds, [len(u) for u in watched])
