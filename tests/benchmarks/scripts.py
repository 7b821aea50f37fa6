"""The benchmark scripts' folder, and their modules imported as the scripts import each other."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@contextmanager
def benchmark_module(name: str) -> Iterator[ModuleType]:
    """The module `benchmarks/NAME.py`, imported from the scripts' folder, beside the helpers it imports
    by their bare names (grpc_common, machine); the folder is off the path again afterwards."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


def run_script(name: str, *args: str) -> str:
    """What `python benchmarks/NAME.py ARGS` prints, once it has exited with 0 (else the test fails with its
    stderr)."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
