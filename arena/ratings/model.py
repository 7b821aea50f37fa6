"""TrueSkill behind one small interface: the only module that imports the `trueskill` package.

A rating is just (mu, sigma); the leaderboard orders bots by the conservative estimate
mu - 3 sigma. Every match is a free-for-all of one-player teams ranked by the match's ranks;
equal ranks are draws. A bot version is a fixed program, so its skill does not drift: no
dynamics factor within a version (tau 0), and a new version starts from its predecessor's mu
with a widened sigma (`widened`). docs/STATISTICS.md gives the measurements behind the choice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import trueskill

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3
DEFAULT_BETA = DEFAULT_SIGMA / 2
DEFAULT_TAU = 0.0
"""No skill drift within a bot version. TrueSkill's own default (sigma / 100) adds variance before
every match as if a player's skill wandered; for a fixed program it only keeps sigma from
shrinking, and the order of two close bots never settles (`benchmarks/strength.py`, friday13,
3 players, 100 ladders: mc above the heuristic settled within 500 matches in none with sigma / 100,
unsettled after 1,000 in 80; with 0 within 500 in 93, by 1,000 in all). A new version gets its uncertainty back through
`RatingModel.widened` instead."""
DEFAULT_DRAW_PROBABILITY = 0.06
"""How often two equal bots in adjacent places share their rank. Measured with equal built-in
heuristic (and random) bots, 300 matches per setting: 2-11% of adjacent places tie in friday13 and
amigo13 at 3 to 6 players, more at larger tables; 0.06 is the middle of that range. TrueSkill's
own default of 0.10 suits chess-like games, not penalty totals."""
PARAMETERS = ("mu", "sigma", "beta", "tau", "draw_probability")
NEW_VERSION_WIDENING = 0.5
"""A new version of a bot gets this share of the initial sigma added to its own (see `widened`)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill belief: mean `mu` and uncertainty `sigma`."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the leaderboard key, a skill the bot very likely has at least."""
        return self.mu - 3 * self.sigma


class QualityTerms(NamedTuple):
    """TrueSkill match quality split in two factors: quality = balance * certainty."""

    balance: float
    """How close the means are given the uncertainties: 1.0 when every mu is equal."""
    certainty: float
    """The best quality these players' sigmas allow (all mu equal); small for newcomers."""

    @property
    def quality(self) -> float:
        return self.balance * self.certainty


class RatingError(ValueError):
    """Bad input to the rating model: the message says what is wrong."""


@dataclass(frozen=True)
class RatingModel:
    """The TrueSkill environment of one game, with TrueSkill's published defaults except the draw rate.

    Changing a parameter changes every rating from then on; `recompute` rebuilds the ratings of
    a game from its stored results under new parameters.
    """

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    beta: float = DEFAULT_BETA
    """The skill difference that gives the better player about a 76% chance to beat the other."""
    tau: float = DEFAULT_TAU
    """Added to sigma (in quadrature) before every match, as if skill drifted; 0 by default, since a
    bot version is a fixed program and a new version is widened once instead."""
    draw_probability: float = DEFAULT_DRAW_PROBABILITY
    _env: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in PARAMETERS:
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise RatingError(f"rating parameter {name} must be a finite number, not {value!r}")
        if self.sigma <= 0 or self.beta <= 0 or self.tau < 0:
            raise RatingError("rating parameters need sigma > 0, beta > 0 and tau >= 0")
        if not 0 < self.draw_probability < 1:
            raise RatingError(f"draw_probability must be between 0 and 1, not {self.draw_probability!r}")
        env = trueskill.TrueSkill(
            mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau, draw_probability=self.draw_probability
        )
        object.__setattr__(self, "_env", env)

    def initial(self) -> Rating:
        """The rating of a bot that has not played yet."""
        return Rating(float(self.mu), float(self.sigma))

    def widened(self, rating: Rating) -> Rating:
        """The rating a bot's new version starts from: its predecessor's mu, sigma grown by half the
        initial sigma (in quadrature) but never above it, so that the new version is ranked on its
        own evidence within a few matches, from where its predecessor stood."""
        return Rating(rating.mu, min(float(self.sigma), math.hypot(rating.sigma, NEW_VERSION_WIDENING * self.sigma)))

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        """New ratings of the seats of one match, in seat order; rank 1 is best, equal ranks draw.

        Every seat is its own one-player team; a bot in two seats is the caller's business
        (see `arena.ratings.results.apply_result`).
        """
        if len(ratings) != len(ranks):
            raise RatingError(f"{len(ratings)} ratings but {len(ranks)} ranks")
        if len(ratings) < 2:
            raise RatingError("a rated match needs at least two seats")
        teams = [(self._env.create_rating(r.mu, r.sigma),) for r in ratings]
        rated = self._env.rate(teams, ranks=list(ranks))
        return [Rating(float(team[0].mu), float(team[0].sigma)) for team in rated]

    def quality(self, ratings: Sequence[Rating]) -> float:
        """TrueSkill's match quality of a free-for-all table: the chance of a draw, 0 to 1."""
        return self.quality_terms(ratings).quality

    def quality_terms(self, ratings: Sequence[Rating]) -> QualityTerms:
        """The quality's two factors, in closed form: about 100 times faster than `trueskill.quality`.

        For one-player teams the matrix of TrueSkill's formula is tridiagonal (differences of
        neighbouring seats), so one LDL^T pass gives its determinant and the quadratic form.
        The result does not depend on the seat order.
        """
        if len(ratings) < 2:
            raise RatingError("match quality needs at least two players")
        beta2 = self.beta * self.beta
        first = ratings[0]
        previous_mu, previous_var = first.mu, first.sigma * first.sigma
        pivot = 0.0
        offdiag = 0.0
        carried = 0.0
        log_det = 0.0
        quadratic = 0.0
        for index in range(1, len(ratings)):
            rating = ratings[index]
            var = rating.sigma * rating.sigma
            diagonal = 2 * beta2 + previous_var + var
            difference = previous_mu - rating.mu
            if index > 1:
                factor = offdiag / pivot
                diagonal -= factor * offdiag
                difference -= factor * carried
            pivot = diagonal
            carried = difference
            quadratic += difference * difference / pivot
            log_det += math.log(pivot / beta2)
            offdiag = -(beta2 + var)
            previous_mu, previous_var = rating.mu, var
        size = len(ratings) - 1
        certainty = math.sqrt(math.exp(math.log(size + 1) - log_det))
        return QualityTerms(math.exp(-0.5 * quadratic), certainty)

    def to_dict(self) -> dict[str, float]:
        """The parameters, for storing next to the ratings they produced."""
        return {name: getattr(self, name) for name in PARAMETERS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RatingModel:
        unknown = sorted(set(data) - set(PARAMETERS))
        if unknown:
            raise RatingError(f"unknown rating parameter {unknown[0]!r} (known: {', '.join(PARAMETERS)})")
        return cls(**data)
