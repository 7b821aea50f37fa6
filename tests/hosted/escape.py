"""The escape suite's stage: an arena on an embedded Redis, a decoy holding secrets, and the hostile bot's reports.

Every test gets a `Scene`: a real arena on an embedded Redis in a private data directory (as
`arena serve` runs by default), the session's TCP Redis beside it, and a decoy process whose
environment holds the admin token and a registered bot's token, as a server started with
ARENA_ADMIN_TOKEN or another bot's process would. `Scene.escape` submits tests/hosted/hostile_bot.py
told to try one class of escape (the validation match seats it against builtin:random), then seats
it at a table with a normal SDK bot connected from the test over TCP and a built-in bot, and returns
what both runs reported. The scene's teardown removes whatever a sandbox that did not hold let the
bot leave on the host: processes under its marker, files in /tmp, files planted in the interpreter.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import grpc
import pytest
import pytest_asyncio
from redis.asyncio import Redis

import arena
from arena.app import ServerConfig, running
from arena.match import Clock
from arena.node.hosted import HostedConfig
from arena.node.sessions import Limits
from arena.node.submissions import ValidationConfig
from arena.sdk import BuiltinBot, Match
from arena.store.embedded import open_redis
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from tests.conftest import unavailable
from tests.hosted.conftest import logs, submit
from tests.server.conftest import ADMIN, Arena

HERE = Path(__file__).resolve().parent
MIB = 1 << 20
CLOCK = Clock(per_move=0.5, bank=2.0)
"""Of the validation match and of the table: a seat made late by a CPU hog strikes within seconds."""
HOSTED = HostedConfig(connect_timeout=30.0, idle_timeout=20.0, validation=ValidationConfig(clock=CLOCK, timeout=90.0))
"""Room for the attacks made before connecting (filling a disk takes seconds)."""
CPU_CORES_MAX = 1.25
"""What one hosted bot may get of the machine's CPU: one core (and noise), however many processes it spins."""
DISK_CAP = 600 * MIB
"""The bot stops filling a directory here by itself (and says GOT): the old sandbox must not fill the host's disk."""
DISK_BOUND = 512 * MIB
"""The most a hosted bot may write, and the most the host's free disk may drop while it runs."""

LINE = re.compile(r"^ESCAPE (?P<name>[^:]+): (?:GOT (?P<got>.*)|(?P<verdict>refused|done|error) \((?P<detail>.*)\))$")


@dataclass(frozen=True)
class Attempt:
    """One report line of the hostile bot."""

    name: str
    verdict: str
    """refused, GOT, done (the test judges) or error."""
    detail: str
    line: str


def attempts(stderr: str) -> list[Attempt]:
    found = []
    for line in stderr.splitlines():
        match = LINE.match(line.strip())
        if match:
            verdict = "GOT" if match["got"] is not None else match["verdict"]
            found.append(Attempt(match["name"], verdict, match["got"] or match["detail"], line.strip()))
    return found


class NormalBot(BuiltinBot):
    """The normal seat at the hostile bot's table: random play over TCP, keeping every Error (a strike) it gets."""

    policy = "random"

    def __init__(self, match: Match, errors: list[str]) -> None:
        super().__init__(match)
        self.errors = errors

    def on_error(self, error: bot_pb.Error) -> None:
        self.errors.append(f"{bot_pb.ErrorCode.Name(error.code)}: {error.message}")


@dataclass
class Played:
    """What a hostile bot did: its SubmitBot reply and its runs (validation first, then the table)."""

    reply: api_pb.SubmitBotResponse
    runs: list[api_pb.HostedRun]

    @property
    def stderrs(self) -> list[str]:
        return [self.reply.stderr_tail] + [run.stderr for run in self.runs]

    def reports(self) -> list[list[Attempt]]:
        """The attempts of every run."""
        return [attempts(run.stderr) for run in self.runs]

    def lines(self) -> str:
        return "\n".join(f"run {at} ({run.ending}): {one.line}" for at, run in enumerate(self.runs)
                         for one in attempts(run.stderr))  # fmt: skip

    def assert_reported(self, expected: tuple[str, ...]) -> None:
        """Every run reported every expected attempt (a bot that died before reporting must not pass)."""
        for run, reported in zip(self.runs, self.reports(), strict=True):
            missing = set(expected) - {one.name for one in reported}
            assert not missing, f"run ending {run.ending!r} did not report {sorted(missing)}:\n{run.stderr[-3000:]}"

    def assert_refused(self, expected: tuple[str, ...], judged: tuple[str, ...] = ()) -> None:
        """Every expected attempt was reported by every run, and every attempt (but `judged` ones) was refused."""
        self.assert_reported(expected + judged)
        let_through = [one for reported in self.reports() for one in reported
                       if one.verdict != "refused" and not (one.name in judged and one.verdict == "done")]  # fmt: skip
        assert not let_through, "the sandbox let through:\n" + "\n".join(one.line for one in let_through)


