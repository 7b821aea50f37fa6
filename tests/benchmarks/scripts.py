"""The benchmark scripts' folder, and their modules imported as the scripts import each other."""

from __future__ import annotations

import importlib
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
