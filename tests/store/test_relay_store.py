"""Relay traffic in Redis: posts and replies round-trip, a bad entry is refused in one line and the node serves on."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from redis.asyncio import Redis

from arena.node.relay import Relay
from arena.node.sessions import Limits, SessionRegistry
from arena.store import keys
from arena.store.relay import (
    INBOX_TTL_MS,
    Answer,
    Gone,
    Post,
    PostKind,
    Refused,
    RelayMessageError,
    RelayStore,
    decode_post,
    decode_reply,
    encode_post,
    encode_reply,
)
from arena.v1 import bot_service_pb2 as bot_pb
from tests.waiting import until

MESSAGES = {
    PostKind.START: bot_pb.ConnectResponse(match_started=bot_pb.MatchStarted(match_id="m1", seat=2)),
    PostKind.REQUEST: bot_pb.ConnectResponse(
        action_request=bot_pb.ActionRequest(match_id="m1", request_id=9, time_left_ms=5_000)
    ),
    PostKind.ERROR: bot_pb.ConnectResponse(error=bot_pb.Error(message="late", match_id="m1")),
    PostKind.END: bot_pb.ConnectResponse(match_ended=bot_pb.MatchEnded(match_id="m1", scores=[1, 2, 3])),
}


def post(kind: PostKind, number: int = 1, ask: int = 0) -> Post:
    return Post(kind, "m1", seat=2, number=number, host="node-a", message=MESSAGES[kind], ask=ask)


def as_read(fields: dict[Any, Any]) -> dict[bytes, bytes]:
    """The fields as Redis hands them back: bytes."""
    return {
        str(name).encode(): value if isinstance(value, bytes) else str(value).encode() for name, value in fields.items()
    }


@pytest.mark.parametrize("kind", list(PostKind))
def test_every_kind_of_post_reads_back_as_written(kind: PostKind) -> None:
    written = post(kind, number=7, ask=3)
    assert decode_post(as_read(encode_post(written))) == written


@pytest.mark.parametrize("reply", [Answer(4, 17), Gone(5, "the bot's session ended")])
def test_replies_read_back_as_written(reply: Answer | Gone) -> None:
    assert decode_reply(as_read(encode_reply(reply))) == reply


def garbled(**changes: Any) -> dict[Any, Any]:
    fields = as_read(encode_post(post(PostKind.START)))
    for name, value in changes.items():
        if value is None:
            del fields[name.encode()]
        else:
            fields[name.encode()] = value
    return fields


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        (garbled(kind=b"teleport"), "a relay post of unknown kind 'teleport'"),
        (garbled(msg=b"\xff\xff\xff"), "a garbled relay post: Error parsing message"),
        (garbled(n=b"seven"), "a garbled relay post: invalid literal for int() with base 10: b'seven'"),
        (garbled(kind=b"\xff"), "a garbled relay post: 'utf-8' codec can't decode byte 0xff"),
        (garbled(match=None), "a relay post without its 'match' field"),
        (garbled(kind=b"end"), "a end post that carries match_started instead"),
    ],
)
def test_a_bad_post_is_refused_in_one_line_saying_what_is_wrong(fields: dict[bytes, bytes], reason: str) -> None:
    with pytest.raises(RelayMessageError) as refused:
        decode_post(fields)
    assert str(refused.value).startswith(reason)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({b"ask": b"1", b"action": b"up"}, "a garbled relay reply: invalid literal for int()"),
        ({b"action": b"3"}, "a relay reply without its 'ask' field"),
        ({b"ask": b"1"}, "a relay reply without its 'action' field"),
    ],
)
def test_a_bad_reply_is_refused_in_one_line(fields: dict[bytes, bytes], reason: str) -> None:
    with pytest.raises(RelayMessageError) as refused:
        decode_reply(fields)
    assert str(refused.value).startswith(reason)
    assert "\n" not in str(refused.value)


def test_a_post_whose_message_does_not_match_its_kind_is_not_written() -> None:
    with pytest.raises(RelayMessageError, match="a request post must carry action_request"):
        encode_post(Post(PostKind.REQUEST, "m1", 0, 1, "node-a", MESSAGES[PostKind.END]))


@pytest.mark.asyncio
async def test_a_garbled_reply_is_refused_and_the_next_one_read(redis: Redis) -> None:
    relay = RelayStore(redis)
    await redis.xadd(keys.match_replies("m1", 2), {"ask": "1", "action": "up"})
    await relay.reply("m1", 2, Answer(1, 4))
    first, second = await relay.read_replies("m1", 2, "0-0", block_ms=100)
    assert isinstance(first.reply, Refused) and first.reply.why.startswith("a garbled relay reply")
    assert second.reply == Answer(1, 4)
    assert await relay.read_replies("m1", 2, second.entry_id, block_ms=10) == []


@pytest.mark.asyncio
async def test_a_node_refuses_a_bad_inbox_entry_in_one_log_line_and_serves_on(
    redis: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    sessions = SessionRegistry(Limits())
    session, _ = sessions.open("bot", bot_pb.Hello(max_matches=2))
    node = Relay(redis, sessions, "node-b")
    running = asyncio.create_task(node.run())
    store = RelayStore(redis)
    try:
        with caplog.at_level(logging.WARNING, logger="arena.node.relay"):
            await redis.xadd(keys.session_inbox(session.id), {"kind": "teleport", "match": "m1"})
            await redis.xadd(keys.session_inbox(session.id), garbled(msg=b"\xff\xff\xff"))
            await store.post(session.id, post(PostKind.START))
            await store.post(session.id, post(PostKind.REQUEST, number=2, ask=1))

            async def asked() -> bool:
                return bool(session.pending)

            await until(asked, "the request after the refused entries reaches the session", timeout=10)
        refusals = [record.getMessage() for record in caplog.records if "refused" in record.getMessage()]
        assert len(refusals) == 2 and all("\n" not in line for line in refusals)
        assert "a relay post of unknown kind 'teleport'" in refusals[0]
        assert "a garbled relay post" in refusals[1]
        assert session.matches == {"m1"}

        (request_id,) = session.pending
        session.answer(bot_pb.Action(match_id="m1", request_id=request_id, action_id=4))

        async def answered() -> bool:
            return bool(await store.read_replies("m1", 2, "0-0", block_ms=10))

        await until(answered, "the bot's answer on the seat's reply stream", timeout=10)
        (entry,) = await store.read_replies("m1", 2, "0-0", block_ms=10)
        assert entry.reply == Answer(1, 4)
    finally:
        node.stop()
        await asyncio.wait_for(running, 10)


@pytest.mark.asyncio
async def test_presence_names_sessions_on_other_living_nodes_only(redis: Redis) -> None:
    store = RelayStore(redis)
    await store.refresh("node-a", {}, [("s-a", "ann", {"friday13"})])
    await store.refresh("node-b", {}, [("s-b", "bob", [])])
    await redis.hset(keys.presence("cy"), "s-c", "not json")
    await redis.delete(keys.node_alive("node-b"))  # node-b died: its presence lingers
    found = await store.sessions_elsewhere(["ann", "bob", "cy"], "node-c")
    assert sorted(found) == ["ann", "bob"] and found["ann"].games == ("friday13",) and found["ann"].plays("friday13")
    assert sorted(await store.sessions_elsewhere(["ann", "bob", "cy"], "node-c", alive=True)) == ["ann"]
    assert await store.sessions_elsewhere(["ann"], "node-a") == {}, "a node's own sessions are not elsewhere"
    await store.refresh("node-a", {"s-a": "ann"}, [])
    assert await store.sessions_elsewhere(["ann"], "node-c") == {}


@pytest.mark.asyncio
async def test_an_inbox_keeps_only_what_is_not_delivered_and_goes_with_its_session(redis: Redis) -> None:
    store = RelayStore(redis)
    await store.refresh("node-a", {}, [("s-a", "ann", {"friday13"})])
    await store.post("s-a", Post(PostKind.START, "m1", 0, 1, "node-b", MESSAGES[PostKind.START]))
    for number in range(2, 4):
        await store.post("s-a", Post(PostKind.ERROR, "m1", 0, number, "node-b", MESSAGES[PostKind.ERROR]))
    inbox = keys.session_inbox("s-a")
    assert 0 < await redis.pttl(inbox) <= INBOX_TTL_MS, "an inbox nobody serves any more expires"
    read = await store.read_inboxes({"s-a": "0-0"}, block_ms=10)
    assert len(read) == 3
    await store.delivered({"s-a": read[1].entry_id})
    assert await redis.xlen(inbox) == 2, "what was delivered before the last entry read is gone"
    await store.refresh("node-a", {"s-a": "ann"}, [])
    assert not await redis.exists(inbox), "the session ended: its inbox goes"
