"""The ladder's matchmaker: pure table forming; the store holds the queues and the lock."""

from arena.matchmaking.matchmaker import (
    Matching,
    Matchmaker,
    MatchmakingError,
    QualitySchedule,
    Table,
    WaitingEntry,
    assign_seats,
)

__all__ = ["Matching", "Matchmaker", "MatchmakingError", "QualitySchedule", "Table", "WaitingEntry", "assign_seats"]
