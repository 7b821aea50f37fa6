"""The gRPC statuses of docs/PROTOCOL.md, checked from clients that share no code with the server.

ArenaService calls go through a bare channel (method paths, bytes in and out); Connect streams that
no gRPC library would send go over hand-made HTTP/2 (tests/server/raw_http2.py). The store's
failures are real: a redis-server of the test's own is killed and restarted on its AOF.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
import redis
import redis.asyncio
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.match import Clock
from arena.node.sessions import Limits
from arena.server.auth import FAILED_INTERNALLY, STORE_UNREACHABLE
from arena.server.peers import PeerLimits
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from tests.conftest import free_port, redis_server_binary
from tests.server import raw_http2
from tests.server.conftest import ADMIN, Arena, RandomBot, RawBot, bearer, start_arena
from tests.waiting import until

pytestmark = pytest.mark.asyncio

SLOW = pb.Clock(per_move_ms=10_000)
CONNECT = "/arena.v1.BotService/Connect"


async def status(arena: Arena, method: str, request: Message, token: str = "") -> tuple[grpc.StatusCode, str]:
    """Call ArenaService `method` through a bare channel; its status and details."""
    call = arena.channel.unary_unary(
        f"/arena.v1.ArenaService/{method}", request_serializer=lambda raw: raw, response_deserializer=lambda raw: raw
    )
    try:
        await call(request.SerializeToString(), metadata=bearer(token) if token else None, timeout=20)
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


def match(
    game: str, seats: list[str], *, seed: str = "", clock: pb.Clock | None = SLOW, players: int = 0
) -> api_pb.CreateMatchRequest:
    request = api_pb.CreateMatchRequest(game=pb.GameSpec(game=game, players=players), seats=seats, seed=seed)
    if clock is not None:
        request.clock.CopyFrom(clock)
    return request


async def test_create_match_tells_bad_arguments_from_an_arena_not_ready(arena: Arena) -> None:
    tokens = await arena.bots("solo", "offline")
    await arena.connect(RandomBot, tokens["solo"], max_matches=1)
    assert (await status(arena, "CreateMatch", match("friday13", ["solo", "builtin:random", "builtin:random"]), ADMIN))[
        0
    ] == grpc.StatusCode.OK
    two = ["builtin:random"] * 2
    cases: list[tuple[api_pb.CreateMatchRequest, grpc.StatusCode, str]] = [
        (match("chess", two), grpc.StatusCode.INVALID_ARGUMENT, "unknown game 'chess'"),
        (match("", two), grpc.StatusCode.INVALID_ARGUMENT, "unknown game"),
        (match("friday13", two), grpc.StatusCode.INVALID_ARGUMENT, "3 to 6 players"),
        (match("board13", ["builtin:random"] * 3), grpc.StatusCode.INVALID_ARGUMENT, "exactly 2 players"),
        (
            match("friday13", ["builtin:random"] * 3, players=4),
            grpc.StatusCode.INVALID_ARGUMENT,
            "needs 4 seats, not 3",
        ),
        (match("friday13", ["builtin:genius", *two]), grpc.StatusCode.INVALID_ARGUMENT, "no built-in bot"),
        (match("friday13", ["no spaces!", *two]), grpc.StatusCode.INVALID_ARGUMENT, "names no bot"),
        (match("friday13", ["solo", "solo", "builtin:random"]), grpc.StatusCode.INVALID_ARGUMENT, "only one seat"),
        (match("friday13", ["builtin:random"] * 3, seed="xyz"), grpc.StatusCode.INVALID_ARGUMENT, "not hex"),
        (match("friday13", ["builtin:random"] * 3, seed="00" * 65), grpc.StatusCode.INVALID_ARGUMENT, "1 to 64"),
        (
            match("friday13", ["builtin:random"] * 3, clock=pb.Clock(bank_ms=5)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "per-move limit",
        ),
        (match("friday13", ["offline", *two]), grpc.StatusCode.FAILED_PRECONDITION, "'offline' is not connected"),
        (match("friday13", ["ghost", *two]), grpc.StatusCode.FAILED_PRECONDITION, "'ghost' is not connected"),
        (match("friday13", ["solo", *two]), grpc.StatusCode.FAILED_PRECONDITION, "maximum of 1"),
    ]
    for request, code, text in cases:
        got, details = await status(arena, "CreateMatch", request, ADMIN)
        assert (got, text in details) == (code, True), (request, got, details)
    owner = await arena.owner("carol")
    bad = match("chess", two)
    assert (await status(arena, "CreateMatch", bad))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert (await status(arena, "CreateMatch", bad, owner))[0] == grpc.StatusCode.PERMISSION_DENIED


async def test_other_bad_arguments_of_the_api(arena: Arena) -> None:
    owner = await arena.owner("alice")
    cases: list[tuple[str, Message, str, grpc.StatusCode]] = [
        ("CreateOwner", api_pb.CreateOwnerRequest(name="no spaces!"), ADMIN, grpc.StatusCode.INVALID_ARGUMENT),
        ("RegisterBot", api_pb.RegisterBotRequest(name="b", games=["chess"]), owner, grpc.StatusCode.INVALID_ARGUMENT),
        ("RegisterBot", api_pb.RegisterBotRequest(name="a b"), owner, grpc.StatusCode.INVALID_ARGUMENT),
        ("GetLeaderboard", api_pb.GetLeaderboardRequest(game="chess"), "", grpc.StatusCode.INVALID_ARGUMENT),
        (
            "GetRatingHistory",
            api_pb.GetRatingHistoryRequest(game="chess", bot="x"),
            "",
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        ("GetQueue", api_pb.GetQueueRequest(game="chess"), "", grpc.StatusCode.INVALID_ARGUMENT),
        ("RecomputeRatings", api_pb.RecomputeRatingsRequest(game="chess"), ADMIN, grpc.StatusCode.INVALID_ARGUMENT),
        ("GetMatch", api_pb.GetMatchRequest(match_id="m-none"), "", grpc.StatusCode.NOT_FOUND),
        ("RotateBotToken", api_pb.RotateBotTokenRequest(name="nobody"), owner, grpc.StatusCode.NOT_FOUND),
    ]
    for method, request, token, code in cases:
        got, details = await status(arena, method, request, token)
        assert got == code, (method, got, details)


async def test_an_answer_with_another_matchs_request_id_is_an_unknown_match(arena: Arena) -> None:
    tokens = await arena.bots("twice")
    bot = RawBot(arena, tokens["twice"])
    await bot.connect(max_matches=2)
    clock = Clock(per_move=10, bank=0)
    first = await arena.create_match("friday13", ["twice", "builtin:random", "builtin:random"], clock=clock)
    second = await arena.create_match("friday13", ["twice", "builtin:random", "builtin:random"], clock=clock)
    request = (await bot.expect("action_request")).action_request
    other = second if request.match_id == first else first
    await bot.act(other, request.request_id, request.legal_actions[0].id)
    [error] = await bot.errors(1)
    assert error.code == bot_pb.ERROR_CODE_UNKNOWN_MATCH
    assert (error.match_id, error.request_id) == (other, request.request_id)
    assert f"belongs to match {request.match_id}" in error.message
    await bot.act(request.match_id, request.request_id, request.legal_actions[0].id)
    await bot.close()


async def test_a_stream_that_ends_before_its_hello_or_is_cut_short_is_not_ok(arena: Arena) -> None:
    tokens = await arena.bots("raw")
    metadata = {"authorization": f"Bearer {tokens['raw']}"}
    hello = bot_pb.ConnectRequest(hello=bot_pb.Hello()).SerializeToString()
    cases = [
        (b"", grpc.StatusCode.FAILED_PRECONDITION, "ended before its Hello"),
        (
            raw_http2.grpc_message(hello, declared=len(hello) + 50),
            grpc.StatusCode.FAILED_PRECONDITION,
            "ended before its Hello",
        ),
        (raw_http2.grpc_message(b"")[:3], grpc.StatusCode.FAILED_PRECONDITION, "ended before its Hello"),
        (raw_http2.grpc_message(b"\xff\xff\xff"), grpc.StatusCode.INVALID_ARGUMENT, "could not be parsed"),
        (
            raw_http2.grpc_message(hello) + raw_http2.grpc_message(hello, declared=len(hello) + 50),
            grpc.StatusCode.CANCELLED,
            "cut short",
        ),
        (raw_http2.grpc_message(hello), grpc.StatusCode.CANCELLED, "a half-close"),
    ]
    for data, code, text in cases:
        outcome = await raw_http2.call(arena.address, CONNECT, metadata, data)
        assert outcome.status == code.value[0], (data, outcome)
        assert text in (outcome.get("grpc-message") or ""), (data, outcome)
    # The same from grpc's own client: a half-close before any message.
    call = arena.channel.stream_stream(CONNECT)(metadata=bearer(tokens["raw"]))
    await call.done_writing()
    assert await call.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_refused_stream_always_gets_its_own_status(redis_url: str) -> None:
    """The server reads the first message before it refuses a stream: the client's write of it never fails."""
    # 50 wrong tokens from one address would have it refused for a while (test_peer_limits.py).
    async with start_arena(redis_url, peers=PeerLimits(wrong_tokens=1000)) as arena:
        await refused_streams_get_their_status(arena)


