"""Strength of the built-in bots: mean penalty over duplicate deals, mc < heuristic < random.

    python benchmarks/strength.py [--game friday13] [--games 201] [--seed strength]

Three players, one of each bot, every deal played in all three seat rotations. Prints the
standings as a Markdown table and whether each gap lies outside both 95% confidence intervals.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from machine import describe

from arena.games import make_game
from arena.match.local import play_series, schedule
from arena.standings import standings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="friday13", choices=["friday13", "amigo13"])
    parser.add_argument("--games", type=int, default=201, help="matches; a multiple of 3")
    parser.add_argument("--seed", default="strength")
    args = parser.parse_args()

    bots = ["mc", "heuristic", "random"]
    game = make_game(args.game, players=3)
    started = time.perf_counter()
    results = asyncio.run(play_series(game, schedule(bots, args.games, duplicate=True), args.seed))
    elapsed = time.perf_counter() - started
    table = {row.bot: row for row in standings((r.seats, r.scores, r.ranks) for r in results)}

    print(f"{args.game}, 3 players, {len(results)} duplicate matches, {elapsed:.0f} s on {describe()}\n")
    print("| bot | games | mean penalty ± 95% CI | wins | mean rank |")
    print("|---|---:|---:|---:|---:|")
    for name in bots:
        row = table[name]
        print(f"| {name} | {row.games} | {row.mean_score:.2f} ± {row.ci95:.2f} | {row.wins} | {row.mean_rank:.2f} |")
    separated = True
    for better, worse in (("mc", "heuristic"), ("heuristic", "random")):
        low, high = table[better], table[worse]
        apart = low.mean_score + low.ci95 < high.mean_score - high.ci95
        separated &= apart
        print(f"\n{better} < {worse}: {'yes' if apart else 'NO'}, the intervals {'do not ' if apart else ''}overlap")
    return 0 if separated else 1


if __name__ == "__main__":
    sys.exit(main())
