"""Strength of the built-in bots, seated fairly, with paired intervals; the identical-policy control;
the SPRT's own validation; and how many rated matches TrueSkill needs to order the bots.

    python benchmarks/strength.py [--games friday13,amigo13] [--deals 40] [--control-deals 12]
                                  [--sprt-runs 2000] [--sprt-pool 200] [--sprt-real 3]
                                  [--rating-deals 60] [--rating-runs 100] [--rating-horizon 3000]
                                  [--option-horizon 1000] [--rating-control-deals 300]
                                  [--rating-cache DIR] [--seed strength]

1. Strength: 4 players, `mc,heuristic,random,random`, every deal in all 24 orders (the seat-fair
   design). Standings with Student-t intervals over per-deal means, then the paired advantage of
   each bot over each other on the same deals.
2. Control: three copies of the heuristic and one random bot. Under rotations alone the copy
   seated after random profits; under the seat-fair design the copies come out equal.
3. SPRT: `arena test`'s test at its defaults, by simulation: how often H1 is accepted when H0
   holds and when H1 holds, and after how many deals, on normal noise and on real friday13 deals
   resampled (2,000 tests per row), then a few real tests of mc against the heuristic.
4. Ratings: 3 players (mc, heuristic, random) on seat-fair tables, rated one result at a time
   under each model tried; after how many matches the leaderboard orders random < heuristic < mc
   with 95% confidence (each neighbour's mu gap over the root of their variances above 1.96) and
   keeps that order. Then two copies of one program, which must not look established, and the
   sigma and mu convergence behind "provisional".

A section is skipped with 0 (`--games ""`, `--control-deals 0`, `--sprt-runs 0`, `--rating-runs 0`).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from machine import describe

from arena.games import make_game
from arena.games.base import Termination
from arena.match.abtest import ABTest, Hypotheses, play_deals
from arena.match.local import Pairing, PlayedMatch, play_matches, play_series, rotation, schedule
from arena.ratings import Z95, Rating, RatingModel
from arena.standings import Pair, Played, Standing, head_to_head, standings
from arena.stats import fixed_sample_size, simulate_sprt


def fmt(interval_mean: float, half: float) -> str:
    return f"{interval_mean:+.2f} ± {half:.2f}"


def play(game_name: str, order: Sequence[str], deals: int, seed: str, policies: dict[str, str]) -> list[Played]:
    game = make_game(game_name, players=len(order))
    pairings = list(schedule(order, deals * 24, duplicate=True))
    results = asyncio.run(play_series(game, pairings, seed, policy=policies.__getitem__))
    return [Played(r.seats, r.scores, r.ranks, p.deal) for r, p in zip(results, pairings, strict=True)]


def print_table(rows: Sequence[Standing], pairs: Sequence[Pair]) -> None:
    print("| bot | games | deals | mean penalty ± 95% CI | wins | mean rank |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row.bot} | {row.games} | {row.deals} | {row.mean_score:.2f} ± {row.ci95:.2f} | {row.wins} | "
            f"{row.mean_rank:.2f} |"
        )
    print("\n| pair (on shared deals) | advantage of the first, penalty/match ± 95% CI | established |")
    print("|---|---:|---|")
    for pair in pairs:
        print(
            f"| {pair.first} over {pair.second} | {fmt(pair.advantage.mean, pair.advantage.half_width)} | "
            f"{'yes' if pair.established else 'no'} |"
        )


def strength(game_name: str, deals: int, seed: str) -> Pair:
    order = ["mc", "heuristic", "random1", "random2"]
    policies = {"mc": "mc", "heuristic": "heuristic", "random1": "random", "random2": "random"}
    started = time.perf_counter()
    played = play(game_name, order, deals, seed, policies)
    rows = standings(played)
    pairs = head_to_head(rows)
    print(
        f"\n### {game_name}, 4 players, {deals} deals x 24 orders = {len(played)} matches "
        f"({time.perf_counter() - started:.0f} s)\n"
    )
    print_table(rows, pairs)
    by_bots = {(p.first, p.second): p for p in pairs}
    return by_bots.get(("mc", "heuristic")) or next(p for p in pairs if {p.first, p.second} == {"mc", "heuristic"})


def control(deals: int, seed: str) -> None:
    policies = {"h1": "heuristic", "h2": "heuristic", "h3": "heuristic", "random": "random"}
    order = ["random", "h1", "h2", "h3"]
    game = make_game("friday13", players=4)
    rotations = [Pairing(d * 4 + s, d, rotation(order, s)) for d in range(deals) for s in range(4)]
    results = asyncio.run(play_series(game, rotations, seed, policy=policies.__getitem__))
    rotated = standings(Played(r.seats, r.scores, r.ranks, p.deal) for r, p in zip(results, rotations, strict=True))
    print(f"\n### Control: friday13, `random,h1,h2,h3` (three copies of the heuristic), {deals} deals\n")
    print("| seating | h1 (after random) | h2 | h3 | random |")
    print("|---|---:|---:|---:|---:|")
    by_bot = {row.bot: row for row in rotated}
    cells = " | ".join(f"{by_bot[b].mean_score:.2f} ± {by_bot[b].ci95:.2f}" for b in ("h1", "h2", "h3", "random"))
    print(f"| rotations of one order (the old --duplicate), {len(rotations)} matches | {cells} |")
    for string in (order, ["h1", "random", "h2", "h3"]):
        fair = {row.bot: row for row in standings(play("friday13", string, deals, seed, policies))}
        cells = " | ".join(f"{fair[b].mean_score:.2f} ± {fair[b].ci95:.2f}" for b in ("h1", "h2", "h3", "random"))
        print(f"| seat-fair design, `--bots {','.join(string)}`, {deals * 24} matches | {cells} |")


def normal(mean: float, rng: random.Random) -> float:
    return rng.gauss(mean, 3.0)


def paired_pool(deals: int, seed: str) -> list[float]:
    """Per-deal observations of `arena test heuristic heuristic --game friday13 --field random`: two
    copies of one program (4 players, the whole design of 24 seatings per deal), centred on 0.

    Copies of the heuristic in every seat would give exactly 0 on every deal (a deterministic
    program against itself), so the field is random: its noise is what a deal's difference of two
    equal bots looks like. Centred, the pool is exactly H0's truth; shifted by the margin, H1's.
    """
    game = make_game("friday13", players=4)
    test = ABTest(game, "heuristic", "heuristic", Hypotheses(margin=1.0), "random", seed=f"{seed}-sprt-pool")
    observed = [
        test.observe(play_matches(game, test.pairings(deal), test.seed, policy=test.policy)) for deal in range(deals)
    ]
    centre = statistics.fmean(observed)
    return [value - centre for value in observed]


def resampled(pool: Sequence[float], shift: float, rng: random.Random) -> float:
    return rng.choice(pool) + shift


def sprt_validation(runs: int, pool_deals: int, real_tests: int, seed: str) -> None:
    """`arena test`'s SPRT at its defaults (alpha = beta = 0.05, margin 1, at least 16 deals), by simulation."""
    rng = random.Random(seed)
    alpha = beta = 0.05
    print(f"\n### SPRT validation (alpha = beta = {alpha}, H0: advantage 0, H1: advantage 1, minimum 16 deals)\n")
    print("| observations | truth | runs | accepted H1 | accepted H0 | undecided | mean deals | median deals |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")

    def row(label: str, truth: str, draw: Callable[[random.Random], float]) -> None:
        outcome = simulate_sprt(draw, 0.0, 1.0, alpha=alpha, beta=beta, runs=runs, max_samples=5000, rng=rng)
        print(
            f"| {label} | {truth} | {runs} | {outcome.h1:.3f} | {outcome.h0:.3f} | {outcome.undecided:.3f} | "
            f"{outcome.mean_samples:.1f} | {outcome.median_samples:.0f} |"
        )

    truths = (("H0 true (mean 0)", 0.0), ("H1 true (mean 1)", 1.0), ("between (mean 0.5)", 0.5))
    for truth, mean in truths:
        row("normal, sd 3", truth, partial(normal, mean))
    spread = 0.0
    if pool_deals:
        started = time.perf_counter()
        pool = paired_pool(pool_deals, seed)
        spread = statistics.stdev(pool)
        for truth, mean in truths:
            row(f"friday13 deals, resampled from {pool_deals} (sd {spread:.2f})", truth, partial(resampled, pool, mean))
        print(f"<!-- pool of {pool_deals} deals x 24 matches: {time.perf_counter() - started:.0f} s -->")
    game = make_game("friday13", players=4)
    for a, b, field, tests in (("mc", "heuristic", "random", real_tests),):
        if not tests:
            continue
        verdicts, lengths = [], []
        started = time.perf_counter()
        for run in range(tests):
            test = ABTest(game, a, b, Hypotheses(margin=1.0), field, seatings=4, seed=f"{seed}-{a}-{b}-{run}")
            asyncio.run(play_deals(test, 1000))
            verdicts.append(test.sprt.verdict)
            lengths.append(test.sprt.n)
        print(
            f"| friday13 deals played (4 orders each), {a} vs {b}, field {field} | real gap | {tests} | "
            f"{verdicts.count('H1') / tests:.3f} | {verdicts.count('H0') / tests:.3f} | "
            f"{verdicts.count(None) / tests:.3f} | {statistics.fmean(lengths):.1f} | {statistics.median(lengths):.0f} |"
        )
        print(f"<!-- {a} vs {b}: {time.perf_counter() - started:.0f} s -->")
    print(f"\nA fixed-size test with the same error rates needs {fixed_sample_size(0.0, 1.0, 3.0):.0f} observations")
    if spread:
        print(f"in the normal rows, {fixed_sample_size(0.0, 1.0, spread):.0f} in the resampled ones.")