@dataclass
class Scene:
    """An arena on an embedded Redis in `data_dir`, a decoy with secrets, and what the test knows of the host."""

    arena: Arena
    redis: Redis
    data_dir: Path
    redis_port: int
    tmp: Path
    owner: str = ""
    victim_token: str = ""
    decoy: subprocess.Popen[bytes] | None = None
    marker: str = field(default_factory=lambda: f"escape-marker-{secrets.token_hex(6)}")
    seen: list[str] = field(default_factory=list)
    """Every stderr read, for the teardown to find planted files."""

    @property
    def redis_socket(self) -> str:
        return str(self.redis.connection_pool.connection_kwargs.get("path", ""))

    @property
    def secrets(self) -> dict[str, str]:
        """What must never reach a bot's logs."""
        found = {"the admin token": ADMIN, "another bot's token": self.victim_token}
        password = self.redis.connection_pool.connection_kwargs.get("password")
        if password:
            found["the Redis password"] = str(password)
        return found

    def target(self, attack: str) -> dict[str, Any]:
        """attack.json: the attack and what the test knows of the host."""
        assert self.decoy is not None
        return {
            "attack": attack, "marker": self.marker, "server_pid": os.getpid(),
            "server_cmdline_sha": cmdline_sha(os.getpid()), "init_cmdline_sha": cmdline_sha(1),
            "decoy_pid": self.decoy.pid, "decoy_cmdline_sha": cmdline_sha(self.decoy.pid),
            "data_dir": str(self.data_dir), "redis_socket": self.redis_socket, "redis_port": self.redis_port,
            "arena_port": self.arena.server.port, "host_tmp": tempfile.gettempdir(),
            "cpu_cores_max": CPU_CORES_MAX, "disk_cap": DISK_CAP,
        }  # fmt: skip

    def hostile(self, name: str, attack: str) -> Path:
        """A bot folder: tests/hosted/hostile_bot.py as bot.py, with its attack.json."""
        folder = self.tmp / name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(HERE / "hostile_bot.py", folder / "bot.py")
        (folder / "attack.json").write_text(json.dumps(self.target(attack)))
        return folder

    async def submitted(self, name: str, attack: str) -> api_pb.SubmitBotResponse:
        """Register and submit a hostile bot; its validation match has run when this returns."""
        await self.arena.bot(self.owner, name)
        reply = await submit(self.arena, self.owner, name, self.hostile(name, attack))
        self.seen.append(reply.stderr_tail)
        if "runs no hosted bots" in reply.version.reason:
            unavailable(reply.version.reason)
        return reply

    async def run_of(self, name: str, match_id: str, timeout: float = 20.0, context: str = "") -> api_pb.HostedRun:
        """The stored run of `name` that played `match_id` (stored once its process is gone)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            runs = (await logs(self.arena, self.owner, name)).runs
            for run in runs:
                if match_id in run.match_ids:
                    self.seen.append(run.stderr)
                    return run
            stored = [(list(run.match_ids), run.ending) for run in runs]
            assert asyncio.get_running_loop().time() < deadline, (
                f"no run of {name} for {match_id}; runs: {stored} {context}"
            )
            await asyncio.sleep(0.1)

    async def escape(self, attack: str, name: str = "hostile", peers: tuple[str, ...] = ()) -> Played:
        """Submit the hostile bot, then play a table: `peers` (hosted), it, a normal bot over TCP, a built-in bot.

        Asserts that the normal bot's match ends normally: every score, the normal seat neither
        forfeited nor struck."""
        reply = await self.submitted(name, attack)
        runs = [await self.run_of(name, reply.version.validation_match_id, context=str(reply))]
        assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, (
            f"{name} failed validation, so it cannot be seated: {reply.version.reason}\n{reply.stderr_tail[-3000:]}"
        )
        normal = f"normal-{name}"
        errors: list[str] = []
        await self.arena.connect(functools.partial(NormalBot, errors=errors), await self.arena.bot(self.owner, normal))
        seats = [*peers, name, normal, "builtin:random"][:4]
        match_id = await self.arena.create_match("friday13", seats, clock=CLOCK)
        summary, replay = await self.arena.finished(match_id, timeout=90)
        runs.append(await self.run_of(name, match_id))
        assert len(summary.scores) == len(seats), summary
        assert seats.index(normal) not in replay["forfeited"], (replay["forfeited"], errors)
        assert not errors, f"the normal seat was struck: {errors}"
        played = Played(reply, runs)
        print(played.lines())  # shown for a failing test, or with -rA
        return played


def cmdline_sha(pid: int) -> str:
    """What the bot checks a pid against before it counts as the host's process."""
    return hashlib.sha256(Path(f"/proc/{pid}/cmdline").read_bytes()).hexdigest()


