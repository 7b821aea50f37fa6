"""A fleet of `arena serve` processes on one Redis, as an orchestrator runs them, for the fault drills:
nodes started, killed, stopped and started again under their own names; SDK bots placed on them;
tournaments followed to their end with deadlines that come from what they wait for."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from redis.asyncio import Redis

from arena.sdk import Client
from arena.store.ratings import RatingStore
from arena.store.tournaments import TournamentStore
from arena.store.work import WorkQueue
from arena.tournaments import TournamentFormat, TournamentSpec
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.conftest import free_port
from tests.server.conftest import ADMIN, RandomBot, bearer

CLAIM_IDLE_MS = 2_000
GRACE_MS = 10_000
SLOTS = 4
"""Matches a node plays at once."""


@dataclass
class Node:
    name: str
    port: int
    redis_url: str
    log: Path
    process: subprocess.Popen[str] | None = None
    lines: list[str] = field(default_factory=list)
    held: socket.socket | None = None
    """The port, bound while the node is down: on a shared machine any outgoing connection may
    otherwise be given it as its local port, and the node could not come back on it."""

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN, "ARENA_CLAIM_IDLE_MS": str(CLAIM_IDLE_MS)}
        env.update({"ARENA_MATCH_SLOTS": str(SLOTS), "ARENA_WORKERS": "1"})
        if self.held is not None:
            self.held.close()
            self.held = None
        command = [sys.executable, "-m", "arena.cli", "serve", "--workers", "1", "--port", str(self.port), "--no-web",
                   "--redis-url", self.redis_url, "--node-name", self.name, "--grace-ms", str(GRACE_MS)]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.process = process  # stopped at the end even if it never says it serves
        assert process.stdout is not None
        # A node restarted under its name may log its first orders before it says where it serves.
        while "serving on" not in (line := process.stdout.readline()):
            assert line, f"node {self.name} ended before it served: {''.join(self.lines)}"
            self.lines.append(line)
        # Read what it logs all along (a pipe nobody reads would stop it once full), into a file for a failure.
        threading.Thread(target=self._drain, args=(process,), daemon=True).start()

    def _drain(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        with self.log.open("a") as out:
            for line in process.stdout:
                self.lines.append(line)
                out.write(line)
                out.flush()

    def signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)
        if signum == signal.SIGKILL:
            self.process.wait()
            # A bound port is never handed out for an outgoing connection; an orchestrator's container
            # keeps its port as its own network namespace does.
            self.held = socket.socket()
            self.held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.held.bind(("127.0.0.1", self.port))

    def stop(self) -> None:
        if self.held is not None:
            self.held.close()
            self.held = None
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGCONT)
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextmanager
def fleet(redis_url: str, folder: Path) -> Iterator[tuple[Node, Node]]:
    nodes = (
        Node("node-a", free_port(), redis_url, folder / "node-a.log"),
        Node("node-b", free_port(), redis_url, folder / "node-b.log"),
    )
    try:
        for node in nodes:
            node.start()
        yield nodes
    finally:
        for node in nodes:
            node.stop()


@asynccontextmanager
async def bots(placed: dict[str, str]) -> AsyncIterator[list[Client]]:
    """Bots registered through the first node named and connected where `placed` says (comma-separated
    addresses: the next one is tried when a stream is lost)."""
    clients: list[Client] = []
    runs: list[asyncio.Task[None]] = []
    first = next(iter(placed.values())).split(",")[0]
    try:
        async with grpc.aio.insecure_channel(first) as channel:
            api = api_grpc.ArenaServiceStub(channel)
            owner = await api.CreateOwner(api_pb.CreateOwnerRequest(name="fleet"), metadata=bearer(ADMIN))
            for name, addresses in placed.items():
                request = api_pb.RegisterBotRequest(name=name, games=["friday13"])
                bot = await api.RegisterBot(request, metadata=bearer(owner.token))
                clients.append(Client(RandomBot, addresses, bot.token, max_matches=SLOTS, backoff=0.2, max_backoff=1.0))
        runs += [asyncio.create_task(client.run()) for client in clients]
        yield clients
    finally:
        for client in clients:
            client.stop()
        await asyncio.gather(*runs, return_exceptions=True)


def round_robin(name: str, entrants: tuple[str, ...], rounds: int) -> TournamentSpec:
    return TournamentSpec(
        name, "friday13", entrants, format=TournamentFormat.ROUND_ROBIN, table_size=3, rounds=rounds,
        duplicate=True, rated=True, seed=f"{name}-deals",
    )  # fmt: skip


async def finished(redis: Redis, name: str, within: float, nodes: tuple[Node, ...]) -> None:
    """Wait until the tournament is over and every order acknowledged (ratings written too)."""
    tournaments, queue = TournamentStore(redis), WorkQueue(redis)
    deadline = time.monotonic() + within
    while True:
        state = await tournaments.get(name)
        if state is not None and state.finished_ms and not await queue.backlog():
            return
        for node in nodes:
            assert node.process is not None and node.process.poll() is None, f"{node.name} stopped: see {node.log}"
        assert time.monotonic() < deadline, (
            f"tournament {name} did not finish in {within:.0f} s; logs in {nodes[0].log.parent}"
        )
        await asyncio.sleep(0.2)


async def each_match_rated_once(redis: Redis, spec: TournamentSpec) -> list[str]:
    """Every match of the tournament stored once and rated once; returns how each one ended (an aborted one,
    re-run as `NAME-n-try2`, is there with its re-run)."""
    results = await TournamentStore(redis).results(spec.name)
    endings = {r.match_id: str(r.termination) for r in results}
    first_tries = {match_id.split("-try")[0] for match_id in endings}
    assert first_tries == {spec.match_id(n) for n in range(spec.total_matches)}, endings
    rated = await RatingStore(redis).results("friday13")
    assert sorted(r.match_id for r in rated) == sorted(r.match_id for r in results), "each result rated once"
    games = {bot: row.games for bot, row in (await RatingStore(redis).ratings("friday13", spec.entrants)).items()}
    played = {bot: sum(bot in r.seats for r in results if r.termination != "aborted") for bot in spec.entrants}
    assert games == played
    return [str(r.termination) for r in results]


async def matches_done(redis: Redis, name: str, count: int, within: float) -> None:
    tournaments = TournamentStore(redis)
    deadline = time.monotonic() + within
    while len(await tournaments.results(name)) < count:
        assert time.monotonic() < deadline, f"fewer than {count} matches of {name} ended in {within:.0f} s"
        await asyncio.sleep(0.05)