# --- Ratings --------------------------------------------------------------------------------------

Deal = Sequence[PlayedMatch]
"""One deal's matches: the same cards under every seating of the design."""


@dataclass(frozen=True)
class Variant:
    """A way of rating the ladder's matches with TrueSkill."""

    label: str
    model: RatingModel
    sets: bool = False
    """Rate each deal's seat-fair set once, ranked by the bots' total scores over its matches."""
    margin: int = 0
    """Rank two bots equal (a TrueSkill draw) when their scores differ by at most this much."""


OLD = RatingModel(tau=RatingModel().sigma / 100)
"""TrueSkill's own defaults (tau = sigma / 100): the model before tau 0."""
NEW = RatingModel()

VARIANTS = (
    Variant("TrueSkill defaults (tau = sigma/100), each match (before)", OLD),
    Variant("tau 0, each match (chosen)", NEW),
    Variant("tau 0, each match, draw within 2 points", NEW, margin=2),
    Variant("tau 0, each deal's 6 matches as one result by totals", NEW, sets=True),
    Variant("TrueSkill defaults, each deal's 6 matches as one result by totals", OLD, sets=True),
    Variant(
        "tau 0, each deal's 6 matches as one result, beta / sqrt 6",
        RatingModel(beta=RatingModel().beta / math.sqrt(6)),
        sets=True,
    ),
    Variant("tau 0, each deal's 6 matches as one result, draw within 3 points", NEW, sets=True, margin=3),
    # A smaller beta tells TrueSkill a match says more about skill: each result moves mu further.
    Variant("tau 0, beta / 2, each match", RatingModel(beta=RatingModel().beta / 2)),
    Variant("tau 0, beta x 0.7, each match", RatingModel(beta=RatingModel().beta * 0.7)),
)


