"""Every starter kit says what it does on stderr: connected (where, as whom, which session), each attempt to
connect again and why, and giving up (exit code 1) after its limit; the Python SDK's own test is tests/sdk."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.kits.conftest import BUILD_TIMEOUT, register
from tests.server.conftest import Arena

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(BUILD_TIMEOUT + 300)]
LANGUAGES = ("node", "cpp", "go", "java")


def command(language: str, kit: Callable[[str], Path], node_bot: Path) -> list[str]:
    return ["node", str(node_bot)] if language == "node" else [str(kit(language))]


async def run(argv: list[str], timeout: float) -> tuple[int, list[str]]:
    process = await asyncio.create_subprocess_exec(*argv, stderr=asyncio.subprocess.PIPE)
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), timeout)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return process.returncode or 0, stderr.decode().splitlines()


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_kit_at_a_dead_port_says_so_retries_visibly_and_gives_up(
    language: str, kit: Callable[[str], Path], node_bot: Path
) -> None:
    argv = command(language, kit, node_bot)
    with socket.socket() as probe:  # bound, never listening: connections are refused
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
        # Two attempts take well under a second; a JVM starting on a busy machine takes longer.
        code, lines = await run([*argv, "--server", address, "--token", "atb_x", "--max-attempts", "2"], 120)
    assert code == 1, lines
    told = [line for line in lines if "cannot connect to" in line or "giving up" in line]
    assert len(told) == 2, lines
    assert f"cannot connect to {address}: " in told[0] and "retrying in " in told[0] and "(attempt 2 of 2)" in told[0]
    assert "refused" in told[0].lower(), told[0]
    assert "giving up after 2 attempts in " in told[1] and "without a Welcome" in told[1], told[1]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_kit_says_where_it_connected_as_whom_and_its_session(
    language: str, kit: Callable[[str], Path], node_bot: Path, arena: Arena
) -> None:
    argv = command(language, kit, node_bot)
    name = f"{language}-talks"
    tokens = await register(arena, name)
    playing = asyncio.create_task(
        run([*argv, "--server", arena.address, "--token", tokens[name], "--matches", "1"], 120)
    )

    async def connected() -> None:
        while name not in arena.server.sessions.connected():
            assert not playing.done(), f"the {language} bot stopped before connecting: {playing.result()}"
            await asyncio.sleep(0.05)

    await asyncio.wait_for(connected(), 120)
    [session] = arena.server.sessions.of_bot(name)
    await arena.create_match("friday13", [name, "builtin:random", "builtin:random"])
    code, lines = await playing
    assert code == 0, lines
    assert f"connected to {arena.address} as {name}, session {session.id}" in "\n".join(lines), lines
