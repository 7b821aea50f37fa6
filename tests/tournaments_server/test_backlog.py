"""One owner's tournament matches cannot crowd out everyone else: a limit on pending matches per owner, a
window of each account's matches on the work stream, and cancels that leave little to drain."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import pytest
from prometheus_client import REGISTRY

from arena.node.tournaments import FEED_WINDOW, PENDING_LIMIT
from arena.node.work import WorkConfig
from arena.store import keys
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RandomBot, bearer, start_arena
from tests.waiting import until

pytestmark = pytest.mark.asyncio

GHOSTLY = ["ghost", "builtin:random", "builtin:heuristic"]
"""A field whose registered bot never connects: none of its matches can start."""


def spec(name: str, entrants: list[str], rounds: int) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=entrants,
        table_size=3,
        rounds=rounds,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    )


async def create(arena: Arena, token: str, request_spec: api_pb.TournamentSpec) -> None:
    await arena.api.CreateTournament(
        api_pb.CreateTournamentRequest(spec=request_spec), metadata=bearer(token), timeout=120
    )


async def on_stream(arena: Arena, tournament: str) -> int:
    """Orders of `tournament` on the work stream (waiting, or taken by the node)."""
    entries: Any = await arena.server.store.redis.xrange(keys.WORK)
    return sum(1 for _, fields in entries if json.loads(fields[b"order"])["tournament"] == tournament)


def refusals(reason: str) -> float:
    return REGISTRY.get_sample_value("arena_tournament_refusals_total", {"reason": reason}) or 0.0


async def test_an_owner_may_have_a_limited_number_of_tournament_matches_pending(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        hog, other = await arena.owner("hog"), await arena.owner("other")
        await arena.bot(hog, "ghost", games=("friday13",))
        await create(arena, hog, spec("big", GHOSTLY, 1_500))
        assert await on_stream(arena, "big") == FEED_WINDOW, "a window of its matches goes on the stream"
        before = refusals("pending")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await create(arena, hog, spec("second", GHOSTLY, 600))
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.value.details() == (
            "hog has 1,500 tournament matches pending and 'second' would add 600: over the limit of 2,000 per owner; "
            "wait for them to be played, cancel a tournament, or make this one smaller"
        )
        assert refusals("pending") == before + 1
        with pytest.raises(grpc.aio.AioRpcError) as alone:
            await create(arena, other, spec("huge", ["builtin:random", "builtin:heuristic", "builtin:mc"], 2_001))
        assert "other has 0 tournament matches pending and 'huge' would add 2,001" in str(alone.value.details())
        assert PENDING_LIMIT == 2_000
        # The limit is per owner, and the admin has none but a tournament's own.
        await arena.bot(other, "phantom", games=("friday13",))
        await create(arena, other, spec("others", ["phantom", *GHOSTLY[1:]], 600))
        await create(arena, ADMIN, spec("admins", GHOSTLY, 3_000))
        listed = await arena.api.ListTournaments(api_pb.ListTournamentsRequest())
        assert sorted(t.spec.name for t in listed.tournaments) == ["admins", "big", "others"]
        # What a cancel leaves running no longer counts.
        await arena.api.CancelTournament(api_pb.CancelTournamentRequest(name="big"), metadata=bearer(hog))
        await create(arena, hog, spec("second", GHOSTLY, 600))
        # Two creates at once cannot both pass the limit.
        both = [create(arena, hog, spec(name, GHOSTLY, 1_000)) for name in ("left", "right")]
        outcomes = await asyncio.gather(*both, return_exceptions=True)
        made = [outcome is None for outcome in outcomes]
        assert sorted(made) == [False, True], outcomes
        (failed,) = [outcome for outcome in outcomes if outcome is not None]
        assert isinstance(failed, grpc.aio.AioRpcError) and failed.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_a_huge_tournament_delays_neither_another_owners_match_nor_its_own_cancel(redis_url: str) -> None:
    seat_wait = 5.0
    async with start_arena(redis_url, work=WorkConfig(seat_wait=seat_wait, claim_idle=1.0)) as arena:
        await arena.bot(await arena.owner("hog"), "ghost", games=("friday13",))
        honest = await arena.owner("honest")
        await arena.connect(RandomBot, await arena.bot(honest, "quick", games=("friday13",)))
        loop = asyncio.get_running_loop()
        started = loop.time()
        await create(arena, honest, spec("reference", ["quick", "builtin:random", "builtin:heuristic"], 1))
        await until(lambda: finished(arena, "reference"), "a one-match tournament on an idle arena")
        reference = loop.time() - started
        # The admin's, so that no owner limit applies: 20,000 matches, none of which can start.
        await create(arena, ADMIN, spec("flood", GHOSTLY, 20_000))
        assert await on_stream(arena, "flood") == FEED_WINDOW
        await create(arena, honest, spec("probe", ["quick", "builtin:random", "builtin:heuristic"], 1))
        # The probe's order is read within a window of the flood's: as fast as the reference, give or take.
        await until(
            lambda: finished(arena, "probe"), "the other owner's match behind the flood", max(60, 5 * reference)
        )
        await arena.api.CancelTournament(api_pb.CancelTournamentRequest(name="flood"), metadata=bearer(ADMIN))

        async def drained() -> bool:
            return await on_stream(arena, "flood") == 0

        # A node skips a cancelled order when it reads it, or when its wait for seats ends.
        await until(drained, "the cancelled flood's orders left the stream", 2 * seat_wait + 30)


async def finished(arena: Arena, name: str) -> bool:
    info = (await arena.api.GetTournament(api_pb.GetTournamentRequest(name=name))).tournament
    return bool(info.finished_ms)