async def refused_streams_get_their_status(arena: Arena) -> None:
    owner = await arena.owner("alice")
    old = await arena.bot(owner, "alpha")
    await arena.api.RotateBotToken(api_pb.RotateBotTokenRequest(name="alpha"), metadata=bearer(owner))
    for token, code in [(old, grpc.StatusCode.UNAUTHENTICATED), (owner, grpc.StatusCode.PERMISSION_DENIED)] * 50:
        bot = RawBot(arena, token)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bot.connect()
        assert refused.value.code() == code, refused.value
        await bot.close()
    # A client that writes nothing still gets the status, after a short wait for its Hello.
    started = time.monotonic()
    silent = arena.channel.stream_stream(CONNECT)(metadata=bearer(old))
    assert await asyncio.wait_for(silent.code(), 5) == grpc.StatusCode.UNAUTHENTICATED
    assert time.monotonic() - started < 3


async def test_sessions_beyond_the_nodes_limit_are_resource_exhausted(redis_url: str) -> None:
    async with start_arena(redis_url, limits=Limits(grace=2.0, max_sessions=2)) as arena:
        tokens = await arena.bots("a", "b", "c")
        first, second, third = (RawBot(arena, tokens[name]) for name in "abc")
        await first.connect()
        await second.connect()
        with pytest.raises(grpc.aio.AioRpcError) as full:
            await third.connect()
        assert full.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "maximum of 2 bot sessions" in (full.value.details() or "")
        assert "retry" in (full.value.details() or "")
        await first.close()
        first = RawBot(arena, tokens["a"])
        first.session_id = (await second.connect(resume=True)).session_id  # a resume gets through when full
        for bot in (first, second, third):
            await bot.close()


