"""A node loads FastAPI and uvicorn only where it serves pages itself: they cost every node process and
every test worker about 0.5 s of CPU at start, and `arena serve` runs its web UI in a process of its own."""

from __future__ import annotations

import subprocess
import sys

LOADED = "import sys; print(sorted(m for m in ('fastapi', 'uvicorn') if m in sys.modules))"


def loaded_after(statement: str) -> str:
    done = subprocess.run([sys.executable, "-c", f"{statement}; {LOADED}"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_node_and_its_supervisor_load_no_web_framework() -> None:
    assert loaded_after("import arena.app, arena.workers, arena.cli.serve, arena.web") == "[]"


def test_the_web_ui_loads_it_on_first_use() -> None:
    assert loaded_after("from arena.web.server import start_web") == "['fastapi', 'uvicorn']"
