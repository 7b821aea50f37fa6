"""The starter kits built from proto/ by their own build.sh, and a real arena to play them on."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from arena.v1 import bot_service_pb2 as bot_pb
from tests.conftest import npm_installed
from tests.hosted.conftest import HOSTED
from tests.server.conftest import Arena, start_arena
from tests.server.test_mixed_table import sent  # noqa: F401 - a fixture for the tests here

REPO = Path(__file__).resolve().parents[2]
KITS = ("cpp", "go", "java")
"""The compiled kits under sample_bots/, each with build.sh, run.sh and debian-packages.txt."""
BUILD_TIMEOUT = 900
"""A first C++ build on two busy cores takes minutes (the gRPC headers); later ones a second."""
GAMES = ("friday13", "amigo13", "board13")


def build(language: str) -> Path:
    """Build a kit with its build.sh; its run.sh. A kit that does not build fails the test."""
    folder = REPO / "sample_bots" / language
    script = folder / "build.sh"
    assert script.exists(), f"sample_bots/{language} has no build.sh"
    started = time.monotonic()
    done = subprocess.run([str(script)], capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    assert done.returncode == 0, f"sample_bots/{language}/build.sh failed:\n{done.stdout}\n{done.stderr}"
    print(f"sample_bots/{language}/build.sh took {time.monotonic() - started:.1f} s")
    run = folder / "run.sh"
    assert run.exists(), f"sample_bots/{language} has no run.sh"
    return run


@pytest.fixture(scope="session")
def kit() -> Iterator[Callable[[str], Path]]:
    """`kit(language)`: the kit's run.sh, built once per test session."""
    built: dict[str, Path] = {}

    def get(language: str) -> Path:
        if language not in built:
            built[language] = build(language)
        return built[language]

    yield get


@pytest.fixture(scope="session")
def node_bot() -> Path:
    """sample_bots/node/bot.js with its packages installed; a missing node fails the test, since
    the five languages are the point here (scripts/test.sh installs node on CI)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    assert not missing, f"{' and '.join(missing)} are needed for the Node kit and are not installed"
    return npm_installed(REPO / "sample_bots" / "node", "the JavaScript bot") / "bot.js"


@pytest_asyncio.fixture
async def arena(redis_url: str) -> AsyncIterator[Arena]:
    async with start_arena(redis_url) as started:
        yield started


@pytest_asyncio.fixture
async def hosted_arena(redis_url: str) -> AsyncIterator[Arena]:
    """An arena that runs hosted bots in its sandbox. A JVM takes over a second to connect on an idle
    machine and several on a loaded one: the kits get the default connect time, not the hosted
    tests' short one."""
    async with start_arena(redis_url, hosted=dataclasses.replace(HOSTED, connect_timeout=20.0)) as started:
        yield started


async def register(arena: Arena, *names: str) -> dict[str, str]:
    """Bots of one owner that play every game; their tokens by name."""
    owner = await arena.owner("kits-" + "-".join(names)[:30])
    return {name: await arena.bot(owner, name, games=GAMES) for name in names}


class Programs:
    """Bot programs started by a test, killed at its end if still running."""

    def __init__(self) -> None:
        self.processes: list[asyncio.subprocess.Process] = []

    async def start(self, *argv: str) -> asyncio.subprocess.Process:
        process = await asyncio.create_subprocess_exec(*argv)
        self.processes.append(process)
        return process

    async def exit_codes(self, timeout: float = 30) -> list[int]:
        return [await asyncio.wait_for(process.wait(), timeout) for process in self.processes]

    async def kill(self) -> None:
        for process in self.processes:
            if process.returncode is None:
                process.kill()
                await process.wait()


@pytest_asyncio.fixture
async def programs() -> AsyncIterator[Programs]:
    started = Programs()
    try:
        yield started
    finally:
        await started.kill()


def errors_sent(messages: list[tuple[str, bot_pb.ConnectResponse]]) -> list[tuple[str, str]]:
    """Every Error message the server sent, with the bot it went to."""
    return [(bot, message.error.message) for bot, message in messages if message.WhichOneof("message") == "error"]
