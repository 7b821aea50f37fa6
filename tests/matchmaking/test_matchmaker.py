"""The ladder matchmaker: distinct bots per table, close ratings, widening with waiting, fair seats
and fair neighbours."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.matchmaking import Matchmaker, MatchmakingError, QualitySchedule, WaitingEntry, assign_seats
from arena.matchmaking.matchmaker import EXACT_NEIGHBOURS_UP_TO
from arena.ratings import Rating

NOW = 10_000.0


def entry(
    bot: str, mu: float, *, sigma: float = 2.0, waited: float = 0.0, ticket: str = "", seats: tuple[int, ...] = ()
) -> WaitingEntry:
    return WaitingEntry(ticket or bot, bot, Rating(mu, sigma), NOW - waited, seats)


def groups(matching_tables: tuple[object, ...]) -> set[frozenset[str]]:
    return {frozenset(table.bots) for table in matching_tables}  # type: ignore[attr-defined]


def test_similar_bots_sit_together_rather_than_mixed() -> None:
    low = [entry(f"low{i}", 20.0 + 0.3 * i) for i in range(4)]
    high = [entry(f"high{i}", 34.0 + 0.3 * i) for i in range(4)]
    matching = Matchmaker(4).form_tables([*high, *low], NOW)
    assert groups(matching.tables) == {frozenset(e.bot for e in low), frozenset(e.bot for e in high)}
    assert matching.waiting == ()


def test_closest_window_is_chosen_around_the_longest_waiting_bot() -> None:
    anchor = entry("anchor", 25.0, waited=30.0)
    near = [entry(f"near{i}", 25.5 + 0.2 * i) for i in range(3)]
    far = [entry(f"far{i}", 21.0 - i) for i in range(3)]
    matching = Matchmaker(4).form_tables([anchor, *near, *far], NOW)
    assert groups(matching.tables) == {frozenset(["anchor", "near0", "near1", "near2"])}
    assert {e.bot for e in matching.waiting} == {"far0", "far1", "far2"}


def test_an_outlier_waits_at_first_and_gets_a_table_once_it_has_waited_long_enough() -> None:
    field = [entry(f"b{i}", 25.0 + 0.1 * i) for i in range(3)]
    matchmaker = Matchmaker(4)
    fresh = matchmaker.form_tables([entry("outlier", 55.0), *field], NOW)
    assert fresh.tables == ()
    assert len(fresh.waiting) == 4
    patient = matchmaker.form_tables([entry("outlier", 55.0, waited=matchmaker.schedule.anything_after), *field], NOW)
    assert groups(patient.tables) == {frozenset(["outlier", "b0", "b1", "b2"])}


def test_required_balance_falls_with_waiting_time_to_zero() -> None:
    schedule = QualitySchedule()
    values = [schedule.required(seconds) for seconds in (0, 10, 20, 60, 119.9, 120, 1e6)]
    assert values == sorted(values, reverse=True)
    assert values[0] == schedule.start
    assert values[2] == pytest.approx(schedule.start / 2)
    assert values[-2] == values[-1] == 0.0


def test_too_few_waiting_bots_stay_waiting_longest_first() -> None:
    entries = [entry("a", 25.0, waited=5.0), entry("b", 25.0, waited=50.0)]
    matching = Matchmaker(3).form_tables(entries, NOW)
    assert matching.tables == ()
    assert [e.bot for e in matching.waiting] == ["b", "a"]


queued = st.lists(
    st.tuples(st.sampled_from("abcdefgh"), st.floats(0, 50), st.floats(0.5, 8.3), st.floats(0, 300)),
    min_size=0,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(queued, st.integers(2, 6), st.integers(0, 3))
def test_no_bot_sits_twice_at_a_table_and_every_ticket_is_accounted_for(
    rows: list[tuple[str, float, float, float]], size: int, seed: int
) -> None:
    entries = [
        entry(bot, mu, sigma=sigma, waited=waited, ticket=f"t{i}") for i, (bot, mu, sigma, waited) in enumerate(rows)
    ]
    matching = Matchmaker(size).form_tables(entries, NOW, seed=seed)
    for table in matching.tables:
        assert len(table.bots) == size
        assert len(set(table.bots)) == size
    tickets = [t for table in matching.tables for t in table.tickets] + [e.ticket for e in matching.waiting]
    assert sorted(tickets) == sorted(e.ticket for e in entries)


@settings(max_examples=50, deadline=None)
@given(queued, st.randoms(use_true_random=False))
def test_same_input_in_any_order_gives_the_same_tables(
    rows: list[tuple[str, float, float, float]], rng: random.Random
) -> None:
    entries = [entry(f"{bot}{i}", mu, sigma=sigma, waited=waited) for i, (bot, mu, sigma, waited) in enumerate(rows)]
    shuffled = list(entries)
    rng.shuffle(shuffled)
    assert Matchmaker(4).form_tables(shuffled, NOW, seed=7) == Matchmaker(4).form_tables(entries, NOW, seed=7)


def test_seats_go_to_the_bots_that_had_them_least() -> None:
    a = entry("a", 25.0, seats=(5, 5, 4))
    b = entry("b", 25.0, seats=(0, 3, 3))
    c = entry("c", 25.0, seats=(2, 1, 2))
    assert [e.bot for e in assign_seats([a, b, c], random.Random(0))] == ["b", "c", "a"]


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 6), st.integers(0, 12), st.integers(0, 2**32))
def test_seats_stay_balanced_over_many_rounds(size: int, extra: int, seed: int) -> None:
    """Random tables from a pool; seated at random, some bot's seats would differ by dozens."""
    rng = random.Random(seed)
    counts = {f"bot{i}": [0] * size for i in range(size + extra)}
    for round_number in range(400):
        bots = rng.sample(sorted(counts), size)
        entries = [entry(bot, 25.0, ticket=f"{round_number}/{bot}", seats=tuple(counts[bot])) for bot in bots]
        for seat, seated in enumerate(assign_seats(entries, rng)):
            counts[seated.bot][seat] += 1
    assert max(max(seats) - min(seats) for seats in counts.values()) <= 3


