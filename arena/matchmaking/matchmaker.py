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

Seats are then assigned so that each bot tends to get the seats it has had least
(`assign_seats`). The same input always gives the same output.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings import Rating, RatingModel


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
    """A table the matchmaker formed: its entries in seat order."""

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

    def __post_init__(self) -> None:
        if not isinstance(self.table_size, int) or self.table_size < 2:
            raise MatchmakingError(f"a table needs at least 2 seats, not {self.table_size!r}")

    def form_tables(self, entries: Iterable[WaitingEntry], now: float, *, seed: int = 0) -> Matching:
        """Tables for as many waiting entries as the schedule allows; `seed` breaks ties between seats."""
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
        rng = random.Random(seed)
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
            members = [by_mu[index] for index in window]
            tables.append(Table(assign_seats(members, rng), quality))
        return Matching(tuple(tables), tuple(by_mu[index] for index in anchors if not seated[index]))


def assign_seats(entries: Sequence[WaitingEntry], rng: random.Random) -> tuple[WaitingEntry, ...]:
    """The entries in seat order, giving each bot the seats it has had least.

    Exact minimum over all seatings of the sum of squared excesses, where a bot's excess at a
    seat is how many more times it sat there than in its least-played seat; squaring makes one
    big imbalance cost more than several small ones. Ties go by a shuffle drawn from `rng`, so
    newcomers do not always sit in mu order.
    """
    order = list(entries)
    rng.shuffle(order)
    size = len(order)
    costs = []
    for entry in order:
        counts = entry.seat_counts[:size] + (0,) * (size - len(entry.seat_counts))
        least = min(counts)
        costs.append([(count - least) ** 2 for count in counts])
    if not any(map(any, costs)):
        return tuple(order)
    # Dynamic programme over the sets of seats given to the first (bits set) entries: 2^size * size steps.
    full = (1 << size) - 1
    best = [math.inf] * (full + 1)
    choice = [0] * (full + 1)
    best[0] = 0
    bits = [(seat, 1 << seat) for seat in range(size)]
    for mask in range(full):
        so_far = best[mask]
        if so_far == math.inf:
            continue
        row = costs[mask.bit_count()]
        for seat, bit in bits:
            if not mask & bit:
                total = so_far + row[seat]
                if total < best[mask | bit]:
                    best[mask | bit] = total
                    choice[mask | bit] = seat
    seats = list(order)
    mask = full
    while mask:
        seat = choice[mask]
        mask &= ~(1 << seat)
        seats[seat] = order[mask.bit_count()]
    return tuple(seats)
