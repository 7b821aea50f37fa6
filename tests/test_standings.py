"""Standings with per-deal intervals and the head-to-head of bots on shared deals."""

from __future__ import annotations

import asyncio
import math

import pytest

from arena.games import make_game
from arena.match.local import Pairing, play_series, rotation, schedule
from arena.standings import Played, head_to_head, standings, unsettled

COPIES = {"h1": "heuristic", "h2": "heuristic", "h3": "heuristic", "random": "random"}


def series(order: list[str], games: int, *, duplicate: bool = True, seed: str = "fair") -> list[Played]:
    """friday13 between the entries of `order` (copies of the heuristic and the random bot)."""
    game = make_game("friday13", players=len(order))
    pairings = list(schedule(order, games, duplicate=duplicate))
    results = asyncio.run(play_series(game, pairings, seed, policy=COPIES.__getitem__))
    return [Played(r.seats, r.scores, r.ranks, p.deal) for r, p in zip(results, pairings, strict=True)]


def test_a_pair_on_shared_deals_uses_the_per_deal_differences_and_student_t() -> None:
    # Deal k: ann scores 10 + k in both of its matches, bob 12 + k + (k % 2): differences 2, 3, 2, 3.
    played = [Played(("ann", "bob"), (10 + k, 12 + k + k % 2), (1, 2), deal=k) for k in range(4) for _ in range(2)]
    rows = standings(played)
    assert [row.bot for row in rows] == ["ann", "bob"]
    assert rows[0].games == 8 and rows[0].deals == 4
    (pair,) = head_to_head(rows)
    assert (pair.first, pair.second, pair.deals) == ("ann", "bob", 4)
    assert pair.advantage.mean == pytest.approx(2.5)
    # sd of (2, 3, 2, 3) is 1/sqrt(3); t(0.975, 3) = 3.1824.
    assert pair.advantage.half_width == pytest.approx(3.1824 * (1 / math.sqrt(3)) / 2, rel=1e-4)
    assert pair.established and unsettled(rows, [pair]) == []
    # The per-bot interval is over the four per-deal means (10, 11, 12, 13), not over the 8 matches.
    assert rows[0].ci95 == pytest.approx(3.1824 * statistics_stdev([10, 11, 12, 13]) / 2, rel=1e-4)


def statistics_stdev(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def test_bots_that_never_shared_a_deal_have_no_comparison_and_are_unsettled() -> None:
    played = [Played(("ann", "cy"), (3, 5), (1, 2), deal=0), Played(("bob", "cy"), (4, 5), (1, 2), deal=1)]
    rows = standings(played)
    pairs = {(p.first, p.second): p for p in head_to_head(rows)}
    assert pairs[("ann", "bob")].deals == 0 and not pairs[("ann", "bob")].established
    assert math.isnan(pairs[("ann", "bob")].advantage.mean)
    assert [(p.first, p.second) for p in unsettled(rows, list(pairs.values()))] == [("ann", "bob"), ("bob", "cy")]


@pytest.mark.parametrize(
    "order",
    [["random", "h1", "h2", "h3"], ["h1", "random", "h2", "h3"], ["h3", "h2", "random", "h1"]],
    ids=["random-first", "random-second", "random-third"],
)
def test_identical_policies_come_out_equal_whatever_the_seating_string(order: list[str]) -> None:
    rows = standings(series(order, 24 * 6))
    pairs = head_to_head(rows)
    copies = [pair for pair in pairs if pair.first != "random" and pair.second != "random"]
    assert len(copies) == 3
    for pair in copies:
        # No copy is established as better, and the mean gap is small against the real one below.
        assert not pair.established, pair
        assert abs(pair.advantage.mean) < 1.5, pair
    # ...while the real difference shows: every copy is established as better than random.
    assert all(pair.established for pair in pairs if "random" in (pair.first, pair.second))


def test_rotations_alone_favour_the_copy_seated_after_the_weak_bot() -> None:
    """The control: rotating one seat order keeps neighbours, and the copy after random profits."""
    order = ["random", "h1", "h2", "h3"]
    game = make_game("friday13", players=4)
    pairings = [Pairing(deal * 4 + shift, deal, rotation(order, shift)) for deal in range(6) for shift in range(4)]
    results = asyncio.run(play_series(game, pairings, "fair", policy=COPIES.__getitem__))
    rows = standings(Played(r.seats, r.scores, r.ranks, p.deal) for r, p in zip(results, pairings, strict=True))
    pairs = {(p.first, p.second): p for p in head_to_head(rows)}
    # h1 sits right after random in every match, and comes out on top by a clear, established margin.
    assert rows[0].bot == "h1"
    assert pairs[("h1", rows[1].bot)].established
