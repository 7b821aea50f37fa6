"""Per client address on the gRPC edge: wrong tokens are slowed, live watches capped, connections bounded.

The node listens on [::] (IPv6 and IPv4), so that clients reach it from two loopback addresses
(127.0.0.1 and ::1) and the limits of one address can be seen to leave the other alone.
"""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import grpc
import pytest
from prometheus_client import REGISTRY

from arena.match import Clock
from arena.node.fds import FdPlan
from arena.server.peers import UNIX_WRONG_TOKEN_DELAY, PeerLimits, WrongTokens, address_of, server_options
from arena.store.hosted import HostedStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from tests.server.conftest import Arena, RawBot, bearer, start_arena

LIMITS = PeerLimits(wrong_tokens=5, wrong_token_seconds=30.0, watches_per_address=3, watches=5)


def refusals(limit: str) -> float:
    return REGISTRY.get_sample_value("arena_limit_refusals_total", {"limit": limit}) or 0.0


async def code_of(call: Any) -> tuple[grpc.StatusCode, str]:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


def api_from(arena: Arena, host: str) -> tuple[grpc.aio.Channel, Any]:
    channel = grpc.aio.insecure_channel(f"{host}:{arena.server.port}")
    return channel, api_grpc.ArenaServiceStub(channel)


def test_a_peer_names_its_address_an_ipv6_host_its_64_and_the_unix_socket_one_address() -> None:
    assert address_of("ipv4:10.1.2.3:5555") == "10.1.2.3"
    assert address_of("ipv6:[2001:db8:1:2:aaaa::1]:5555") == "2001:db8:1:2::/64"
    assert address_of("ipv6:[::ffff:10.1.2.3]:5555") == "10.1.2.3"
    assert address_of("unix:") == address_of("unix:/tmp/x.sock") == "unix"


def test_the_wrong_token_table_forgets_the_least_recently_wrong_address_first() -> None:
    table = WrongTokens(PeerLimits(wrong_tokens=1, addresses=3))
    for address in ("a", "b", "c", "d"):
        table.failed(address)
    assert len(table) == 3
    assert table.wait("a") == 0  # forgotten: a fresh start
    assert table.wait("d") > 0


@pytest.mark.asyncio
async def test_wrong_tokens_from_one_address_are_refused_quickly_and_others_get_in(redis_url: str) -> None:
    async with start_arena(redis_url, host="[::]", peers=LIMITS) as arena:
        owner = await arena.owner("alice")
        channel, other = api_from(arena, "[::1]")
        near, api = api_from(arena, "127.0.0.1")
        request = api_pb.RegisterBotRequest(name="alpha", games=["friday13"])
        before = refusals("wrong_tokens_address"), refusals("wrong_token")
        for attempt in range(LIMITS.wrong_tokens):
            code, details = await code_of(api.RegisterBot(request, metadata=bearer(f"own_guess-{attempt}")))
            assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, "the token is not valid (rotated, or mistyped)")
        started = time.monotonic()
        for _ in range(20):
            code, details = await code_of(api.RegisterBot(request, metadata=bearer("own_guess-more")))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            assert details.startswith("too many wrong tokens from this address; wait ") and "\n" not in details
        assert time.monotonic() - started < 5, "a refused address is answered at once"
        # Even a right token waits while the address is refused ...
        code, _ = await code_of(api.RegisterBot(request, metadata=bearer(owner)))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        # ... and Connect gets the same status (not INTERNAL) with its Hello read first.
        bot = RawBot(arena, "abt_guess")
        bot.channel = grpc.aio.insecure_channel(f"127.0.0.1:{arena.server.port}")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bot.connect()
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert "too many wrong tokens" in (refused.value.details() or "")
        await bot.close()
        # Another address is not affected, and calls without a token are not refused.
        assert (await other.RegisterBot(request, metadata=bearer(owner))).bot.name == "alpha"
        assert (await api.ListBots(api_pb.ListBotsRequest())).bots
        assert refusals("wrong_token") == before[1] + LIMITS.wrong_tokens
        assert refusals("wrong_tokens_address") == before[0] + 22
        await channel.close()
        await near.close()


