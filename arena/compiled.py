"""Whether this process runs the engine compiled (mypyc) or from its plain Python sources.

setup.py compiles a group of modules (the card engines, the bots, the card games' request
encoder) into one shared library, with an extension beside each source. Python imports an
extension before a source of the same name, so a build shadows its sources: a source edited after
it would not run.
So when `arena` is imported, this module compares every source of the group with the digest it
was compiled from (`compiled.sha256`, written by the build). When one differs, when a part of the
build is missing for this interpreter, or when ARENA_PURE_PYTHON is set, a finder at the head of
`sys.meta_path` loads the whole group from its sources. The group loads all compiled or all
plain, never mixed: a compiled module expects the compiled classes of the others.

Nothing here imports more than the standard library, and hashlib only where there is a build to
check: `arena --help` pays little for it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path
from types import ModuleType

PURE_ENV = "ARENA_PURE_PYTHON"
"""Set (to anything but 0) at build time, it skips compiling; at run time, it runs the sources."""
MANIFEST = Path(__file__).with_name("compiled.sha256")
"""`sha256sum` lines: the digest of each compiled module's source, two spaces, its path."""
LIBRARY = "compiled__mypyc"
"""The shared library of the group, beside this module."""
_ROOT = Path(__file__).resolve().parent.parent


class _Sources(MetaPathFinder):
    """Finds the group's modules as their sources, ahead of the extensions that shadow them."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        source = self.sources.get(fullname)
        return None if source is None else spec_from_file_location(fullname, source)


def _extension(stem: Path) -> Path | None:
    """The extension built for this interpreter at `stem` (+ `.cpython-311-x86_64-linux-gnu.so`), if any."""
    for suffix in EXTENSION_SUFFIXES:
        found = stem.with_name(stem.name + suffix)
        if found.exists():
            return found
    return None


def _digest(source: Path) -> str:
    import hashlib  # here, not above: an installation without a build never needs it, nor its start-up

    try:
        return hashlib.sha256(source.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def _check() -> tuple[tuple[str, ...], str]:
    """The modules of the compiled group, and in a line which engine runs and why."""
    try:
        lines = MANIFEST.read_text().splitlines()
    except OSError:
        return (), "plain Python: this installation has no compiled build"
    group: dict[str, Path] = {}
    digests: dict[str, str] = {}
    for line in lines:
        digest, _, path = line.partition("  ")
        name = path.removesuffix(".py").replace("/", ".")
        group[name], digests[name] = _ROOT / path, digest
    modules = tuple(group)
    problem = ""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        problem = f"{PURE_ENV} is set"
    elif _extension(MANIFEST.with_name(LIBRARY)) is None:
        problem = f"the compiled build is not for this interpreter ({sys.implementation.cache_tag})"
    else:
        for name, source in group.items():
            shown = source.relative_to(_ROOT)
            if _extension(source.with_suffix("")) is None:
                problem = f"{shown} has no compiled build for this interpreter"
            elif _digest(source) != digests[name]:
                problem = f"{shown} changed after it was compiled (pip install -e . compiles it again)"
            if problem:
                break
    if problem:
        sys.meta_path.insert(0, _Sources(group))
        return modules, f"plain Python: {problem}"
    return modules, f"compiled with mypyc: {len(modules)} modules"


MODULES, STATUS = _check()
"""The compiled group's modules (empty without a build) and which engine this process runs, in a line."""
COMPILED = STATUS.startswith("compiled")
