"""SPRT A/B tests of two bots: `arena test A B`.

Bots A and B share a table (with `players - 2` copies of a field bot when the game seats more
than two) and every deal is played under the seat-fair design, so both meet the same hands from
the same seats and after the same neighbours. Each deal gives one observation of how much better
A did than B; a sequential probability ratio test reads them one by one and stops as soon as it
can accept one hypothesis at the error rates asked for:

- with a score margin M: H0 "A's advantage is 0" against H1 "it is M" (in the game's score,
  e.g. penalty points per match), the observation being A's advantage on the deal;
- with Elo bounds: H0 "A is elo0 stronger" against H1 "elo1 stronger", the observation being A's
  share of the deal's head-to-head comparisons with B (1 for a better rank, 1/2 for a tie), and
  an Elo difference e meaning a share of 1 / (1 + 10^(-e/400)).

The deals are played in this process between built-in bots (`play_deals`), or on an arena
server between its bots (`play_deals_on_server`: registered bots connected now, or the built-in
`builtin:...` ones) through the admin's CreateMatch; the observation and the test do not care
where a deal was played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from arena.games.base import Game
from arena.match.local import Pairing, play_matches
from arena.match.seating import deal_seatings, design_size, seat
from arena.stats import Sprt, elo_to_score

A, B = "A", "B"


class Outcome(Protocol):
    """What a deal's observation reads from a finished match, wherever it was played."""

    @property
    def seats(self) -> Sequence[str]: ...

    @property
    def scores(self) -> Sequence[int]: ...

    @property
    def ranks(self) -> Sequence[int]: ...


@dataclass(frozen=True)
class Hypotheses:
    """What the test decides between: a score margin, or two Elo differences."""

    margin: float | None = None
    elo0: float | None = None
    elo1: float | None = None

    def __post_init__(self) -> None:
        elo = self.elo0 is not None or self.elo1 is not None
        if elo and (self.elo0 is None or self.elo1 is None):
            raise ValueError("give both --elo0 and --elo1 (the Elo differences of H0 and H1)")
        if elo and self.margin is not None:
            raise ValueError("give either --margin or --elo0/--elo1, not both")
        if not elo and self.margin is None:
            raise ValueError("give --margin (a score advantage per match) or --elo0 and --elo1")
        if self.margin is not None and self.margin == 0:
            raise ValueError("--margin must not be 0: it is the advantage H1 claims")
        if self.elo0 is not None and self.elo0 == self.elo1:
            raise ValueError(f"--elo0 and --elo1 must differ, not both {self.elo0}")

    @property
    def by_elo(self) -> bool:
        return self.margin is None

    def bounds(self) -> tuple[float, float]:
        """The mean observation under H0 and under H1."""
        if self.margin is not None:
            return 0.0, self.margin
        assert self.elo0 is not None and self.elo1 is not None
        return elo_to_score(self.elo0), elo_to_score(self.elo1)

    def describe(self, score_name: str) -> str:
        if self.margin is not None:
            return f"H0: A is no better than B; H1: A is {self.margin:g} {score_name} per match better"
        return f"H0: A is {self.elo0:g} Elo stronger than B; H1: {self.elo1:g} Elo stronger"


@dataclass
class ABTest:
    """An A/B test between two built-in bots, with its running SPRT."""

    game: Game
    a: str
    b: str
    hypotheses: Hypotheses
    field_bot: str = "heuristic"
    alpha: float = 0.05
    beta: float = 0.05
    seatings: int | None = None
    seed: str = "abtest"
    sprt: Sprt = field(init=False)

    def __post_init__(self) -> None:
        mu0, mu1 = self.hypotheses.bounds()
        self.sprt = Sprt(mu0, mu1, alpha=self.alpha, beta=self.beta)

    @property
    def labels(self) -> tuple[str, ...]:
        """The table's entries: A, B, then the field's copies."""
        return (A, B, *(f"field{k}" for k in range(1, self.game.players - 1)))

    def policy(self, label: str) -> str:
        """The built-in bot behind an entry."""
        return self.a if label == A else self.b if label == B else self.field_bot

    @property
    def per_deal(self) -> int:
        return self.seatings or design_size(self.game.players)

    def pairings(self, deal: int) -> list[Pairing]:
        """The matches of deal `deal`, numbered on from the earlier deals."""
        first = deal * self.per_deal
        seatings = deal_seatings(self.game.players, deal, self.per_deal)
        return [Pairing(first + k, deal, seat(self.labels, seating)) for k, seating in enumerate(seatings)]

    def observe(self, results: Sequence[Outcome]) -> float:
        """One deal's observation: A's advantage in score per match, or its head-to-head share."""
        sign = -1 if self.game.lower_is_better else 1
        total = 0.0
        for result in results:
            a, b = result.seats.index(A), result.seats.index(B)
            if self.hypotheses.by_elo:
                rank_a, rank_b = result.ranks[a], result.ranks[b]
                total += 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
            else:
                total += sign * (result.scores[a] - result.scores[b])
        return total / len(results)


async def play_deals(test: ABTest, max_deals: int, on_deal: Callable[[ABTest], None] | None = None) -> ABTest:
    """Play deals in this process until the SPRT decides or `max_deals` were played."""
    for deal in range(max_deals):
        results = play_matches(test.game, test.pairings(deal), test.seed, policy=test.policy)
        test.sprt.add(test.observe(results))
        if on_deal is not None:
            on_deal(test)
        if test.sprt.verdict is not None:
            break
    return test
