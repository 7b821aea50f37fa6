"""Tournament formats: counts, who meets whom, seat-fair duplicate, seeds, Swiss by standing."""

from __future__ import annotations

from collections import Counter
from math import comb

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.match.local import match_seed
from arena.match.seating import follow_counts
from arena.ratings import ResultRecord
from arena.tournaments import TournamentError, TournamentSpec, plan_round, standing_tables

BOTS = tuple(f"bot{i}" for i in range(9))


def spec(**fields: object) -> TournamentSpec:
    values: dict[str, object] = {"name": "cup", "game": "friday13", "entrants": BOTS[:6], "table_size": 4}
    values.update(fields)
    return TournamentSpec(**values)  # type: ignore[arg-type]


def every_match(tournament: TournamentSpec) -> list[tuple[int, int, tuple[str, ...]]]:
    return [(p.number, p.deal, p.seats) for r in range(tournament.rounds) for p in plan_round(tournament, r)]


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 8), st.integers(3, 6), st.integers(1, 3))
def test_round_robin_plays_every_combination_reps_times_and_everyone_equally(
    entrants: int, size: int, reps: int
) -> None:
    assume(entrants >= size)
    tournament = spec(entrants=BOTS[:entrants], table_size=size, rounds=reps)
    matches = every_match(tournament)
    assert len(matches) == comb(entrants, size) * reps == tournament.total_matches
    assert Counter(frozenset(seats) for _, _, seats in matches) == {
        table: reps for table in {frozenset(seats) for _, _, seats in matches}
    }
    appearances = Counter(bot for _, _, seats in matches for bot in seats)
    assert set(appearances.values()) == {comb(entrants - 1, size - 1) * reps}
    assert [number for number, _, _ in matches] == list(range(len(matches)))
    assert len({deal for _, deal, _ in matches}) == len(matches)


def test_gauntlet_seats_the_hero_at_every_table_and_meets_the_field_evenly() -> None:
    tournament = spec(format="gauntlet", hero="bot2", entrants=BOTS[:7], rounds=2)
    matches = every_match(tournament)
    assert len(matches) == 6 * 2 == tournament.total_matches
    assert all("bot2" in seats and len(set(seats)) == 4 for _, _, seats in matches)
    faced = Counter(bot for _, _, seats in matches for bot in seats if bot != "bot2")
    assert set(faced) == set(BOTS[:7]) - {"bot2"}
    assert set(faced.values()) == {3 * 2}
    assert Counter(seats.index("bot2") for _, _, seats in matches) == dict.fromkeys(range(4), 3)


def test_two_player_gauntlet_is_the_hero_against_each_field_bot() -> None:
    tournament = spec(game="board13", format="gauntlet", hero="bot0", entrants=BOTS[:4], table_size=2)
    assert {frozenset(p.seats) for p in plan_round(tournament, 0)} == {frozenset({"bot0", b}) for b in BOTS[1:4]}


@pytest.mark.parametrize("fmt", ["round-robin", "gauntlet", "swiss"])
def test_duplicate_plays_each_deal_in_every_order_of_its_table(fmt: str) -> None:
    tournament = spec(format=fmt, duplicate=True, hero="bot0" if fmt == "gauntlet" else "", entrants=BOTS[:8])
    matches = every_match(tournament)
    by_deal: dict[int, list[tuple[str, ...]]] = {}
    for number, deal, seats in matches:
        assert tournament.deal_of(number) == deal
        by_deal.setdefault(deal, []).append(seats)
    assert len(matches) == tournament.total_matches == 24 * len(by_deal)
    for seatings in by_deal.values():
        # Four players: all 24 orders, so each bot holds each seat and follows each other bot equally.
        assert len(set(seatings)) == 24 and {frozenset(seats) for seats in seatings} == {frozenset(seatings[0])}
        assert set(follow_counts(seatings).values()) == {8}


