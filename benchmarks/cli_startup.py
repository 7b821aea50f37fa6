"""How long the `arena` command takes to start: the best of N runs of `arena --help` and `arena play --help`.

Every run is a new process, as when a person types the command; the best run is the one least
disturbed by other work on the machine. For scale it also times a bare `python -c pass` and
`python -c "import click"`, the floor under any Click command.

    python benchmarks/cli_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time

HEAVY = ("grpc", "asyncio", "rich.console", "rich.progress", "google.protobuf", "arena.games", "arena.client")
"""Modules `arena --help` has no use for; the benchmark says if any of them is loaded at start."""


def best_of(command: list[str], runs: int) -> float:
    """The shortest wall time of `runs` runs of `command`, in seconds; a failing command ends the benchmark."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return min(times)


def loaded_at_start() -> list[str]:
    """The modules of HEAVY that importing the CLI loads."""
    probe = f"import sys, arena.cli; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs of each command; the best is shown")
    runs = parser.parse_args().runs
    arena = shutil.which("arena")
    command = [arena] if arena else [sys.executable, "-m", "arena.cli"]
    rows = [
        ("python -c pass", best_of([sys.executable, "-c", "pass"], runs)),
        ("python -c 'import click'", best_of([sys.executable, "-c", "import click"], runs)),
        ("arena --help", best_of([*command, "--help"], runs)),
        ("arena play --help", best_of([*command, "play", "--help"], runs)),
    ]
    print(f"best of {runs} runs, {' '.join(command)}:")
    for name, seconds in rows:
        print(f"  {name:<26} {seconds:.3f} s")
    heavy = loaded_at_start()
    print(f"loaded by `import arena.cli` that --help does not need: {', '.join(heavy) if heavy else 'none'}")


if __name__ == "__main__":
    main()
