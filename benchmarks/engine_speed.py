"""Random-play throughput of the card engines on one core, and of `arena play` around them.

    python benchmarks/engine_speed.py [--game friday13] [--players 4] [--matches 2000] [--repeats 7]

The engine figure plays whole matches with `CardState.playout` (uniformly random cards, the
search bots' fast path): deal, every move and the scoring of each round. The `arena play`
figure runs the same number of matches through the match runner with four `random` bots,
exactly as the command does. Each figure is the best of several repeats, because the
machines are shared and noisy; the median is printed beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from collections.abc import Callable

from machine import describe

from arena.compiled import STATUS
from arena.games import make_game
from arena.games.cards import CardGame
from arena.match.local import play_series, schedule


def best_and_median(run: Callable[[], float], repeats: int) -> tuple[float, float]:
    rates = [run() for _ in range(repeats)]
    return max(rates), statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="friday13", choices=["friday13", "amigo13"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    matches: int = args.matches
    game = make_game(args.game, players=args.players)
    assert isinstance(game, CardGame)
    rounds = game.rules.rounds
    moves_per_round = len(game.rules.deck) - (len(game.rules.deck) // (args.players + 1) if game.rules.dummy else 0)
    seeds = [i.to_bytes(4, "big") for i in range(matches)]
    rng = random.Random(1)

    def engine() -> float:
        started = time.perf_counter()
        for seed in seeds:
            game.new_match(seed).playout(rng)
        return matches * rounds / (time.perf_counter() - started)

    play_matches = max(1, matches // 4)

    def arena_play() -> float:
        pairings = schedule(["random"] * args.players, play_matches, duplicate=False)
        started = time.perf_counter()
        asyncio.run(play_series(game, pairings, "speed"))
        return play_matches * rounds / (time.perf_counter() - started)

    print(f"{game.name}, {args.players} players, {moves_per_round} moves a round, one core of {describe()}")
    print(f"engine: {STATUS}")
    best, median = best_and_median(engine, args.repeats)
    print(
        f"engine playouts: {best:,.0f} rounds/s ({best * moves_per_round:,.0f} moves/s); median {median:,.0f} rounds/s"
    )
    play_best, play_median = best_and_median(arena_play, max(3, args.repeats // 2))
    print(
        f"arena play, {args.players} random bots: {play_best:,.0f} rounds/s ({play_best * moves_per_round:,.0f} moves/s); "
        f"median {play_median:,.0f}; {best / play_best:.1f}x the engine figure"
    )


if __name__ == "__main__":
    main()
