"""What storing a finished match's replay costs a node: `encode_match` against the record and `encode_replay`.

    python benchmarks/replay_encoding.py [--matches 100] [--repeats 7]

Plays `--matches` real 4-player friday13 matches through the match runner, every seat a timed
in-process seat answering at once (so each record has a clock, as a node's matches with connected
bots do), then encodes each finished match both ways, alternating, `--repeats` times:
- `encode_match(result)`, what a node stores today: the re-play form made from the seed and the
  actions, the record made once by the match's final state (whose moves it re-plays from the seed)
  and written as JSON once for the CRC;
- `encode_replay(result.record)`, what a node stored before: the runner's record made, written as
  JSON, its actions parsed back from it, then re-played and compared byte for byte.
Both read back as the runner's record (checked first). Reports each one's median µs a match and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from machine import describe

from arena.games import make_game
from arena.games.base import Action
from arena.match import Clock, MatchRunner, MoveRequest, Seat
from arena.match.results import MatchResult
from arena.store.codec import compact_json
from arena.store.replays import decode_replay, encode_match, encode_replay


@dataclass
class Quick(Seat):
    """A timed seat answering at once with one of its legal actions."""

    name: str
    seat: int
    asked: int = 0

    async def request(self, move: MoveRequest) -> Action:
        self.asked += 1
        return move.legal_actions[(self.seat + self.asked * 7) % len(move.legal_actions)]


async def play(number: int) -> MatchResult:
    seats: list[Seat] = [Quick(f"q{seat}", seat + number) for seat in range(4)]
    seed = hashlib.sha256(f"replay-encoding-{number}".encode()).digest()[:16]
    return await MatchRunner(make_game("friday13", players=4), seats, seed, clock=Clock(1.0, 10.0)).run()


def timed(encode: Callable[[MatchResult], bytes], results: list[MatchResult]) -> float:
    """µs a match to encode every result once, each from a fresh result (the record is made on first use)."""
    fresh = [dataclasses.replace(result) for result in results]
    started = time.process_time()
    for result in fresh:
        encode(result)
    return (time.process_time() - started) / len(results) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100, help="matches played (default 100)")
    parser.add_argument("--repeats", type=int, default=7, help="alternating timings of each (default 7)")
    options = parser.parse_args()
    results = [asyncio.run(play(number)) for number in range(options.matches)]
    for number, result in enumerate(results):
        record = compact_json(result.record)
        if any(compact_json(decode_replay(stored, "")) != record
               for stored in (encode_match(result), encode_replay(result.record))):  # fmt: skip
            raise SystemExit(f"match {number}: a stored form does not read back as the runner's record")
    moves = statistics.mean(len(result.actions) for result in results)
    now, before = [], []
    for _ in range(options.repeats):
        now.append(timed(encode_match, results))
        before.append(timed(lambda result: encode_replay(result.record), results))
    print(describe())
    print(f"{options.matches} 4-player friday13 matches of {moves:.0f} moves, each with a clock; CPU a match, medians")
    print(
        f"encode_match(result):           {statistics.median(now):7.0f} µs  (runs {', '.join(f'{v:.0f}' for v in now)})"
    )
    print(
        f"encode_replay(result.record):   {statistics.median(before):7.0f} µs  (runs {', '.join(f'{v:.0f}' for v in before)})"
    )
    print(f"ratio: {statistics.median(now) / statistics.median(before):.2f}")


if __name__ == "__main__":
    main()
