"""benchmarks/move_path.py plays whole matches both ways, and prints what its docstring says."""

from __future__ import annotations

import asyncio
import re

from tests.benchmarks.scripts import benchmark_module, run_script


def test_both_ways_play_every_match_to_its_end() -> None:
    with benchmark_module("move_path") as bench:
        for remote in (True, False):
            moves, seconds = asyncio.run(bench.play(3, 2, remote))
            # Six 4-player friday13 matches of 200 moves each (50 a seat), every card of every hand played.
            assert moves == 6 * 200, (remote, moves)
            assert seconds > 0


def test_the_benchmark_prints_each_way_and_the_difference() -> None:
    printed = run_script("move_path", "--matches", "2", "--batches", "1", "--repeats", "1")
    figures = {}
    for way in ("remote", "in-process"):
        found = re.search(rf"^{way}: (\d+\.\d) µs of CPU a move \(best of 1\)$", printed, re.M)
        assert found, printed
        figures[way] = float(found.group(1))
    assert figures["remote"] > figures["in-process"] > 0, printed
    assert re.search(r"^a remote seat's cost beyond the runner: \d+\.\d µs a move$", printed, re.M), printed
