"""What a board13 position costs to put on the wire, as a node sends one with every ActionRequest.

    python benchmarks/board13_encoding.py [--matches 20] [--repeats 7] [--scenario crossfire]

Random matches of a scenario are played first and the mover's observation at every ply is kept.
Then, repeats alternating, each observation is encoded into the bytes a request carries
- `incremental`: by one encoder per match, in match order, as the node's match does
  (`arena.wire.convert.encoder_for`): the public part is kept from the last position and
  serialized, the seat's field after it;
- `from scratch`: by a fresh encoder each, which builds the 49 fields and the moves so far anew,
  as every observation was encoded before the encoder kept anything.
Prints microseconds an observation, the best repeat of each, and their ratio.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from machine import describe

from arena.games import make_game
from arena.games.board13 import Board13Observation
from arena.games.board13.rules import Board13
from arena.wire import convert


def observations(game: Board13, matches: int) -> list[list[Board13Observation]]:
    """The mover's observation at every ply of `matches` random matches."""
    played = []
    for number in range(matches):
        rng = random.Random(number)
        state = game.new_match(b"")
        seen = []
        while not state.is_terminal():
            seen.append(state.observation(state.current_player()))
            state.apply(rng.choice(state.legal_actions()))
        played.append(seen)
    return played


def incremental(game: Board13, played: Sequence[Sequence[Board13Observation]]) -> float:
    started = time.perf_counter()
    for match in played:
        encoder = convert.encoder_for(game)
        for observation in match:
            encoder.encode_bytes(observation)
    return time.perf_counter() - started


def from_scratch(game: Board13, played: Sequence[Sequence[Board13Observation]]) -> float:
    started = time.perf_counter()
    for match in played:
        for observation in match:
            convert.encoder_for(game).encode_bytes(observation)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20, help="random matches whose positions are encoded")
    parser.add_argument("--repeats", type=int, default=7, help="repeats of each way, alternating")
    parser.add_argument("--scenario", default="crossfire", help="a shipped scenario")
    options = parser.parse_args()
    game = make_game("board13", scenario=options.scenario)
    assert isinstance(game, Board13)
    played = observations(game, options.matches)
    count = sum(map(len, played))
    best = {"incremental": float("inf"), "from scratch": float("inf")}
    for _ in range(options.repeats):
        best["incremental"] = min(best["incremental"], incremental(game, played))
        best["from scratch"] = min(best["from scratch"], from_scratch(game, played))
    print(describe())
    print(f"board13 {options.scenario}: {count} observations of {options.matches} random matches")
    for way, seconds in best.items():
        print(f"  {way:13s} {seconds / count * 1e6:7.1f} us an observation (best of {options.repeats})")
    print(f"  incremental is {best['from scratch'] / best['incremental']:.1f}x as fast")


if __name__ == "__main__":
    main()
