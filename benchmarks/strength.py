"""Strength of the built-in bots, seated fairly, with paired intervals; the identical-policy control;
the SPRT's own validation; and how many rated matches TrueSkill needs to order the bots.

    python benchmarks/strength.py [--games friday13,amigo13] [--deals 40] [--control-deals 12]
                                  [--sprt-runs 400] [--rating-deals 50] [--rating-runs 200] [--seed strength]

1. Strength: 4 players, `mc,heuristic,random,random`, every deal in all 24 orders (the seat-fair
   design). Standings with Student-t intervals over per-deal means, then the paired advantage of
   each bot over each other on the same deals.
2. Control: three copies of the heuristic and one random bot. Under rotations alone the copy
   seated after random profits; under the seat-fair design the copies come out equal.
3. SPRT: by simulation (normal noise, and real deals of identical bots) how often H1 is accepted
   when it is false, how often when true, and after how many deals it stops.
4. Ratings: 3 players (mc, heuristic, random) on seat-fair tables, rated one match at a time with
   TrueSkill; after how many matches the leaderboard orders random < heuristic < mc with 95%
   confidence (each neighbour's mu gap over the root of their variances above 1.96) and stays so.

A section is skipped with 0 (`--games ""`, `--control-deals 0`, `--sprt-runs 0`, `--rating-runs 0`).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Sequence
from functools import partial

from machine import describe

from arena.games import make_game
from arena.match.abtest import ABTest, Hypotheses, play_deals
from arena.match.local import Pairing, play_series, rotation, schedule
from arena.ratings import Rating, RatingModel
from arena.standings import Pair, Played, Standing, head_to_head, standings
from arena.stats import fixed_sample_size, simulate_sprt

Z95 = 1.959963984540054


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


def sprt_validation(runs: int, seed: str) -> None:
    rng = random.Random(seed)
    print("\n### SPRT validation (alpha = beta = 0.05)\n")
    print("| observations | truth | runs | accepted H1 | accepted H0 | undecided | mean deals | median deals |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for label, mean in (("H0 true (mean 0)", 0.0), ("H1 true (mean 1)", 1.0), ("between (mean 0.5)", 0.5)):
        outcome = simulate_sprt(partial(normal, mean), 0.0, 1.0, runs=runs, max_samples=5000, rng=rng)
        print(
            f"| normal, sd 3, margin 1 | {label} | {runs} | {outcome.h1:.3f} | {outcome.h0:.3f} | "
            f"{outcome.undecided:.3f} | {outcome.mean_samples:.1f} | {outcome.median_samples:.0f} |"
        )
    game = make_game("friday13", players=4)
    for a, b, field, tests in (
        ("heuristic", "heuristic", "random", max(10, runs // 20)),
        ("mc", "heuristic", "random", 3),
    ):
        verdicts, lengths = [], []
        started = time.perf_counter()
        for run in range(tests):
            test = ABTest(game, a, b, Hypotheses(margin=1.0), field, seatings=4, seed=f"{seed}-{a}-{b}-{run}")
            asyncio.run(play_deals(test, 1000))
            verdicts.append(test.sprt.verdict)
            lengths.append(test.sprt.n)
        print(
            f"| friday13 deals (4 orders each), {a} vs {b}, field {field}, margin 1 | "
            f"{'H0 true' if a == b else 'real gap'} | {tests} | {verdicts.count('H1') / tests:.3f} | "
            f"{verdicts.count('H0') / tests:.3f} | {verdicts.count(None) / tests:.3f} | "
            f"{statistics.fmean(lengths):.1f} | {statistics.median(lengths):.0f} |"
        )
        print(f"<!-- {a} vs {b}: {time.perf_counter() - started:.0f} s -->")
    fixed = fixed_sample_size(0.0, 1.0, 3.0)
    print(f"\nA fixed-size test with the same error rates needs {fixed:.0f} observations in the normal rows.")


def ratings_needed(deals: int, runs: int, seed: str) -> None:
    """Matches until TrueSkill orders random < heuristic < mc at 95% and keeps that order.

    The deals are played once (all 6 orders of the 3 bots each); every run then rates a fresh
    random sequence of those deals, drawn with replacement, one match at a time, so the runs
    differ as ladders with different luck would, without playing mc thousands of times.
    """
    game = make_game("friday13", players=3)
    order = ["mc", "heuristic", "random"]
    results = asyncio.run(play_series(game, schedule(order, deals * 6, duplicate=True), f"{seed}-rating"))
    by_deal = [results[deal * 6 : deal * 6 + 6] for deal in range(deals)]
    model = RatingModel()
    rng = random.Random(seed)
    limit = 100 * deals
    pairs = (("heuristic", "random"), ("mc", "heuristic"))
    needed: dict[str, list[int]] = {"heuristic > random": [], "mc > heuristic": [], "both": []}
    for _ in range(runs):
        ratings = {bot: Rating(model.mu, model.sigma) for bot in order}
        since: dict[str, int | None] = dict.fromkeys(needed)
        count = 0
        while count < limit:
            for result in rng.choice(by_deal):
                count += 1
                new = model.rate([ratings[bot] for bot in result.seats], result.ranks)
                ratings.update(zip(result.seats, new, strict=True))
                apart = [
                    (ratings[hi].mu - ratings[lo].mu) / (ratings[hi].sigma ** 2 + ratings[lo].sigma ** 2) ** 0.5 > Z95
                    for hi, lo in pairs
                ]
                for key, ordered in zip(needed, (*apart, all(apart)), strict=True):
                    since[key] = (since[key] or count) if ordered else None
        for key, first in since.items():
            needed[key].append(first if first is not None else limit + 1)
    print("\n### Ratings: friday13, 3 players, seat-fair tables, TrueSkill defaults\n")
    print(
        f"{runs} ladders, each a random sequence of {deals} deals x 6 orders drawn with replacement, rated one match "
        f"at a time up to {limit} matches; matches until the order holds at 95% and stays:\n"
    )
    print("| order | median | 90th percentile | runs not settled |")
    print("|---|---:|---:|---:|")
    for key, counts in needed.items():
        shown = sorted(counts)
        late = sum(n > limit for n in shown)
        ninety = shown[int(0.9 * (len(shown) - 1))]
        print(f"| {key} | {_count(statistics.median(shown), limit)} | {_count(ninety, limit)} | {late} of {runs} |")


def _count(matches: float, limit: int) -> str:
    return f"> {limit}" if matches > limit else f"{matches:.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="friday13,amigo13")
    parser.add_argument("--deals", type=int, default=40, help="deals per game in the strength table")
    parser.add_argument("--control-deals", type=int, default=12)
    parser.add_argument("--sprt-runs", type=int, default=400)
    parser.add_argument("--rating-deals", type=int, default=50, help="deals played once for the ratings section")
    parser.add_argument("--rating-runs", type=int, default=200)
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
        sprt_validation(args.sprt_runs, args.seed)
    if args.rating_runs:
        ratings_needed(args.rating_deals, args.rating_runs, args.seed)
    return 0 if reached else 1


if __name__ == "__main__":
    sys.exit(main())
