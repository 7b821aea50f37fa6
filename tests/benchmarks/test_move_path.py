"""benchmarks/move_path.py plays whole matches both ways, and prints what its docstring says."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys

from tests.benchmarks.scripts import BENCHMARKS, benchmark_module


def test_both_ways_play_every_match_to_its_end() -> None:
    with benchmark_module("move_path") as bench:
        for remote in (True, False):
            moves, seconds = asyncio.run(bench.play(3, 2, remote))
            # Six 4-player friday13 matches of 200 moves each (50 a seat), every card of every hand played.
            assert moves == 6 * 200, (remote, moves)
            assert seconds > 0


def test_the_benchmark_prints_each_way_and_the_difference() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "move_path.py"), "--matches", "2", "--batches", "1", "--repeats", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = {}
    for way in ("remote", "in-process"):
        found = re.search(rf"^{way}: (\d+\.\d) µs of CPU a move \(best of 1\)$", done.stdout, re.M)
        assert found, done.stdout
        figures[way] = float(found.group(1))
    assert figures["remote"] > figures["in-process"] > 0, done.stdout
    assert re.search(r"^a remote seat's cost beyond the runner: \d+\.\d µs a move$", done.stdout, re.M), done.stdout
