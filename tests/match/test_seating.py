"""The seat-fair design: every bot in every seat and after every other bot equally often."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.match.local import schedule
from arena.match.seating import (
    MAX_PLAYERS,
    check_seatings_per_deal,
    deal_seatings,
    describe_design,
    design,
    design_size,
    follow_counts,
    seat,
)

BOTS = ("ann", "bob", "cy", "dee", "eve", "fay", "gus")


def balance(seatings: list[tuple[str, ...]]) -> tuple[set[int], set[int]]:
    """The distinct counts of (bot, seat) and of (before, after) over the seatings."""
    players = len(seatings[0])
    seats = Counter((bot, index) for seats in seatings for index, bot in enumerate(seats))
    names = set(seatings[0])
    follows = follow_counts(seatings)
    pairs = [follows.get((a, b), 0) for a in names for b in names if a != b]
    assert len(seats) == players * players
    return set(seats.values()), set(pairs)


@pytest.mark.parametrize("players", range(2, MAX_PLAYERS + 1))
def test_the_design_balances_seats_and_who_sits_after_whom(players: int) -> None:
    bots = BOTS[:players]
    seatings = [seat(bots, seating) for seating in design(players)]
    seat_counts, follow = balance(seatings)
    assert len(seat_counts) == 1 and len(follow) == 1
    # Every order where that is affordable; the smallest balanced design otherwise.
    expected = {2: 2, 3: 6, 4: 24, 5: 20, 6: 60, 7: 42}[players]
    assert len(seatings) == expected == design_size(players)
    if players <= 4:
        assert len(set(seatings)) == math.factorial(players)


def test_rotations_alone_keep_every_bots_neighbours() -> None:
    """The control: the old rotations put each bot in each seat but always after the same bot."""
    bots = BOTS[:4]
    rotations = [tuple(bots[(s + shift) % 4] for s in range(4)) for shift in range(4)]
    seat_counts, follow = balance(rotations)
    assert seat_counts == {1}
    assert follow == {0, 4}


@given(st.integers(min_value=3, max_value=6), st.data())
def test_slices_keep_seats_balanced_per_deal_and_neighbours_over_a_pass(players: int, data: st.DataObject) -> None:
    full = design_size(players)
    per_deal = data.draw(st.sampled_from(range(players, full + 1, players)))
    bots = BOTS[:players]
    passes = full // math.gcd(full, per_deal)
    seatings = []
    for deal in range(passes):
        this_deal = [seat(bots, s) for s in deal_seatings(players, deal, per_deal)]
        assert len(this_deal) == per_deal
        seat_counts, _ = balance(this_deal)
        assert len(seat_counts) == 1
        seatings += this_deal
    _, follow = balance(seatings)
    assert len(follow) == 1


@pytest.mark.parametrize(("players", "per_deal"), [(4, 6), (4, 28), (3, 4), (5, 25)])
def test_a_seatings_count_that_breaks_seat_balance_is_refused_with_the_choices(players: int, per_deal: int) -> None:
    with pytest.raises(ValueError, match=f"with {players} players choose one of {players}, ") as refused:
        check_seatings_per_deal(players, per_deal)
    assert "\n" not in str(refused.value)
    with pytest.raises(ValueError, match="at least 1, not 0"):
        check_seatings_per_deal(players, 0)


def test_tables_beyond_the_designed_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="tables of 1 to 7 players"):
        design(8)


def test_duplicate_series_play_each_deal_under_the_whole_design() -> None:
    pairings = list(schedule(BOTS[:4], 48, duplicate=True))
    assert [p.number for p in pairings] == list(range(48))
    for deal in (0, 1):
        seatings = [p.seats for p in pairings if p.deal == deal]
        assert len(seatings) == 24 and len(set(seatings)) == 24


def test_duplicate_series_refuse_a_number_of_games_that_cuts_a_deal() -> None:
    with pytest.raises(ValueError, match="--games must be a multiple of 24"):
        list(schedule(BOTS[:4], 20, duplicate=True))
    with pytest.raises(ValueError, match="add --duplicate"):
        list(schedule(BOTS[:4], 20, duplicate=False, seatings=4))
    assert len(list(schedule(BOTS[:4], 20, duplicate=True, seatings=4))) == 20


def test_the_description_names_the_design() -> None:
    assert describe_design(4).startswith("all 24 orders of 4 bots")
    assert describe_design(5).startswith("a balanced design of 20 seatings")
    assert "evens out over every 3 deals" in describe_design(4, 8)
