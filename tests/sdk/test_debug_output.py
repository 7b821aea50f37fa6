"""A bot's debug output over real gRPC: kept with the replay, followed live by its owner, seen by no other seat.

An SDK bot says a secret word about every move (`turn.debug`). A raw bot at the same table reads
every message the arena sends it, and every message the arena sends any bot is captured on its way
out: the word is in none of them, nor in the public record of the running match, while the owner's
live view (`arena.store.debug.seat_debug`) and the stored replay have it, at the talker's moves.
"""

from __future__ import annotations

import contextlib
import json

import pytest

from arena.node.work import WorkConfig
from arena.sdk import Bot, Turn
from arena.store import keys
from arena.store.debug import seat_debug
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import bot_service_pb2 as bot_pb
from tests.server.conftest import Arena, RandomBot, RawBot, start_arena
from tests.server.test_mixed_table import sent  # noqa: F401 - the fixture that captures every message sent
from tests.waiting import until

pytestmark = pytest.mark.asyncio

SECRET = "zebra-7f3c"
"""The talker's word: no other seat may ever receive it."""


class Talker(Bot):
    """Plays the lowest legal action and says, every move, what it holds (the other seats must not learn it)."""

    def act(self, turn: Turn) -> int:
        turn.debug(f"{SECRET} move {len(turn.legal_actions)} choices")
        turn.debug(f"my hand: {list(turn.observation.hand)}")
        return min(turn.legal_actions)


async def listen(listener: RawBot, match_id: str, arena: Arena, talker_seat: int, listener_seat: int) -> list[bytes]:
    """Play the listener's seat to the end, keeping every message it receives as bytes. At its first
    turn after the talker moved, look at the running match (hosted by `arena`) as a spectator and as
    the talker's owner."""
    received: list[bytes] = []
    looked = False
    redis = arena.server.store.redis

    async def owner_sees_it() -> bool:
        return any(SECRET in text for _, text in await seat_debug(redis, match_id, talker_seat))

    while True:
        message = await listener.read(30)
        received.append(message.SerializeToString())
        kind = message.WhichOneof("message")
        if kind == "action_request" and message.action_request.match_id == match_id:
            request = message.action_request
            talked = any(move.seat == talker_seat for move in request.observation.cards.moves)
            if talked and not looked:
                looked = True
                assert match_id in arena.server.host.live
                public = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))
                assert not public.match.ended_ms and public.replay_json, "the match is running"
                assert SECRET not in public.replay_json and "debug" not in json.loads(public.replay_json)
                await until(owner_sees_it, "the talker's text in its owner's live view", timeout=30)
                assert await seat_debug(redis, match_id, listener_seat) == []
            await listener.act(match_id, request.request_id, request.legal_actions[0].id)
        elif kind == "match_ended" and message.match_ended.match_id == match_id:
            assert looked, "the listener had a turn after the talker's"
            return received


def check_record(record: dict[str, object], talker_seat: int) -> None:
    debug = record["debug"]
    assert isinstance(debug, list) and debug, "the stored replay keeps the texts"
    moves = [move for entry in record["rounds"] for move in entry["moves"]]  # type: ignore[attr-defined]
    assert {seat for _, seat, _ in debug} == {talker_seat}
    for move, seat, text in debug:
        assert moves[move]["seat"] == seat and text.startswith(SECRET) and "\nmy hand: [" in text
    assert len(debug) == sum(1 for move in moves if move["seat"] == talker_seat)


async def test_debug_text_reaches_the_record_and_the_owner_and_no_other_seat(
    arena: Arena,
    sent: list[tuple[str, bot_pb.ConnectResponse]],  # noqa: F811 - the fixture
) -> None:
    tokens = await arena.bots("talker", "listener")
    await arena.connect(Talker, tokens["talker"])
    listener = RawBot(arena, tokens["listener"])
    await listener.connect()
    match_id = await arena.create_match("friday13", ["talker", "listener", "builtin:random"])
    received = await listen(listener, match_id, arena, talker_seat=0, listener_seat=1)
    assert not [message for message in received if SECRET.encode() in message]
    assert not [(bot, m) for bot, m in sent if SECRET.encode() in m.SerializeToString()], "sent to nobody"
    _, record = await arena.finished(match_id)
    check_record(record, talker_seat=0)


async def test_debug_text_crosses_the_relay_to_the_host_alone(
    redis_url: str,
    sent: list[tuple[str, bot_pb.ConnectResponse]],  # noqa: F811 - the fixture
) -> None:
    async with contextlib.AsyncExitStack() as nodes:
        host = await nodes.enter_async_context(start_arena(redis_url, work=WorkConfig(node="host")))
        other = await nodes.enter_async_context(start_arena(redis_url, work=WorkConfig(node="other")))
        tokens = await host.bots("far-talker", "near-listener", "near-helper")
        await other.connect(Talker, tokens["far-talker"])
        await host.connect(RandomBot, tokens["near-helper"])
        listener = RawBot(host, tokens["near-listener"])
        await listener.connect()

        async def stated() -> bool:
            return bool(await host.server.store.redis.hlen(keys.presence("far-talker")))

        await until(stated, "the other node stating the talker's session", timeout=30)
        # Two of its bots are on the host: the host keeps the order, and the talker answers through the relay.
        match_id = await host.create_match("friday13", ["near-helper", "far-talker", "near-listener"])
        received = await listen(listener, match_id, host, talker_seat=1, listener_seat=2)
        assert not [message for message in received if SECRET.encode() in message]
        assert not [(bot, m) for bot, m in sent if SECRET.encode() in m.SerializeToString()]
        _, record = await host.finished(match_id)
        check_record(record, talker_seat=1)
