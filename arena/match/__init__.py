"""Running matches: seats, clocks, strikes, forfeits and replay records; no transport."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from arena.match.results import MatchResult, SeatRecord, final_ranks
from arena.match.seats import (
    BotSeat,
    Clock,
    MatchEnd,
    MatchInfo,
    MoveRequest,
    Seat,
    SeatFailure,
    SeatGone,
    SeatLost,
    SeatTimeout,
)

if TYPE_CHECKING:
    from arena.match.runner import MAX_STRIKES, MatchRunner


def __getattr__(name: str) -> Any:
    """The runner, and asyncio with it, loads on first use: local play never needs it."""
    if name in ("MAX_STRIKES", "MatchRunner"):
        return getattr(import_module("arena.match.runner"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_STRIKES",
    "BotSeat",
    "Clock",
    "MatchEnd",
    "MatchInfo",
    "MatchResult",
    "MatchRunner",
    "MoveRequest",
    "Seat",
    "SeatFailure",
    "SeatGone",
    "SeatLost",
    "SeatRecord",
    "SeatTimeout",
    "final_ranks",
]
