"""The built-in bots' process pool: their search runs in worker processes, never in the node's event loop.

A built-in bot used to think in a thread of the node; Python's GIL then shared one core between
its search and everything else the node does, and a tournament of `builtin:mc` slowed an honest
match beside it from 0.12 s to 73.6 s. Now each built-in seat is given to one worker process
(`arena.node.builtin_worker`) that holds its bot, with the bot's state, for the whole match.

- Workers are spawned as fresh interpreters (`python -m arena.node.builtin_worker`, started by
  CPython's subprocess code as hosted bots are: nothing of the node's gRPC threads is forked, and
  unlike multiprocessing's "spawn" no main module of the node's is imported again), only when a
  first built-in seat needs one. Each searches several moves at once, in threads that share its
  core (`PoolConfig.threads_per_worker`).
- There are as many as the cores less one (at least one): built-in bots never take every core.
- Each worker holds at most `PoolConfig.seats_per_worker` seats; past that a seat is refused
  (`PoolBusy`, one line), and a match waits or is handed on as for any bot that has no room.
  A seat asks one move at a time, so a worker's queue is bounded by its seats.
- A worker that dies is started again; its seats' bots are made anew from their seeds (what they
  had learnt in the match is lost) and their pending moves asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import pickle
import socket
import subprocess
import sys
import weakref
from dataclasses import dataclass, field
from typing import Any

from arena import metrics
from arena.games import Game
from arena.games.base import Action
from arena.match.seats import MatchEnd, MoveRequest, Seat, SeatFailure
from arena.node import builtin_worker
from arena.node.builtin_worker import HEADER, frame
from arena.node.cpus import usable_cores

log = logging.getLogger(__name__)

ATTEMPTS = 3
"""Workers that may die under one move before the seat gives up (the match then ends as aborted)."""


@dataclass(frozen=True)
class PoolConfig:
    """How many worker processes the built-in bots get, and how much each holds."""

    workers: int = 0
    """Worker processes; 0: the usable cores less one, at least one (a supervisor's worker: its share of them)."""
    seats_per_worker: int = 512
    """Built-in seats (bots of running matches) one worker holds at once; a seat more is refused. A node
    runs 64 work matches at once by default, each with up to 4 built-in seats (a tournament of them), and
    more through CreateMatch; a bot of a seat is small."""
    threads_per_worker: int = 6
    """Moves a worker searches at once, in threads sharing its core (as the node's default thread pool
    did before the pool): a Monte Carlo bot's search is bounded by wall time, so several at once keep
    every match of built-in bots moving instead of queueing whole searches one after another."""
    nice: int = 0
    """How much lower than the node's the workers' CPU priority is (os.nice). 0 by default: on a machine
    shared with other busy processes a lower priority starves the built-in bots, whose search is
    bounded by wall time (arena.bots.montecarlo), and a tournament of them then crawls."""

    def size(self) -> int:
        return self.workers or max(1, usable_cores() - 1)


class PoolBusy(RuntimeError):
    """Every worker holds its maximum of seats; the message says how many and what to do."""


class WorkerDied(RuntimeError):
    """The worker holding a seat died before it answered."""


@dataclass(eq=False)
class PoolSeat:
    """One built-in seat held by a worker: what makes its bot, and the move it waits for."""

    key: int
    start: tuple[Any, ...]
    """The "start" message that makes its bot."""
    worker: Worker
    generation: int = 0
    """The worker's generation its bot was made in (0: not yet)."""
    answer: asyncio.Future[Action] | None = None
    """The move it waits for, while it waits."""


@dataclass(eq=False)
class Worker:
    """One worker process and the seats it holds."""

    number: int
    nice: int
    threads: int
    seats: dict[int, PoolSeat] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    writer: asyncio.StreamWriter | None = None
    reader: asyncio.Task[None] | None = None
    generation: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    closing: bool = False

    async def ready(self) -> None:
        """Start the process if it is not running (a first seat, or after it died)."""
        async with self.lock:
            if self.writer is not None:
                return
            if self.closing:
                raise SeatFailure("the node is stopping: its built-in bots are gone")
            mine, theirs = socket.socketpair()
            try:
                process = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        builtin_worker.__name__,
                        *map(str, (theirs.fileno(), self.nice, self.threads)),
                    ],
                    pass_fds=(theirs.fileno(),),
                    stdin=subprocess.DEVNULL,
                )
            except OSError:
                mine.close()
                raise
            finally:
                theirs.close()
            reader, writer = await asyncio.open_connection(sock=mine)
            self.process, self.writer = process, writer
            self.generation += 1
            self.reader = asyncio.create_task(self._read(reader, writer), name=f"builtin worker {self.number}")

    def send(self, message: tuple[Any, ...]) -> None:
        if self.writer is not None:
            self.writer.write(frame(message))

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readexactly(HEADER.size)
                kind, key, value = pickle.loads(await reader.readexactly(HEADER.unpack(head)[0]))
                seat = self.seats.get(key)
                if seat is None or seat.answer is None or seat.answer.done():
                    continue
                if kind == "action":
                    seat.answer.set_result(value)
                else:
                    seat.answer.set_exception(SeatFailure(f"the built-in bot failed: {value}"))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._gone(writer)

    def _gone(self, writer: asyncio.StreamWriter) -> None:
        """The process's socket closed: it died (or is being stopped); its seats' moves are asked again."""
        if self.writer is not writer:
            return
        writer.close()
        self.writer = None
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(0.5)
        if self.closing:
            return
        metrics.BUILTIN_RESTARTS.inc()
        code = process.returncode if process is not None else None
        log.warning("worker %d of the built-in bots died (exit %s); starting it again", self.number, code)
        for seat in self.seats.values():
            if seat.answer is not None and not seat.answer.done():
                seat.answer.set_exception(WorkerDied(f"worker {self.number} of the built-in bots died"))

    async def stop(self) -> None:
        self.closing = True
        writer = self.writer
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
        if self.reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        if self.process is not None:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(1.0)


