"""Statistics for comparing bots: Student-t intervals, a sequential A/B test (SPRT) and Elo.

Pure math on floats, with only `math` and `statistics` underneath; nothing here does I/O.

- `t_quantile(p, df)`: Student's t quantile, to about 1e-12 relative (measured against mpmath).
- `Interval` and `mean_interval(values, confidence=0.95)`: the Student-t interval of a mean.
- `Sprt(mu0, mu1, alpha=0.05, beta=0.05, min_samples=16)`: a sequential test of H0 "the mean
  is mu0" against H1 "the mean is mu1" on i.i.d. observations (per-deal paired differences or
  per-deal pairwise scores); `add(x)` / `update(xs)`, then `llr`, `lower`, `upper`, `verdict`
  (None while running, "H0" or "H1" once decided), `interval` and `to_dict()`.
- `elo_to_score(elo)` and `score_to_elo(score)`: the logistic Elo curve for pairwise scores.
- `simulate_sprt(draw, mu0, mu1, ...)` -> `SprtSimulation`: many SPRTs on simulated
  observations, to measure the test's error rates and sample counts, and
  `fixed_sample_size(mu0, mu1, sd)`, what a fixed-size test would need instead.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

_NORMAL = statistics.NormalDist()

_LARGE_DF = 1e5
"""Above this many degrees of freedom `t_quantile` uses the Cornish-Fisher expansion instead of
the incomplete beta function. The beta function's x = df / (df + t²) comes within 1/df of 1 and
its continued fraction loses digits in proportion (a relative 4e-12 at 1e5, 1e-8 at 1e9), while
the expansion's error shrinks as df**-5 (measured against mpmath from 1e5 on: below 4e-14, even
at p = 1e-300)."""

_CONTINUED_FRACTION_TERMS = 1000
"""Far more terms than the incomplete beta's continued fraction takes below `_LARGE_DF` (at most
about 60, measured), so reaching it is a bug and raises."""


# --- Student's t distribution ---------------------------------------------------------------------


def _check_df(df: float) -> None:
    if not df > 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p under Student's t with `df` degrees of freedom.

    df = math.inf gives the normal quantile. Symmetric by construction: t_quantile(1 - p, df) ==
    -t_quantile(p, df). A quantile too large for a float (df near 1 and p within about 1e-308
    of 0 or 1) is returned as an infinity.
    """
    if not 0 < p < 1:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    _check_df(df)
    if p == 0.5:
        return 0.0
    # Solve for t > 0 and mirror. Both the tail beyond t and the share between 0 and t are exact
    # differences of floats here (1 - p for p >= 0.5, p - 0.5 for p >= 0.25, Sterbenz), so the
    # solver can match whichever is smaller to its last digit: the tail far out, the central
    # share near the median.
    sign = 1.0 if p > 0.5 else -1.0
    tail, central = (1.0 - p, p - 0.5) if p > 0.5 else (p, 0.5 - p)
    z = -_NORMAL.inv_cdf(tail)
    if df > _LARGE_DF:
        return sign * _cornish_fisher(z, df)
    return sign * _solve_upper_tail(tail, central, df, z)


