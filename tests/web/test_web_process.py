"""The web UI in a process of its own beside real `arena serve` nodes on a real Redis, in chromium: it
serves pages while its node cannot answer at all (stopped mid-tournament), comes back after kill -9
and dies with its node, shows live a match another node plays, sends JSON gzip-compressed, and a
web port in use costs the node one log line, not its gRPC.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import os
import signal
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import grpc
import pytest
import redis
from playwright.sync_api import Browser, Page, expect

from arena.games.base import Action
from arena.sdk import Bot, Client, Turn
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb
from tests.conftest import free_port
from tests.hosted.conftest import host_processes
from tests.server.conftest import bearer
from tests.server.test_workers import ADMIN, Server, serving, wait_gone
from tests.web.test_pages import DESKTOP

BUILTINS = ["builtin:random", "builtin:heuristic"]
PAGE_LOAD = 15.0
"""Seconds a page has to be drawn (as tests/web/test_pages.py allows on a loaded machine)."""


@dataclass
class Node:
    """`arena serve` in a subprocess, with its web UI in a process of its own."""

    server: Server
    address: str
    web: str

    @property
    def pid(self) -> int:
        return self.server.process.pid

    def api(self) -> Any:
        return api_grpc.ArenaServiceStub(grpc.insecure_channel(self.address))


@contextlib.contextmanager
def node(redis_url: str, *args: str, name: str = "web-node", env: dict[str, str] | None = None) -> Iterator[Node]:
    port = free_port()
    common = ("--port", str(port), "--redis-url", redis_url, "--node-name", name, "--http-port", "0")
    with serving(*common, *args, env=env) as server:
        server.wait_for("serving on")
        web = server.wait_for(r"web UI on (http://\S+)").group(1)
        yield Node(server, f"127.0.0.1:{port}", web)


def web_processes(parent: int) -> set[int]:
    """The web UI's processes among `parent`'s children (`python -m arena.web ...`)."""
    found = set()
    for process in host_processes():
        if process.parent != parent:
            continue
        with contextlib.suppress(OSError):
            if Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")[1:3] == [b"-m", b"arena.web"]:
                found.add(process.pid)
    return found


def tournament(api: Any, name: str, rounds: int, entrants: list[str] = BUILTINS, game: str = "board13") -> list[str]:
    """Start a round-robin of `rounds` rounds at one table of all `entrants`: its match ids."""
    spec = api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game=game),
        entrants=entrants,
        table_size=len(entrants),
        rounds=rounds,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        seed=name,
    )
    api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec), metadata=bearer(ADMIN), timeout=30)
    return [f"{name}-{number}" for number in range(rounds)]


def get(url: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """GET `path`: the status, the headers (lower-case names) and the body as sent."""
    where = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=PAGE_LOAD)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def get_json(url: str, path: str) -> Any:
    status, _, body = get(url, path)
    assert status == 200, (path, status, body)
    return json.loads(body)


def wait_until(check: Any, what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        time.sleep(0.05)
    return found


def ended(web: str, match_id: str) -> bool:
    status, _, body = get(web, f"/api/matches/{match_id}")
    return status == 200 and not json.loads(body)["match"]["running"]


def draw(page: Page, web: str, route: str) -> None:
    """Open `route` and wait until it is drawn (as tests/web/test_pages.py's `visit`)."""
    page.goto(f"{web}#/{route}", timeout=PAGE_LOAD * 1000)
    expect(page.locator("main")).to_have_attribute("data-route", f"#/{route}", timeout=PAGE_LOAD * 1000)
    expect(page.locator("main h1")).to_be_visible()
    expect(page.locator(".error"), f"#/{route}").to_have_count(0)


@dataclass
class Played:
    """A node that has played a small tournament, its matches, and its Redis."""

    node: Node
    matches: list[str]
    redis_url: str


@pytest.fixture(scope="module")
def played(redis_server: str) -> Iterator[Played]:
    """A node on the session's Redis (emptied first), once it played a tournament of three matches."""
    client = redis.Redis.from_url(redis_server)
    client.flushall()
    client.close()
    with node(redis_server) as started:
        matches = tournament(started.api(), "warm-up", 3)
        for match_id in matches:
            wait_until(lambda match_id=match_id: ended(started.web, match_id), f"match {match_id} ending", 120)
        yield Played(started, matches, redis_server)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=DESKTOP)
    try:
        yield context.new_page()
    finally:
        context.close()