def marked(marker: str) -> list[int]:
    """Processes on the host with `marker` in their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


def planted(marker: str, stderrs: list[str]) -> list[Path]:
    """Files a backdoor attempt left on the host: in the interpreter's directories and the arena package."""
    directories = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], sys.prefix,
                   os.path.dirname(arena.__file__), bots_arena()}  # fmt: skip
    found = {path for directory in directories for path in Path(directory).glob(f"escape_{marker}*")}
    for stderr in stderrs:
        found |= {Path(path) for path in re.findall(rf"wrote (\S*escape_{marker}_\d+\.txt)", stderr)}
    return sorted(path for path in found if path.exists())


@functools.cache
def bots_arena() -> str:
    """The `arena` package folder a bot imports: its environment has no PYTHONPATH, so maybe not this test's."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    found = subprocess.run([sys.executable, "-c", "import arena, os; print(os.path.dirname(arena.__file__))"],
                           env=env, cwd="/", capture_output=True, text=True, check=True)  # fmt: skip
    return found.stdout.strip()


async def start_decoy(scene: Scene) -> None:
    """A process holding the admin token and a registered bot's token in its environment."""
    scene.victim_token = await scene.arena.bot(scene.owner, "victim")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ARENA_ADMIN_TOKEN": ADMIN,
           "ARENA_TOKEN": scene.victim_token}  # fmt: skip
    scene.decoy = subprocess.Popen([sys.executable, "-c", "import time\ntime.sleep(3600)  # decoy"], env=env)
    for _ in range(200):
        if b"decoy" in Path(f"/proc/{scene.decoy.pid}/cmdline").read_bytes():
            return
        await asyncio.sleep(0.01)


def clean_up(scene: Scene) -> None:
    """Remove what a sandbox that did not hold let the bot leave behind."""
    for pid in marked(scene.marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for root in {"/tmp", tempfile.gettempdir()}:
        for path in Path(root).glob(f"escape-{scene.marker}-*"):
            shutil.rmtree(path, ignore_errors=True)
    for path in planted(scene.marker, scene.seen):
        path.unlink(missing_ok=True)
    if scene.decoy is not None:
        scene.decoy.kill()
        scene.decoy.wait()


@contextlib.asynccontextmanager
async def embedded_arena(data_dir: Path) -> AsyncIterator[tuple[Arena, Redis]]:
    """A real arena on an embedded Redis keeping its data in `data_dir`, as `arena serve` runs by default."""
    config = ServerConfig(port=0, admin_token=ADMIN, limits=Limits(grace=2.0), hosted=HOSTED, data_dir=data_dir)
    async with open_redis(None, data_dir) as redis, running(config, redis) as server:
        channel = grpc.aio.insecure_channel(server.address)
        started = Arena(server, channel, api_grpc.ArenaServiceStub(channel))
        try:
            yield started, redis
        finally:
            for client, _ in started.clients:
                client.stop()
            await asyncio.gather(*(task for _, task in started.clients), return_exceptions=True)
            await channel.close()


@pytest_asyncio.fixture(name="scene")
async def scene_fixture(request: pytest.FixtureRequest, redis_server: str, tmp_path: Path) -> AsyncIterator[Scene]:
    """The scene; parametrized indirectly with "runtime", its data directory is inside a folder bots see
    (the interpreter's prefix), where the sandbox must cover it, not merely leave it out."""
    inside_runtime = getattr(request, "param", "") == "runtime"
    data_dir = (
        Path(tempfile.mkdtemp(prefix="arena-escape-data-", dir=sys.prefix)) if inside_runtime else tmp_path / "data"
    )
    port = urlparse(redis_server).port
    assert port is not None
    scene: Scene | None = None
    try:
        async with embedded_arena(data_dir) as (started, redis):
            scene = Scene(started, redis, data_dir, port, tmp_path / "bots")
            scene.owner = await started.owner("mallory")
            await start_decoy(scene)
            yield scene
    finally:
        if scene is not None:
            clean_up(scene)
        if inside_runtime:
            shutil.rmtree(data_dir, ignore_errors=True)
