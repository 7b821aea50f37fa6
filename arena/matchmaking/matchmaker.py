"""The ladder's matchmaker: waiting bots in, tables out. Pure: the store reads the queue, calls
`Matchmaker.form_tables` under the game's matchmaker lock, and writes the tables as matches.

How tables are formed, in one pass that is fast enough for 10,000 waiting bots:

1. The entries are sorted by mu; bots close in mu make the best tables, so candidates come from
   neighbours in that order only.
2. The longest-waiting entry still unseated picks first. Its candidate tables are the windows of
   `table_size` consecutive entries around it in mu order (skipping seated ones and every second
   entry of the same bot), one window per position of the anchor in the window.
3. A window is acceptable when its balance (`QualityTerms.balance`: the TrueSkill match quality
   divided by the best quality these bots' sigmas allow) reaches `QualitySchedule.required` for
   its longest-waiting member. Of the acceptable windows the one with the highest TrueSkill
   match quality wins. Quality comes from the closed form in `RatingModel.quality_terms`, a few
   microseconds per table, so no combination search is needed.
4. An anchor without an acceptable window keeps waiting; its required balance falls as it waits,
   down to zero after `QualitySchedule.anything_after` seconds, so an outlier gets a table too.

Seats are then assigned (`assign_seats`) so that each bot tends to get the seats it has had least
and to sit after the bots it has sat after least: in these games the player after a weak one
profits, so a fair ladder varies who follows whom, not only the seat numbers. Which bots sit after
which is history the store keeps per pair, and only the pairs of the tables formed are worth
reading, so the server forms tables (`Matchmaker.group`), reads those pairs, then seats them
(`Matchmaker.seat`); `Matchmaker.form_tables` does both. The same input always gives the same
output.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings import Rating, RatingModel

EXACT_NEIGHBOURS_UP_TO = 6
"""Tables up to this many seats (every game's) are seated by an exact search over all 6! = 720
orders; beyond it the search grows too fast, and only seats are balanced."""

Neighbours = Mapping[tuple[str, str], int]
"""Ladder matches at one table size in which the second bot sat directly after the first, seat 0
counting as after the last seat; a missing pair counts 0."""


class MatchmakingError(ValueError):
    """Bad input to the matchmaker: the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class WaitingEntry:
    """One bot waiting in a game's ladder queue. A bot playing several matches at once may have several."""

    ticket: str
    """The entry's id in the queue, unique among the entries; the store removes seated tickets."""
    bot: str
    rating: Rating
    """The bot's current rating in the game (the store reads it when the matchmaker runs)."""
    since: float
    """When it joined the queue, in seconds since the Unix epoch."""
    seat_counts: tuple[int, ...] = ()
    """Ladder matches it has played in each seat at this table size; missing seats count 0."""
    owner: str = ""

    def waited(self, now: float) -> float:
        """Seconds spent in the queue so far."""
        return max(0.0, now - self.since)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ticket": self.ticket,
            "bot": self.bot,
            "mu": self.rating.mu,
            "sigma": self.rating.sigma,
            "since": self.since,
            "seat_counts": list(self.seat_counts),
            "owner": self.owner,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WaitingEntry:
        try:
            return cls(
                ticket=str(data["ticket"]),
                bot=str(data["bot"]),
                rating=Rating(float(data["mu"]), float(data["sigma"])),
                since=float(data["since"]),
                seat_counts=tuple(int(count) for count in data.get("seat_counts", ())),
                owner=str(data.get("owner", "")),
            )
        except KeyError as missing:
            raise MatchmakingError(f"queue entry lacks {missing.args[0]!r}") from None
        except (TypeError, ValueError):
            raise MatchmakingError(f"queue entry {data.get('ticket')!r} is malformed") from None


@dataclass(frozen=True)
class QualitySchedule:
    """The balance a table needs, by how long its longest-waiting member has waited.

    required(w) = start * 0.5 ** (w / half_life) until `anything_after` seconds, then 0. With the
    defaults: 0.75 at once (for two sure players about a 77% chance for the better one), 0.375
    after 20 s, 0.19 after 40 s, 0.09 after 60 s, any table after 2 minutes.
    """

    start: float = 0.75
    half_life: float = 20.0
    anything_after: float = 120.0

    def __post_init__(self) -> None:
        if not 0 <= self.start <= 1:
            raise MatchmakingError(f"the starting balance must be between 0 and 1, not {self.start!r}")
        if self.half_life <= 0 or self.anything_after < 0:
            raise MatchmakingError("the schedule needs half_life > 0 and anything_after >= 0")

    def required(self, waited: float) -> float:
        if waited >= self.anything_after:
            return 0.0
        return self.start * math.exp2(-max(0.0, waited) / self.half_life)


@dataclass(frozen=True)
class Table:
    """A table the matchmaker formed: its entries in seat order (in mu order before `Matchmaker.seat`)."""

    entries: tuple[WaitingEntry, ...]
    quality: float
    """TrueSkill's match quality of the table."""

    @property
    def bots(self) -> tuple[str, ...]:
        """Bot names in seat order: the match's seats."""
        return tuple(entry.bot for entry in self.entries)

    @property
    def tickets(self) -> tuple[str, ...]:
        return tuple(entry.ticket for entry in self.entries)


@dataclass(frozen=True)
class Matching:
    """The outcome of one matchmaker pass."""

    tables: tuple[Table, ...]
    waiting: tuple[WaitingEntry, ...]
    """Entries left in the queue, longest-waiting first."""


@dataclass(frozen=True)
class Matchmaker:
    """Forms ladder tables for one game and table size."""

    table_size: int
    model: RatingModel = field(default_factory=RatingModel)
    schedule: QualitySchedule = field(default_factory=QualitySchedule)
    neighbour_weight: float = 1.0
    """How much neighbour imbalance counts against seat imbalance in `assign_seats`; 0 balances seats only."""

    def __post_init__(self) -> None:
        if not isinstance(self.table_size, int) or self.table_size < 2:
            raise MatchmakingError(f"a table needs at least 2 seats, not {self.table_size!r}")
        if not (math.isfinite(self.neighbour_weight) and self.neighbour_weight >= 0):
            raise MatchmakingError(f"the neighbour weight must be a number from 0 up, not {self.neighbour_weight!r}")

    def form_tables(
        self, entries: Iterable[WaitingEntry], now: float, *, seed: int = 0, neighbours: Neighbours | None = None
    ) -> Matching:
        """Tables for as many waiting entries as the schedule allows, seated; `seed` breaks ties between seatings."""
        return self.seat(self.group(entries, now), neighbours, seed=seed)

    def seat(self, grouped: Matching, neighbours: Neighbours | None = None, *, seed: int = 0) -> Matching:
        """The tables of `grouped` seated by `assign_seats`, in order, ties broken by a stream drawn from `seed`."""
        rng = random.Random(seed)
        tables = tuple(
            Table(assign_seats(table.entries, rng, neighbours, neighbour_weight=self.neighbour_weight), table.quality)
            for table in grouped.tables
        )
        return Matching(tables, grouped.waiting)

    def group(self, entries: Iterable[WaitingEntry], now: float) -> Matching:
        """Tables for as many waiting entries as the schedule allows, not seated yet: entries in mu order."""
        pool = list(entries)
        tickets = {entry.ticket for entry in pool}
        if len(tickets) != len(pool):
            raise MatchmakingError("two queue entries share a ticket; tickets must be unique")
        size = self.table_size
        by_mu = sorted(pool, key=lambda e: (e.rating.mu, e.rating.sigma, e.bot, e.ticket))
        count = len(by_mu)
        anchors = sorted(range(count), key=lambda i: (by_mu[i].since, by_mu[i].ticket))
        # A doubly linked list over the mu order: seated entries are unlinked in O(1).
        before = list(range(-1, count - 1))
        after = list(range(1, count + 1))
        seated = [False] * count
        tables: list[Table] = []
        quality_terms = self.model.quality_terms
        required = self.schedule.required

        def neighbours(start: int, step: list[int]) -> list[int]:
            """Up to size - 1 unseated entries beyond `start` in one direction, one per bot, not its bot."""
            found: list[int] = []
            names = {by_mu[start].bot}
            index = step[start]
            while 0 <= index < count and len(found) < size - 1:
                name = by_mu[index].bot
                if name not in names:
                    names.add(name)
                    found.append(index)
                index = step[index]
            return found

        for anchor in anchors:
            if count - len(tables) * size < size:
                break
            if seated[anchor]:
                continue
            lower = neighbours(anchor, before)
            upper = neighbours(anchor, after)
            line = [*reversed(lower), anchor, *upper]
            best: tuple[float, list[int]] | None = None
            for first in range(max(0, len(lower) - size + 1), min(len(lower), len(line) - size) + 1):
                window = line[first : first + size]
                members = [by_mu[index] for index in window]
                if len({member.bot for member in members}) < size:
                    continue
                terms = quality_terms([member.rating for member in members])
                longest = now - min(member.since for member in members)
                if terms.balance >= required(longest) and (best is None or terms.quality > best[0]):
                    best = (terms.quality, window)
            if best is None:
                continue
            quality, window = best
            for index in window:
                seated[index] = True
                left, right = before[index], after[index]
                if left >= 0:
                    after[left] = right
                if right < count:
                    before[right] = left
            tables.append(Table(tuple(by_mu[index] for index in window), quality))
        return Matching(tuple(tables), tuple(by_mu[index] for index in anchors if not seated[index]))


def assign_seats(
    entries: Sequence[WaitingEntry],
    rng: random.Random,
    neighbours: Neighbours | None = None,
    *,
    neighbour_weight: float = 1.0,
) -> tuple[WaitingEntry, ...]:
    """The entries in seat order, giving each bot the seats it has had least and the bots to sit
    after that it has sat after least.

    The seating minimises a sum of squared excesses. A bot's seat excess is how many more times it
    sat in its seat than in its least-played seat. A neighbour excess, for each bot and the bot
    seated just before it (cyclically), is how many more times the one sat directly after the
    other than the least-used ordered pair of this table's bots; its square is weighted by
    `neighbour_weight`. Squaring makes one big imbalance cost more than several small ones. The
    minimum is exact for tables up to `EXACT_NEIGHBOURS_UP_TO` seats; larger ones (no game has
    them) get the exact minimum for seats alone. Ties go by a shuffle drawn from `rng`, so
    newcomers do not always sit in mu order.
    """
    order = list(entries)
    rng.shuffle(order)
    size = len(order)
    seat_costs = []
    for entry in order:
        counts = entry.seat_counts[:size] + (0,) * (size - len(entry.seat_counts))
        least = min(counts)
        seat_costs.append([float((count - least) ** 2) for count in counts])
    pair_costs = _pair_costs(order, neighbours or {}, neighbour_weight)
    if pair_costs is None and not any(map(any, seat_costs)):
        return tuple(order)
    # rest[set] is the least seat cost of giving the entries of a set (as bits) the last len(set)
    # seats: a dynamic programme in 2^size * size steps. It gives the best seating for seats alone,
    # and it bounds what the rest of a seating costs in `_best_seating`.
    full = (1 << size) - 1
    rest = [0.0] * (full + 1)
    first_of = [0] * (full + 1)
    by_seat = list(zip(*seat_costs, strict=True))
    sets = _sets(size)
    for mask in range(1, full + 1):
        seat, members = sets[mask]
        row = by_seat[seat]
        least_cost = math.inf
        for index, others in members:
            total = row[index] + rest[others]
            if total < least_cost:
                least_cost = total
                first_of[mask] = index
        rest[mask] = least_cost
    seating = []
    mask = full
    while mask:
        seating.append(first_of[mask])
        mask ^= 1 << first_of[mask]
    if pair_costs is not None:
        seating = _best_seating(seat_costs, pair_costs, rest, seating)
    return tuple(order[index] for index in seating)


@functools.cache
def _sets(size: int) -> list[tuple[int, list[tuple[int, int]]]]:
    """For each set of entries (as bits): the first of the last len(set) seats, and each member with
    the set without it. Worked out once per table size, it saves the DP most of its bit tests."""
    return [
        (size - mask.bit_count(), [(index, mask ^ 1 << index) for index in range(size) if mask >> index & 1])
        for mask in range(1 << size)
    ]


def _pair_costs(order: Sequence[WaitingEntry], neighbours: Neighbours, weight: float) -> list[list[float]] | None:
    """costs[a][b]: what entry b sitting directly after entry a costs; None when no seating costs
    more than another for its neighbours, or when the table is too large for the exact search."""
    size = len(order)
    # At two seats each bot sits after the other in every seating.
    if not neighbours or not 3 <= size <= EXACT_NEIGHBOURS_UP_TO or weight == 0:
        return None
    names = [entry.bot for entry in order]
    counts = [[neighbours.get((a, b), 0) for b in names] for a in names]
    least = min(counts[a][b] for a in range(size) for b in range(size) if a != b)
    costs = [[weight * float(count - least) ** 2 for count in row] for row in counts]
    for index in range(size):
        costs[index][index] = 0.0
    return costs if any(map(any, costs)) else None


def _best_seating(
    seat_costs: Sequence[Sequence[float]],
    pair_costs: Sequence[Sequence[float]],
    rest: Sequence[float],
    start: list[int],
) -> list[int]:
    """The seating (entry index per seat) of least seat plus neighbour cost.

    A depth-first search fills the seats in order and drops every partial seating that cannot beat
    the best found so far, starting from `start` (the best for seats alone). What is still to come
    costs at least `rest` for the seats of the entries left, plus for each of them and for the entry
    in seat 0 its cheapest predecessor. On equal cost the earlier seating in the search order wins.
    """
    size = len(seat_costs)
    full = (1 << size) - 1
    cheapest_before = [min(pair_costs[a][b] for a in range(size) if a != b) for b in range(size)]
    bound = list(rest)
    predecessors = [0.0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        predecessors[mask] = predecessors[mask ^ low] + cheapest_before[low.bit_length() - 1]
        bound[mask] += predecessors[mask]
    best = list(start)
    best_cost = sum(seat_costs[index][seat] for seat, index in enumerate(start))
    best_cost += sum(pair_costs[start[seat - 1]][start[seat]] for seat in range(size))
    path = [0] * size

    def extend(seat: int, left: int, last: int, cost: float, closing: float) -> None:
        nonlocal best_cost
        if not left:
            total = cost + pair_costs[last][path[0]]
            if total < best_cost:
                best_cost = total
                best[:] = path
            return
        row = pair_costs[last]
        for index in range(size):
            bit = 1 << index
            if left & bit:
                so_far = cost + seat_costs[index][seat] + row[index]
                if so_far + bound[left ^ bit] + closing < best_cost:
                    path[seat] = index
                    extend(seat + 1, left ^ bit, index, so_far, closing)

    for first in range(size):
        left = full ^ (1 << first)
        cost = seat_costs[first][0]
        if cost + bound[left] + cheapest_before[first] < best_cost:
            path[0] = first
            extend(1, left, first, cost, cheapest_before[first])
    return best
