"""What a finished match leaves behind, apart from the runner: `arena play` imports no event loop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from arena.games.base import Action, State, Termination, ranks_from_scores
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
    seed: bytes = b""
    """The seed the match was dealt from (`MatchRunner` sets it and `actions`)."""
    actions: tuple[Action, ...] = ()
    """Every action played, in order: with the seed, what the rules need to make the record again."""

    @cached_property
    def record(self) -> dict[str, Any]:
        """The `arena-replay/1` record, built on first use (it re-plays the match)."""
        record = self.state.record(self.seats, self.termination)
        record.update(self.record_fields())
        return record

    def record_fields(self) -> dict[str, Any]:
        """What the record holds beyond what the rules make of the seed and the actions, in its order: the
        ranks and forfeited seats (replacing the rules' own), then the clock, forfeits, strikes and debug texts.

        "forfeits", "strikes" and "debug" are there only when they hold something: a record without
        them had none (or was made before they existed), so that clean matches cost nothing more."""
        fields: dict[str, Any] = {"ranks": list(self.ranks), "forfeited": list(self.forfeited)}
        if self.clock is not None:
            fields["clock"] = self.clock
        if self.forfeits:
            fields["forfeits"] = [fault.to_json() for fault in self.forfeits]
        if self.strikes:
            fields["strikes"] = [fault.to_json() for fault in self.strikes]
        if self.debug:
            fields["debug"] = [list(entry) for entry in self.debug]
        return fields


def final_ranks(scores: Sequence[int], forfeited: Sequence[int], *, lower_is_better: bool = True) -> tuple[int, ...]:
    """Ranks by score among the seats that finished; every forfeited seat shares the last rank."""
    playing = [seat for seat in range(len(scores)) if seat not in forfeited]
    among = ranks_from_scores([scores[seat] for seat in playing], lower_is_better=lower_is_better)
    ranks = [1 + len(playing)] * len(scores)
    for seat, rank in zip(playing, among, strict=True):
        ranks[seat] = rank
    return tuple(ranks)
