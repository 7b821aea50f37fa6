"""What a card game's observation costs the engine: a bot that reads its turn's observation has one made every move.

    python benchmarks/card_observation.py [--matches 30] [--players 4] [--repeats 7]

Random friday13 matches are played; then, `--repeats` times, the mover's observation is made at
every move (`state.observation(seat)`, what `MoveRequest.observation` asks for), ten times over.
Prints microseconds an observation, the best repeat, and which engine ran (compiled or plain).
To compare two versions, run it over each tree in turn (`PYTHONPATH=TREE`), alternating: a
constructor's cost depends on being called from compiled code, so no in-process reference shows it.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from machine import describe

import arena.compiled
from arena.games import make_game
from arena.games.base import State

MAKES = 10
"""Observations made at each move: enough that the clock's own cost is negligible."""


def observing(states: list[State[Any]]) -> float:
    """µs an observation, made for the mover at each of `states`."""
    started = time.process_time()
    for state in states:
        seat = state.current_player()
        for _ in range(MAKES):
            state.observation(seat)
    return (time.process_time() - started) / (len(states) * MAKES) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=30, help="random matches played (default 30)")
    parser.add_argument("--players", type=int, default=4, help="players a match (default 4)")
    parser.add_argument("--repeats", type=int, default=7, help="timings, the best one printed (default 7)")
    options = parser.parse_args()
    game = make_game("friday13", players=options.players)
    rng = random.Random(13)
    states: list[State[Any]] = []
    for number in range(options.matches):
        state = game.new_match(f"observation-{number}".encode())
        while not state.is_terminal():
            states.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    made = [observing(states) for _ in range(options.repeats)]
    print(describe())
    print(f"engine: {arena.compiled.STATUS}")
    print(
        f"{len(states)} moves of {options.matches} random {options.players}-player friday13 matches; best of {options.repeats}"
    )
    print(f"state.observation(seat): {min(made):.2f} µs (repeats {', '.join(f'{value:.2f}' for value in made)})")


if __name__ == "__main__":
    main()
