"""Ratings: TrueSkill per game, applied once per result, rebuilt from stored results.

`model` is the one module that talks to the `trueskill` package; `results` turns results into
the rows, leaderboard scores and history entries the store writes.
"""

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
    MatchOutcome,
    RatingBook,
    RatingUpdate,
    ResultRecord,
    apply_result,
    recompute,
    why_not_rated,
)

__all__ = [
    "DEFAULT_DRAW_PROBABILITY",
    "BotRating",
    "HistoryEntry",
    "MatchOutcome",
    "QualityTerms",
    "Rating",
    "RatingBook",
    "RatingError",
    "RatingModel",
    "RatingUpdate",
    "ResultRecord",
    "apply_result",
    "recompute",
    "why_not_rated",
]
