"""A real arena (real Redis, gRPC and HTTP on loopback) holding real matches, and a real browser.

The server runs in its own thread and event loop, so the tests can drive Playwright's sync API
and plain HTTP while matches are played; `WebArena.run` runs a coroutine in the server's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis

from arena.match import Clock
from arena.node.work import WorkConfig
from arena.store.hosted import HostedStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.conftest import unavailable
from tests.server.conftest import ADMIN, Arena, RandomBot, RawBot, bearer, start_arena

T = TypeVar("T")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
TOURNAMENT = "web-cup"
ENTRANTS = ["rb1", "builtin:random", "builtin:heuristic"]
MINUS = "\N{MINUS SIGN}"
"""How the pages write a negative number that they typeset (a head-to-head advantage), not a hyphen."""


@dataclass
class WebArena:
    """The running arena, the ids of the matches it played, and a way into its event loop."""

    arena: Arena
    loop: asyncio.AbstractEventLoop
    url: str
    matches: dict[str, str] = field(default_factory=dict)
    """Game name -> id of a finished match of that game."""

    def run(self, make: Callable[[], Awaitable[T]], timeout: float = 60) -> T:
        async def call() -> T:
            return await make()

        future: Future[T] = asyncio.run_coroutine_threadsafe(call(), self.loop)
        return future.result(timeout)

    def replay(self, match_id: str) -> dict[str, Any]:
        """The match's replay record as stored (what the pages must agree with)."""
        found = self.run(lambda: self.arena.server.store.get_match(match_id))
        assert found is not None and found[1] is not None
        return found[1]

    def get(self, path: str) -> tuple[int, Any]:
        """GET an API path: the status and the decoded JSON body."""
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


async def populate(arena: Arena) -> dict[str, str]:
    """Real matches: one per game with a connected bot or built-ins, and a rated tournament."""
    owner = await arena.owner("olga")
    await arena.connect(RandomBot, await arena.bot(owner, "rb1"))
    seats = {
        "friday13": ["rb1", "builtin:heuristic", "builtin:random"],
        "amigo13": ["builtin:random", "rb1", "builtin:heuristic"],
        "board13": ["builtin:random", "builtin:heuristic"],
    }
    ids = {game: await arena.create_match(game, names, seed="0d0e0a0d") for game, names in seats.items()}
    spec = api_pb.TournamentSpec(
        name=TOURNAMENT,
        game=pb.GameSpec(game="friday13"),
        entrants=ENTRANTS,
        table_size=3,
        rounds=2,
        rated=True,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        seed="web",
    )
    await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec), metadata=bearer(ADMIN))
    for match_id in ids.values():
        await arena.finished(match_id)
    async for update in arena.api.WatchTournament(api_pb.WatchTournamentRequest(name=TOURNAMENT), timeout=60):
        if update.tournament.finished_ms:
            break
    return ids


@contextlib.contextmanager
def arena_in_thread(
    redis_server: str,
    work: WorkConfig,
    populate: Callable[[WebArena], Awaitable[None]],
    name: str,
    ready: float = 60,
    **config: Any,
) -> Iterator[WebArena]:
    """An arena with its web UI in a thread of its own (the browser tests are synchronous), on the
    session's Redis emptied first, populated (within `ready` seconds) before it is handed over; stopped on exit.
    `config`: more of the arena's settings (`ServerConfig`)."""
    client = redis.Redis.from_url(redis_server)
    client.flushall()
    client.close()
    started: Future[WebArena] = Future()
    stop = threading.Event()

    async def serve() -> None:
        try:
            async with start_arena(redis_server, http_port=0, work=work, **config) as arena:
                assert arena.server.web is not None
                web = WebArena(arena, asyncio.get_running_loop(), arena.server.web.url)
                await asyncio.wait_for(populate(web), ready)
                started.set_result(web)
                while not stop.is_set():
                    await asyncio.sleep(0.05)
        except BaseException as error:
            if not started.done():
                started.set_exception(error)
            raise

    thread = threading.Thread(target=asyncio.run, args=(serve(),), name=name, daemon=True)
    thread.start()
    try:
        yield started.result(timeout=ready + 60)
    finally:
        stop.set()
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def web_arena(redis_server: str) -> Iterator[WebArena]:
    """One arena for a test module, with a few matches played."""

    async def played(web: WebArena) -> None:
        web.matches = await populate(web.arena)

    with arena_in_thread(redis_server, WorkConfig(claim_idle=1.0), played, "web-arena") as web:
        yield web


async def hold_live_match(arena: Arena) -> tuple[str, RawBot]:
    """A friday13 match that waits on a bot answering by hand: it stays live until the test lets it go on."""
    owner = await arena.owner("hand")
    bot = RawBot(arena, await arena.bot(owner, "by-hand", ("friday13",)))
    await bot.connect()
    match_id = await arena.create_match(
        "friday13", ["by-hand", "builtin:random", "builtin:heuristic"], seed="11", clock=Clock(60, 120)
    )
    return match_id, bot


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium; missing, the browser tests fail in CI and are skipped (with the reason) elsewhere."""
    found = shutil.which("chromium")
    if found is None:
        unavailable("chromium is not installed: scripts/test.sh installs it with apt-get (apt-get install chromium)")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    """Chromium for one module's tests. Not for the session: while Playwright's sync API runs it holds an
    event loop running in this thread, so no asyncio test could run after it on the same test worker."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def hosted_bot(web_arena: WebArena) -> str:
    """A hosted bot with two uploaded versions: the first passed validation, the second failed."""

    async def upload() -> None:
        store = web_arena.arena.server.store
        await store.create_owner("hilda")
        await store.register_bot("hilda", "hosted-one", ("friday13",), "python")
        hosted = HostedStore(store.redis)
        for _ in range(2):
            await hosted.add_version("hosted-one", "ab" * 32, b"package bytes", "python bot.py")
        await hosted.finish_validation("hosted-one", 1, "")
        await hosted.finish_validation("hosted-one", 2, "it crashed on its first move")

    web_arena.run(upload)
    return "hosted-one"
