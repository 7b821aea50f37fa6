"""`arena serve --workers N`: real worker processes on one port and one Redis, under a real supervisor.

Both workers host matches; a worker killed with SIGKILL is restarted and play goes on; SIGTERM
stops everything; a port already served is refused in one line; workers that keep dying at start
stop the server with one line rather than a restart loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from redis.asyncio import Redis

from arena.node.work import submit_match
from arena.sdk import Client
from arena.store import Store, keys
from arena.store.work import WorkQueue
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.workers import SupervisorError, held_port
from tests.conftest import free_port, redis_server_binary
from tests.hosted.conftest import host_processes
from tests.server.conftest import RandomBot, bearer

ARENA = [sys.executable, "-m", "arena.cli"]
ADMIN = "ata_workers-test"
WORKERS_LINE = re.compile(r"arena: (\d+) workers: (.*)")


class Server:
    """`arena serve` in a subprocess; a thread collects its output (stdout and stderr) line by line."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        environment = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
        # One process unless the test asks for workers (tests/conftest.py says why).
        environment.update({"ARENA_ADMIN_TOKEN": ADMIN, "ARENA_WORKERS": "1", **(env or {})})
        self.process = subprocess.Popen(
            [*ARENA, "serve", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment,
        )
        self.lines: list[str] = []
        self._ended = False
        """Its output was read to the end (the process and everything that held its output are gone)."""
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def wait_for(self, pattern: str, timeout: float = 60.0, after: int = 0) -> re.Match[str]:
        """The first line from `after` on matching `pattern`, once printed; fails naming the output so far."""
        found: list[re.Match[str]] = []

        def seen() -> bool:
            found[:] = [m for line in self.lines[after:] if (m := re.search(pattern, line))][:1]
            return bool(found) or self._ended

        with self._changed:
            self._changed.wait_for(seen, timeout)
        when = "before its output ended" if self._ended else f"within {timeout:.0f} s"
        assert found, f"no line matching {pattern!r} {when}; output:\n" + "\n".join(self.lines)
        return found[0]

    def workers(self) -> dict[str, int]:
        """Worker name -> pid, from the line the supervisor prints once all serve."""
        match = self.wait_for(WORKERS_LINE.pattern)
        return {name: int(pid) for name, pid in re.findall(r"(\S+) \(pid (\d+)\)", match.group(2))}

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        self._reader.join(10)
        return code


@contextmanager
def serving(*args: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    server = Server(*args, env=env)
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.stop()


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    environment["ARENA_WORKERS"] = "1"
    return subprocess.run(
        [*ARENA, *args], capture_output=True, text=True, timeout=60, env={**environment, **(env or {})}
    )


async def until(check: Any, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        await asyncio.sleep(0.05)


async def register(address: str, names: list[str]) -> dict[str, str]:
    async with grpc.aio.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        owner = (await api.CreateOwner(api_pb.CreateOwnerRequest(name="workers"), metadata=bearer(ADMIN))).token
        return {
            name: (await api.RegisterBot(api_pb.RegisterBotRequest(name=name), metadata=bearer(owner))).token
            for name in names
        }


async def holders(redis: Redis) -> set[str]:
    """The workers holding match orders now (their consumer names are `NAME#INCARNATION`)."""
    pending: Any = await redis.xpending_range(keys.WORK, keys.WORK_GROUP, "-", "+", 100)
    return {entry["consumer"].decode().split("#")[0] for entry in pending}


async def presence(redis: Redis, bots: list[str]) -> dict[str, set[str]]:
    """Bot -> the workers serving a session of it, as stated in Redis (by incarnation: `NAME#INCARNATION`)."""
    found: dict[str, set[str]] = {}
    for bot in bots:
        entries = await redis.hgetall(keys.presence(bot))
        found[bot] = {json.loads(value)["node"].split("#")[0] for value in entries.values()}
    return found


def descendants(ancestor: int) -> set[int]:
    """The live processes below `ancestor` (workers, their hosted bots, the embedded Redis)."""
    parents = {process.pid: process.parent for process in host_processes()}

    def below(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == ancestor:
                return True
        return False

    return {pid for pid in parents if below(pid)}


def wait_gone(pids: set[int], timeout: float = 10.0) -> set[int]:
    """Those of `pids` still alive after waiting up to `timeout` for all to end."""
    deadline = time.monotonic() + timeout
    while (alive := pids & {process.pid for process in host_processes()}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


@pytest.mark.slow  # a drill of the supervisor with real `arena serve --workers` processes (the slow tier)
@pytest.mark.asyncio
async def test_two_workers_share_the_port_and_the_matches_survive_a_kill_and_stop_cleanly(redis_url: str) -> None:
    port = free_port()
    bots = [f"b{i}" for i in range(6)]
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    queue = WorkQueue(redis)
    env = {"ARENA_MATCH_SLOTS": "4", "ARENA_CLAIM_IDLE_MS": "1500", "ARENA_WORKERS": "2"}
    clients: list[Client] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        with serving("--port", str(port), "--redis-url", redis_url, "--http-port", "0", env=env) as server:
            assert server.wait_for("serving on").group(0)
            web = server.wait_for(r"web UI on (http://\S+)").group(1)
            workers = server.workers()
            assert len(workers) == 2 and all(re.fullmatch(r".+-w[12]", name) for name in workers), workers
            address = f"127.0.0.1:{port}"
            tokens = await register(address, bots)
            # Orders first, bots later: each worker takes orders and holds them waiting for seats, so
            # that which worker hosts which match can be read from the work stream without a race.
            orders = [await submit_match(store, "friday13", bots[i : i + 3]) for i in range(0, 6, 3)]
            orders += [await submit_match(store, "friday13", bots[i + 1 : i + 4]) for i in range(0, 4, 2)]

            async def both_hold() -> bool:
                return await holders(redis) == set(workers)

            await until(both_hold, "both workers holding match orders")
            clients = [Client(RandomBot, address, tokens[name], max_matches=4, backoff=0.05) for name in bots]
            tasks = [asyncio.create_task(client.run()) for client in clients]

            async def done(wanted: list[Any]) -> bool:
                return all([await queue.result(order.match_id) for order in wanted])

            await until(lambda: done(orders), "the first matches ending")
            for order in orders:
                result = await queue.result(order.match_id)
                assert result is not None and result.termination == "normal", result
            # The web UI (worker 1's) reads the same store.
            with urllib_open(f"{web}api/matches/{orders[0].match_id}") as page:
                assert page["match"]["seats"] == list(orders[0].seats)

            # kill -9 the worker serving the most bots: the supervisor restarts it, its bots reconnect.
            served = await presence(redis, bots)
            victim = max(workers, key=lambda name: sum(name in nodes for nodes in served.values()))
            moved = [bot for bot, nodes in served.items() if victim in nodes]
            assert moved
            index = victim[-1]
            mark = len(server.lines)
            os.kill(workers[victim], signal.SIGKILL)
            server.wait_for(
                rf"worker {index} \({re.escape(victim)}, pid {workers[victim]}\) was killed by SIGKILL; "
                r"restarting it in 0\.5 s \(restart 1\)",
                after=mark,
            )
            server.wait_for(rf"worker {index} \({re.escape(victim)}r1, pid \d+\) serves again", after=mark)
            assert server.process.poll() is None
            ended = {client.token: len(client.ended) for client in clients}
            later = [await submit_match(store, "friday13", [moved[0], *[b for b in bots if b != moved[0]][:2]])]
            later += [await submit_match(store, "friday13", bots[3:6]), await submit_match(store, "friday13", bots[:3])]
            await until(lambda: done(later), "matches after the restart ending")
            for order in later:
                result = await queue.result(order.match_id)
                assert result is not None and result.termination == "normal", result
            mover = next(client for client in clients if client.token == tokens[moved[0]])
            assert len(mover.ended) > ended[mover.token], "a bot of the killed worker finished a match after it"

            family = descendants(server.process.pid)
            assert len(family & set(workers.values())) == 1  # the victim is gone, its new self is not
            assert len(family) >= 2
            assert server.stop() == 0
            assert any(line == "arena: stopping" for line in server.lines)
            assert wait_gone(family) == set(), "processes left behind"
    finally:
        for client in clients:
            client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        await redis.aclose()


@contextmanager
def urllib_open(url: str) -> Iterator[Any]:
    with urllib.request.urlopen(url, timeout=10) as page:
        yield json.loads(page.read())


@pytest.mark.slow  # a drill of the supervisor with real `arena serve --workers` processes (the slow tier)
def test_a_second_server_on_a_served_port_fails_in_one_line(tmp_path: Path) -> None:
    port = free_port()
    refusal = f"arena: error: cannot listen on 127.0.0.1:{port}: is another server running there?\n"
    with serving("--workers", "2", "--port", str(port), "--no-web", "--data-dir", str(tmp_path / "a")) as first:
        first.workers()
        for workers in ("2", "1"):
            second = arena(
                "serve",
                "--workers",
                workers,
                "--port",
                str(port),
                "--no-web",
                "--data-dir",
                str(tmp_path / "b"),
            )
            assert (second.returncode, second.stderr) == (2, refusal), second
        assert first.process.poll() is None
        assert first.stop() == 0
    with serving("--workers", "1", "--port", str(port), "--no-web", "--data-dir", str(tmp_path / "a")) as lone:
        lone.wait_for("serving on")
        second = arena("serve", "--workers", "2", "--port", str(port), "--no-web", "--data-dir", str(tmp_path / "b"))
        assert (second.returncode, second.stderr) == (2, refusal), second


def test_a_lone_nodes_port_is_kept_from_its_check_to_its_end_and_grpc_binds_beside_it() -> None:
    port = free_port()
    with held_port("127.0.0.1", port):
        # While the node starts, nothing else may take the port as its local address, as an outgoing
        # connection would be given it if it were free...
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", port))
        # ...while the node's own gRPC server (no port sharing) binds it and serves, and then a second
        # node's check refuses the port in one line.
        server = grpc.server(ThreadPoolExecutor(1), options=[("grpc.so_reuseport", 0)])
        assert server.add_insecure_port(f"127.0.0.1:{port}") == port
        server.start()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            second = rf"^cannot listen on 127\.0\.0\.1:{port}: is another server running there\?$"
            with pytest.raises(SupervisorError, match=second), held_port("127.0.0.1", port):
                pass
        finally:
            server.stop(None)
    with socket.socket() as after:
        after.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        after.bind(("127.0.0.1", port))  # given up once the node has stopped


@pytest.mark.parametrize(
    ("args", "env", "error"),
    [
        (("--workers", "0"), {}, "arena: error: Invalid value for '--workers': 0 is not in the range 1<=x<=256.\n"),
        (("--workers", "-1"), {}, "arena: error: Invalid value for '--workers': -1 is not in the range 1<=x<=256.\n"),
        (
            (),
            {"ARENA_WORKERS": "0"},
            "arena: error: ARENA_WORKERS=0: 0 is not in the range 1<=x<=256. "
            "(the value of --workers; fix or unset ARENA_WORKERS)\n",
        ),
    ],
)
def test_a_bad_worker_count_is_one_line(args: tuple[str, ...], env: dict[str, str], error: str) -> None:
    done = arena("serve", "--port", str(free_port()), *args, env=env)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", error)


@contextmanager
def redis_server(directory: Path, *options: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A redis-server of this test's own (the test may stop it); yields it and its URL."""
    port = free_port()
    command = [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(directory)]
    process = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL)
    try:
        yield process, f"redis://127.0.0.1:{port}/0"
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


@pytest.mark.slow  # a drill of the supervisor with real `arena serve --workers` processes (the slow tier)
def test_a_worker_that_cannot_start_stops_the_server_in_one_line(tmp_path: Path) -> None:
    # The supervisor's one connection is all this Redis takes: the workers are turned away.
    with (
        redis_server(tmp_path, "--maxclients", "1") as (_, url),
        serving("--workers", "2", "--port", str(free_port()), "--redis-url", url, "--no-web") as server,
    ):
        assert server.process.wait(timeout=120) == 2
        server._reader.join(10)
    assert re.fullmatch(r"arena: error: cannot reach Redis at redis://127\.0\.0\.1:\d+/0: .*", server.lines[-1])
    assert not any("serving on" in line for line in server.lines), server.lines


@pytest.mark.slow  # a drill of the supervisor with real `arena serve --workers` processes (the slow tier)
def test_workers_that_keep_dying_at_start_stop_the_server_in_one_line(tmp_path: Path) -> None:
    unreachable = arena(
        "serve", "--workers", "2", "--port", str(free_port()), "--redis-url", f"redis://127.0.0.1:{free_port()}/0"
    )
    assert unreachable.returncode == 2 and unreachable.stderr.startswith("arena: error: cannot reach Redis at ")
    assert unreachable.stderr.count("\n") == 1
    with (
        redis_server(tmp_path) as (redis, url),
        serving("--workers", "2", "--port", str(free_port()), "--redis-url", url, "--no-web") as server,
    ):
        workers = server.workers()
        redis.terminate()
        redis.wait(10)
        os.kill(workers[next(iter(workers))], signal.SIGKILL)
        assert server.process.wait(timeout=120) == 2
        server._reader.join(10)
    assert re.fullmatch(
        r"arena: error: worker 1 died 4 times in a row before serving \(last: cannot reach Redis at "
        rf"{re.escape(url)}: .*\); stopping",
        server.lines[-1],
    ), server.lines
    restarted = r"worker 1 \(.*-w1r1, pid \d+\) exited with code 1 before serving: cannot reach Redis"
    assert any(re.search(restarted, line) for line in server.lines), server.lines


@pytest.mark.slow  # a drill of the supervisor with real `arena serve --workers` processes (the slow tier)
def test_the_workers_die_with_a_killed_supervisor(redis_url: str) -> None:
    with serving("--workers", "2", "--port", str(free_port()), "--redis-url", redis_url, "--no-web") as server:
        workers = set(server.workers().values())
        assert workers <= descendants(server.process.pid)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(10)
        assert wait_gone(workers) == set(), "workers outlived their supervisor"


@pytest.mark.sandbox
@pytest.mark.slow  # a drill of the supervisor with real `arena serve --workers` processes (the slow tier)
def test_stopping_the_supervisor_stops_the_hosted_bots_of_its_workers(redis_url: str, tmp_path: Path) -> None:
    # Imported here: at the top, test_node_death's own test would be collected in this module too.
    from tests.hosted.conftest import misbehaving
    from tests.hosted.test_node_death import _submit_ignoring_the_end, sandboxed_processes

    with serving("--workers", "2", "--port", str(port := free_port()), "--redis-url", redis_url, "--no-web") as server:
        server.workers()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        api = api_grpc.ArenaServiceStub(channel)
        owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="mallory"), metadata=bearer(ADMIN)).token
        api.RegisterBot(api_pb.RegisterBotRequest(name="sleeper", games=["friday13"]), metadata=bearer(owner))
        folder = misbehaving(tmp_path / "sleeper", "silent")
        # Its validation match seats it in a worker; it never answers, so it is running when the stop comes.
        upload = threading.Thread(target=_submit_ignoring_the_end, args=(api, owner, folder), daemon=True)
        upload.start()
        deadline = time.monotonic() + 60
        while not (running := set(sandboxed_processes(server.process.pid))):
            assert time.monotonic() < deadline, "the hosted bot never started"
            time.sleep(0.05)
        assert server.stop() == 0
        channel.close()
    assert wait_gone(running) == set(), "hosted bots outlived the stop"