def ranks_within(scores: Sequence[int], margin: int) -> list[int]:
    """Ranks by score, lower better, equal when a score is within `margin` of the one above it."""
    order = sorted(range(len(scores)), key=lambda seat: scores[seat])
    ranks = [0] * len(scores)
    rank = 1
    for place, seat in enumerate(order):
        if place and scores[seat] - scores[order[place - 1]] > margin:
            rank = place + 1
        ranks[seat] = rank
    return ranks


def rated_results(deal: Deal, variant: Variant) -> list[tuple[Sequence[str], list[int], int]]:
    """What the ladder rates of one deal: (seats, ranks, matches it stands for) per rated result."""
    if not variant.sets:
        return [(match.seats, ranks_within(match.scores, variant.margin), 1) for match in deal]
    bots = sorted(deal[0].seats)
    totals = dict.fromkeys(bots, 0)
    for match in deal:
        for bot, score in zip(match.seats, match.scores, strict=True):
            totals[bot] += score
    return [(bots, ranks_within([totals[bot] for bot in bots], variant.margin), len(deal))]


def ladders(
    deals: Sequence[Deal], variant: Variant, runs: int, horizon: int, seed: str
) -> Iterator[Iterator[tuple[int, dict[str, Rating]]]]:
    """`runs` ladders, each a random sequence of the deals drawn with replacement and rated one result
    at a time up to `horizon` matches; each yields (matches so far, ratings) after every result.

    The deals are played once; the ladders differ as ladders with different luck would, without
    playing mc thousands of times.
    """
    rng = random.Random(f"{seed}/{variant.label}")
    model = variant.model

    def one() -> Iterator[tuple[int, dict[str, Rating]]]:
        ratings = {bot: model.initial() for bot in deals[0][0].seats}
        count = 0
        while count < horizon:
            for seats, ranks, matches in rated_results(rng.choice(deals), variant):
                count += matches
                new = model.rate([ratings[bot] for bot in seats], ranks)
                ratings.update(zip(seats, new, strict=True))
                yield count, ratings
                if count >= horizon:
                    return

    for _ in range(runs):
        yield one()