def test_pages_load_while_the_node_cannot_answer_at_all_in_the_middle_of_a_tournament(
    played: Played, page: Page
) -> None:
    """In the node's event loop the pages waited on every match it played (median 8.4 s under a
    tournament); stopped with SIGSTOP, the node answers nothing, and its web UI must not care."""
    arena, finished = played.node, played.matches
    matches = tournament(arena.api(), "frozen-cup", 40)
    draw(page, arena.web, "tournaments/frozen-cup")  # while the node plays
    running = wait_until(
        lambda: get_json(arena.web, "/api/tournaments/frozen-cup")["playing"], "a match of it running", 60
    )
    os.kill(arena.pid, signal.SIGSTOP)
    try:
        for route in ("", "matches", "bots", f"matches/{finished[0]}", "tournaments/frozen-cup"):
            draw(page, arena.web, route)
        draw(page, arena.web, f"matches/{running[0]}")
        if not ended(arena.web, running[0]):  # it may have ended just before the node stopped
            expect(page.locator(".live-badge").first).to_be_visible()
        assert get(arena.web, "/api/matches?tournament=frozen-cup")[0] == 200
    finally:
        os.kill(arena.pid, signal.SIGCONT)
    arena.api().CancelTournament(api_pb.CancelTournamentRequest(name="frozen-cup"), metadata=bearer(ADMIN), timeout=30)
    assert matches


