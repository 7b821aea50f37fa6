"""The packages of `arena` import one another in one direction only, lazy imports included.

A package may import from packages in lower layers and from its own. docs/ARCHITECTURE.md's
diagram draws the same layers; a new import that points up, or a new package not placed in a
layer, fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "arena"

LAYERS: list[set[str]] = [
    {"compiled", "stats", "metrics", "logs", "scratch"},
    {"v1", "protowire"},
    {"games"},
    {"bots", "ratings"},
    {"match", "standings", "matchmaking", "envs"},
    {"tournaments"},
    {"store", "wire"},
    {"hosted", "sdk"},
    {"node"},
    {"server", "web"},
    {"app"},
    {"workers"},
    {"client"},
    {"cli"},
]
LAYER = {name: number for number, names in enumerate(LAYERS) for name in names}


def package_of(path: Path) -> str:
    """`arena/node/work.py` is in `node`, `arena/stats.py` in `stats`."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return parts[0]


def imports(path: Path) -> list[tuple[str, int]]:
    """The arena packages a module imports, at any depth in it, with their line numbers."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            if node.module == "arena":
                names = [f"arena.{alias.name}" for alias in node.names]
        else:
            continue
        found += [(name.split(".")[1], node.lineno) for name in names if name.startswith("arena.")]
    return found


MODULES = sorted(path for path in ROOT.rglob("*.py") if package_of(path) not in {"__init__", "__main__"})


def test_every_package_has_a_layer() -> None:
    packages = {package_of(path) for path in MODULES}
    assert packages - LAYER.keys() == set(), "place the new package in LAYERS (and docs/ARCHITECTURE.md's diagram)"


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_imports_point_down(path: Path) -> None:
    own = package_of(path)
    upward = [
        f"{path.relative_to(ROOT.parent)}:{line} imports arena.{target}"
        for target, line in imports(path)
        if target != own and LAYER.get(target, 0) >= LAYER[own]
    ]
    assert upward == []


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text("def later():\n    from arena.server import service\n\nimport arena.cli\n")
    assert sorted(imports(module)) == [("cli", 4), ("server", 2)]
