"""Balance of the shipped board13 scenarios: the first player's score share in random play.

    python benchmarks/board13_balance.py [--games 1000] [--seed balance]

Every scenario plays `--games` matches between two `random` bots through the match runner,
as `arena play board13 --bots random,random` does. Black (seat 0) always moves first. The
first player's score share counts a win 1 and a draw 1/2; the target band is 40% to 60%.
Prints a Markdown table; the exit code is 1 when a scenario falls outside the band.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time
from collections import Counter

from machine import describe

from arena.games.board13 import Board13, load_scenario, scenario_names
from arena.match.local import play_series, schedule

LOW, HIGH = 0.40, 0.60


def features(name: str) -> str:
    """A few words on what sets a scenario apart."""
    scenario = load_scenario(name)
    words = [scenario.goal.replace("_", " ")]
    if scenario.capture_diagonal:
        words.append("diagonal capture")
    if any(scenario.kinds):
        words.append("reserved fields")
    if any(code & 4 and not code & 8 for code in scenario.board):
        words.append("movable monuments")
    if not any(code in (1, 2) for code in scenario.board):
        words.append("free placement")
    elif any(scenario.reserves):
        words.append(f"reserve {scenario.reserves[0]}+{scenario.reserves[1]}")
    return ", ".join(words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", default="balance")
    args = parser.parse_args()

    started = time.perf_counter()
    rows = []
    balanced = True
    for name in scenario_names():
        game = Board13(scenario=name)
        results = asyncio.run(play_series(game, schedule(["random", "random"], args.games, duplicate=False), args.seed))
        shares = [result.scores[0] / 2 for result in results]
        share = statistics.fmean(shares)
        ci = 1.96 * statistics.stdev(shares) / math.sqrt(len(shares))
        wins = Counter(result.scores[0] for result in results)
        endings = Counter(getattr(result.state, "ending", "") for result in results)
        plies = statistics.fmean(getattr(result.state, "ply", 0) for result in results)
        inside = LOW <= share <= HIGH
        balanced &= inside
        rows.append(
            f"| {name} | {features(name)} | {wins[2]} | {wins[0]} | {wins[1]} | "
            f"{100 * share:.1f}% ± {100 * ci:.1f} | {plies:.0f} | "
            f"{endings['goal']}/{endings['passes']}/{endings['ply_limit']} |"
        )
    elapsed = time.perf_counter() - started
    print(f"board13 balance: {args.games} random-vs-random matches per scenario, {elapsed:.0f} s on {describe()}\n")
    print(
        "| scenario | features | black wins | white wins | draws | first player's score ± 95% CI | mean plies | ended by goal/passes/ply limit |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print(f"\nevery scenario between {LOW:.0%} and {HIGH:.0%}: {'yes' if balanced else 'NO'}")
    return 0 if balanced else 1


if __name__ == "__main__":
    sys.exit(main())