def _cornish_fisher(z: float, df: float) -> float:
    """The t quantile from the normal quantile z, for large df (Abramowitz and Stegun 26.7.5)."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def _solve_upper_tail(tail: float, central: float, df: float, z: float) -> float:
    """The t > 0 with P(T > t) = tail and P(0 < T <= t) = central (tail + central = 1/2), from the
    normal quantile z of the same tail.

    Newton's method kept inside a shrinking bracket. The upper tail is convex and decreasing for
    t > 0, so Newton's steps converge from either side; the bracket (bisected geometrically,
    since heavy tails put the root many orders of magnitude out) only catches steps that leave
    it.
    """
    # t is heavier-tailed than the normal, so its quantile is at least the normal one.
    low, high = z, 2 * z + 1
    while _t_tails(high, df)[0] > tail:
        low, high = high, high * 16
        if math.isinf(high):
            return math.inf
    t = _cornish_fisher(z, df)
    if not low < t < high:
        t = math.sqrt(low) * math.sqrt(high)
    for _ in range(200):
        upper, middle = _t_tails(t, df)
        # How much probability lies beyond t that should not: positive means t is too small.
        excess = upper - tail if tail < central else central - middle
        if excess > 0:
            low = t
        elif excess < 0:
            high = t
        else:
            return t
        density = _t_density(t, df)
        newton = t + excess / density if density > 0 else math.inf
        t_next = newton if low < newton < high else math.sqrt(low) * math.sqrt(high)
        if abs(t_next - t) <= 1e-15 * t or high - low <= 4e-16 * high:
            return t_next
        t = t_next
    return t


def _t_density(t: float, df: float) -> float:
    s = abs(t) / math.sqrt(df)
    # log1p(s * s) overflows past s ~ 1e154, where it equals 2 log s to every digit.
    log_kernel = math.log1p(s * s) if s < 1e150 else 2 * math.log(s)
    return math.exp(-0.5 * math.log(df) - _log_beta_half(df / 2) - (df + 1) / 2 * log_kernel)


def _t_tails(t: float, df: float) -> tuple[float, float]:
    """(P(T > t), P(0 < T <= t)) for t >= 0, each to full relative precision when it is the smaller.

    P(T > t) is half the regularized incomplete beta I_x(df/2, 1/2) at x = df / (df + t²).
    """
    # x, y = 1 - x and their logarithms from a ratio that neither overflows for huge t nor
    # cancels for small t: with df/2 in the exponent, log x needs log1p's digits for large df.
    s = t / math.sqrt(df)
    r = 1 / s if s > 1 else s
    log_small = 2 * math.log(r) - math.log1p(r * r) if r > 0 else -math.inf
    log_large = -math.log1p(r * r)
    log_x, log_y = (log_small, log_large) if s > 1 else (log_large, log_small)
    beta, complement = _regularized_beta(df / 2, 0.5, log_x, log_y, _log_beta_half(df / 2))
    return 0.5 * beta, 0.5 * complement


def _log_beta_half(a: float) -> float:
    """log B(a, 1/2) = lgamma(a) + lgamma(1/2) - lgamma(a + 1/2), without the cancellation of two
    large lgamma values: from a = 20 on, the asymptotic series of log Γ(a + 1/2) / Γ(a), whose
    first omitted term is below 4e-15 there."""
    if a < 20:
        return math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5)
    ratio = 0.5 * math.log(a) - 1 / (8 * a) + 1 / (192 * a**3) - 1 / (640 * a**5) + 17 / (14336 * a**7)
    return math.lgamma(0.5) - ratio


def _regularized_beta(a: float, b: float, log_x: float, log_y: float, log_beta: float) -> tuple[float, float]:
    """(I_x(a, b), 1 - I_x(a, b)) from log x, log y = log(1 - x) and log B(a, b).

    The continued fraction (Numerical Recipes 6.4, Lentz's method) converges fast for
    x < (a + 1) / (a + b + 2); on the other side I_x(a, b) = 1 - I_y(b, a) is used. Whichever
    of the pair the fraction gives directly keeps its relative precision however small it is.
    """
    # Tested on the logarithms: x itself underflows long before x ** a does for small a.
    if log_x == -math.inf:
        return 0.0, 1.0
    if log_y == -math.inf:
        return 1.0, 0.0
    x = math.exp(log_x)
    if x > (a + 1) / (a + b + 2):
        complement, value = _regularized_beta(b, a, log_y, log_x, log_beta)
        return value, complement
    value = math.exp(a * log_x + b * log_y - log_beta) / a * _beta_continued_fraction(x, a, b)
    return value, 1.0 - value


def _beta_continued_fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, _CONTINUED_FRACTION_TERMS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-16:
            return result
    raise ArithmeticError(f"incomplete beta continued fraction did not converge for a={a}, b={b}, x={x}")


# --- Intervals ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Interval:
    """A mean of `n` observations and the half-width of its two-sided `confidence` interval.

    `half_width` is nan when the data cannot give one (fewer than 2 observations), and so are
    `low` and `high`; `mean` is nan without observations.
    """

    mean: float
    half_width: float
    n: int
    confidence: float = 0.95

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def excludes(self, value: float) -> bool:
        """Whether `value` lies outside [low, high]; never true while the half-width is unknown."""
        return value < self.low or value > self.high

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-ready fields, with None for nan (JSON has no nan)."""
        return {
            "mean": _finite_or_none(self.mean),
            "half_width": _finite_or_none(self.half_width),
            "low": _finite_or_none(self.low),
            "high": _finite_or_none(self.high),
            "n": self.n,
            "confidence": self.confidence,
        }


def mean_interval(values: Iterable[float], confidence: float = 0.95) -> Interval:
    """The Student-t interval of the mean of i.i.d. `values`: mean ± t(df = n - 1) · s / sqrt(n).

    Exact for normal data and close for other shapes once n is moderate; the t quantile (rather
    than the normal 1.96) keeps small samples from claiming too much.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    data = [float(value) for value in values]
    n = len(data)
    if n == 0:
        return Interval(math.nan, math.nan, 0, confidence)
    mean = statistics.fmean(data)
    if n == 1:
        return Interval(mean, math.nan, 1, confidence)
    quantile = t_quantile((1 + confidence) / 2, n - 1)
    return Interval(mean, quantile * statistics.stdev(data, mean) / math.sqrt(n), n, confidence)


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


# --- Sequential probability ratio test ------------------------------------------------------------

Verdict = Literal["H0", "H1"]

DEFAULT_MIN_SAMPLES = 16
"""Observations an `Sprt` needs before it may decide; `Sprt` gives the measurements behind it."""


class Sprt:
    """A sequential test of H0 "the mean is mu0" against H1 "the mean is mu1", stopping early.

    Observations are i.i.d. numbers (a deal's paired score difference, or a deal's pairwise
    score of A against B), added one by one as they arrive. This is the generalized SPRT with
    the normal approximation that fishtest uses (Michel Van den Bergh's GSPRT): the
    log-likelihood ratio of the two means under a normal model with the sample variance s²,

        llr = n (mu1 - mu0) (2 mean - mu0 - mu1) / (2 s²).

    It accepts H1 once llr >= upper = ln((1 - beta) / alpha) and H0 once llr <= lower =
    ln(beta / (1 - alpha)): at mu0 it accepts H1 about alpha of the time, at mu1 H0 about beta
    of the time. Between mu0 and mu1 either answer may come; it only tells mu0 from mu1. A mean
    far beyond either hypothesis is decided quickly, since the llr grows with the distance.

    The verdict is the first crossing and stays: observations added after it (matches that were
    in flight) still move `mean`, `llr` and `interval`, but not `verdict` or `decided_at`.

    No verdict comes before `min_samples` observations, because a handful of observations often
    understates the spread, and the llr divides by it. Measured with `simulate_sprt` (alpha =
    beta = 0.05, 4000 runs per figure), minimum 8 / 16: with normal observations and mu1 0.5 sd
    from mu0, H1 came at mu0 in 7.0% / 4.3% of runs for 22 / 26 observations on average; 0.25
    sd apart, 7.4% / 5.4% for 82 / 83 observations; 0.1 sd apart (540 observations), 5.0% /
    4.8%. Hence 16: the false verdicts of short tests fall to the nominal rate, and a long test
    does not notice the minimum. (The variance-ratio form n/2 ln((s² + (mean - mu0)²) / (s² +
    (mean - mu1)²)) of fishtest's LLRcalc errs less in short tests, 5.6% with a minimum of 8 and
    0.5 sd, but its llr stops growing with the distance: with mu1 0.1 sd from mu0 it needs 100
    observations to reject a bot 3 sd worse than mu0, where this form needs 16.)

    Skewed observations weaken the test, as a stretch without a rare large value looks like
    strong evidence for the smaller mean: for the mean of two integer penalties of one bot (13
    now and then), with mu1 0.5 / 0.2 sd above mu0, H1 came at mu1 in only 88% / 79% of runs
    (nominal 95%; at mu0 the rate of H1 stayed below 2%). Paired differences of two bots on
    shared deals are nearly symmetric and keep the nominal rates: per-deal differences of 4
    seatings' integer penalties, mu1 0.15 sd from mu0, gave H1 at mu0 in 5.5% of runs and at mu1
    in 94%, after 195 and 222 observations on average against 459 for a fixed-size test.

    While every observation is equal (s² = 0) the llr is the formula's limit, without dividing
    by zero: -inf below the midpoint (mu0 + mu1) / 2 and +inf above it (with mu1 > mu0), 0 right
    at it. That is what a bot ranked below the other on every deal (pairwise score 0) or two
    identical deterministic bots (difference 0) produce, and after `min_samples` such deals the
    verdict is plain.
    """

    __slots__ = (
        "_alpha",
        "_beta",
        "_decided_at",
        "_lower",
        "_m2",
        "_mean",
        "_min_samples",
        "_mu0",
        "_mu1",
        "_n",
        "_upper",
        "_verdict",
    )

    def __init__(
        self, mu0: float, mu1: float, alpha: float = 0.05, beta: float = 0.05, min_samples: int = DEFAULT_MIN_SAMPLES
    ) -> None:
        if not (math.isfinite(mu0) and math.isfinite(mu1)):
            raise ValueError(f"mu0 and mu1 must be finite numbers, got {mu0} and {mu1}")
        if mu0 == mu1:
            raise ValueError(f"mu0 and mu1 must differ: the test tells mu0 from mu1, both are {mu0}")
        if not 0 < alpha < 1 or not 0 < beta < 1:
            raise ValueError(f"alpha and beta must be strictly between 0 and 1, got {alpha} and {beta}")
        if alpha + beta >= 1:
            raise ValueError(f"alpha + beta must be below 1 (at 1 a coin toss meets both rates), got {alpha} + {beta}")
        if min_samples < 2:
            raise ValueError(f"min_samples must be at least 2 (a variance needs two observations), got {min_samples}")
        self._mu0 = float(mu0)
        self._mu1 = float(mu1)
        self._alpha = float(alpha)
        self._beta = float(beta)
        self._min_samples = min_samples
        self._lower = math.log(beta / (1 - alpha))
        self._upper = math.log((1 - beta) / alpha)
        # Welford's running mean and sum of squared deviations: one pass, no cancellation.
        self._n = 0
        self._mean = 0.0
        self._m2 = 0.0
        self._verdict: Verdict | None = None
        self._decided_at: int | None = None

    def add(self, x: float) -> None:
        """Record one observation; decides the test if the llr now crosses a bound."""
        if not math.isfinite(x):
            raise ValueError(f"observations must be finite numbers, got {x}")
        self._n += 1
        delta = x - self._mean
        self._mean += delta / self._n
        self._m2 += delta * (x - self._mean)
        if self._verdict is None and self._n >= self._min_samples:
            llr = self.llr
            if llr >= self._upper:
                self._verdict, self._decided_at = "H1", self._n
            elif llr <= self._lower:
                self._verdict, self._decided_at = "H0", self._n

    def update(self, xs: Iterable[float]) -> None:
        """`add` each observation in order: the verdict is the same as adding them one by one."""
        for x in xs:
            self.add(x)

    @property
    def mu0(self) -> float:
        return self._mu0

    @property
    def mu1(self) -> float:
        return self._mu1

    @property
    def alpha(self) -> float:
        return self._alpha

    @property
    def beta(self) -> float:
        return self._beta

    @property
    def min_samples(self) -> int:
        return self._min_samples

    @property
    def n(self) -> int:
        return self._n

    @property
    def mean(self) -> float:
        """The mean of the observations; nan before the first."""
        return self._mean if self._n else math.nan

    @property
    def variance(self) -> float:
        """The unbiased sample variance; nan before the second observation."""
        return self._m2 / (self._n - 1) if self._n >= 2 else math.nan

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 to H0: 0 before two observations, ±inf if all are equal."""
        if self._n < 2:
            return 0.0
        mu0, mu1 = self._mu0, self._mu1
        evidence = (mu1 - mu0) * (2 * self._mean - mu0 - mu1)
        if self._m2 <= 0:
            # Welford's sum stays exactly 0 while every observation is equal: the formula's limit.
            return math.copysign(math.inf, evidence) if evidence else 0.0
        return self._n * evidence / (2 * self.variance)

    @property
    def lower(self) -> float:
        """ln(beta / (1 - alpha)): the llr at or below which H0 is accepted."""
        return self._lower

    @property
    def upper(self) -> float:
        """ln((1 - beta) / alpha): the llr at or above which H1 is accepted."""
        return self._upper

    @property
    def interval(self) -> Interval:
        """The Student-t 95% interval of the mean."""
        if self._n < 2:
            return Interval(self.mean, math.nan, self._n)
        half_width = t_quantile(0.975, self._n - 1) * math.sqrt(self.variance / self._n)
        return Interval(self._mean, half_width, self._n)

    @property
    def verdict(self) -> Verdict | None:
        """None while running; "H1" once the llr reached `upper`, "H0" once it reached `lower`."""
        return self._verdict

    @property
    def decided_at(self) -> int | None:
        """The number of observations at which the verdict came; None while running."""
        return self._decided_at

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready state and parameters, with None for nan and for an infinite llr."""
        return {
            "mu0": self._mu0,
            "mu1": self._mu1,
            "alpha": self._alpha,
            "beta": self._beta,
            "min_samples": self._min_samples,
            "n": self._n,
            "mean": _finite_or_none(self.mean),
            "variance": _finite_or_none(self.variance),
            "llr": _finite_or_none(self.llr),
            "lower": self._lower,
            "upper": self._upper,
            "interval": self.interval.to_dict(),
            "verdict": self._verdict,
            "decided_at": self._decided_at,
        }

    def __repr__(self) -> str:
        return (
            f"<Sprt mu0={self._mu0!r} mu1={self._mu1!r} alpha={self._alpha!r} beta={self._beta!r} "
            f"n={self._n} llr={self.llr:.3f} verdict={self._verdict!r}>"
        )


@dataclass(frozen=True, slots=True)
class SprtSimulation:
    """What `simulate_sprt` measured over `runs` tests: shares of each outcome and sample counts."""

    runs: int
    h1: float
    """Share of runs that accepted H1."""
    h0: float
    """Share of runs that accepted H0."""
    undecided: float
    """Share of runs still undecided at `max_samples`."""
    mean_samples: float
    """Mean observations per run (an undecided run counts `max_samples`)."""
    median_samples: float
    max_samples: int


def simulate_sprt(
    draw: Callable[[random.Random], float],
    mu0: float,
    mu1: float,
    *,
    alpha: float = 0.05,
    beta: float = 0.05,
    min_samples: int = DEFAULT_MIN_SAMPLES,
    runs: int = 1000,
    max_samples: int = 100_000,
    rng: random.Random,
) -> SprtSimulation:
    """Run `runs` independent SPRTs on observations `draw(rng)`, each until its verdict or `max_samples`.

    With draw's true mean at mu0, `h1` estimates the false-positive rate (about alpha); at mu1,
    `h1` estimates the power (about 1 - beta).
    """
    if runs < 1 or max_samples < 1:
        raise ValueError(f"runs and max_samples must be at least 1, got {runs} and {max_samples}")
    outcomes = {"H0": 0, "H1": 0, None: 0}
    samples: list[int] = []
    for _ in range(runs):
        test = Sprt(mu0, mu1, alpha, beta, min_samples)
        while test.verdict is None and test.n < max_samples:
            test.add(draw(rng))
        outcomes[test.verdict] += 1
        samples.append(test.n)
    return SprtSimulation(
        runs=runs,
        h1=outcomes["H1"] / runs,
        h0=outcomes["H0"] / runs,
        undecided=outcomes[None] / runs,
        mean_samples=statistics.fmean(samples),
        median_samples=statistics.median(samples),
        max_samples=max_samples,
    )


def fixed_sample_size(mu0: float, mu1: float, sd: float, alpha: float = 0.05, beta: float = 0.05) -> float:
    """Observations a fixed-size one-sided z-test needs for the same alpha and beta.

    n = ((z(1 - alpha) + z(1 - beta)) sd / |mu1 - mu0|)²: the yardstick for how early the SPRT
    stops (with alpha = beta, its mean sample count is about half of this at mu0 or mu1).
    """
    if mu0 == mu1 or not sd > 0:
        raise ValueError(f"need mu0 != mu1 and sd > 0, got mu0={mu0}, mu1={mu1}, sd={sd}")
    z = _NORMAL.inv_cdf(1 - alpha) + _NORMAL.inv_cdf(1 - beta)
    return (z * sd / abs(mu1 - mu0)) ** 2


# --- Elo ------------------------------------------------------------------------------------------


def elo_to_score(elo: float) -> float:
    """The expected pairwise score (win 1, tie 1/2, loss 0) of a player `elo` points stronger.

    The logistic Elo curve 1 / (1 + 10^(-elo / 400)): 0 Elo is 0.5, +400 Elo about 0.91. For
    multiplayer matches the score of A against B is the share of seat pairings A finished above
    B, so an SPRT on per-deal pairwise scores tests elo_to_score(elo0) against elo_to_score(elo1).
    """
    if math.isnan(elo):
        raise ValueError("elo must be a number, got nan")
    # Written so that the power of ten is never positive: no overflow for any finite elo.
    if elo >= 0:
        return 1 / (1 + 10 ** (-elo / 400))
    power = 10 ** (elo / 400)
    return power / (1 + power)


def score_to_elo(score: float) -> float:
    """The Elo difference whose expected pairwise score is `score`; inf at 1 and -inf at 0."""
    if not 0 <= score <= 1:
        raise ValueError(f"score must be between 0 and 1, got {score}")
    if score == 1:
        return math.inf
    if score == 0:
        return -math.inf
    # log10(s) - log10(1 - s) rather than -log10(1/s - 1): keeps the digits of scores near 1.
    return 400 * (math.log10(score) - math.log10(1 - score))
