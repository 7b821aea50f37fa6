"""Strength of the built-in bots at board13: mc and heuristic against random, per scenario.

    python benchmarks/board13_strength.py [--games 100] [--pairs mc:random,heuristic:random] [--scenario all]

Each pair plays `--games` matches per scenario, every deal once with each bot as black (board13
deals nothing, so this just alternates who moves first). Prints a Markdown table with the
first bot's wins, draws and losses, its win rate with a 95% Wilson interval and its score share
(a draw counts 1/2). The exit code is 1 when a bot does not beat its opponent clearly, that is
when the lower end of its score-share interval is not above 50%.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time

from machine import describe

from arena.games.board13 import Board13, scenario_names
from arena.match.local import play_series, schedule

Z95 = 1.959963984540054


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if not trials:
        return (0.0, 1.0)
    p = successes / trials
    centre = (p + Z95**2 / (2 * trials)) / (1 + Z95**2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / (1 + Z95**2 / trials)
    return (centre - half, centre + half)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="matches per pair and scenario (even)")
    parser.add_argument("--pairs", default="mc:random,heuristic:random", help="BOT:OPPONENT,... e.g. mc:heuristic")
    parser.add_argument("--scenario", default="all", help="a scenario name, or all")
    parser.add_argument("--seed", default="strength")
    args = parser.parse_args()
    if args.games % 2:
        parser.error("--games must be even: every deal is played with each bot as black")
    pairs = [tuple(pair.split(":")) for pair in args.pairs.split(",")]
    names = scenario_names() if args.scenario == "all" else [args.scenario]

    started = time.perf_counter()
    rows = []
    clear = True
    for bot, opponent in pairs:
        for name in names:
            game = Board13(scenario=name)
            begun = time.perf_counter()
            results = asyncio.run(play_series(game, schedule([bot, opponent], args.games, duplicate=True), args.seed))
            scores = [result.scores[result.seats.index(bot)] for result in results]
            wins, draws, losses = scores.count(2), scores.count(1), scores.count(0)
            low, high = wilson(wins, len(scores))
            shares = [score / 2 for score in scores]
            share = statistics.fmean(shares)
            ci = Z95 * statistics.stdev(shares) / math.sqrt(len(shares)) if len(set(shares)) > 1 else 0.0
            clear &= share - ci > 0.5
            seconds = (time.perf_counter() - begun) / len(results)
            rows.append(
                f"| {bot} vs {opponent} | {name} | {len(scores)} | {wins}/{draws}/{losses} | "
                f"{100 * wins / len(scores):.0f}% [{100 * low:.0f}%, {100 * high:.0f}%] | {100 * share:.1f}% ± {100 * ci:.1f} | "
                f"{seconds:.2f} |"
            )
    elapsed = time.perf_counter() - started
    print(f"board13 strength: {args.games} matches per pair and scenario, {elapsed:.0f} s on {describe()}\n")
    print("| pair | scenario | games | wins/draws/losses | win rate [95% CI] | score share ± 95% CI | s/match |")
    print("|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(f"\nevery first bot clearly ahead: {'yes' if clear else 'NO'}")
    return 0 if clear else 1


if __name__ == "__main__":
    sys.exit(main())
