"""Why a seat lost: its strikes and forfeits, each with its kind, its detail and its move.

The match runner records a `Fault` for every strike and every forfeit; the replay record keeps
them under "strikes" and "forfeits" (docs/PROTOCOL.md, "Replay records"), so that "why did my
bot lose?" has an answer in the record itself, in `arena match show` and on the web. Records
made before these keys existed still read: `faults_of` rebuilds what they tell (the strike
messages of their "clock", the bare seat numbers of "forfeited").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class FaultKind(StrEnum):
    """What went wrong; the words the record keeps."""

    LATE = "late"
    """No answer within the time the request gave (the move's limit plus the bank left)."""
    ILLEGAL = "illegal"
    """An action that is not among the legal ones."""
    ERROR = "error"
    """An answer the seat could not give for another reason (its detail says which)."""
    STRIKES = "strikes"
    """A forfeit: the third strike of the match."""
    DISCONNECTED = "disconnected"
    """A forfeit: the bot's stream was lost and it did not resume within the grace period."""
    CRASHED = "crashed"
    """A forfeit: a hosted bot's process ended (its exit code or signal in the detail)."""
    LIMIT = "limit"
    """A forfeit: a hosted bot's process hit a limit of its sandbox (memory, CPU time, processes, file size)."""
    UNKNOWN = "unknown"
    """Read from a record made before faults were recorded: only the seat is known."""


FORFEIT_KINDS = frozenset({FaultKind.STRIKES, FaultKind.DISCONNECTED, FaultKind.CRASHED, FaultKind.LIMIT})


@dataclass(frozen=True)
class Fault:
    """One strike or forfeit of one seat."""

    seat: int
    bot: str
    kind: FaultKind
    detail: str
    """One line for a person: "no answer within 11000 ms", "exited with code 1"."""
    move: int
    """The move it came with: its index (from 0) among the match's moves, as in the clock's "moves"."""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "kind": str(self.kind), "detail": self.detail, "move": self.move}

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> Fault:
        kind = entry.get("kind", "")
        return cls(
            int(entry["seat"]),
            str(entry.get("bot", "")),
            FaultKind(kind) if kind in FaultKind.__members__.values() else FaultKind.UNKNOWN,
            str(entry.get("detail", "")),
            int(entry.get("move", -1)),
        )


def strike_kind(message: str) -> FaultKind:
    """The kind of a strike from the message the bot was sent (all that records of before kept)."""
    reason = _reason(message)
    if reason.startswith("no answer"):
        return FaultKind.LATE
    if reason.startswith("illegal action"):
        return FaultKind.ILLEGAL
    return FaultKind.ERROR


def _reason(message: str) -> str:
    """The reason in a strike's message: "strike 1 of 3: REASON; played blue:1 for you"."""
    reason = message.split(": ", 1)[-1] if message.startswith("strike ") else message
    return reason.rsplit("; played ", 1)[0]


def faults_of(record: Mapping[str, Any]) -> tuple[list[Fault], list[Fault]]:
    """A replay record's (forfeits, strikes), from its "forfeits" and "strikes", or for a record made
    before them from its "forfeited" seats and its clock's strike messages."""
    seats: Sequence[str] = record.get("seats", ())

    def bot(seat: int) -> str:
        return seats[seat] if 0 <= seat < len(seats) else ""

    if "strikes" in record:
        strikes = [Fault.from_json(entry) for entry in record["strikes"]]
    else:
        clock = record.get("clock") or {}
        strikes = [
            Fault(int(seat), bot(int(seat)), strike_kind(str(message)), _reason(str(message)), int(move))
            for move, seat, message, *_ in clock.get("strikes", ())
        ]
    if "forfeits" in record:
        forfeits = [Fault.from_json(entry) for entry in record["forfeits"]]
    else:
        forfeits = [Fault(int(seat), bot(int(seat)), FaultKind.UNKNOWN, "", -1) for seat in record.get("forfeited", ())]
    return forfeits, strikes


def describe(fault: Fault, *, forfeit: bool) -> str:
    """One line in plain words: 'seat 2 (dora) forfeited at move 37: crashed: exited with code 1'."""
    who = f"seat {fault.seat} ({fault.bot})" if fault.bot else f"seat {fault.seat}"
    when = f" at move {fault.move}" if fault.move >= 0 else ""
    what = _WORDS.get(fault.kind, str(fault.kind))
    if forfeit:
        if fault.kind is FaultKind.UNKNOWN:
            return f"{who} forfeited (the record does not say why: it was made before reasons were kept)"
        return f"{who} forfeited{when}: {what}" + (f": {fault.detail}" if fault.detail else "")
    return f"{who} got a strike{when}: {what}" + (f": {fault.detail}" if fault.detail else "")


_WORDS = {
    FaultKind.LATE: "late",
    FaultKind.ILLEGAL: "illegal action",
    FaultKind.ERROR: "no usable answer",
    FaultKind.STRIKES: "three strikes",
    FaultKind.DISCONNECTED: "disconnected",
    FaultKind.CRASHED: "crashed",
    FaultKind.LIMIT: "sandbox limit",
    FaultKind.UNKNOWN: "no reason recorded",
}


def explain(record: Mapping[str, Any]) -> list[str]:
    """Every forfeit, then every strike, of a replay record as lines in plain words (none for a clean match)."""
    forfeits, strikes = faults_of(record)
    return [describe(fault, forfeit=True) for fault in forfeits] + [describe(fault, forfeit=False) for fault in strikes]
