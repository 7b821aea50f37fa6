"""The SDK's writer sends the answers made while its last write went out in one Actions message, in order,
at most MAX_BATCH at a time, and an answer made alone as an Action; it never waits for more."""

from __future__ import annotations

import asyncio

import pytest

from arena.sdk.client import MAX_BATCH, Client
from arena.v1 import bot_service_pb2 as bot_pb

pytestmark = pytest.mark.asyncio


class Stream:
    """The bot's side of a stream as the writer uses it: each write takes a turn of the event loop."""

    def __init__(self) -> None:
        self.sent: list[bot_pb.ConnectRequest] = []

    async def write(self, message: bot_pb.ConnectRequest) -> None:
        self.sent.append(message)
        await asyncio.sleep(0)


def action(number: int) -> bot_pb.Action:
    return bot_pb.Action(match_id=f"m{number}", request_id=number, action_id=1)


def answered(message: bot_pb.ConnectRequest) -> list[int]:
    kind = message.WhichOneof("message")
    actions = [message.action] if kind == "action" else list(message.actions.actions)
    return [a.request_id for a in actions]


async def test_answers_made_together_go_together_and_one_made_alone_goes_alone() -> None:
    stream, outbox = Stream(), asyncio.Queue[bot_pb.Action]()
    writer = asyncio.create_task(Client._write(stream, outbox))
    outbox.put_nowait(action(1))
    await asyncio.sleep(0.01)
    for number in range(2, 2 + MAX_BATCH + 3):
        outbox.put_nowait(action(number))
    await asyncio.sleep(0.01)
    writer.cancel()
    assert [m.WhichOneof("message") for m in stream.sent] == ["action", "actions", "actions"]
    assert [answered(m) for m in stream.sent] == [
        [1],
        list(range(2, 2 + MAX_BATCH)),
        list(range(2 + MAX_BATCH, 2 + MAX_BATCH + 3)),
    ]