def test_fewer_seatings_per_deal_keep_seats_balanced_and_neighbours_over_the_deals() -> None:
    tournament = spec(entrants=BOTS[:4], duplicate=True, seatings=8, rounds=3)
    matches = every_match(tournament)
    assert len(matches) == tournament.total_matches == 24
    for deal in range(3):
        seatings = [seats for _, d, seats in matches if d == deal]
        assert len(seatings) == 8
        assert set(Counter((bot, s) for seats in seatings for s, bot in enumerate(seats)).values()) == {2}
    assert set(follow_counts([seats for _, _, seats in matches]).values()) == {8}
    with pytest.raises(TournamentError, match="with 4 players choose one of 4, 8, 12"):
        spec(duplicate=True, seatings=6)
    with pytest.raises(TournamentError, match="set duplicate too"):
        spec(seatings=8)


def test_matches_are_the_same_every_time_and_seeds_come_from_the_deal() -> None:
    tournament = spec(rounds=2, duplicate=True, seed="spring")
    assert every_match(tournament) == every_match(spec(rounds=2, duplicate=True, seed="spring"))
    pairing = plan_round(tournament, 1)[5]
    assert match_seed(tournament.seed, pairing.deal) == match_seed("spring", pairing.deal)
    assert tournament.match_number(tournament.match_id(pairing.number)) == pairing.number
    assert tournament.round_of(pairing.number) == 1
    assert tournament.match_number("cup-9999") is None
    assert tournament.match_number("other-3") is None


def finished(tournament: TournamentSpec, round_number: int, penalty: dict[str, int]) -> list[ResultRecord]:
    """Results of a round in which each bot scores its fixed penalty."""
    out = []
    for pairing in plan_round(tournament, round_number):
        scores = tuple(penalty[bot] for bot in pairing.seats)
        ranks = tuple(1 + sum(other < mine for other in scores) for mine in scores)
        out.append(ResultRecord(tournament.match_id(pairing.number), pairing.seats, scores, ranks))
    return out


def test_swiss_seats_neighbours_in_the_standing_together() -> None:
    tournament = spec(format="swiss", entrants=BOTS[:8], rounds=2)
    first = plan_round(tournament, 0)
    assert [set(p.seats) for p in first] == [set(BOTS[:4]), set(BOTS[4:8])]
    # Lower penalty is better: the odd bots were best in both tables of round one.
    penalty = {bot: (0 if int(bot[3:]) % 2 else 10) + int(bot[3:]) for bot in BOTS[:8]}
    second = plan_round(tournament, 1, finished(tournament, 0, penalty))
    assert [set(p.seats) for p in second] == [{"bot1", "bot3", "bot5", "bot7"}, {"bot0", "bot2", "bot4", "bot6"}]
    assert [p.number for p in second] == [2, 3]


def test_swiss_sits_out_the_lowest_standing_and_never_the_same_bot_twice_running() -> None:
    tournament = spec(format="swiss", entrants=BOTS[:9], table_size=4, rounds=3)
    penalty = {bot: int(bot[3:]) for bot in BOTS[:9]}
    results: list[ResultRecord] = []
    sat_out = []
    for round_number in range(3):
        seated = {bot for p in plan_round(tournament, round_number, results) for bot in p.seats}
        sat_out.append(set(BOTS[:9]) - seated)
        results += finished(tournament, round_number, penalty)
    assert sat_out[0] == {"bot8"}
    assert all(len(out) == 1 for out in sat_out)
    assert len(set().union(*sat_out)) == 3


def test_standing_tables_leave_out_the_fewest_byes_from_the_bottom() -> None:
    tables, out = standing_tables(["a", "b", "c", "d", "e"], 2, {"e": 1})
    assert out == ["d"]
    assert tables == [("a", "b"), ("c", "e")]


def test_a_round_outside_the_tournament_is_refused() -> None:
    with pytest.raises(TournamentError, match="rounds 0 to 1, not 2"):
        plan_round(spec(rounds=2), 2)
