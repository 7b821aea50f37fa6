"""Node heartbeats: a session frees the seats that a dead host's matches held in it, and only those."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from arena.node.relay import Relay
from arena.node.sessions import Limits, SessionRegistry
from arena.store import keys
from arena.store.relay import Post, PostKind
from arena.v1 import bot_service_pb2 as bot_pb

pytestmark = pytest.mark.asyncio


def start(match_id: str, host: str) -> Post:
    """A relayed MatchStarted as the hosting node posts it to the session's inbox."""
    started = bot_pb.ConnectResponse(match_started=bot_pb.MatchStarted(match_id=match_id))
    return Post(PostKind.START, match_id, seat=0, number=1, host=host, message=started)


async def test_a_dead_hosts_matches_leave_the_session_and_a_living_hosts_stay(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        sessions = SessionRegistry(Limits())
        session, _ = sessions.open("bot", bot_pb.Hello(max_matches=2))
        relay = Relay(redis, sessions, "node-b")
        relay._deliver(session.id, start("m-dead", "node-a"))
        relay._deliver(session.id, start("m-alive", "node-c"))
        assert session.matches == {"m-dead", "m-alive"} and not session.has_room()

        await redis.set(keys.node_alive("node-c"), 1, px=60_000)  # node-a never beats: it died
        await relay._free_seats_of_dead_hosts()
        assert session.matches == {"m-alive"}, "the dead host's match no longer holds a seat"
        assert session.has_room()
        assert "m-dead" not in session.started
    finally:
        await redis.aclose()
