"""What a finished match leaves behind, apart from the runner: `arena play` imports no event loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from arena.games.base import State, Termination, ranks_from_scores
from arena.match.debug import DebugEntry
from arena.match.faults import Fault


@dataclass
class SeatRecord:
    """How one seat fared: strikes, whether it forfeited, how long it thought."""

    strikes: int = 0
    forfeited: bool = False
    moves: int = 0
    thinking: float = 0.0
    bank: float = 0.0
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MatchResult:
    match_id: str
    game: str
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: Termination
    forfeited: tuple[int, ...]
    seat_records: tuple[SeatRecord, ...]
    state: State[Any]
    clock: dict[str, Any] | None = None
    """Per move, how long a timed seat thought and its bank left, and the strikes (`MatchRunner`)."""
    forfeits: tuple[Fault, ...] = ()
    """Why each forfeited seat forfeited, in the order they did."""
    strikes: tuple[Fault, ...] = ()
    """Every strike, in the order they came."""
    debug: tuple[DebugEntry, ...] = ()
    """The bots' debug texts, as (move, seat, text), bounded (`arena.match.debug`)."""

    @cached_property
    def record(self) -> dict[str, Any]:
        """The `arena-replay/1` record, built on first use (it re-plays the match).

        "forfeits", "strikes" and "debug" are there only when they hold something: a record without
        them had none (or was made before they existed), so that clean matches cost nothing more."""
        record = self.state.record(self.seats, self.termination)
        record["ranks"] = list(self.ranks)
        record["forfeited"] = list(self.forfeited)
        if self.clock is not None:
            record["clock"] = self.clock
        if self.forfeits:
            record["forfeits"] = [fault.to_json() for fault in self.forfeits]
        if self.strikes:
            record["strikes"] = [fault.to_json() for fault in self.strikes]
        if self.debug:
            record["debug"] = [list(entry) for entry in self.debug]
        return record


def final_ranks(scores: Sequence[int], forfeited: Sequence[int], *, lower_is_better: bool = True) -> tuple[int, ...]:
    """Ranks by score among the seats that finished; every forfeited seat shares the last rank."""
    playing = [seat for seat in range(len(scores)) if seat not in forfeited]
    among = ranks_from_scores([scores[seat] for seat in playing], lower_is_better=lower_is_better)
    ranks = [1 + len(playing)] * len(scores)
    for seat, rank in zip(playing, among, strict=True):
        ranks[seat] = rank
    return tuple(ranks)