def play_again_and_again(size: int, tables: int, neighbour_weight: float) -> tuple[Counter[str], Counter[str]]:
    """The same `size` bots matched `tables` times, each table's seats and neighbours counted and fed
    back as the server does; the counts of (bot, seat) and of ordered neighbour pairs "a>b"."""
    bots = [f"bot{i}" for i in range(size)]
    seats: Counter[str] = Counter()
    after: Counter[tuple[str, str]] = Counter()
    matchmaker = Matchmaker(size, neighbour_weight=neighbour_weight)
    for number in range(tables):
        entries = [
            entry(bot, 25.0, ticket=f"{number}/{bot}", seats=tuple(seats[f"{bot}@{seat}"] for seat in range(size)))
            for bot in bots
        ]
        (table,) = matchmaker.form_tables(entries, NOW, seed=number, neighbours=after).tables
        for seat, bot in enumerate(table.bots):
            seats[f"{bot}@{seat}"] += 1
            after[table.bots[seat - 1], bot] += 1
    every_seat = Counter({f"{bot}@{seat}": seats[f"{bot}@{seat}"] for bot in bots for seat in range(size)})
    every_pair = Counter({f"{a}>{b}": after[a, b] for a in bots for b in bots if a != b})
    return every_seat, every_pair


def spread(counts: Counter[str]) -> int:
    return max(counts.values()) - min(counts.values())


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_the_same_bots_sit_after_one_another_equally_often_over_many_tables(size: int) -> None:
    """240 tables of the same bots: every bot sits after every other bot 240 / (size - 1) times, give or
    take one, and in every seat 240 / size times, give or take one. Balancing seats alone, as the
    ladder did before, lets the neighbour counts drift apart (by 12, 20, 32 and 31 here)."""
    seats, pairs = play_again_and_again(size, 240, neighbour_weight=1.0)
    assert spread(pairs) <= 2, pairs
    assert spread(seats) <= 2, seats
    assert sum(pairs.values()) == 240 * size
    seats_only, pairs_seats_only = play_again_and_again(size, 240, neighbour_weight=0.0)
    assert spread(seats_only) <= 1
    assert spread(pairs_seats_only) >= 10, pairs_seats_only