def test_json_is_gzip_compressed_when_the_client_accepts_it_and_live_streams_never_are(
    played: Played,
) -> None:
    arena, finished = played.node, played.matches
    path = f"/api/matches/{finished[0]}"
    status, plain_headers, plain = get(arena.web, path)
    assert status == 200 and "content-encoding" not in plain_headers
    status, headers, packed = get(arena.web, path, {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip" and "accept-encoding" in headers["vary"].lower()
    assert json.loads(gzip.decompress(packed)) == json.loads(plain)
    assert len(packed) < len(plain) / 4, (len(packed), len(plain))
    # Below about a kilobyte compression is not worth it.
    status, headers, small = get(arena.web, "/api/leaderboards/amigo13", {"Accept-Encoding": "gzip"})
    assert status == 200 and len(small) < 1024 and "content-encoding" not in headers
    assert json.loads(small)["rows"] == []
    # A live stream leaves each event as it comes, never compressed.
    where = urllib.parse.urlsplit(arena.web)
    stream = http.client.HTTPConnection(where.hostname or "", where.port, timeout=PAGE_LOAD)
    try:
        stream.request("GET", "/api/tournaments/warm-up/stream", headers={"Accept-Encoding": "gzip"})
        response = stream.getresponse()
        assert response.status == 200 and response.getheader("Content-Encoding") is None
        assert response.getheader("Content-Type", "").startswith("text/event-stream")
        assert response.readline() == b"event: end\n"
    finally:
        stream.close()


def test_the_web_process_is_started_again_after_kill_9_and_dies_with_its_node(redis_url: str, page: Page) -> None:
    with node(redis_url, name="phoenix") as arena:
        first = wait_until(lambda: web_processes(arena.pid), "the web UI's process", PAGE_LOAD)
        assert len(first) == 1
        (victim,) = first
        draw(page, arena.web, "")
        mark = len(arena.server.lines)
        os.kill(victim, signal.SIGKILL)
        arena.server.wait_for(
            rf"the web UI's process \(pid {victim}\) was killed by SIGKILL; starting it again in 0\.5 s", after=mark
        )
        arena.server.wait_for(r"the web UI's process serves again \(pid \d+\)", after=mark)
        (again,) = web_processes(arena.pid)
        assert again != victim
        draw(page, arena.web, "bots")
        # The node itself never stopped: its gRPC answers.
        assert arena.api().ListBots(api_pb.ListBotsRequest(), timeout=10) is not None
        # The web UI goes with its node, however the node dies.
        os.kill(arena.pid, signal.SIGKILL)
        assert wait_gone({again}) == set(), "the web UI's process outlived its node"
        arena.server.process.wait(10)


def test_a_web_port_in_use_costs_the_node_one_line_and_not_its_grpc(redis_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        http_port = taken.getsockname()[1]
        port = free_port()
        args = ("--port", str(port), "--redis-url", redis_url, "--http-port", str(http_port))
        with serving(*args) as server:
            server.wait_for("serving on")
            api = api_grpc.ArenaServiceStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
            owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="still-here"), metadata=bearer(ADMIN), timeout=10)
            assert owner.token
            assert server.process.poll() is None
            assert not any(line.startswith("arena: web UI on") for line in server.lines)
            about_web = [line for line in server.lines if f"{http_port}" in line]
            assert len(about_web) == 1, server.lines
            assert f"cannot serve the web UI on 127.0.0.1:{http_port}: Address already in use" in about_web[0]
            assert "serves gRPC without its web UI" in about_web[0]
            assert web_processes(server.process.pid) == set()


class GatedBot(Bot):
    """Plays its first legal action, one move each time the test lets it."""

    gate: ClassVar[threading.Semaphore] = threading.Semaphore(0)

    def act(self, turn: Turn) -> Action:
        assert self.gate.acquire(timeout=120), "the test never let the bot move"
        return turn.legal_actions[0]


@contextlib.contextmanager
def sdk_bot(bot: Client) -> Iterator[Client]:
    """Run an SDK client in a thread and event loop of its own (the browser's sync API holds this one)."""
    import asyncio

    thread = threading.Thread(target=asyncio.run, args=(bot.run(),), daemon=True)
    thread.start()
    try:
        yield bot
    finally:
        GatedBot.gate.release(1000)
        bot.stop()
        thread.join(30)


def live(web: str, match_id: str) -> dict[str, Any] | None:
    """The match as `web` shows it once it shows it live (before: None)."""
    status, _, body = get(web, f"/api/matches/{match_id}")
    shown: dict[str, Any] = json.loads(body)
    return shown if status == 200 and "live" in shown else None


def moves(web: str, match_id: str) -> int:
    """The moves of a running match that `web` shows."""
    return sum(len(entry["moves"]) for entry in get_json(web, f"/api/matches/{match_id}")["live"]["record"]["rounds"])


def test_the_web_process_shows_live_a_match_another_node_plays(played: Played, page: Page) -> None:
    watcher = played.node
    # The bot thinks as long as the test holds it: a clock of minutes.
    with node(played.redis_url, "--per-move-ms", "120000", "--bank-ms", "120000", name="player") as player:
        api = player.api()
        owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="gated"), metadata=bearer(ADMIN), timeout=10).token
        request = api_pb.RegisterBotRequest(name="gated", games=["friday13"])
        token = api.RegisterBot(request, metadata=bearer(owner), timeout=10).token
        with sdk_bot(Client(GatedBot, player.address, token, games=("friday13",))):
            (match_id,) = tournament(api, "live-elsewhere", 1, ["gated", *BUILTINS], "friday13")
            shown = wait_until(lambda: live(watcher.web, match_id), "it going live", 60)
            assert shown["match"]["node"].startswith("player#")
            draw(page, watcher.web, f"matches/{match_id}")
            expect(page.locator(".live-badge").first).to_be_visible()
            before = page.locator("main").inner_text()
            played_before = moves(watcher.web, match_id)
            GatedBot.gate.release(1)
            wait_until(
                lambda: moves(watcher.web, match_id) > played_before, "the bot's move on the other node's web", 30
            )
            expect(page.locator("main")).not_to_have_text(before, timeout=PAGE_LOAD * 1000)
            GatedBot.gate.release(1000)
            wait_until(lambda: ended(watcher.web, match_id), "the match ending", 120)
            expect(page.locator(".live-badge")).to_have_count(0, timeout=PAGE_LOAD * 1000)


def test_workers_share_one_web_process_that_a_worker_dying_leaves_alone(redis_url: str, page: Page) -> None:
    """Before, worker 1 served the web UI in its loop, and while it restarted there was none."""
    with node(redis_url, "--workers", "2", name="crew") as arena:
        workers = arena.server.workers()
        (web,) = wait_until(lambda: web_processes(arena.pid), "the web UI's process", PAGE_LOAD)
        assert all(web_processes(pid) == set() for pid in workers.values())
        draw(page, arena.web, "")
        mark = len(arena.server.lines)
        os.kill(workers["crew-w1"], signal.SIGKILL)
        draw(page, arena.web, "bots")  # while worker 1 is away
        arena.server.wait_for(r"worker 1 \(crew-w1r1, pid \d+\) serves again", after=mark)
        assert web_processes(arena.pid) == {web}
        draw(page, arena.web, "matches")
