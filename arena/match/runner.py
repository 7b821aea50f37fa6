"""The match runner: one authoritative match, its clocks, strikes and forfeits.

It knows no transport: it talks to each player through a `Seat`, so `arena play` and the
server run matches with the same code. Policy, as docs/PROTOCOL.md states it for bot authors:
a late or illegal answer is a strike, the seat is told why, and the server plays the engine's
safe default move for it; the third strike, or a seat that is gone, forfeits the match: the
seat plays on with default moves and is ranked last. Nobody waits longer than the clock allows.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from arena import metrics
from arena.games.base import Action, Game, State, Termination, seed_commitment
from arena.match.answer_timer import AnswerTimer
from arena.match.debug import DebugLog
from arena.match.faults import Fault, FaultKind
from arena.match.results import MatchResult, SeatRecord, final_ranks
from arena.match.seats import (
    Clock,
    MatchEnd,
    MatchInfo,
    MoveRequest,
    Seat,
    SeatFailure,
    SeatGone,
    SeatTimeout,
    seat_names,
)

MAX_STRIKES = 3

__all__ = ["MAX_STRIKES", "MatchResult", "MatchRunner", "MoveListener", "SeatRecord", "final_ranks"]

MoveListener = Callable[[int, Action, State[Any]], Awaitable[None]]
"""Called after every move with (seat, action, state): event streams and live watchers."""
DebugListener = Callable[[int, int, str], None]
"""Called with (move, seat, text) for every debug text kept, as it comes: the bot's owner watches it live."""


