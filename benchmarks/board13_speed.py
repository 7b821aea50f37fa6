"""Random-play throughput of the board13 engine on one core, per shipped scenario.

    python benchmarks/board13_speed.py [--playouts 300] [--repeats 5]

`engine` plays whole matches with `Board13State.playout` (uniformly random legal actions, the
search bots' fast path). `contract` plays them through the public State contract instead:
`legal_actions()` (sorted) and the guarded `apply()` every ply, as a bot host does. `arena play`
runs matches through the match runner with two `random` bots, exactly as the command does.
Each figure is the best of several repeats (the machines are shared and noisy).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from machine import describe

from arena.games.board13 import DEFAULT_SCENARIO, Board13, scenario_names
from arena.match.local import play_series, schedule


def best_of(run: Callable[[], float], repeats: int) -> float:
    return max(run() for _ in range(repeats))


def engine(game: Board13, playouts: int, rng: random.Random, plies: list[int]) -> float:
    """Matches per second with the engine's own random playout; adds the plies played to `plies`."""
    started = time.perf_counter()
    for _ in range(playouts):
        state = game.new_match(b"")
        state.playout(rng)
        plies.append(state.ply)
    return playouts / (time.perf_counter() - started)


def contract(game: Board13, playouts: int, rng: random.Random) -> float:
    """Matches per second through `legal_actions()` and the guarded `apply()`."""
    started = time.perf_counter()
    for _ in range(playouts):
        state = game.new_match(b"")
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
    return playouts / (time.perf_counter() - started)


def arena_play(game: Board13, matches: int) -> float:
    """Matches per second through the match runner with two random bots."""
    started = time.perf_counter()
    asyncio.run(play_series(game, schedule(["random", "random"], matches, duplicate=False), "speed"))
    return matches / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--playouts", type=int, default=300, help="matches per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    playouts: int = args.playouts

    print(f"board13 random playouts, best of {args.repeats} repeats of {playouts} matches, one core of {describe()}\n")
    print("| scenario | mean plies | engine playouts/s | engine plies/s | contract playouts/s | arena play matches/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in scenario_names():
        game = Board13(scenario=name)
        rng = random.Random(13)
        plies: list[int] = []
        fast = best_of(partial(engine, game, playouts, rng, plies), args.repeats)
        mean_plies = statistics.fmean(plies)
        guarded = best_of(partial(contract, game, playouts, rng), args.repeats)
        hosted = best_of(partial(arena_play, game, max(1, playouts // 4)), max(2, args.repeats // 2))
        label = f"{name} (default)" if name == DEFAULT_SCENARIO else name
        print(
            f"| {label} | {mean_plies:.0f} | {fast:,.0f} | {fast * mean_plies:,.0f} | {guarded:,.0f} | {hosted:,.0f} |"
        )


if __name__ == "__main__":
    main()
