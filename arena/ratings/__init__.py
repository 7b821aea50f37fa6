"""Ratings: TrueSkill per game, applied once per result, rebuilt from stored results.

`model` is the one module that talks to the `trueskill` package; `results` turns results and new
versions into the rows, leaderboard scores and history entries the store writes; `certainty`
says how sure a leaderboard is.
"""

from arena.ratings.certainty import (
    PROVISIONAL_MATCHES,
    PROVISIONAL_SIGMA,
    Z95,
    NeighbourOrder,
    OrderJudge,
    Since,
    established_since,
    is_established,
    is_provisional,
    neighbour_orders,
    order_z,
)
from arena.ratings.model import (
    DEFAULT_DRAW_PROBABILITY,
    QualityTerms,
    Rating,
    RatingError,
    RatingModel,
)
from arena.ratings.results import (
    BotRating,
    HistoryEntry,
    LogEntry,
    MatchOutcome,
    NewVersion,
    RatingBook,
    RatingUpdate,
    ResultRecord,
    VersionRating,
    apply_entry,
    apply_result,
    apply_version,
    entry_from_dict,
    recompute,
    version_ratings,
    why_not_rated,
)

__all__ = [
    "DEFAULT_DRAW_PROBABILITY",
    "PROVISIONAL_MATCHES",
    "PROVISIONAL_SIGMA",
    "Z95",
    "BotRating",
    "HistoryEntry",
    "LogEntry",
    "MatchOutcome",
    "NeighbourOrder",
    "NewVersion",
    "OrderJudge",
    "QualityTerms",
    "Rating",
    "RatingBook",
    "RatingError",
    "RatingModel",
    "RatingUpdate",
    "ResultRecord",
    "Since",
    "VersionRating",
    "apply_entry",
    "apply_result",
    "apply_version",
    "entry_from_dict",
    "established_since",
    "is_established",
    "is_provisional",
    "neighbour_orders",
    "order_z",
    "recompute",
    "version_ratings",
    "why_not_rated",
]