async def test_an_unexpected_error_is_internal_and_keeps_its_text_in_the_log(
    arena: Arena, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*_: Any) -> Any:
        raise RuntimeError("secret internals")

    assert arena.server.ratings is not None
    monkeypatch.setattr(arena.server.ratings, "leaderboard", broken)
    code, details = await status(arena, "GetLeaderboard", api_pb.GetLeaderboardRequest(game="friday13"))
    assert (code, details) == (grpc.StatusCode.INTERNAL, FAILED_INTERNALLY)
    assert "secret internals" in caplog.text


# -- the store failing --------------------------------------------------------------------------


@dataclass
class OwnRedis:
    """A redis-server of one test's own, with AOF (fsync always): kill -9 loses nothing."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                redis_server_binary(),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:  # BusyLoadingError too, while it reads its AOF
                assert time.monotonic() < deadline and self.process.poll() is None, "redis-server did not start"
                time.sleep(0.05)
        client.close()

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(free_port(), tmp_path)
    server.start()
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill()


async def health_serving(arena: Arena) -> bool:
    async with grpc.aio.insecure_channel(arena.address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""))
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


@pytest_asyncio.fixture
async def arena_on_own_redis(own_redis: OwnRedis) -> AsyncIterator[Arena]:
    async with start_arena(own_redis.url) as arena:
        yield arena


async def test_a_store_outage_is_unavailable_and_passes(own_redis: OwnRedis, arena_on_own_redis: Arena) -> None:
    arena = arena_on_own_redis
    owner = await arena.owner("alice")
    bot_token = await arena.bot(owner, "alpha")
    calls: list[tuple[str, Message, str, grpc.StatusCode]] = [
        ("CreateOwner", api_pb.CreateOwnerRequest(name="bob"), ADMIN, grpc.StatusCode.OK),
        ("ListBots", api_pb.ListBotsRequest(), "", grpc.StatusCode.OK),
        ("GetMatch", api_pb.GetMatchRequest(match_id="m-none"), "", grpc.StatusCode.NOT_FOUND),
        ("CreateMatch", match("friday13", ["builtin:random"] * 3), ADMIN, grpc.StatusCode.OK),
    ]
    own_redis.kill()
    for method, request, token, _ in calls:
        assert await status(arena, method, request, token) == (grpc.StatusCode.UNAVAILABLE, STORE_UNREACHABLE), method
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await RawBot(arena, bot_token).connect()
    assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.UNAVAILABLE, STORE_UNREACHABLE)
    own_redis.start()
    # Once the node serves again no call pays for the outage: the pool hands out no connection made before it.
    await until(lambda: health_serving(arena), "the node finding its store again", timeout=30)
    for method, request, token, after in calls:
        assert (await status(arena, method, request, token))[0] == after, method
    bot = RawBot(arena, bot_token)
    assert (await bot.connect()).bot_name == "alpha"
    await bot.close()


async def test_a_full_connection_pool_is_unavailable_not_an_internal_exception(
    arena: Arena, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """redis-py's MaxConnectionsError (a pool with no free connection) is UNAVAILABLE, not UNKNOWN with its class."""
    pool = redis.asyncio.ConnectionPool.from_url(redis_url, max_connections=1)
    tiny = redis.asyncio.Redis.from_pool(pool)
    held = await pool.get_connection()  # type: ignore[no-untyped-call]
    monkeypatch.setattr(arena.server.store, "redis", tiny)
    request = api_pb.CreateOwnerRequest(name="bob")
    try:
        assert await status(arena, "CreateOwner", request, ADMIN) == (grpc.StatusCode.UNAVAILABLE, STORE_UNREACHABLE)
        await pool.release(held)
        assert (await status(arena, "CreateOwner", request, ADMIN))[0] == grpc.StatusCode.OK
    finally:
        monkeypatch.undo()
        await tiny.aclose()