def apart(upper: Rating, lower: Rating) -> bool:
    return (upper.mu - lower.mu) / math.hypot(upper.sigma, lower.sigma) > Z95


def play_deals_once(
    order: Sequence[str], deals: int, seed: str, cache: Path | None, policies: dict[str, str] | None = None
) -> list[Deal]:
    """`deals` friday13 deals under all 6 orders of `order`. With `cache`, the matches already played
    for this seed and order are read from there and only the missing deals are played (and added):
    a deal's matches depend only on the seed, so a later run with more deals extends the file."""
    game = make_game("friday13", players=len(order))
    policy = policies.__getitem__ if policies else None
    path = cache / f"strength-{seed}-{'-'.join(order)}.jsonl" if cache else None
    played: list[PlayedMatch] = []
    if path is not None and path.exists():
        with path.open() as lines:
            played = [_match_from(json.loads(line)) for line in lines][: deals * 6]
    wanted = [pairing for pairing in schedule(order, deals * 6, duplicate=True) if pairing.number >= len(played)]
    if wanted:
        fresh = play_matches(game, wanted, seed, policy=policy)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a") as out:
                out.writelines(json.dumps(dataclasses.asdict(match)) + "\n" for match in fresh)
        played += fresh
    return [played[deal * 6 : deal * 6 + 6] for deal in range(deals)]


def _match_from(data: dict[str, Any]) -> PlayedMatch:
    return PlayedMatch(
        data["match_id"],
        data["game"],
        tuple(data["seats"]),
        tuple(data["scores"]),
        tuple(data["ranks"]),
        Termination(data["termination"]),
        tuple(data["forfeited"]),
    )


