"""Statistics for comparing bots: Student-t quantiles and intervals.

Pure math on floats, with only `math` and `statistics` underneath; nothing here does I/O.

- `t_quantile(p, df)`: Student's t quantile, to about 1e-12 relative (measured against mpmath).
- `Interval` and `mean_interval(values, confidence=0.95)`: the Student-t interval of a mean.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

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
