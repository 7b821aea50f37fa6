"""Compile the engine's hot modules to C with mypyc where the build can, and install plain Python where it cannot.

`pip install .` and `pip install -e .` both come here (pyproject.toml holds everything else). The
modules in `COMPILED` are type-checked and compiled by mypyc into one shared library,
`arena/compiled__mypyc.*.so`, with a small extension beside each source (`cards.py` gets
`cards.cpython-311-*.so`, which Python imports first). Beside them goes `arena/compiled.sha256`,
the SHA-256 of each source as compiled: `arena.compiled` checks it at import and runs the plain
Python sources instead when one has changed since, when a part is missing, or when
ARENA_PURE_PYTHON is set. The same variable set at build time skips compiling.

When mypyc, a C compiler or the Python headers are missing, or compiling fails, the build says so
and installs the plain Python package: it runs the same moves, only slower.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

COMPILED = (
    "arena/games/base.py",
    "arena/games/cards.py",
    "arena/bots/base.py",
    "arena/bots/random_bot.py",
    "arena/bots/heuristic.py",
    "arena/bots/montecarlo.py",
    "arena/games/cards_kit.py",
    "arena/protowire.py",
)
"""The modules compiled together, the card engines and the built-in bots' policies and search, and
the card games' request encoder with the wire format it writes (a node encodes every move's
request): calls among them are C calls. (The local match loop gains too little to join them.)"""
LIBRARY = "arena.compiled"
"""The shared library's module name, `arena.compiled__mypyc`: inside the package, so that whoever
imports `arena` from its folder alone (the hosted bots' sandbox) finds it."""
MANIFEST = "arena/compiled.sha256"
PURE_ENV = "ARENA_PURE_PYTHON"
ROOT = Path(__file__).resolve().parent


def manifest_text() -> str:
    """`sha256sum`'s format: a source's digest, two spaces and its path, one a line."""
    return "".join(f"{hashlib.sha256((ROOT / path).read_bytes()).hexdigest()}  {path}\n" for path in COMPILED)


class CompileIfPossible(build_ext):
    """build_ext that makes the mypyc extensions when the command is prepared, not when setup.py is
    read (pip reads it three times for one install), and falls back to plain Python when it cannot."""

    def finalize_options(self) -> None:
        self.distribution.ext_modules = self._extensions()
        super().finalize_options()

    def _extensions(self) -> list[Extension]:
        if os.environ.get(PURE_ENV, "") not in ("", "0"):
            self.announce(f"arena: {PURE_ENV} is set: installing plain Python, not compiling", level=3)
            return []
        try:
            from mypyc.build import mypycify

            extensions = list(mypycify(list(COMPILED), group_name=LIBRARY, opt_level="3"))
        except (Exception, SystemExit) as problem:  # mypyc exits on a type error
            self._not_compiled(problem)
            return []
        for extension in extensions:
            # Each float operation rounded on its own, as Python does it: no fused multiply-adds,
            # so that the search weighs its moves to the same bits compiled or not.
            extension.extra_compile_args = [*extension.extra_compile_args, "-ffp-contract=off"]
        return extensions

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as problem:  # no C compiler, no Python headers, a compiler error
            self._remove_outputs()
            self._not_compiled(problem)
            self.distribution.ext_modules = self.extensions = []
            return
        self._write_manifest()

    def _not_compiled(self, problem: BaseException) -> None:
        told = (str(problem).splitlines() or [""])[0]
        print(
            f"warning: arena: the engine was not compiled ({type(problem).__name__}: {told[:300]}); "
            "installing plain Python, which plays the same moves more slowly",
            file=sys.stderr,
        )

    def _manifests(self) -> list[Path]:
        places = [Path(self.build_lib) / MANIFEST]
        if self.inplace or getattr(self, "editable_mode", False):
            places.append(ROOT / MANIFEST)
        return places

    def _write_manifest(self) -> None:
        text = manifest_text()
        for place in self._manifests():
            place.parent.mkdir(parents=True, exist_ok=True)
            place.write_text(text)

    def _remove_outputs(self) -> None:
        """A half-built group must not ship: the modules load all compiled or all plain."""
        for output in [*self.get_outputs(), *(str(place) for place in self._manifests())]:
            Path(output).unlink(missing_ok=True)

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        if self.extensions:
            outputs.append(str(Path(self.build_lib) / MANIFEST))
        return outputs


# A placeholder, so that setuptools runs build_ext (and tags the wheel for this platform); the
# command puts the real extensions in its place.
setup(ext_modules=[Extension(f"{LIBRARY}__mypyc", sources=[])], cmdclass={"build_ext": CompileIfPossible})
