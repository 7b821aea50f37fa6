"""arena.stats: t quantiles against tables and closed forms, intervals."""

from __future__ import annotations

import json
import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.stats import Interval, mean_interval, t_quantile

NORMAL = statistics.NormalDist()

probabilities = st.floats(min_value=1e-12, max_value=1 - 1e-12)
degrees = st.floats(min_value=0.5, max_value=1e7)


# --- t quantiles ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [
        (0.975, 1, 12.7062),
        (0.975, 2, 4.3027),
        (0.975, 5, 2.5706),
        (0.975, 10, 2.2281),
        (0.975, 30, 2.0423),
        (0.975, 120, 1.9799),
        (0.995, 4, 4.6041),
    ],
)
def test_t_quantile_matches_printed_tables(p: float, df: float, table: float) -> None:
    # Tables round to 4 decimals.
    assert t_quantile(p, df) == pytest.approx(table, abs=5e-5)


def cauchy_quantile(p: float) -> float:
    """The closed form for df = 1, as cot(pi p) so that tiny p keep their digits."""
    return -1 / math.tan(math.pi * p) if p <= 0.5 else 1 / math.tan(math.pi * (1 - p))


def t_quantile_df4(p: float) -> float:
    """The closed form for df = 4 (Shaw, "Sampling Student's T distribution", 2006)."""
    a = 4 * p * (1 - p)
    angle = math.atan2(abs(2 * p - 1), math.sqrt(a))  # acos(sqrt(a)), without its cancellation near 1
    return math.copysign(2 * math.sqrt(math.cos(angle / 3) / math.sqrt(a) - 1), p - 0.5)


@given(probabilities)
def test_t_quantile_matches_closed_forms_for_1_and_2_degrees(p: float) -> None:
    # The solver has no special cases for these, so they check its general path.
    assert t_quantile(p, 1) == pytest.approx(cauchy_quantile(p), rel=1e-9, abs=1e-12)
    assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-9, abs=1e-12)


@given(st.floats(min_value=1e-12, max_value=0.49))
def test_t_quantile_matches_the_closed_form_for_4_degrees(tail: float) -> None:
    # Near the median the closed form itself loses digits (cos(x / 3) / sqrt(a) - 1 cancels).
    assert t_quantile(tail, 4) == pytest.approx(t_quantile_df4(tail), rel=1e-9)
    assert t_quantile(1 - tail, 4) == pytest.approx(t_quantile_df4(1 - tail), rel=1e-9)


@given(st.floats(min_value=0.5, max_value=1 - 1e-12), degrees)
def test_t_quantile_is_symmetric_about_the_median(q: float, df: float) -> None:
    # For q >= 0.5, 1 - q is exact, so the two calls see the same tail.
    assert t_quantile(1 - q, df) == -t_quantile(q, df)
    assert t_quantile(0.5, df) == 0.0


@given(probabilities, probabilities, degrees)
def test_t_quantile_rises_with_p(p: float, q: float, df: float) -> None:
    low, high = sorted((p, q))
    # To the solver's precision: p one ulp apart may give quantiles in either order.
    assert t_quantile(low, df) <= t_quantile(high, df) + 1e-13 * abs(t_quantile(high, df))


@given(st.floats(min_value=0.5, max_value=1 - 1e-9), degrees, degrees)
def test_upper_quantiles_shrink_toward_the_normal_as_df_grows(p: float, df: float, other: float) -> None:
    few, many = sorted((df, other))
    z = NORMAL.inv_cdf(p)
    assert t_quantile(p, few) >= t_quantile(p, many) * (1 - 1e-12) >= z * (1 - 1e-12)


@pytest.mark.parametrize("p", [1e-9, 0.025, 0.3, 0.9, 0.975])
def test_t_quantile_tends_to_the_normal_quantile(p: float) -> None:
    z = NORMAL.inv_cdf(p)
    assert t_quantile(p, math.inf) == pytest.approx(z, rel=1e-15)
    assert t_quantile(p, 1e12) == pytest.approx(z, rel=1e-10)
    # Across the switch from the incomplete beta to the large-df expansion nothing jumps.
    assert t_quantile(p, 1e5) == pytest.approx(t_quantile(p, 1.000001e5), rel=1e-10)


@pytest.mark.parametrize(
    ("p", "df"), [(0.0, 5), (1.0, 5), (-0.1, 5), (math.nan, 5), (0.5, 0), (0.5, -1), (0.5, math.nan)]
)
def test_t_quantile_rejects_impossible_arguments(p: float, df: float) -> None:
    with pytest.raises(ValueError, match=r"p must be|degrees of freedom"):
        t_quantile(p, df)


# --- intervals ------------------------------------------------------------------------------------


def test_mean_interval_uses_the_t_quantile_of_n_minus_1_degrees() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    # Mean 3.5, sample variance 3.5; the table's t(0.975, 5) is 2.5706.
    expected = 2.5706 * math.sqrt(3.5) / math.sqrt(6)
    interval = mean_interval(values)
    assert interval.mean == 3.5
    assert interval.n == 6
    assert interval.half_width == pytest.approx(expected, abs=1e-4)
    assert (interval.low, interval.high) == pytest.approx((3.5 - expected, 3.5 + expected), abs=1e-4)
    assert mean_interval(values, confidence=0.99).half_width > interval.half_width


def test_mean_interval_of_too_few_values_is_unknown_not_an_error() -> None:
    empty = mean_interval([])
    assert math.isnan(empty.mean) and math.isnan(empty.half_width) and empty.n == 0
    single = mean_interval([4])
    assert single.mean == 4 and math.isnan(single.half_width) and single.n == 1
    assert not single.excludes(100.0)
    assert json.dumps(single.to_dict(), allow_nan=False)


def test_interval_excludes_only_values_outside_it() -> None:
    interval = Interval(mean=1.0, half_width=0.5, n=10)
    assert interval.excludes(0.4) and interval.excludes(1.6)
    assert not interval.excludes(0.5) and not interval.excludes(1.2)


def test_equal_values_give_a_zero_width_interval() -> None:
    assert mean_interval([2.5] * 5) == Interval(2.5, 0.0, 5)


def test_mean_interval_rejects_a_confidence_outside_0_1() -> None:
    with pytest.raises(ValueError, match="confidence"):
        mean_interval([1, 2, 3], confidence=95)