def seating_cost(seated: Sequence[WaitingEntry], neighbours: Mapping[tuple[str, str], int]) -> int:
    """The cost `assign_seats` minimises, written out plainly: squared seat and neighbour excesses."""
    size = len(seated)
    total = 0
    for seat, one in enumerate(seated):
        counts = one.seat_counts + (0,) * (size - len(one.seat_counts))
        total += (counts[seat] - min(counts)) ** 2
    if size >= 3:
        names = [one.bot for one in seated]
        least = min(neighbours.get((a, b), 0) for a in names for b in names if a != b)
        total += sum((neighbours.get((names[seat - 1], names[seat]), 0) - least) ** 2 for seat in range(size))
    return total


@settings(max_examples=60, deadline=None)
@given(st.integers(2, EXACT_NEIGHBOURS_UP_TO), st.data())
def test_the_seating_is_the_cheapest_of_all_orders(size: int, data: st.DataObject) -> None:
    counts = st.integers(0, 6)
    bots = [f"b{i}" for i in range(size)]
    entries = [
        # Some bots are new to this table size: no seat counts at all.
        entry(bot, 25.0, seats=tuple(data.draw(st.lists(counts, max_size=size))))
        for bot in bots
    ]
    pairs = [(a, b) for a in bots for b in bots if a != b]
    known = data.draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    neighbours = {pair: data.draw(counts) for pair in known}
    seated = assign_seats(entries, random.Random(data.draw(st.integers(0, 99))), neighbours)
    assert sorted(one.bot for one in seated) == bots
    cheapest = min(seating_cost(order, neighbours) for order in itertools.permutations(entries))
    assert seating_cost(seated, neighbours) == cheapest


def test_a_bot_new_to_the_table_counts_as_never_having_sat_after_anyone() -> None:
    """Missing seat counts and neighbour pairs count 0, pairs of bots not at the table are ignored."""
    veterans = [entry(bot, 25.0, seats=(3, 3, 3, 3)) for bot in "abc"]
    newcomer = entry("new", 25.0)
    # b has sat after a far more than any other pair; nobody has met the newcomer.
    neighbours = {("a", "b"): 9, ("b", "a"): 3, ("a", "c"): 3, ("c", "a"): 3, ("b", "c"): 3, ("c", "b"): 3}
    neighbours |= {("a", "gone"): 50, ("gone", "b"): 50}
    for seed in range(20):
        bots = [one.bot for one in assign_seats([*veterans, newcomer], random.Random(seed), neighbours)]
        assert "a>b" not in {f"{bots[seat - 1]}>{bots[seat]}" for seat in range(4)}, bots


def test_duplicate_tickets_and_bad_entries_are_refused() -> None:
    with pytest.raises(MatchmakingError, match="share a ticket"):
        Matchmaker(2).form_tables([entry("a", 25.0, ticket="t"), entry("b", 25.0, ticket="t")], NOW)
    with pytest.raises(MatchmakingError, match="at least 2 seats"):
        Matchmaker(1)
    for weight in (-1.0, float("nan"), float("inf")):
        with pytest.raises(MatchmakingError, match="neighbour weight"):
            Matchmaker(4, neighbour_weight=weight)
    with pytest.raises(MatchmakingError, match="lacks 'since'"):
        WaitingEntry.from_dict({"ticket": "t", "bot": "a", "mu": 1, "sigma": 1})


def test_entry_round_trips_through_its_stored_form() -> None:
    queued_entry = WaitingEntry("t1", "a", Rating(27.5, 3.25), 123.5, (1, 0, 2), owner="ann")
    assert WaitingEntry.from_dict(queued_entry.to_dict()) == queued_entry
    assert queued_entry.waited(130.0) == 6.5