@pytest.mark.asyncio
async def test_wrong_tokens_on_the_unix_socket_are_answered_late_and_lock_no_one_out(redis_url: str) -> None:
    """Every hosted bot comes through the Unix socket: one guessing must not lock the others out."""
    async with start_arena(redis_url, peers=LIMITS) as arena:
        await arena.bots("hosted-one")
        token = await HostedStore(arena.server.store.redis).mint_token("hosted-one", "launch-1", 60)
        async with grpc.aio.insecure_channel(f"unix:{arena.server.socket_path}") as channel:
            api = api_grpc.ArenaServiceStub(channel)
            request = api_pb.GetBotLogsRequest(name="hosted-one")
            started = time.monotonic()
            guesses = [
                asyncio.ensure_future(code_of(api.GetBotLogs(request, metadata=bearer(f"hst_guess-{n}"))))
                for n in range(3)
            ]
            await asyncio.sleep(0.1)
            call = bot_grpc.BotServiceStub(channel).Connect(metadata=bearer(token))
            await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(max_matches=1)))
            first = await asyncio.wait_for(call.read(), 5)
            assert first.welcome.bot_name == "hosted-one"
            assert time.monotonic() - started < UNIX_WRONG_TOKEN_DELAY, "a right token does not wait behind wrong ones"
            answers = await asyncio.gather(*guesses)
            assert {code for code, _ in answers} == {grpc.StatusCode.UNAUTHENTICATED}
            # One at a time: at most one wrong token a second on the whole socket.
            assert time.monotonic() - started >= 3 * UNIX_WRONG_TOKEN_DELAY
            call.cancel()


@pytest.mark.asyncio
async def test_live_watches_are_capped_per_address_and_in_total(redis_url: str) -> None:
    async with start_arena(redis_url, host="[::]", peers=LIMITS) as arena:
        tokens = await arena.bots("slow")
        slow = RawBot(arena, tokens["slow"])
        await slow.connect()
        match_id = await arena.create_match(
            "board13", ["slow", "builtin:random"], seed="01", clock=Clock(per_move=60, bank=0)
        )
        request = api_pb.WatchMatchRequest(match_id=match_id)
        near, api = api_from(arena, "127.0.0.1")
        far, other = api_from(arena, "[::1]")
        before = refusals("watch_address"), refusals("watch_total")
        watches = [api.WatchMatch(request) for _ in range(LIMITS.watches_per_address)]
        for watch in watches:
            await watch.read()  # the first view: the stream is open
        refused = api.WatchMatch(request)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await refused.read()
        assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "maximum of 3 live watches" in (error.value.details() or "")
        elsewhere = [other.WatchMatch(request) for _ in range(2)]
        for watch in elsewhere:
            await watch.read()
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await other.WatchMatch(request).read()
        assert "this node serves its maximum of 5 live watches" in (error.value.details() or "")
        assert (refusals("watch_address"), refusals("watch_total")) == (before[0] + 1, before[1] + 1)
        watches[0].cancel()
        await asyncio.sleep(0)
        deadline = time.monotonic() + 5
        guard = arena.server.peer_guard
        assert guard is not None
        while guard.watching.held() >= LIMITS.watches:
            assert time.monotonic() < deadline, "an ended watch gives its place back"
            await asyncio.sleep(0.01)
        again = api.WatchMatch(request)
        await again.read()
        for watch in (*watches, *elsewhere, again):
            watch.cancel()
        await slow.close()
        await near.close()
        await far.close()


@pytest.mark.asyncio
async def test_the_grpc_listener_closes_connections_past_its_cap_and_those_that_never_speak() -> None:
    """grpcio cannot count connections per address; the node caps each listener and drops silent ones."""
    options = dict(server_options(FdPlan(limit=1024, reserve=512, grpc=4, web=16)))
    options["grpc.server_handshake_timeout_ms"] = 500
    server = grpc.aio.server(options=list(options.items()))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(6)]
        for sock in held:
            sock.settimeout(5)
        settings = [sock.recv(64) for sock in held]
        assert all(settings[:4]) and settings[4:] == [b"", b""], "past the cap a connection is closed at once"
        closing = [sock.recv(256) for sock in held[:4]]  # GOAWAY, then the close
        assert all(b"handshake timeout" in frame or frame == b"" for frame in closing)
        for sock in held:
            sock.close()
    finally:
        await server.stop(0)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_quiet_stream_of_a_client_that_pings_as_often_as_allowed_is_not_cut() -> None:
    """SDK bots ping every 10 s while they wait for a match (arena.sdk.client.KEEPALIVE); were the node's
    ping policy not set, gRPC would call that abuse and cut the stream at the third ping. Here a client
    pings every 6 s (the node allows one per 5 s), so that a refused ping would show within 18 s."""
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    from arena.sdk.client import KEEPALIVE

    server = grpc.aio.server(options=server_options(FdPlan(limit=1024, reserve=512, grpc=16, web=16)))
    health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    options = dict(KEEPALIVE)
    options["grpc.keepalive_time_ms"] = 6_000
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=list(options.items())) as channel:
            call = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
            first = await call.read()
            assert first.status == health_pb2.HealthCheckResponse.SERVING
            quiet = asyncio.ensure_future(call.read())
            done, _ = await asyncio.wait({quiet}, timeout=20)
            assert not done, f"the quiet stream ended: {quiet.exception() or quiet.result()}"
            quiet.cancel()
            call.cancel()
    finally:
        await server.stop(0)
