"""Sessions are shared out per bot and per hosted launch, so that no bot's token can fill a node."""

from __future__ import annotations

import grpc
import pytest
from prometheus_client import REGISTRY

from arena.node.sessions import Limits
from arena.store.hosted import HostedStore
from tests.server.conftest import RawBot, start_arena

pytestmark = pytest.mark.asyncio


def refusals(limit: str) -> float:
    return REGISTRY.get_sample_value("arena_limit_refusals_total", {"limit": limit}) or 0.0


async def test_a_bot_holds_at_most_its_share_of_sessions_and_others_still_connect(redis_url: str) -> None:
    limits = Limits(grace=2.0, max_sessions=6, max_sessions_per_bot=3)
    async with start_arena(redis_url, limits=limits) as arena:
        tokens = await arena.bots("greedy", "honest")
        before = refusals("sessions_bot")
        greedy = [RawBot(arena, tokens["greedy"]) for _ in range(4)]
        for bot in greedy[:3]:
            await bot.connect()
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await greedy[3].connect()
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        details = refused.value.details() or ""
        assert "'greedy' holds its maximum of 3 sessions" in details and "\n" not in details
        assert refusals("sessions_bot") == before + 1
        honest = RawBot(arena, tokens["honest"])
        await honest.connect()  # the node has room for another bot
        # A resume takes no new session, even at the bot's limit.
        await greedy[0].call.done_writing()
        resumed = RawBot(arena, tokens["greedy"])
        resumed.session_id = greedy[0].session_id
        assert (await resumed.connect(resume=True)).resumed
        for bot in (*greedy, honest, resumed):
            await bot.close()


async def test_a_hosted_launch_token_holds_two_sessions_at_most(redis_url: str) -> None:
    """A hosted bot's process, with the token minted for its launch, once held 1,999 sessions of a node's 2,000."""
    async with start_arena(redis_url, limits=Limits(grace=2.0, max_sessions=10)) as arena:
        tokens = await arena.bots("hosted-one", "honest")
        launch_token = await HostedStore(arena.server.store.redis).mint_token("hosted-one", "launch-1", 60)
        before = refusals("sessions_launch")
        held: list[RawBot] = []
        refused: grpc.aio.AioRpcError | None = None
        for _ in range(10):
            bot = RawBot(arena, launch_token)
            held.append(bot)
            try:
                await bot.connect()
            except grpc.aio.AioRpcError as error:
                refused = error
                break
        assert refused is not None and len(held) == 3, f"the launch opened {len(held)} sessions"
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "launch of hosted bot 'hosted-one' holds its maximum of 2 sessions" in (refused.details() or "")
        assert refusals("sessions_launch") == before + 1
        honest = RawBot(arena, tokens["honest"])
        assert (await honest.connect()).bot_name == "honest"
        for bot in (*held, honest):
            await bot.close()
