"""A real arena that runs hosted bots in its sandbox, with short timeouts, and helpers to submit them."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from arena.hosted.package import pack
from arena.match import Clock
from arena.node.hosted import HostedConfig
from arena.node.submissions import ValidationConfig
from arena.v1 import arena_service_pb2 as api_pb
from tests.server.conftest import Arena, bearer, start_arena

HERE = Path(__file__).resolve().parent
HOSTED = HostedConfig(
    # A sandboxed start takes about 0.3 s on a quiet machine and 2 s at load 15 (docs/BENCHMARKS.md): room for
    # a busier one, so that only a bot that truly never connects is taken for one.
    connect_timeout=15.0,
    idle_timeout=10.0,
    validation=ValidationConfig(clock=Clock(per_move=0.5, bank=1.0), timeout=40.0),
)


@pytest_asyncio.fixture
async def arena(redis_url: str) -> AsyncIterator[Arena]:
    async with start_arena(redis_url, hosted=HOSTED) as started:
        yield started


def misbehaving(folder: Path, behaviour: str) -> Path:
    """A bot folder: tests/hosted/misbehaving_bot.py as bot.py, told what to do."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "misbehaving_bot.py", folder / "bot.py")
    (folder / "behaviour.txt").write_text(behaviour)
    return folder


def requests(name: str, folder: Path | None, run: str, game: str = "friday13") -> list[api_pb.SubmitBotRequest]:
    """A SubmitBot stream: the header, then the packed folder in small chunks."""
    data = pack(folder).data if folder is not None else b""
    first = api_pb.SubmitBotRequest(name=name, game=game, run=run)
    return [first] + [api_pb.SubmitBotRequest(chunk=data[at : at + 100_000]) for at in range(0, len(data), 100_000)]


async def submit(
    arena: Arena, token: str, name: str, folder: Path, run: str = "python bot.py"
) -> api_pb.SubmitBotResponse:
    reply: api_pb.SubmitBotResponse = await arena.api.SubmitBot(
        iter(requests(name, folder, run)), metadata=bearer(token)
    )
    return reply


async def logs(arena: Arena, token: str, name: str) -> api_pb.GetBotLogsResponse:
    reply: api_pb.GetBotLogsResponse = await arena.api.GetBotLogs(
        api_pb.GetBotLogsRequest(name=name), metadata=bearer(token)
    )
    return reply


@dataclass(frozen=True)
class HostProcess:
    pid: int
    parent: int
    uid: int


def host_processes() -> list[HostProcess]:
    """The host's live processes (zombies waiting for their reaper do not count), from /proc."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except (FileNotFoundError, ProcessLookupError):
            continue
        if not fields["State"].strip().startswith("Z"):
            found.append(HostProcess(int(status.parent.name), int(fields["PPid"]), int(fields["Uid"].split()[0])))
    return found


WITHOUT_SANDBOX = frozenset(
    {"test_package.py", "test_unpacker.py", "test_spawn.py", "test_unconfined.py", "test_refusal.py"}
)
"""The files of tests/hosted that run no sandbox (the reader, packing, starting processes, refusing without one)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every other test here launches bots in the sandbox: it needs bubblewrap and root (tests/conftest.py)."""
    for item in items:
        path = Path(str(item.fspath))
        if path.parent == HERE and path.name not in WITHOUT_SANDBOX:
            item.add_marker(pytest.mark.sandbox)
