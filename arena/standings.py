"""Standings of bots over many matches: games, mean score with its 95% interval, wins, mean rank,
and TrueSkill (mu, sigma, mu - 3 sigma) when ratings are given."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings import Rating

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""


@dataclass
class Standing:
    bot: str
    scores: list[int] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    rating: Rating | None = None

    @property
    def games(self) -> int:
        return len(self.scores)

    @property
    def mean_score(self) -> float:
        return statistics.fmean(self.scores) if self.scores else math.nan

    @property
    def ci95(self) -> float:
        """Half-width of the normal 95% confidence interval of the mean score."""
        if len(self.scores) < 2:
            return math.nan
        return Z95 * statistics.stdev(self.scores) / math.sqrt(len(self.scores))

    @property
    def wins(self) -> int:
        """Games ranked first, shared first places included."""
        return sum(1 for rank in self.ranks if rank == 1)

    @property
    def mean_rank(self) -> float:
        return statistics.fmean(self.ranks) if self.ranks else math.nan

    def to_dict(self) -> dict[str, Any]:
        row = {
            "bot": self.bot,
            "games": self.games,
            "mean_score": _finite(self.mean_score),
            "ci95": _finite(self.ci95),
            "wins": self.wins,
            "mean_rank": _finite(self.mean_rank),
        }
        if self.rating is not None:
            row["mu"] = _finite(self.rating.mu)
            row["sigma"] = _finite(self.rating.sigma)
            row["conservative"] = _finite(self.rating.conservative)
        return row


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def standings(
    results: Iterable[tuple[Sequence[str], Sequence[int], Sequence[int]]],
    *,
    lower_is_better: bool = True,
    ratings: Mapping[str, Rating] | None = None,
    entrants: Sequence[str] = (),
) -> list[Standing]:
    """Standings from (seat names, scores, ranks) per match, best mean score first.

    A bot that sits in several seats of a match counts once per seat. With `ratings`, each row
    carries its bot's rating (if it has one). Every bot in `entrants` gets a row: those that have
    not played yet come last, in the order given, as a tournament's live table shows them.
    """
    table: dict[str, Standing] = {}
    for names, scores, ranks in results:
        for name, score, rank in zip(names, scores, ranks, strict=True):
            row = table.setdefault(name, Standing(name))
            row.scores.append(score)
            row.ranks.append(rank)
    sign = 1 if lower_is_better else -1
    ranked = sorted(table.values(), key=lambda row: (sign * row.mean_score, row.mean_rank, row.bot))
    ranked += [Standing(bot) for bot in dict.fromkeys(entrants) if bot not in table]
    if ratings is not None:
        for row in ranked:
            row.rating = ratings.get(row.bot)
    return ranked
