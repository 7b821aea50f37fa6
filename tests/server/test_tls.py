"""The server with TLS: bots and tools connect with the CA's certificate."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from arena.app import ServerConfig, running
from arena.sdk import Client
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.server.conftest import ADMIN, RandomBot, bearer

pytestmark = [pytest.mark.asyncio, pytest.mark.openssl]


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_bots_and_tools_connect_over_tls(redis_url: str, certificate: tuple[Path, Path]) -> None:
    from redis.asyncio import Redis

    cert, key = certificate
    redis = Redis.from_url(redis_url)
    config = ServerConfig(host="localhost", port=0, tls_cert=cert, tls_key=key, admin_token=ADMIN)
    async with running(config, redis) as server:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        async with grpc.aio.secure_channel(server.address, credentials) as channel:
            api = api_grpc.ArenaServiceStub(channel)
            owner = await api.CreateOwner(api_pb.CreateOwnerRequest(name="tls"), metadata=bearer(ADMIN))
            bot = await api.RegisterBot(api_pb.RegisterBotRequest(name="sealed"), metadata=bearer(owner.token))
            client = Client(RandomBot, server.address, bot.token, credentials=credentials, matches=1)
            player = asyncio.create_task(client.run())
            await asyncio.wait_for(client.welcomed.wait(), 5)
            request = api_pb.CreateMatchRequest(seats=["sealed", "builtin:random", "builtin:random"])
            request.game.game = "amigo13"
            await api.CreateMatch(request, metadata=bearer(ADMIN))
            await asyncio.wait_for(player, 30)
            assert len(client.ended) == 1
        async with grpc.aio.insecure_channel(server.address) as plain:
            with pytest.raises(grpc.aio.AioRpcError):
                await api_grpc.ArenaServiceStub(plain).ListBots(api_pb.ListBotsRequest(), timeout=2)
    await redis.aclose()


async def test_the_command_line_reaches_a_tls_server_with_its_ca_and_says_why_without(
    redis_url: str, certificate: tuple[Path, Path]
) -> None:
    from redis.asyncio import Redis

    cert, key = certificate
    redis = Redis.from_url(redis_url)
    config = ServerConfig(host="localhost", port=0, tls_cert=cert, tls_key=key, admin_token=ADMIN)
    async with running(config, redis) as server:
        command = [sys.executable, "-m", "arena.cli", "owner", "create", "tlsowner", "--server", server.address]
        env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
        sealed = await asyncio.to_thread(
            subprocess.run,
            [*command, "--token", ADMIN, "--ca-cert", str(cert)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert sealed.returncode == 0, sealed.stderr
        assert "owner tlsowner created" in sealed.stdout
        plain = await asyncio.to_thread(
            subprocess.run, [*command, "--token", ADMIN], capture_output=True, text=True, env=env, check=False
        )
        assert plain.returncode == 2 and plain.stderr.startswith("arena: error: ")
        assert plain.stderr.count("\n") == 1
        bad_env = await asyncio.to_thread(
            subprocess.run,
            command,
            capture_output=True,
            text=True,
            check=False,
            env={**env, "ARENA_TOKEN": ADMIN, "ARENA_CA_CERT": "/nonexistent.pem"},
        )
        assert bad_env.returncode == 2
        assert bad_env.stderr.startswith("arena: error: ") and "--ca-cert" in bad_env.stderr
        assert "/nonexistent.pem" in bad_env.stderr and bad_env.stderr.count("\n") == 1
    await redis.aclose()
