"""A tournament's live table: standings with TrueSkill, paired advantages on shared deals, and how
far the tournament has got."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.ratings import Rating, RatingModel, ResultRecord, recompute
from arena.standings import Pair, Played, Standing, head_to_head, standings, unsettled
from arena.tournaments.formats import finished_matches
from arena.tournaments.spec import TournamentSpec


@dataclass(frozen=True)
class TournamentTable:
    """Standings so far, every pair's advantage on shared deals, and progress: matches done out of the total."""

    spec: TournamentSpec
    rows: tuple[Standing, ...]
    done: int
    pairs: tuple[Pair, ...] = ()

    @property
    def total(self) -> int:
        return self.spec.total_matches

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def to_dict(self) -> dict[str, Any]:
        return {
            "tournament": self.spec.name,
            "game": self.spec.game,
            "format": self.spec.format,
            "done": self.done,
            "total": self.total,
            "standings": [row.to_dict() for row in self.rows],
            "head_to_head": [pair.to_dict() for pair in self.pairs],
            "unsettled": [[pair.first, pair.second] for pair in unsettled(self.rows, self.pairs)],
        }


def tournament_table(
    spec: TournamentSpec,
    results: Iterable[ResultRecord],
    *,
    ratings: Mapping[str, Rating] | None = None,
    model: RatingModel | None = None,
) -> TournamentTable:
    """The table after the results so far (call it again after each result for a live view).

    The TrueSkill columns show `ratings` when given (say, the ladder's ratings in a rated
    tournament); otherwise the tournament's own TrueSkill, rebuilt from its results alone with
    `model` (the default parameters when None), so unrated tournaments have them too. Entrants
    who have not played yet are listed last. Aborted matches count neither in the table nor as done.
    """
    finished = finished_matches(spec, results)
    if ratings is None:
        book = recompute(finished.values(), model or RatingModel())
        ratings = {bot: row.rating for bot, row in book.ratings.items()}
    lower_is_better = spec.build_game().lower_is_better
    rows = standings(
        (Played(r.seats, r.scores, r.ranks, spec.deal_of(number)) for number, r in sorted(finished.items())),
        lower_is_better=lower_is_better,
        ratings=ratings,
        entrants=spec.entrants,
    )
    pairs = head_to_head(rows, lower_is_better=lower_is_better)
    return TournamentTable(spec, tuple(rows), len(finished), tuple(pairs))