class BuiltinPool:
    """The node's workers for built-in bots: seats are claimed while a match is seated, asked moves, released at its end."""

    def __init__(self, config: PoolConfig | None = None) -> None:
        self.config = config or PoolConfig()
        self.workers = [
            Worker(number, self.config.nice, self.config.threads_per_worker) for number in range(self.config.size())
        ]
        self._keys = itertools.count(1)
        self.loop = asyncio.get_running_loop()

    @property
    def capacity(self) -> int:
        return len(self.workers) * self.config.seats_per_worker

    def held(self) -> int:
        return sum(len(worker.seats) for worker in self.workers)

    def claim(self, policy: str, game: Game, seat: int, seed: int) -> PoolSeat:
        """A place for a bot of `policy` in the least busy worker; PoolBusy when every worker is full."""
        worker = min(self.workers, key=lambda one: len(one.seats))
        if len(worker.seats) >= self.config.seats_per_worker:
            metrics.REFUSALS.labels("builtin_busy").inc()
            raise PoolBusy(
                f"the built-in bots' {len(self.workers)} worker processes hold their maximum of {self.capacity} "
                "seats; the match waits for built-in bots' matches to end"
            )
        key = next(self._keys)
        held = PoolSeat(key, ("start", key, policy, game, seat, seed), worker)
        worker.seats[key] = held
        metrics.BUILTIN_SEATS.inc()
        return held

    async def act(self, seat: PoolSeat, move: MoveRequest) -> Action:
        """The bot's answer to `move`, computed in its worker; asked again (of a new bot) if the worker dies."""
        asking = ("act", seat.key, move.seat, list(move.legal_actions), move.observation)
        for attempt in range(ATTEMPTS):
            worker = seat.worker
            await worker.ready()
            if seat.generation != worker.generation:
                if seat.generation:
                    log.warning("a built-in bot (seat key %d) is made anew after its worker died", seat.key)
                worker.send(seat.start)
                seat.generation = worker.generation
            seat.answer = asyncio.get_running_loop().create_future()
            worker.send(asking)
            try:
                return await seat.answer
            except WorkerDied:
                if attempt + 1 == ATTEMPTS:
                    raise SeatFailure(f"the built-in bots' worker died {ATTEMPTS} times under one move") from None
            finally:
                seat.answer = None
        raise AssertionError("unreachable")

    def release_later(self, seat: PoolSeat) -> None:
        """`release` from a finalizer: in the event loop's own time (writing to a worker is not safe from anywhere)."""
        with contextlib.suppress(RuntimeError):  # no loop any more: the pool is gone too
            self.loop.call_soon_threadsafe(self.release, seat)

    def release(self, seat: PoolSeat) -> None:
        """The seat's match is over: its worker drops the bot (at once, or on its next start)."""
        if seat.worker.seats.pop(seat.key, None) is None:
            return
        metrics.BUILTIN_SEATS.dec()
        if seat.generation == seat.worker.generation:
            seat.worker.send(("end", seat.key))

    async def close(self) -> None:
        await asyncio.gather(*(worker.stop() for worker in self.workers))
        for worker in self.workers:
            metrics.BUILTIN_SEATS.dec(len(worker.seats))
            worker.seats.clear()


class PooledBotSeat(Seat):
    """A built-in bot of one match, thinking in a worker of the pool; untimed, as in-process bots are."""

    timed = False

    def __init__(self, name: str, pool: BuiltinPool, held: PoolSeat) -> None:
        self.name = name
        self.pool = pool
        self.held = held
        # A match that never ends normally (stopped, or dropped before it ran) still gives its seat back.
        self._finalizer = weakref.finalize(self, pool.release_later, held)

    async def request(self, move: MoveRequest) -> Action:
        return await self.pool.act(self.held, move)

    async def end(self, result: MatchEnd) -> None:
        self.release()

    def release(self) -> None:
        if self._finalizer.detach() is not None:
            self.pool.release(self.held)
