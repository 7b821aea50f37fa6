"""`arena play` beside the raw engine, the same games and seeds, interleaved in one run.

    python benchmarks/play_speed.py [--game friday13] [--players 4] [--games 10000] [--repeats 3]

These loops play the same deals (`arena play`'s seeds for `--seed 1`), one after another in each
repeat, so that load on the shared machine falls on all of them alike; medians are compared
with medians:

- engine: uniformly random legal moves applied straight to the engine (`legal_actions`, then
  `apply_trusted`), one random generator per match, nothing else;
- arena play: `play_matches`, the function `arena play` calls, with `random` bots in every seat;
- runner: the same matches through the general `MatchRunner` (one `BotSeat` per seat, results
  with their final states), the path `arena play` took before the fast path;
- plain reference (friday13 only): the engine loop's random legal moves, one random generator per
  match, on `plain_reference.py`, a plain string-based engine dealing the same cards, which shows
  how `arena play` compares with a first straightforward implementation of the rules.

Then arena play and the runner each run once more under tracemalloc for their peak memory. For
the card games the engine's own playout loop (`CardState.playout`) is shown too.

Each run is timed twice: wall-clock time, and the CPU time of this process (`time.process_time`),
which other work on a shared machine changes far less; the ratios are given for both. The first
line says which engine ran: compiled with mypyc, or plain Python (ARENA_PURE_PYTHON=1 runs the
plain sources of a compiled build, to compare the two).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial

from machine import describe
from plain_reference import PlainFriday13

from arena.compiled import STATUS
from arena.games import make_game
from arena.games.base import Game
from arena.games.cards import CardState
from arena.games.friday13 import Friday13
from arena.match import BotSeat, MatchResult, MatchRunner
from arena.match.local import builtin_bot, match_seed, play_matches, schedule

SEED = "1"


def engine_loop(game: Game, seeds: list[bytes]) -> None:
    for number, seed in enumerate(seeds):
        choose = random.Random(number).random
        state = game.new_match(seed)
        is_terminal, legal_actions, apply = state.is_terminal, state.legal_actions, state.apply_trusted
        while not is_terminal():
            actions = legal_actions()
            apply(actions[int(choose() * len(actions))])


def plain_reference_loop(players: int, edition: str, seeds: list[bytes]) -> None:
    for number, seed in enumerate(seeds):
        choose = random.Random(number).random
        match = PlainFriday13(players, seed, edition)
        legal_moves, play = match.legal_moves, match.play
        while not match.over:
            moves = legal_moves()
            play(moves[int(choose() * len(moves))])


def playouts(game: Game, seeds: list[bytes]) -> None:
    rng = random.Random(1)
    for seed in seeds:
        state = game.new_match(seed)
        assert isinstance(state, CardState)
        state.playout(rng)


def arena_play(game: Game, games: int) -> None:
    play_matches(game, schedule(["random"] * game.players, games, duplicate=False), SEED)


def runner(game: Game, games: int) -> None:
    async def series() -> list[MatchResult]:
        results = []
        for pairing in schedule(["random"] * game.players, games, duplicate=False):
            seats = [BotSeat(name, partial(builtin_bot, name, pairing.number)) for name in pairing.seats]
            results.append(await MatchRunner(game, seats, match_seed(SEED, pairing.deal)).run())
        return results

    asyncio.run(series())


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """Seconds of wall-clock time and of this process's CPU time."""
    started, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - started, time.process_time() - cpu


def peak_mib(run: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="friday13", choices=["friday13", "amigo13", "board13"])
    parser.add_argument("--players", type=int, default=None, help="default: the game's")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-runner", action="store_true", help="leave out the general runner")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    game = make_game(args.game) if args.players is None else make_game(args.game, players=args.players)
    games: int = args.games
    seeds = [match_seed(SEED, deal) for deal in range(games)]
    contenders: dict[str, Callable[[], object]] = {
        "engine": partial(engine_loop, game, seeds),
        "arena play": partial(arena_play, game, games),
    }
    if not args.no_runner:
        contenders["runner"] = partial(runner, game, games)
    if args.game != "board13":
        contenders["engine playout"] = partial(playouts, game, seeds)
    if isinstance(game, Friday13):
        contenders["plain reference"] = partial(plain_reference_loop, game.players, game.edition, seeds)
    walls: dict[str, list[float]] = {name: [] for name in contenders}
    cpus: dict[str, list[float]] = {name: [] for name in contenders}
    print(f"{game!r}, {games} matches, {args.repeats} repeats, one core of {describe()}, load {os.getloadavg()[0]:.2f}")
    print(f"engine: {STATUS}")
    for _ in range(args.repeats):
        for name, run in contenders.items():
            wall, cpu = timed(run)
            walls[name].append(wall)
            cpus[name].append(cpu)
    for label, times in (("wall-clock", walls), ("CPU", cpus)):
        medians = {name: statistics.median(spent) for name, spent in times.items()}
        print(f"{label} time, medians:")
        for name, median in medians.items():
            spent = ", ".join(f"{t:.2f}" for t in times[name])
            print(f"{name:>15}: median {median:.2f} s ({games / median:,.0f} matches/s; runs {spent})")
        engine = medians["engine"]
        print(f"arena play / engine: {medians['arena play'] / engine:.2f}x")
        if "runner" in medians:
            print(f"runner / engine: {medians['runner'] / engine:.2f}x")
        if "engine playout" in medians:
            print(f"arena play / engine playout: {medians['arena play'] / medians['engine playout']:.2f}x")
        if "plain reference" in medians:
            ratio = medians["plain reference"] / medians["arena play"]
            print(f"arena play is {ratio:.2f}x the plain reference's speed ({label} time)")
    print(f"peak traced memory: arena play {peak_mib(contenders['arena play']):.1f} MiB", end="")
    if "runner" in contenders:
        print(f", runner {peak_mib(contenders['runner']):.1f} MiB", end="")
    print(f"; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
