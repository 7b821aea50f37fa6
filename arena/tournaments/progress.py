"""How far a tournament has got, told truthfully: done, due, re-running, aborted for good, cancelled.

A match of a tournament is played in attempts: `NAME-n` first, then, when an attempt is aborted
by a fault, a re-run `NAME-n-try2` with the same seed and seats, and so on up to
`MAX_MATCH_ATTEMPTS`. The store keeps every attempt's result and, per aborted attempt, its reason
and the re-run that followed it (`AbortNote`); `tournament_progress` follows each match's chain
of attempts to its last one and says what became of it. A tournament is "finished" only when
every match finished normally or by forfeit; with matches aborted for good it is "finished with N
aborted"; a cancelled one is "cancelled" (its running matches may still end).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arena.games.base import Termination
from arena.ratings import ResultRecord
from arena.tournaments.formats import plan_round
from arena.tournaments.spec import MAX_MATCH_ATTEMPTS, TournamentSpec


class TournamentStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    FINISHED_WITH_ABORTS = "finished-with-aborts"
    """Every match played, some aborted for good (after their attempts)."""
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class AbortNote:
    """What the store keeps of an aborted attempt: why, and the attempt that re-runs it ("" for none)."""

    reason: str
    rerun: str = ""


@dataclass(frozen=True)
class AbortedAttempt:
    """One aborted attempt of a tournament match, linked to its re-run (empty when it was the last)."""

    number: int
    match_id: str
    attempt: int
    reason: str
    rerun: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "match_id": self.match_id,
            "attempt": self.attempt,
            "reason": self.reason,
            "rerun": self.rerun,
        }


@dataclass(frozen=True)
class Progress:
    """A tournament's matches by what became of them; `status` says where it stands."""

    total: int
    done: int = 0
    """Finished normally or by forfeit (in some attempt)."""
    due: int = 0
    """Not played yet in their first attempt: queued, waiting for seats, running, or in a Swiss round not planned yet."""
    rerunning: int = 0
    """Aborted at least once and queued again (or running again)."""
    aborted: int = 0
    """Every attempt aborted: aborted for good."""
    cancelled: int = 0
    """Not started when the tournament was cancelled."""
    cancelled_ms: int = 0
    aborted_attempts: tuple[AbortedAttempt, ...] = ()
    """Every aborted attempt, match by match, with its reason and re-run."""
    current: Mapping[int, str] = field(default_factory=dict)
    """Match number -> the id of its attempt still to be played (due or re-running ones of planned rounds)."""

    @property
    def unsettled(self) -> int:
        """Matches that may still change: due or re-running (after a cancel: still running)."""
        return self.due + self.rerunning

    @property
    def status(self) -> TournamentStatus:
        if self.cancelled_ms:
            return TournamentStatus.CANCELLED
        if self.unsettled:
            return TournamentStatus.RUNNING
        return TournamentStatus.FINISHED_WITH_ABORTS if self.aborted else TournamentStatus.FINISHED

    def describe(self) -> str:
        """The status in a few words: "running", "finished", "finished with 2 aborted", "cancelled"."""
        status = self.status
        if status == TournamentStatus.FINISHED_WITH_ABORTS:
            return f"finished with {self.aborted} aborted"
        if status == TournamentStatus.CANCELLED and self.unsettled:
            return f"cancelled ({self.unsettled} still running)"
        return status

    def counts(self) -> str:
        """The matches in one line: "12 done, 3 due, 1 re-running, 1 aborted, 0 cancelled of 17"."""
        return (
            f"{self.done} done, {self.due} due, {self.rerunning} re-running, {self.aborted} aborted, "
            f"{self.cancelled} cancelled of {self.total}"
        )

    def last_attempts(self) -> list[AbortedAttempt]:
        """The aborted attempts not re-run: the matches aborted for good, or whose re-run is being queued."""
        return [attempt for attempt in self.aborted_attempts if not attempt.rerun]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "status_text": self.describe(),
            "total": self.total,
            "done": self.done,
            "due": self.due,
            "rerunning": self.rerunning,
            "aborted": self.aborted,
            "cancelled": self.cancelled,
            "aborted_matches": [attempt.to_dict() for attempt in self.aborted_attempts],
        }


def tournament_progress(
    spec: TournamentSpec,
    *,
    rounds_planned: int,
    results: Mapping[str, ResultRecord],
    aborts: Mapping[str, AbortNote],
    reasons: Mapping[str, str] | None = None,
    cancelled_ids: Collection[str] = (),
    cancelled_ms: int = 0,
    ended: bool = False,
) -> Progress:
    """What became of each match: `results` and `aborts` by match id (every attempt), `reasons` the
    abort reasons the nodes noted (used until the note is written), `cancelled_ids` the matches
    marked cancelled before they started. An aborted attempt with no note yet is taken as about to
    be re-run, unless the tournament `ended` (it ended before notes were kept) or was cancelled."""
    reasons = reasons or {}
    counts = {"done": 0, "due": 0, "rerunning": 0, "aborted": 0, "cancelled": 0}
    attempts: list[AbortedAttempt] = []
    current: dict[int, str] = {}
    for number in range(spec.total_matches):
        if spec.round_of(number) >= rounds_planned:
            counts["cancelled" if cancelled_ms else "due"] += 1
            continue
        attempt, match_id = 1, spec.attempt_id(number)
        while True:
            result, note = results.get(match_id), aborts.get(match_id)
            if match_id in cancelled_ids:
                fate = "cancelled"
            elif result is None:
                fate = "rerunning" if attempt > 1 else "due"
                current[number] = match_id
            elif result.termination != Termination.ABORTED:
                fate = "done"
            elif note is not None and note.rerun:
                attempts.append(AbortedAttempt(number, match_id, attempt, note.reason, note.rerun))
                attempt, match_id = attempt + 1, note.rerun
                continue
            else:
                attempts.append(
                    AbortedAttempt(number, match_id, attempt, note.reason if note else reasons.get(match_id, ""))
                )
                if note is None and attempt < MAX_MATCH_ATTEMPTS and not cancelled_ms and not ended:
                    fate = "rerunning"  # the node that stored it is queueing the re-run
                    current[number] = spec.attempt_id(number, attempt + 1)
                else:
                    fate = "aborted"
            break
        counts[fate] += 1
    return Progress(
        total=spec.total_matches,
        cancelled_ms=cancelled_ms,
        aborted_attempts=tuple(attempts),
        current=current,
        **counts,
    )


def seats_of(
    spec: TournamentSpec, numbers: Iterable[int], results: Iterable[ResultRecord]
) -> dict[int, tuple[str, ...]]:
    """The seats of matches `numbers` (of planned rounds) as their round's plan has them; a Swiss
    round's plan comes from the earlier rounds' `results`, as when it was planned."""
    wanted = set(numbers)
    finished = list(results)
    found: dict[int, tuple[str, ...]] = {}
    for round_number in sorted({spec.round_of(number) for number in wanted}):
        for pairing in plan_round(spec, round_number, finished):
            if pairing.number in wanted:
                found[pairing.number] = tuple(pairing.seats)
    return found


def seats_due(spec: TournamentSpec, progress: Progress, results: Iterable[ResultRecord]) -> set[str]:
    """The bots seated in matches still to be played: those of planned rounds, and every entrant
    while a Swiss round is still to be planned (its seats are not known yet)."""
    if progress.status != TournamentStatus.RUNNING:
        return set()
    seats = {name for table in seats_of(spec, progress.current, results).values() for name in table}
    if progress.unsettled > len(progress.current):
        seats.update(spec.entrants)
    return seats
