"""benchmarks/grpc_against.py reads both formats grpc_throughput.py has printed, and names a commit it cannot find."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmarks.scripts import BENCHMARKS, benchmark_module

TODAY = """2 cores, Intel(R) Xeon(R) Processor, Python 3.11.7
repeat 1: arena 5,622 moves/s; CPU per move: server 138 µs (its event loop thread 123 µs), bots 82 µs
          bare grpc.aio 8,420 round trips/s; CPU per round trip: server 76 µs (its event loop thread 50 µs), bots 151 µs
arena, 32 concurrent 4-player friday13 matches of random SDK bots, medians: 5,622 moves/s; CPU per move: server 138 µs
"""
_WORKTREES = ["git", "worktree", "list"]
ISSUE_TIME = """repeat 1: arena 2,478 moves/s; CPU per move: server 356 µs, bots 345 µs
          bare grpc.aio 5,669 round trips/s; CPU per round trip: server 111 µs, bots 229 µs
"""


def test_both_output_formats_give_the_runs_figures() -> None:
    with benchmark_module("grpc_against") as bench:
        assert bench.parse_run(TODAY) == bench.Run(5622.0, 138, 8420.0, 76)
        assert bench.parse_run(ISSUE_TIME) == bench.Run(2478.0, 356, 5669.0, 111)


def test_an_output_without_figures_is_an_error_that_quotes_it() -> None:
    with benchmark_module("grpc_against") as bench, pytest.raises(ValueError, match=r"no figures.*Traceback"):
        bench.parse_run("Traceback (most recent call last): ...")


def test_the_report_gives_medians_and_their_ratio_to_bare() -> None:
    with benchmark_module("grpc_against") as bench:
        runs = [
            bench.Run(5000.0, 150, 7000.0, 100),
            bench.Run(6000.0, 170, 8000.0, 80),
            bench.Run(4000.0, 160, 6000.0, 90),
        ]
        line = bench.report("this tree", runs)
    assert line.startswith("this tree: server 150, 170, 160 µs a move, median 160 (1.78 times"), line
    assert "median 90 µs" in line and "5,000 moves/s, 0.71x bare" in line, line


def test_a_commit_it_cannot_find_is_one_line_and_no_worktree() -> None:
    before = subprocess.run(_WORKTREES, cwd=BENCHMARKS, capture_output=True, text=True, check=True).stdout
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "grpc_against.py"), "--commit", "no-such-commit", "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        f"grpc_against.py: no commit 'no-such-commit' in {BENCHMARKS.parent}; name one that `git log` lists"
    ]
    assert subprocess.run(_WORKTREES, cwd=BENCHMARKS, capture_output=True, text=True, check=True).stdout == before


def test_a_worktree_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "file").write_text("in the way")
    with benchmark_module("grpc_against") as bench, pytest.raises(SystemExit) as stopped:
        bench.check_out(bench.resolve("HEAD"), taken)
    message = str(stopped.value)
    assert message.startswith("grpc_against.py: git worktree add failed for "), message
    assert "already exists" in message and "\n" not in message, message
    assert (taken / "file").read_text() == "in the way"


def test_a_commit_this_clone_lacks_has_no_hash_rather_than_ending_the_run() -> None:
    # The run's last line asks whether the commit was issue 28's: a clone without that commit must still print it.
    with benchmark_module("grpc_against") as bench:
        assert bench.full_hash("no-such-commit") is None
        head = bench.full_hash("HEAD")
    assert head is not None and len(head) == 40 and int(head, 16) >= 0, head
