"""benchmarks/card_observation.py runs as its docstring says and times what it names."""

from __future__ import annotations

import re

import arena.compiled
from tests.benchmarks.scripts import run_script


def test_the_benchmark_prints_the_observation_time_and_the_engine_that_ran() -> None:
    printed = run_script("card_observation", "--matches", "2", "--players", "3", "--repeats", "2")
    assert f"engine: {arena.compiled.STATUS}" in printed, printed
    moves = re.search(r"^(\d+) moves of 2 random 3-player friday13 matches; best of 2$", printed, re.M)
    assert moves is not None and int(moves[1]) > 2 * 3, printed
    timed = re.search(
        r"^state\.observation\(seat\): (\d+\.\d\d) µs \(repeats (\d+\.\d\d), (\d+\.\d\d)\)$", printed, re.M
    )
    assert timed is not None, printed
    assert float(timed[1]) == min(float(timed[2]), float(timed[3])) > 0
