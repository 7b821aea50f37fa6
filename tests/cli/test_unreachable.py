"""A server that does not answer is named after the client's connect timeout, in one line.

A port with nothing on it refuses at once; a server that accepts connections but never speaks (stopped
with SIGSTOP, hung, or a host that drops packets) used to hold a command for gRPC's 20-second connect
timeout. Here the socket is a real listening one that nobody serves: connections wait in its backlog.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import grpc
import pytest

from arena.client import CONNECT_TIMEOUT, ArenaClient, ArenaError, Connection
from arena.v1 import arena_service_pb2 as api_pb
from tests.conftest import free_port


@pytest.fixture
def silent_server() -> Iterator[str]:
    """HOST:PORT of a socket that accepts connections and never answers."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(64)
        yield f"127.0.0.1:{listening.getsockname()[1]}"


def leaderboard(server: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "leaderboard", "friday13", "--server", server],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return time.monotonic() - started, done


def test_a_silent_server_is_named_after_the_connect_timeout_not_grpcs_twenty_seconds(silent_server: str) -> None:
    # The refused port is the reference: it fails at once, so its time is the command's own start-up.
    # The exact timeout is pinned in-process below; here two interpreter start-ups on a loaded machine
    # differ by a second or more, so the bound only has to tell CONNECT_TIMEOUT from gRPC's 20 s.
    refused_after, refused = leaderboard(f"127.0.0.1:{free_port()}")
    silent_after, silent = leaderboard(silent_server)
    assert refused.returncode == 2 and "cannot reach the arena" in refused.stderr
    assert (silent.returncode, silent.stdout) == (2, "")
    assert silent.stderr == (
        f"arena: error: cannot reach the arena at {silent_server}: no answer within {CONNECT_TIMEOUT:g} s "
        "(is `arena serve` running there?)\n"
    )
    assert silent_after - refused_after < CONNECT_TIMEOUT + 5.0, (silent_after, refused_after)


@pytest.mark.asyncio
async def test_the_client_gives_up_on_a_silent_server_after_its_connect_timeout(silent_server: str) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with ArenaClient(Connection(silent_server)) as arena:
        with pytest.raises(ArenaError) as failed:
            await arena.get_leaderboard(api_pb.GetLeaderboardRequest(game="friday13"))
    assert failed.value.code == grpc.StatusCode.UNAVAILABLE
    assert CONNECT_TIMEOUT <= loop.time() - started < CONNECT_TIMEOUT + 1.0
