"""Running matches: seats, clocks, strikes, forfeits and replay records; no transport."""

from arena.match.runner import MAX_STRIKES, MatchResult, MatchRunner, SeatRecord, final_ranks
from arena.match.seats import (
    BotSeat,
    Clock,
    MatchEnd,
    MatchInfo,
    MoveRequest,
    Seat,
    SeatFailure,
    SeatGone,
    SeatTimeout,
)

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
    "SeatRecord",
    "SeatTimeout",
    "final_ranks",
]
