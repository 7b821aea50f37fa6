"""The TrueSkill interface: who gains, who loses, draws, shrinking uncertainty, new versions, fast quality."""

from __future__ import annotations

import math
from random import Random

import pytest
import trueskill
from hypothesis import given
from hypothesis import strategies as st

from arena.ratings import Rating, RatingError, RatingModel

MODEL = RatingModel()


def test_winner_gains_and_loser_loses_mu() -> None:
    before = [MODEL.initial()] * 4
    after = MODEL.rate(before, [1, 2, 3, 4])
    assert after[0].mu > before[0].mu
    assert after[3].mu < before[3].mu
    assert [rating.mu for rating in after] == sorted((rating.mu for rating in after), reverse=True)


def test_equal_ranks_are_draws() -> None:
    after = MODEL.rate([MODEL.initial()] * 2, [1, 1])
    assert after[0].mu == pytest.approx(MODEL.mu)
    assert after[1].mu == pytest.approx(MODEL.mu)
    shared = MODEL.rate([MODEL.initial()] * 4, [1, 2, 2, 4])
    assert shared[1].mu == pytest.approx(shared[2].mu, abs=0.01)
    assert shared[1].sigma == pytest.approx(shared[2].sigma)
    assert shared[0].mu > shared[1].mu > shared[3].mu


def test_sigma_shrinks_for_every_seat() -> None:
    before = [Rating(20.0, 8.0), Rating(25.0, 6.0), Rating(30.0, 3.0)]
    after = MODEL.rate(before, [2, 1, 3])
    assert all(new.sigma < old.sigma for new, old in zip(after, before, strict=True))


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4)])
def test_a_fixed_programs_sigma_shrinks_with_every_rated_match(players: int, seed: int) -> None:
    """No skill drift within a version: however the matches go (wins, losses, draws), every rated
    match narrows sigma, long after it has become small (where TrueSkill's default tau, sigma / 100,
    would hold it near 0.8 and let it grow again)."""
    rng = Random(seed)
    bots = [f"b{k}" for k in range(players + 1)]
    ratings = {bot: MODEL.initial() for bot in bots}
    for _ in range(250):
        seats = rng.sample(bots, players)
        ranks = [rng.randint(1, players) for _ in seats]
        after = MODEL.rate([ratings[bot] for bot in seats], ranks)
        for bot, new in zip(seats, after, strict=True):
            assert new.sigma < ratings[bot].sigma
            ratings[bot] = new
    assert max(rating.sigma for rating in ratings.values()) < 1.0


def test_a_new_version_starts_from_its_predecessors_mu_with_a_wide_sigma() -> None:
    settled = Rating(31.5, 0.4)
    widened = MODEL.widened(settled)
    assert widened.mu == settled.mu
    assert MODEL.sigma / 2 <= widened.sigma <= MODEL.sigma
    assert MODEL.widened(MODEL.initial()) == MODEL.initial()


def test_conservative_is_mu_minus_three_sigma() -> None:
    assert Rating(30.0, 2.0).conservative == 24.0


ratings = st.builds(Rating, st.floats(-20, 70), st.floats(0.05, 12))


@given(st.lists(ratings, min_size=2, max_size=6))
def test_closed_form_quality_equals_trueskill(seats: list[Rating]) -> None:
    env = trueskill.TrueSkill(mu=MODEL.mu, sigma=MODEL.sigma, beta=MODEL.beta, tau=MODEL.tau)
    expected = env.quality([(env.create_rating(r.mu, r.sigma),) for r in seats])
    assert MODEL.quality(seats) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@given(st.lists(ratings, min_size=2, max_size=6), st.randoms())
def test_quality_ignores_seat_order(seats: list[Rating], rng: Random) -> None:
    shuffled = list(seats)
    rng.shuffle(shuffled)
    assert MODEL.quality(shuffled) == pytest.approx(MODEL.quality(seats), rel=1e-9, abs=1e-300)


def test_closer_means_give_higher_quality() -> None:
    close = [Rating(25.0 + i, 2.0) for i in range(4)]
    spread = [Rating(25.0 + 6 * i, 2.0) for i in range(4)]
    assert MODEL.quality(close) > MODEL.quality(spread)
    assert MODEL.quality_terms([Rating(25.0, 2.0)] * 4).balance == pytest.approx(1.0)


def test_parameters_round_trip_and_bad_ones_are_refused() -> None:
    model = RatingModel(draw_probability=0.2, tau=0.0)
    assert RatingModel.from_dict(model.to_dict()) == model
    with pytest.raises(RatingError, match="draw_probability"):
        RatingModel(draw_probability=0.0)
    with pytest.raises(RatingError, match="unknown rating parameter 'gamma'"):
        RatingModel.from_dict({"gamma": 1.0})
    with pytest.raises(RatingError, match="3 ratings but 2 ranks"):
        MODEL.rate([MODEL.initial()] * 3, [1, 2])
    assert not math.isnan(MODEL.quality([MODEL.initial()] * 2))
