"""A hosted bot cannot fill its node with sessions: its launch's token holds two at most.

A hosted bot once opened 1,999 sessions with the token of its own launch (the node's limit was
2,000 for everyone together); an honest bot was then refused, and another owner's validation
aborted. Here the hosted bot, in the sandbox, tries 20 sessions more than its own while its
validation match runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hosted.conftest import submit
from tests.server.conftest import Arena, RandomBot

pytestmark = pytest.mark.asyncio

GREEDY = '''
import os
import sys

import grpc

from arena.sdk import BuiltinBot, Match, run
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc


class Greedy(BuiltinBot):
    """Random play, after trying to hold 20 sessions more with its launch's token."""

    policy = "random"

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        channel = grpc.insecure_channel(os.environ["ARENA_SERVER"])
        metadata = (("authorization", "Bearer " + os.environ["ARENA_TOKEN"]),)
        self.held, refused = [], ""
        for _ in range(20):
            hello = iter([bot_pb.ConnectRequest(hello=bot_pb.Hello(max_matches=1))])
            call = bot_grpc.BotServiceStub(channel).Connect(hello, metadata=metadata)
            try:
                next(call)
            except grpc.RpcError as error:
                refused = f"{error.code().name}: {error.details()}"
                break
            self.held.append(call)
        print(f"greedy: {len(self.held)} more; then {refused}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(Greedy)
'''


async def test_a_hosted_bot_holds_at_most_two_sessions_and_an_honest_bot_still_connects(
    arena: Arena, tmp_path: Path
) -> None:
    owner = await arena.owner("mallory")
    await arena.bot(owner, "greedy", games=("friday13",))
    folder = tmp_path / "greedy"
    folder.mkdir()
    (folder / "bot.py").write_text(GREEDY)
    reply = await submit(arena, owner, "greedy", folder)
    assert "greedy: 1 more; then RESOURCE_EXHAUSTED: this launch of hosted bot 'greedy' holds its maximum of 2" in (
        reply.stderr_tail
    ), reply.stderr_tail
    honest = await arena.bots("honest")
    client = await arena.connect(RandomBot, honest["honest"])
    assert client.welcomed.is_set()
