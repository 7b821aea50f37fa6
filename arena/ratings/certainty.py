"""How sure a leaderboard is: whether each pair of neighbours is in an established order, since when,
and which bots are still provisional.

Plain functions over ratings and rating histories, without I/O, for the gRPC, web and CLI layers
(`arena.store.ratings.RatingStore.certainty` reads what they need). An order is established at
95%: the upper bot's mu exceeds the lower's by more than 1.96 times the root of their summed
variances, the criterion `benchmarks/strength.py` settles ladders by. docs/STATISTICS.md gives
the measurements behind the thresholds.
"""

from __future__ import annotations

import heapq
import itertools
import math
import statistics
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.ratings.model import Rating
from arena.ratings.results import BotRating, HistoryEntry

Z95 = statistics.NormalDist().inv_cdf(0.975)
"""The two-sided 95% normal quantile, 1.96."""

PROVISIONAL_MATCHES = 20
"""A bot with fewer rated matches is provisional: its rating has not found its level yet. Measured
(`benchmarks/strength.py`, section "Ratings", friday13 tables of 3): the mu of mc and of the
heuristic stays within beta / 2 of where 1,000 matches put it from the 20th match on (or sooner) in
95 of 100 ladders; before that it still moves further. (A bot that loses nearly every match,
like random there, keeps sinking for longer, which changes no order.)"""

PROVISIONAL_SIGMA = 2.0
"""A bot whose sigma is above this is provisional too, whatever its matches: about the sigma a
bot has after 15 matches at tables of 3 (2.6 after 10, 1.8 after 20, measured). A new version
starts with its sigma widened to at least half the initial sigma (4.2), so it is provisional
until its own matches have narrowed it again."""


def order_z(upper: Rating, lower: Rating) -> float:
    """How many standard deviations of their difference the upper bot's mu exceeds the lower's;
    negative when the lower bot's mu is the higher (possible on a board ordered by mu - 3 sigma)."""
    return (upper.mu - lower.mu) / math.hypot(upper.sigma, lower.sigma)


def is_established(upper: Rating, lower: Rating) -> bool:
    """Whether `upper` is above `lower` with 95% confidence."""
    return order_z(upper, lower) > Z95


def is_provisional(row: BotRating) -> bool:
    """Whether the bot's rating is still provisional: too few matches, or too wide (a new version)."""
    return row.games < PROVISIONAL_MATCHES or row.sigma > PROVISIONAL_SIGMA


@dataclass(frozen=True, slots=True)
class NeighbourOrder:
    """Two neighbours on a leaderboard, the upper one first, and how sure their order is."""

    upper: str
    lower: str
    z: float
    """`order_z` of their current ratings."""
    established: bool
    since_games: int | None = None
    """While established: the rated matches of the less-played of the two when the order became
    established and has held ever since; None while not established (or without histories)."""
    since_earlier: bool = False
    """True when the order held throughout the history points read: it became established at
    `since_games` or before (histories keep their latest 1,000 points, and a reader may read fewer)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "upper": self.upper,
            "lower": self.lower,
            "z": self.z,
            "established": self.established,
            "since_games": self.since_games,
            "since_earlier": self.since_earlier,
        }


class Since(NamedTuple):
    """When an order became established, by the less-played bot's rated matches."""

    games: int
    earlier: bool
    """The order held from the first point judged: it may have become established before `games`."""


def neighbour_orders(
    board: Sequence[BotRating], histories: Mapping[str, Sequence[HistoryEntry]]
) -> list[NeighbourOrder]:
    """Each pair of neighbours of `board` (best first), with the matches after which an established
    order became so, read from the bots' rating histories (oldest first; a bot missing from
    `histories` has none)."""
    orders = []
    for upper, lower in itertools.pairwise(board):
        z = order_z(upper.rating, lower.rating)
        since = established_since(histories.get(upper.bot, ()), histories.get(lower.bot, ())) if z > Z95 else None
        if since is None:
            orders.append(NeighbourOrder(upper.bot, lower.bot, z, z > Z95))
        else:
            orders.append(NeighbourOrder(upper.bot, lower.bot, z, True, since.games, since.earlier))
    return orders


def established_since(upper: Sequence[HistoryEntry], lower: Sequence[HistoryEntry]) -> Since | None:
    """When `upper` became established above `lower` for the last time, from their histories
    (oldest first, possibly only their latest points); None when they end unestablished or are empty."""
    judge = OrderJudge()
    judge.feed(upper, lower)
    return judge.since


class OrderJudge:
    """Follows one pair's order through their history points as they come, so that a reader who
    judged a pair once only feeds it the points added since (`RatingStore.certainty` does).

    The points of both bots are merged in time, and the order is judged after each rating change,
    both bots' changes of one match taken together.
    """

    __slots__ = ("_first", "_judged", "_latest", "since")

    def __init__(self) -> None:
        self._latest: dict[bool, HistoryEntry] = {}
        self._first: dict[bool, int] = {}
        """Per side, the games of the first point fed: 1 when the history was read from its start."""
        self._judged = False
        """Whether the order was judged unestablished before the current run began."""
        self.since: Since | None = None
        """When the current established run began; None while the order is not established."""

    def feed(self, upper: Sequence[HistoryEntry], lower: Sequence[HistoryEntry]) -> None:
        """Judge the points added to either history since the last feed (oldest first)."""
        for side, points in ((True, upper), (False, lower)):
            if points and side not in self._first:
                self._first[side] = points[0].games
        for step in _steps(upper, lower):
            self._latest.update(step)
            if len(self._latest) < 2:
                continue
            top, bottom = self._latest[True], self._latest[False]
            if order_z(Rating(top.mu, top.sigma), Rating(bottom.mu, bottom.sigma)) > Z95:
                if self.since is None:
                    # A run from the first judgement may have begun before the points read did.
                    whole = self._first[True] <= 1 and self._first[False] <= 1
                    self.since = Since(min(top.games, bottom.games), not self._judged and not whole)
            else:
                self.since = None
                self._judged = True


def _steps(upper: Sequence[HistoryEntry], lower: Sequence[HistoryEntry]) -> Iterator[dict[bool, HistoryEntry]]:
    """The two histories merged by time, as one step per rating change; a match that moved both
    bots is one step. Each step maps True (upper) or False (lower) to the bot's new point."""
    merged = heapq.merge(
        ((entry.at, 0, index, True, entry) for index, entry in enumerate(upper)),
        ((entry.at, 1, index, False, entry) for index, entry in enumerate(lower)),
        key=lambda item: (item[0], item[1], item[2]),
    )
    step: dict[bool, HistoryEntry] = {}
    step_id = ""
    for _, _, _, is_upper, entry in merged:
        if step and entry.match_id != step_id:
            yield step
            step = {}
        step[is_upper] = entry
        step_id = entry.match_id
    if step:
        yield step