class MatchRunner:
    """Runs one match to its end. Create one per match."""

    def __init__(
        self,
        game: Game,
        seats: Sequence[Seat],
        seed: bytes,
        *,
        match_id: str = "",
        clock: Clock | None = None,
        on_move: MoveListener | None = None,
        on_debug: DebugListener | None = None,
    ) -> None:
        if len(seats) != game.players:
            raise ValueError(f"{game.name} with {game.players} players needs {game.players} seats, not {len(seats)}")
        self.game = game
        self.seats = list(seats)
        self.seed = seed
        self.match_id = match_id
        self.clock = clock or Clock()
        self.on_move = on_move
        self.on_debug = on_debug
        self.sealed = False
        """The seed is not told at the end (MatchEnded): the same deal is still to be played at other tables."""
        self.state: State[Any] = game.new_match(seed)
        self.records = [SeatRecord(bank=self.clock.bank) for _ in seats]
        self._request_id = 0
        # The replay's clock: per move, a timed seat's think time and bank left (ms), else None;
        # and each strike with the index of the move it came with.
        self._timing: list[tuple[int, int] | None] = []
        self._actions: list[Action] = []
        self._moved: tuple[int, int] | None = None
        self._timer = AnswerTimer()
        self._strikes: list[tuple[int, int, str]] = []
        # Why seats lost, for the record: every strike and forfeit with its kind, detail and move.
        self._faults: list[Fault] = []
        self._forfeits: list[Fault] = []
        self.debug = DebugLog(len(seats))
        """The bots' debug texts so far (never shown to the other seats while the match runs)."""
        # The metrics' series of this game, looked up once rather than at every move.
        self._moves = metrics.MOVES.labels(game.name)
        self._answered = metrics.MOVE_SECONDS.labels(game.name)

    async def run(self, replayed: Sequence[Action] = ()) -> MatchResult:
        """Play the match to its end; `replayed` actions (from an event stream) are re-applied first."""
        state = self.state
        for action in replayed:
            state.apply(action)
        actions = self._actions
        actions.extend(replayed)
        self._timing = [None] * len(replayed)  # played before a resume: their times are not known
        names = seat_names(self.seats)
        commitment = seed_commitment(self.seed)
        await asyncio.gather(
            *(
                seat.start(MatchInfo(self.match_id, self.game, index, names, commitment, self.clock))
                for index, seat in enumerate(self.seats)
            )
        )
        try:
            while not state.is_terminal():
                seat = state.current_player()
                self._moved = None
                action = await self._next_action(seat)
                self._timing.append(self._moved)
                state.apply(action)
                actions.append(action)
                self.records[seat].moves += 1
                self._moves.inc()
                if self.on_move is not None:
                    await self.on_move(seat, action, state)
        finally:
            self._timer.close()
        return await self._finish()

    async def _next_action(self, seat: int) -> Action:
        record = self.records[seat]
        state = self.state
        if record.forfeited:
            return state.default_action()
        self._request_id += 1
        player = self.seats[seat]
        move = MoveRequest(self._request_id, state, seat, self.clock.per_move + record.bank)
        if not player.timed:
            # In-process bots answer synchronously; trusting them keeps `arena play` fast.
            return await player.request(move)
        started = time.perf_counter()
        timer = self._timer
        try:
            timer.start(move.time_left)
            move.extend = timer.extend
            try:
                action = await player.request(move)
            except asyncio.CancelledError:
                if timer.stop(cancelled=True):
                    raise TimeoutError from None
                raise
            finally:
                # The answer's deadline is settled: a pause told later (posting a strike through an
                # outage) must not move a deadline that has finished.
                move.extend = None
                timer.stop(cancelled=False)
        except (TimeoutError, SeatTimeout):
            record.bank = 0.0
            self._answered.observe(move.time_left)  # at least that long: the latency an operator sees
            self._moved = (round(move.time_left * 1000), 0)
            waited = round(move.time_left * 1000)
            return await self._strike(
                seat, move, f"no answer within {move.time_left:.3f} s", FaultKind.LATE, f"no answer within {waited} ms"
            )
        except SeatGone as gone:
            self._forfeit(seat, gone.kind, str(gone))
            return state.default_action()
        except SeatFailure as failure:
            return await self._strike(seat, move, str(failure), FaultKind.ERROR, str(failure))
        elapsed = time.perf_counter() - started - move.paused
        record.thinking += elapsed
        record.bank = max(0.0, record.bank - max(0.0, elapsed - self.clock.per_move))
        self._answered.observe(elapsed)
        self._moved = (round(elapsed * 1000), round(record.bank * 1000))
        if move.debug:
            # Kept for a late-judged illegal answer too: it may say why the bot chose it.
            kept = self.debug.add(len(self._timing), seat, move.debug)
            if kept and self.on_debug is not None:
                self.on_debug(len(self._timing), seat, kept)
        if action not in move.legal_actions:
            why = state.why_illegal(action) or "not among the legal actions sent"
            return await self._strike(
                seat, move, f"illegal action: {why}", FaultKind.ILLEGAL, self._illegal(action, why)
            )
        return action

    def _illegal(self, action: Action, why: str) -> str:
        """An illegal action in the record's words: its text and id, and why it is illegal."""
        try:
            return f"{self.game.action_text(action)} (id {action}): {why}"
        except (LookupError, ValueError):  # no action has that id (GameError is a ValueError); `why` says so
            return why

    async def _strike(self, seat: int, move: MoveRequest, reason: str, kind: FaultKind, detail: str) -> Action:
        """A strike for `reason` (the bot is told it); `kind` is the record's word and the metrics' label."""
        metrics.STRIKES.labels(self.game.name, str(kind)).inc()
        record = self.records[seat]
        record.strikes += 1
        default = self.state.default_action()
        message = f"strike {record.strikes} of {MAX_STRIKES}: {reason}; played {self.game.action_text(default)} for you"
        record.errors.append(message)
        index = len(self._timing)
        self._strikes.append((index, seat, message))
        self._faults.append(Fault(seat, self.seats[seat].name, kind, detail, index))
        if record.strikes >= MAX_STRIKES:
            mine = [fault for fault in self._faults if fault.seat == seat]
            detail = ", ".join(f"{fault.kind} at move {fault.move}" for fault in mine)
            self._forfeit(seat, FaultKind.STRIKES, detail)
        try:
            await self.seats[seat].reject(move, message)
        except SeatGone as gone:
            self._forfeit(seat, gone.kind, str(gone))
        except SeatFailure as failure:
            self._forfeit(seat, FaultKind.DISCONNECTED, f"could not be told of its strike: {failure}")
        return default

    def _forfeit(self, seat: int, kind: FaultKind, detail: str) -> None:
        record = self.records[seat]
        if not record.forfeited:
            record.forfeited = True
            record.errors.append(f"forfeited: {detail}")
            self._forfeits.append(Fault(seat, self.seats[seat].name, kind, detail, len(self._timing)))

    async def _finish(self) -> MatchResult:
        outcome = self.state.outcome()
        forfeited = tuple(seat for seat, record in enumerate(self.records) if record.forfeited)
        termination = Termination.FORFEIT if forfeited else outcome.termination
        ranks = final_ranks(outcome.scores, forfeited, lower_is_better=self.game.lower_is_better)
        names = seat_names(self.seats)
        end = MatchEnd(self.match_id, outcome.scores, ranks, termination, b"" if self.sealed else self.seed, forfeited)
        await asyncio.gather(*(seat.end(end) for seat in self.seats), return_exceptions=True)
        return MatchResult(
            match_id=self.match_id,
            game=self.game.name,
            seats=names,
            scores=outcome.scores,
            ranks=ranks,
            termination=termination,
            forfeited=forfeited,
            seat_records=tuple(self.records),
            state=self.state,
            clock=self._clock_record(),
            forfeits=tuple(self._forfeits),
            strikes=tuple(self._faults),
            debug=tuple(self.debug.entries),
            seed=self.seed,
            actions=tuple(self._actions),
        )

    def _clock_record(self) -> dict[str, Any] | None:
        """The replay record's "clock": None when no seat was timed (built-in bots only)."""
        if not self._strikes and all(timing is None for timing in self._timing):
            return None
        return {
            "per_move_ms": round(self.clock.per_move * 1000),
            "bank_ms": round(self.clock.bank * 1000),
            "moves": [None if timing is None else list(timing) for timing in self._timing],
            "strikes": [list(strike) for strike in self._strikes],
        }
