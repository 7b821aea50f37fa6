"""The SDK's writer sends the answers made while its last write went out in one Actions message, in order,
at most MAX_BATCH at a time, and an answer made alone as an Action; it never waits for more, and a slow
bot's first answer of a batch goes out before its next is made."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.games import make_game
from arena.match import Clock
from arena.sdk.client import MAX_BATCH, Bot, Client, Match, Turn
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


@pytest.mark.parametrize("slow", [False, True])
async def test_a_batch_is_answered_together_unless_the_bot_is_slow(slow: bool) -> None:
    stream, outbox = Stream(), asyncio.Queue[bot_pb.Action]()
    seen: list[int] = []

    class Slow(Bot):
        def act(self, turn: Turn) -> int:
            seen.append(len(stream.sent))  # how many answers had gone out when this one was begun
            time.sleep(0.005 if slow else 0.0)
            return turn.legal_actions[0]

    # Slow: every answer takes longer than the client's prompt; else the whole batch takes less.
    client = Client(Slow, "127.0.0.1:1", "token", prompt=0.001 if slow else 60.0)
    game = make_game("friday13", players=4)
    for number in range(3):
        client.bots[f"m{number}"] = Slow(Match(f"m{number}", game, 0, ("a", "b", "c", "d"), "", Clock()))
    requests = [
        bot_pb.ActionRequest(match_id=f"m{number}", request_id=number + 1, legal_actions=[{"id": 5}])
        for number in range(3)
    ]
    writer = asyncio.create_task(Client._write(stream, outbox))
    await client._take(bot_pb.ConnectResponse(action_requests=bot_pb.ActionRequests(requests=requests)), outbox)
    await asyncio.sleep(0.01)
    writer.cancel()
    if slow:
        assert seen == [0, 1, 2], "each answer sent before the next was begun"
        assert [answered(m) for m in stream.sent] == [[1], [2], [3]]
    else:
        assert [answered(m) for m in stream.sent] == [[1, 2, 3]], "made at once, sent in one message"
