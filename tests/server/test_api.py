"""The people's API: matches and their records, live watching, health and reflection."""

from __future__ import annotations

import asyncio
import json

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.match import Clock
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RandomBot, RawBot, bearer

pytestmark = pytest.mark.asyncio

SLOW = Clock(per_move=10, bank=0)


async def test_get_match_hides_hidden_information_while_running_and_reveals_it_after(arena: Arena) -> None:
    tokens = await arena.bots("raw")
    bot = RawBot(arena, tokens["raw"])
    await bot.connect()
    match_id = await arena.create_match("friday13", ["raw", "builtin:random", "builtin:random"], clock=SLOW)
    request = (await bot.expect("action_request")).action_request
    running = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))
    assert running.match.termination == pb.TERMINATION_UNSPECIFIED and running.match.ended_ms == 0
    public = json.loads(running.replay_json)
    assert "seed" not in public and public["seed_commitment"]
    assert all("hands" not in entry and "dummy" not in entry for entry in public["rounds"])
    await bot.act(match_id, request.request_id, request.legal_actions[0].id)
    await bot.play_on(match_id)
    summary, record = await arena.finished(match_id)
    assert summary.termination == pb.TERMINATION_NORMAL
    assert record["seed"] and all("hands" in entry and "dummy" in entry for entry in record["rounds"])
    listed = await arena.api.ListMatches(api_pb.ListMatchesRequest(bot="raw"))
    assert [m.match_id for m in listed.matches] == [match_id]
    assert (await arena.api.ListMatches(api_pb.ListMatchesRequest(game="amigo13"))).matches == []
    with pytest.raises(grpc.aio.AioRpcError) as missing:
        await arena.api.GetMatch(api_pb.GetMatchRequest(match_id="m999999"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    await bot.close()


async def test_watch_match_streams_only_public_views_to_the_end(arena: Arena) -> None:
    tokens = await arena.bots("raw")
    bot = RawBot(arena, tokens["raw"])
    await bot.connect()
    match_id = await arena.create_match("amigo13", ["raw", "builtin:heuristic", "builtin:random"], clock=SLOW)
    await bot.expect("action_request")
    bot.call.cancel()
    watch = arena.api.WatchMatch(api_pb.WatchMatchRequest(match_id=match_id))
    first = await watch.read()
    assert not first.ended and first.match.match_id == match_id
    await bot.connect(resume=True)
    player = asyncio.create_task(bot.play_on(match_id))
    updates = [first]
    while (update := await watch.read()) is not grpc.aio.EOF:
        updates.append(update)
    await player
    assert updates[-1].ended and updates[-1].match.termination == pb.TERMINATION_NORMAL
    assert len(updates) > 50
    for update in updates:
        view = update.public_view.cards
        assert view.seat == -1 and len(view.hand) == 0
    assert updates[1].last_move.startswith("seat ")
    finished = [update async for update in arena.api.WatchMatch(api_pb.WatchMatchRequest(match_id=match_id))]
    assert len(finished) == 1 and finished[0].ended and len(finished[0].public_view.cards.hand) == 0
    await bot.close()


async def test_health_and_reflection_answer(arena: Arena) -> None:
    health = health_pb2_grpc.HealthStub(arena.channel)
    for service in ("", "arena.v1.BotService", "arena.v1.ArenaService"):
        response = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert response.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(arena.channel)
    call = reflection.ServerReflectionInfo()
    await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
    response = await call.read()
    names = {service.name for service in response.list_services_response.service}
    assert {"arena.v1.BotService", "arena.v1.ArenaService", "grpc.health.v1.Health"} <= names
    await call.write(reflection_pb2.ServerReflectionRequest(file_containing_symbol="arena.v1.ActionRequest"))
    described = await call.read()
    assert described.file_descriptor_response.file_descriptor_proto
    await call.done_writing()


async def test_create_match_explains_what_is_wrong(arena: Arena) -> None:
    tokens = await arena.bots("solo")
    await arena.connect(RandomBot, tokens["solo"], max_matches=1)
    await arena.create_match("friday13", ["solo", "builtin:random", "builtin:random"], clock=SLOW)
    bad, not_now = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION
    cases = [
        (["ghost", "builtin:random", "builtin:random"], "", not_now, "not connected"),
        (["solo", "builtin:random", "builtin:random"], "", not_now, "maximum of 1"),
        (["builtin:random", "builtin:random"], "", bad, "3 to 6"),
        (["builtin:random", "builtin:random", "builtin:genius"], "", bad, "no built-in bot"),
        (["builtin:random"] * 3, "xyz", bad, "not hex"),
    ]
    for seats, seed, code, message in cases:
        request = api_pb.CreateMatchRequest(game=pb.GameSpec(game="friday13"), seats=seats, seed=seed)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.api.CreateMatch(request, metadata=bearer(ADMIN))
        assert refused.value.code() == code
        assert message in (refused.value.details() or ""), refused.value.details()


async def test_the_seed_at_the_end_matches_the_commitment_and_replays_the_match(arena: Arena) -> None:
    match_id = await arena.create_match("friday13", ["builtin:random"] * 3, seed="00ff" * 8)
    summary, record = await arena.finished(match_id)
    assert record["seed"] == "00ff" * 8
    from arena.games import make_game
    from arena.games.base import seed_commitment

    assert seed_commitment(bytes.fromhex(record["seed"])) == record["seed_commitment"]
    make_game("friday13", **record["params"]).replay(record)
    assert list(summary.scores) == record["scores"]
