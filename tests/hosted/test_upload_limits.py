"""SubmitBot calls at once: a few per owner and a few more per node, beyond which a call is refused at once in one
line (RESOURCE_EXHAUSTED) and counted, while the calls already running go on and their slots come back.

Each running call holds its upload in the node's memory and waits for its validation match, so
one owner uploading in a loop would otherwise take the node's memory and its validation slots.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from prometheus_client import REGISTRY

from arena.node.submissions import UploadLimits
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import Arena, bearer

pytestmark = pytest.mark.asyncio
LIMITS = UploadLimits()
SETTLE = 20.0
"""Seconds for the node to see calls start (the machine may be busy)."""


async def held(name: str, release: asyncio.Event) -> AsyncIterator[api_pb.SubmitBotRequest]:
    """An upload that sends its header and then nothing until `release` (then it ends, empty)."""
    yield api_pb.SubmitBotRequest(name=name, game="friday13", run="python bot.py")
    await release.wait()


async def submit_held(arena: Arena, token: str, name: str, release: asyncio.Event) -> api_pb.SubmitBotResponse:
    reply: api_pb.SubmitBotResponse = await arena.api.SubmitBot(held(name, release), metadata=bearer(token))
    return reply


async def probe(arena: Arena, token: str, name: str) -> tuple[grpc.StatusCode, str]:
    """An empty upload: refused at once as empty when it gets a slot, as too many when it does not."""
    header = api_pb.SubmitBotRequest(name=name, game="friday13", run="python bot.py")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await arena.api.SubmitBot(iter([header]), metadata=bearer(token))
    return caught.value.code(), caught.value.details() or ""


async def running(count: float) -> None:
    """Wait until the node runs `count` SubmitBot calls (its gauge), so that the next call meets them."""
    deadline = asyncio.get_running_loop().time() + SETTLE
    while REGISTRY.get_sample_value("arena_uploads_running") != count:
        assert asyncio.get_running_loop().time() < deadline, "the held calls never started"
        await asyncio.sleep(0.02)


def refused(scope: str) -> float:
    return REGISTRY.get_sample_value("arena_uploads_refused_total", {"scope": scope}) or 0.0


async def test_calls_beyond_an_owners_and_the_nodes_limits_are_refused_at_once_and_counted(arena: Arena) -> None:
    owners = {name: await arena.owner(name) for name in ("ann", "ben", "cat", "dan")}
    for name, token in owners.items():
        await arena.bot(token, f"{name}-bot")
    release = asyncio.Event()
    before = {scope: refused(scope) for scope in ("owner", "node")}
    idle = REGISTRY.get_sample_value("arena_uploads_running") or 0.0
    calls = [
        asyncio.create_task(submit_held(arena, owners["ann"], "ann-bot", release)) for _ in range(LIMITS.per_owner)
    ]
    try:
        await running(idle + LIMITS.per_owner)
        code, said = await probe(arena, owners["ann"], "ann-bot")
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert (
            said
            == f"owner 'ann' already has {LIMITS.per_owner} submissions running on this node (the most at once); wait for one to end"
        )
        assert refused("owner") >= before["owner"] + 1
        others = ["ben", "cat"][: LIMITS.per_node - LIMITS.per_owner]
        calls += [asyncio.create_task(submit_held(arena, owners[name], f"{name}-bot", release)) for name in others]
        await running(idle + LIMITS.per_node)
        code, said = await probe(arena, owners["dan"], "dan-bot")
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert said == f"this node already runs {LIMITS.per_node} submissions (the most at once); try again shortly"
        assert refused("node") >= before["node"] + 1
    finally:
        release.set()
        ended = await asyncio.gather(*calls, return_exceptions=True)
    # The held calls went on to their end (an empty upload), and gave their slots back.
    assert all(isinstance(end, grpc.aio.AioRpcError) and "it is empty" in (end.details() or "") for end in ended), ended
    await running(idle)
    assert await probe(arena, owners["ann"], "ann-bot") == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "the package is not a readable .tar.gz: it is empty (send the packed folder in the chunks after the first message)",
    )
