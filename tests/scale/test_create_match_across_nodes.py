"""CreateMatch seats a bot connected to another node (or another worker of `arena serve --workers N`)
through its session there: two real nodes on one Redis, real gRPC."""

from __future__ import annotations

import contextlib

import grpc
import pytest

from arena.node.work import WorkConfig
from arena.store import keys
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, RandomBot, bearer, start_arena
from tests.waiting import until

pytestmark = pytest.mark.asyncio


async def test_a_match_created_on_one_node_seats_a_bot_connected_to_another(redis_url: str) -> None:
    async with contextlib.AsyncExitStack() as nodes:
        first = await nodes.enter_async_context(start_arena(redis_url, work=WorkConfig(node="first")))
        second = await nodes.enter_async_context(start_arena(redis_url, work=WorkConfig(node="second")))
        tokens = await first.bots("here", "there")
        await first.connect(RandomBot, tokens["here"])
        await second.connect(RandomBot, tokens["there"])

        async def stated() -> bool:
            # Nodes state their sessions in Redis every heartbeat: the first learns of "there" then.
            return bool(await first.server.store.redis.hlen(keys.presence("there")))

        await until(stated, "the second node stating its session in Redis", timeout=10)
        match_id = await first.create_match("friday13", ["here", "there", "builtin:heuristic"])
        summary, record = await first.finished(match_id)
        assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
        # Both connected bots answered their own moves on time: timed, no strikes.
        moves = [move for entry in record["rounds"] for move in entry["moves"]]
        timed = [move["seat"] for move, timing in zip(moves, record["clock"]["moves"], strict=True) if timing]
        assert set(timed) == {0, 1} and record["clock"]["strikes"] == []
        # A bot connected nowhere is still refused in one line.
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await first.api.CreateMatch(
                api_pb.CreateMatchRequest(
                    game=pb.GameSpec(game="friday13"), seats=["here", "nobody", "builtin:random"]
                ),
                metadata=bearer(ADMIN),
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_match_played_on_another_node_is_watched_move_by_move_without_hidden_cards(redis_url: str) -> None:
    async with contextlib.AsyncExitStack() as nodes:
        first = await nodes.enter_async_context(start_arena(redis_url, work=WorkConfig(node="first")))
        second = await nodes.enter_async_context(start_arena(redis_url, work=WorkConfig(node="second")))
        # The Monte Carlo bot thinks a while over each move: the match lasts long enough to be watched.
        match_id = await first.create_match("friday13", ["builtin:mc", "builtin:random", "builtin:random"])
        host, watcher = (first, second) if match_id in first.server.host.live else (second, first)
        assert match_id in host.server.host.live, "the match was started, by one node or the other"
        updates = [update async for update in watcher.api.WatchMatch(api_pb.WatchMatchRequest(match_id=match_id))]
        assert updates[-1].ended and updates[-1].match.ended_ms
        assert len(updates) >= 3, "moves arrive while the match runs, not only its end"
        summary, record = await watcher.finished(match_id)
        for update in updates[:-1]:
            assert update.public_view.WhichOneof("game") == "cards" and not update.ended
            assert not update.public_view.cards.hand, "a spectator sees no hand"
        assert summary.termination == pb.TERMINATION_NORMAL and record["seed"]
