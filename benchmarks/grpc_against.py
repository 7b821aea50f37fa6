"""The server's CPU a move against an earlier commit's, in the same minutes.

    python benchmarks/grpc_against.py [--commit 862974c] [--runs 5] [--seconds 12]

This machine's speed drifts by a third from hour to hour, and bare gRPC's reference in
grpc_throughput.py drifts more than the arena does (its echo server took 71 to 150 µs a round trip
within two hours), so a figure from another day, or even its ratio to bare gRPC, compares badly. Here the
reference is the earlier code itself: COMMIT is checked out in a temporary git worktree (its
extensions built when it has a setup.py), and the two trees' own `benchmarks/grpc_throughput.py
--repeats 1` take turns, `--runs` times each, each run with its tree's server and bots and a bare
grpc.aio run of its own. Prints every run, the medians and their ratio. The default commit is the
first whose benchmark reported the server's CPU a move, as issue 28 quotes it: 487 µs, when the issue
asked for 250, 0.51 of it.

An older driver may look for ended matches more often (862974c ten times a second, today's four),
and that listing counts as its server's CPU: the earlier figure reads a little high, by less than the
noise (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from machine import describe

ROOT = Path(__file__).resolve().parent.parent
ISSUE_COMMIT = "862974c"
"""The first commit whose grpc_throughput.py reported the server's CPU a move, as issue 28 quotes it: 487 µs a move,
the goal 250."""
GOAL = 250 / 487

_ARENA = re.compile(r"arena ([\d,]+) moves/s; CPU per move: server (\d+) µs")
_BARE = re.compile(r"bare grpc\.aio ([\d,]+) round trips/s; CPU per round trip: server (\d+) µs")


class Run(NamedTuple):
    moves: float
    """Moves a second through the arena."""
    server: int
    """The server's CPU µs a move."""
    bare_trips: float
    """Round trips a second of the bare grpc.aio run beside it."""
    bare_server: int
    """Its echo server's CPU µs a round trip."""


def parse_run(output: str) -> Run:
    """The first repeat's figures in what grpc_throughput.py printed (its format since 862974c)."""
    arena, bare = _ARENA.search(output), _BARE.search(output)
    if arena is None or bare is None:
        raise ValueError(f"no figures in grpc_throughput.py's output: {output.strip()[-300:]!r}")
    return Run(
        float(arena.group(1).replace(",", "")),
        int(arena.group(2)),
        float(bare.group(1).replace(",", "")),
        int(bare.group(2)),
    )


def run_benchmark(tree: Path, seconds: float) -> Run:
    """One `grpc_throughput.py --repeats 1` of `tree`, with that tree's code first on the path."""
    done = subprocess.run(
        [sys.executable, "benchmarks/grpc_throughput.py", "--seconds", str(seconds), "--repeats", "1"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=seconds * 3 + 180,
    )
    if done.returncode != 0:
        raise RuntimeError(f"grpc_throughput.py of {tree} exited with {done.returncode}: {done.stderr.strip()[-300:]}")
    return parse_run(done.stdout)


def full_hash(commit: str) -> str | None:
    """The full hash of `commit`, or None when this repository does not hold it (a shallow clone may not)."""
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True, text=True
    )
    return found.stdout.strip() if found.returncode == 0 else None


def resolve(commit: str) -> str:
    """The full hash of `commit`; exits with one line when this repository has no such commit."""
    found = full_hash(commit)
    if found is None:
        raise SystemExit(f"grpc_against.py: no commit {commit!r} in {ROOT}; name one that `git log` lists")
    return found


def check_out(commit: str, into: Path) -> None:
    """`commit` as a detached worktree at `into`, its extensions built when it has any."""
    _step(["git", "worktree", "add", "--detach", str(into), commit], ROOT, commit)
    if (into / "setup.py").exists():
        _step([sys.executable, "setup.py", "build_ext", "--inplace"], into, commit)


def _step(command: list[str], where: Path, commit: str) -> None:
    """Run `command` in `where`; exits with one line, its error's last, when it fails."""
    done = subprocess.run(command, cwd=where, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"grpc_against.py: {' '.join(command[:3])} failed for {commit[:7]}: {last}")


def remove(tree: Path) -> None:
    subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
    subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


def report(name: str, runs: list[Run]) -> str:
    server = statistics.median(run.server for run in runs)
    bare = statistics.median(run.bare_server for run in runs)
    moves = statistics.median(run.moves for run in runs)
    trips = statistics.median(run.bare_trips for run in runs)
    return (
        f"{name}: server {', '.join(str(run.server) for run in runs)} µs a move, median {server:.0f} "
        f"({server / bare:.2f} times its bare runs' server, median {bare:.0f} µs); "
        f"{moves:,.0f} moves/s, {moves / trips:.2f}x bare"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commit", default=ISSUE_COMMIT, help="the earlier code (default: issue 28's)")
    parser.add_argument("--runs", type=int, default=5, choices=range(1, 101), metavar="1..100")
    parser.add_argument("--seconds", type=float, default=12.0)
    args = parser.parse_args()
    if not 1 <= args.seconds <= 3600:
        parser.error(f"--seconds {args.seconds:g}: give 1 to 3600 seconds a run")
    commit = resolve(args.commit)
    short = commit[:7]
    print(describe())
    with tempfile.TemporaryDirectory(prefix="arena-against-") as scratch:
        tree = Path(scratch) / "tree"
        this: list[Run] = []
        earlier: list[Run] = []
        try:
            check_out(commit, tree)
            for number in range(1, args.runs + 1):
                this.append(run_benchmark(ROOT, args.seconds))
                earlier.append(run_benchmark(tree, args.seconds))
                print(
                    f"run {number}: this tree {this[-1].server} µs a move (bare {this[-1].bare_server}), "
                    f"{short} {earlier[-1].server} µs (bare {earlier[-1].bare_server})",
                    flush=True,
                )
        finally:
            remove(tree)
    print(report("this tree", this))
    print(report(short, earlier))
    pairs = [now.server / then.server for now, then in zip(this, earlier, strict=True)]
    ratio = statistics.median(run.server for run in this) / statistics.median(run.server for run in earlier)
    print(
        f"this tree / {short}, server CPU a move: {ratio:.2f} in medians, each run {min(pairs):.2f} to {max(pairs):.2f}"
        + (f" (issue 28's goal: at most {GOAL:.2f})" if commit == full_hash(ISSUE_COMMIT) else "")
    )


if __name__ == "__main__":
    main()
