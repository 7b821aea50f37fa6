"""Standings of bots over many matches, and how each pair of bots compares on the deals they shared.

A row holds games, mean score with its 95% interval, wins, mean rank, and TrueSkill (mu, sigma,
mu - 3 sigma) when ratings are given. Matches of one deal (a duplicate series plays each deal
under many seatings) are not independent, so the intervals treat a deal as the unit: the mean of
each bot's scores on each deal, then a Student-t interval over those per-deal means. Results
without a deal count as a deal each.

`head_to_head` pairs bots on the deals both played: per deal the difference of their mean
scores, then its mean and Student-t interval. Luck shared by both (the same hands under a fair
seating) cancels in the difference, so it separates bots with far fewer deals than the two
separate intervals, which overlap long after the order is clear.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import Any, NamedTuple

from arena.ratings import Rating
from arena.stats import Interval, mean_interval


class Played(NamedTuple):
    """One finished match as standings read it; `deal` names the deal (None: a deal of its own)."""

    seats: Sequence[str]
    scores: Sequence[int]
    ranks: Sequence[int]
    deal: Hashable | None = None


@dataclass
class Standing:
    bot: str
    scores: list[int] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    rating: Rating | None = None
    by_deal: dict[Hashable, list[int]] = field(default_factory=dict)
    """This bot's scores per deal: the intervals' independent units."""

    @property
    def games(self) -> int:
        return len(self.scores)

    @property
    def deals(self) -> int:
        return len(self.by_deal)

    @property
    def mean_score(self) -> float:
        return statistics.fmean(self.scores) if self.scores else math.nan

    @property
    def interval(self) -> Interval:
        """Student-t 95% interval of the mean score, over per-deal means."""
        return mean_interval([statistics.fmean(scores) for scores in self.by_deal.values()])

    @property
    def ci95(self) -> float:
        """Half-width of the 95% interval of the mean score (nan with fewer than 2 deals)."""
        return self.interval.half_width

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
            "deals": self.deals,
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
    results: Iterable[Played | tuple[Sequence[str], Sequence[int], Sequence[int]]],
    *,
    lower_is_better: bool = True,
    ratings: Mapping[str, Rating] | None = None,
    entrants: Sequence[str] = (),
) -> list[Standing]:
    """Standings from finished matches (`Played`, or (seats, scores, ranks) without a deal), best
    mean score first.

    A bot that sits in several seats of a match counts once per seat. With `ratings`, each row
    carries its bot's rating (if it has one). Every bot in `entrants` gets a row: those that have
    not played yet come last, in the order given, as a tournament's live table shows them.
    """
    table: dict[str, Standing] = {}
    for number, result in enumerate(results):
        names, scores, ranks, deal = Played(*result)
        key = ("match", number) if deal is None else ("deal", deal)
        for name, score, rank in zip(names, scores, ranks, strict=True):
            row = table.setdefault(name, Standing(name))
            row.scores.append(score)
            row.ranks.append(rank)
            row.by_deal.setdefault(key, []).append(score)
    sign = 1 if lower_is_better else -1
    ranked = sorted(table.values(), key=lambda row: (sign * row.mean_score, row.mean_rank, row.bot))
    ranked += [Standing(bot) for bot in dict.fromkeys(entrants) if bot not in table]
    if ratings is not None:
        for row in ranked:
            row.rating = ratings.get(row.bot)
    return ranked


@dataclass(frozen=True)
class Pair:
    """Bot `first` against bot `second` on the deals both played.

    `advantage` is how much better `first` scored per deal on average (positive: `first` is
    better, whichever way the game counts), with its Student-t 95% interval.
    """

    first: str
    second: str
    advantage: Interval

    @property
    def deals(self) -> int:
        return self.advantage.n

    @property
    def established(self) -> bool:
        """The 95% interval excludes 0: which of the two is better is settled at this level."""
        low, high = self.advantage.low, self.advantage.high
        return not math.isnan(low) and (low > 0 or high < 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "second": self.second,
            "deals": self.deals,
            "advantage": _finite(self.advantage.mean),
            "ci95": _finite(self.advantage.half_width),
            "established": self.established,
        }


def head_to_head(rows: Sequence[Standing], *, lower_is_better: bool = True) -> list[Pair]:
    """Every pair of the standings' bots, in standing order (the better-placed bot first), compared
    on the deals both played. A pair that never shared a deal has an empty interval."""
    sign = -1 if lower_is_better else 1
    pairs = []
    for first, second in combinations(rows, 2):
        shared = first.by_deal.keys() & second.by_deal.keys()
        differences = [
            sign * (statistics.fmean(first.by_deal[deal]) - statistics.fmean(second.by_deal[deal]))
            for deal in sorted(shared, key=repr)
        ]
        pairs.append(Pair(first.bot, second.bot, mean_interval(differences)))
    return pairs


def unsettled(rows: Sequence[Standing], pairs: Sequence[Pair]) -> list[Pair]:
    """The pairs of neighbours in the standings whose order the deals so far do not establish."""
    by_bots = {(pair.first, pair.second): pair for pair in pairs}
    played = [row for row in rows if row.games]
    return [
        by_bots[(upper.bot, lower.bot)]
        for upper, lower in pairwise(played)
        if not by_bots[(upper.bot, lower.bot)].established
    ]
