"""Seat-fair duplicate: the seatings under which every deal is played.

In these games turn order goes round the table, and the player just after a weak one gains a
lot (the weak player overflows piles for it). Rotating one seat order only moves every bot
through every seat; each bot keeps the same neighbours, so a bot seated after a weak one keeps
that gift in every rotation. A fair design therefore balances two things per deal:

- every bot holds every seat (and so every hand) equally often, and
- every bot sits directly after every other bot equally often (cyclically: seat 0 follows the
  last seat).

The design is a set of circular orders in which every ordered pair of bots is adjacent equally
often, each played in all its rotations. With 2 and 3 players that is every order there is;
with 4 players no 3 circular orders cover the 12 ordered pairs once (Tillson's theorem rules
out 4 and 6), so it takes all 6 circular orders, again every order (24). With 5 players the
4 "step" cycles (0, d, 2d, ...) cover each pair once: 20 seatings instead of 120. With 6
players 10 circular orders cover each pair twice: 60 instead of 720. A user may ask for fewer
seatings per deal; consecutive deals then take consecutive slices of the design, so balance
holds over every whole pass through it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from itertools import permutations

MAX_PLAYERS = 7
"""The largest table with a design here (the games seat at most 6); the search for 8 and more
is not bounded in time."""

Seating = tuple[int, ...]
"""Seat s is taken by bot number seating[s] (bots numbered in the order the user gave them)."""


def circular_orders(players: int) -> tuple[Seating, ...]:
    """A smallest set of circular orders, each starting with bot 0, in which every bot sits
    directly after every other bot equally often."""
    if not isinstance(players, int) or not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"seating designs are for tables of 1 to {MAX_PLAYERS} players, not {players!r}")
    return _circular_orders(players)


@cache
def _circular_orders(players: int) -> tuple[Seating, ...]:
    if players <= 2:
        return (tuple(range(players)),)
    if _is_prime(players):
        # Stepping by d round the table of a prime size visits everybody, and its pairs (x, x + d)
        # are exactly the pairs at distance d: the n - 1 steps cover every ordered pair once.
        return tuple(tuple(step * k % players for k in range(players)) for step in range(1, players))
    for multiplicity in range(1, 4):
        found = _search(players, multiplicity)
        if found is not None:
            return found
    raise ValueError(f"no balanced seating design for {players} players")  # pragma: no cover - all n <= 7 found


def _search(players: int, multiplicity: int) -> tuple[Seating, ...] | None:
    """Circular orders covering every ordered adjacent pair exactly `multiplicity` times, by
    backtracking over the uncovered pair with the fewest candidate orders; None if there are none.
    """
    orders = [(0, *rest) for rest in permutations(range(1, players))]
    pairs_of = [[(order[k], order[(k + 1) % players]) for k in range(players)] for order in orders]
    need = {(a, b): multiplicity for a in range(players) for b in range(players) if a != b}
    by_pair: dict[tuple[int, int], list[int]] = {pair: [] for pair in need}
    for index, pairs in enumerate(pairs_of):
        for pair in pairs:
            by_pair[pair].append(index)
    chosen: list[int] = []

    def fits(index: int) -> bool:
        return all(need[pair] > 0 for pair in pairs_of[index])

    def extend() -> bool:
        open_pairs = [pair for pair, left in need.items() if left]
        if not open_pairs:
            return True
        # Exact cover (Knuth's algorithm X): some chosen order must cover the open pair with the
        # fewest candidates, so branching on its candidates alone misses no solution.
        pair = min(open_pairs, key=lambda p: sum(1 for i in by_pair[p] if fits(i)))
        for index in by_pair[pair]:
            if not fits(index):
                continue
            for covered in pairs_of[index]:
                need[covered] -= 1
            chosen.append(index)
            if extend():
                return True
            chosen.pop()
            for covered in pairs_of[index]:
                need[covered] += 1
        return False

    return tuple(orders[index] for index in chosen) if extend() else None


def _is_prime(number: int) -> bool:
    return number >= 2 and all(number % k for k in range(2, int(number**0.5) + 1))


@cache
def design(players: int) -> tuple[Seating, ...]:
    """The full seat-fair design: every balanced circular order in all its rotations, rotations
    innermost, so that every slice of `players` consecutive seatings puts each bot in each seat once."""
    return tuple(
        tuple(order[(seat + shift) % players] for seat in range(players))
        for order in circular_orders(players)
        for shift in range(players)
    )


def design_size(players: int) -> int:
    return len(design(players))


def describe_design(players: int, per_deal: int | None = None) -> str:
    """One line for users: how many seatings a deal gets and what they balance."""
    full = design_size(players)
    per_deal = full if per_deal is None else per_deal
    kind = f"all {full} orders" if full == math.factorial(players) else f"a balanced design of {full} seatings"
    if per_deal == full:
        return f"{kind} of {players} bots: each bot in every seat and after every other bot equally often"
    return (
        f"{per_deal} of {kind} of {players} bots per deal: each bot in every seat; who sits after whom "
        f"evens out over every {full // math.gcd(full, per_deal)} deals"
    )


def check_seatings_per_deal(players: int, per_deal: int) -> None:
    """ValueError unless `per_deal` seatings per deal keep every deal seat-balanced: a multiple of
    the number of players, and no more than the full design."""
    full = design_size(players)
    if not isinstance(per_deal, int) or isinstance(per_deal, bool) or per_deal < 1:
        raise ValueError(f"seatings per deal must be a whole number of at least 1, not {per_deal!r}")
    if per_deal % players or per_deal > full:
        choices = ", ".join(str(k) for k in range(players, full + 1, players))
        raise ValueError(
            f"{per_deal} seatings per deal would not put every bot in every seat equally often; "
            f"with {players} players choose one of {choices} ({full}, the full design, is the default)"
        )


def deal_seatings(players: int, part: int, per_deal: int | None = None) -> tuple[Seating, ...]:
    """The seatings of one deal: the whole design, or with `per_deal` its slice number `part`.
    Slices follow one another round the design, so a series that gives its deals parts 0, 1, 2...
    passes through the whole design every `full / gcd(full, per_deal)` deals."""
    full = design(players)
    if per_deal is None or per_deal == len(full):
        return full
    check_seatings_per_deal(players, per_deal)
    start = part * per_deal
    return tuple(full[(start + k) % len(full)] for k in range(per_deal))


def seat(bots: Sequence[str], seating: Seating) -> tuple[str, ...]:
    """The bots in seat order under `seating`."""
    return tuple(bots[index] for index in seating)


def follow_counts(seatings: Sequence[Sequence[str]]) -> dict[tuple[str, str], int]:
    """How often each bot sat directly after each other (cyclically): {(before, after): count}."""
    counts: dict[tuple[str, str], int] = {}
    for seats in seatings:
        size = len(seats)
        for index in range(size):
            pair = (seats[index], seats[(index + 1) % size])
            counts[pair] = counts.get(pair, 0) + 1
    return counts