def settle_table(
    deals: Sequence[Deal],
    runs: int,
    horizon: int,
    option_horizon: int,
    seed: str,
    convergence: Convergence,
    models: set[int] | None = None,
) -> None:
    """Matches until the leaderboard orders random < heuristic < mc at 95% and keeps that order; the
    chosen model's ladders are shown to `convergence` too."""
    pairs = (("heuristic", "random"), ("mc", "heuristic"))
    print(
        f"\n{runs} ladders per model, each a random sequence of {len(deals)} deals x 6 orders drawn with "
        "replacement; matches until each neighbour's mu gap exceeds 1.96 times the root of their summed "
        "variances and stays so to the horizon:\n"
    )
    print(
        "| model | horizon | heuristic > random: median, 95th pct | mc > heuristic: median | 90th pct | "
        "95th pct | both settled within 500 | not settled by the horizon |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for index, variant in enumerate(VARIANTS):
        if models is not None and index not in models:
            continue
        # The model before and the chosen one to the full horizon; the other options tried to a shorter one.
        limit = horizon if index < 2 else option_horizon
        started = time.perf_counter()
        needed: dict[str, list[int]] = {"hr": [], "mh": [], "both": []}
        for ladder in ladders(deals, variant, runs, limit, seed):
            since: dict[str, int | None] = dict.fromkeys(needed)
            for count, ratings in ladder:
                settled = [apart(ratings[hi], ratings[lo]) for hi, lo in pairs]
                for key, ordered in zip(needed, (*settled, all(settled)), strict=True):
                    since[key] = (since[key] or count) if ordered else None
                if index == 1:
                    convergence.see(count, ratings)
            if index == 1:
                convergence.end_ladder()
            for key, first in since.items():
                needed[key].append(first if first is not None else limit + 1)
        hr, mh, both = (sorted(needed[key]) for key in ("hr", "mh", "both"))
        print(
            f"| {variant.label} | {limit} | {_count(statistics.median(hr), limit)}, {_count(_pct(hr, 0.95), limit)} | "
            f"{_count(statistics.median(mh), limit)} | {_count(_pct(mh, 0.9), limit)} | {_count(_pct(mh, 0.95), limit)} | "
            f"{sum(n <= 500 for n in both)} of {runs} | {sum(n > limit for n in both)} of {runs} |",
            flush=True,
        )
        print(f"<!-- {variant.label}: {time.perf_counter() - started:.0f} s -->")


def control_table(deals: Sequence[Deal], runs: int, horizon: int, seed: str) -> None:
    """Two copies of the heuristic (and random): how often the leaderboard calls their order established."""
    looks = sorted({look for look in (5, 20, 100, 500) if look < horizon} | {horizon})
    froms = [start for start in (20, 100) if start < horizon]
    print(
        f"\nControl: two copies of the heuristic (h1, h2) and random, {runs} ladders of {horizon} matches from "
        f"{len(deals)} deals x 6 orders; share of ladders showing h1 and h2 in an established order:\n"
    )
    print(
        "| model | "
        + " | ".join(f"at match {look}" for look in looks)
        + " | "
        + " | ".join(f"at any match from {start} on" for start in froms)
        + " |"
    )
    print("|---|" + "---:|" * (len(looks) + len(froms)))
    for variant in VARIANTS[:2]:
        shown = dict.fromkeys(looks, 0)
        ever = dict.fromkeys(froms, 0)
        for ladder in ladders(deals, variant, runs, horizon, seed):
            seen = dict.fromkeys(froms, False)
            for count, ratings in ladder:
                h1, h2 = ratings["h1"], ratings["h2"]
                established = apart(h1, h2) or apart(h2, h1)
                if count in shown:
                    shown[count] += established
                for start in froms:
                    seen[start] |= established and count >= start
            for start in froms:
                ever[start] += seen[start]
        cells = [f"{shown[look]} of {runs}" for look in looks] + [f"{ever[start]} of {runs}" for start in froms]
        print(f"| {variant.label} | " + " | ".join(cells) + " |", flush=True)


class Convergence:
    """With the chosen model: how wide sigma is after n matches, and when each bot's mu finds its level."""

    MARKS = (5, 10, 20, 50, 100, 500)

    def __init__(self, beta: float) -> None:
        self.half_beta = beta / 2
        self.sigmas: dict[int, list[float]] = {mark: [] for mark in self.MARKS}
        self.level: dict[str, list[int]] = {bot: [] for bot in ("mc", "heuristic", "random")}
        self.paths: dict[str, list[float]] = {bot: [] for bot in self.level}
        self.horizon = 0

    def see(self, count: int, ratings: Mapping[str, Rating]) -> None:
        for bot, path in self.paths.items():
            path.append(ratings[bot].mu)
        if count in self.sigmas:
            self.sigmas[count].append(ratings["heuristic"].sigma)
        self.horizon = count

    def end_ladder(self) -> None:
        for bot, mus in self.paths.items():
            final = mus[-1]
            moved = [index + 1 for index, mu in enumerate(mus) if abs(mu - final) >= self.half_beta]
            self.level[bot].append(max(moved, default=0))
            mus.clear()

    def print(self) -> None:
        marks = [mark for mark in self.MARKS if self.sigmas[mark]]
        print("\nChosen model, the same ladders: the heuristic's sigma after n matches (median):\n")
        print("| matches | " + " | ".join(str(mark) for mark in marks) + " |")
        print("|---|" + "---:|" * len(marks))
        print("| sigma | " + " | ".join(f"{statistics.median(self.sigmas[mark]):.2f}" for mark in marks) + " |")
        print(
            f"\nMatches until a bot's mu stays within beta / 2 ({self.half_beta:.2f}) of its mu at match {self.horizon}:\n"
        )
        print("| bot | median | 95th percentile |")
        print("|---|---:|---:|")
        for bot, counts in self.level.items():
            ordered = sorted(counts)
            print(f"| {bot} | {statistics.median(ordered):.0f} | {_pct(ordered, 0.95)} |")


def ratings_needed(
    deals: int,
    runs: int,
    horizon: int,
    option_horizon: int,
    control_deals: int,
    seed: str,
    cache: Path | None,
    models: set[int] | None = None,
) -> None:
    """Section 4: the settle table of every model tried, the control, and what "provisional" rests on."""
    started = time.perf_counter()
    played = play_deals_once(["mc", "heuristic", "random"], deals, f"{seed}-rating", cache)
    print(f"\n### Ratings: friday13, 3 players, seat-fair tables ({time.perf_counter() - started:.0f} s of play)")
    convergence = Convergence(NEW.beta)
    settle_table(played, runs, horizon, option_horizon, seed, convergence, models)
    if models is None or 1 in models:
        convergence.print()
    if control_deals:
        policies = {"h1": "heuristic", "h2": "heuristic", "random": "random"}
        control = play_deals_once(["h1", "h2", "random"], control_deals, f"{seed}-rating-control", cache, policies)
        control_table(control, runs, option_horizon, seed)


def _pct(ordered: Sequence[int], share: float) -> int:
    return ordered[int(share * (len(ordered) - 1))]


def _count(matches: float, limit: int) -> str:
    return f"> {limit}" if matches > limit else f"{matches:.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="friday13,amigo13")
    parser.add_argument("--deals", type=int, default=40, help="deals per game in the strength table")
    parser.add_argument("--control-deals", type=int, default=12)
    parser.add_argument("--sprt-runs", type=int, default=2000, help="simulated tests per row")
    parser.add_argument("--sprt-pool", type=int, default=200, help="real deals resampled in the SPRT rows")
    parser.add_argument("--sprt-real", type=int, default=3, help="real tests of mc against the heuristic")
    parser.add_argument("--rating-deals", type=int, default=60, help="deals played once for the ratings section")
    parser.add_argument("--rating-runs", type=int, default=100, help="ladders per model")
    parser.add_argument("--rating-horizon", type=int, default=3000, help="matches per ladder, old and chosen model")
    parser.add_argument("--option-horizon", type=int, default=1000, help="matches per ladder, other options")
    parser.add_argument("--rating-control-deals", type=int, default=300, help="deals of the two heuristic copies")
    parser.add_argument(
        "--rating-cache",
        type=Path,
        default=None,
        help="directory keeping the ratings section's played deals between runs (mc is slow to play)",
    )
    parser.add_argument(
        "--rating-models",
        default="",
        help="only these rows of the settle table, by index (0 the model before, 1 the chosen one), e.g. 0,1",
    )
    parser.add_argument("--seed", default="strength")
    args = parser.parse_args()

    print(f"Measured on {describe()}")
    reached = True
    for game_name in [name for name in args.games.split(",") if name]:
        pair = strength(game_name, args.deals, args.seed)
        low = pair.advantage.low if pair.first == "mc" else -pair.advantage.high
        mean = pair.advantage.mean if pair.first == "mc" else -pair.advantage.mean
        goal = mean >= 3 and low > 2
        reached &= goal
        print(
            f"\nmc over heuristic: {mean:+.2f} (95% interval from {low:+.2f}); goal >= 3 with the interval "
            f"above 2: {'met' if goal else 'NOT met'}"
        )
    if args.control_deals:
        control(args.control_deals, args.seed)
    if args.sprt_runs:
        sprt_validation(args.sprt_runs, args.sprt_pool, args.sprt_real, args.seed)
    if args.rating_runs:
        ratings_needed(
            args.rating_deals,
            args.rating_runs,
            args.rating_horizon,
            args.option_horizon,
            args.rating_control_deals,
            args.seed,
            args.rating_cache,
            {int(index) for index in args.rating_models.split(",")} if args.rating_models else None,
        )
    return 0 if reached else 1


if __name__ == "__main__":
    sys.exit(main())
