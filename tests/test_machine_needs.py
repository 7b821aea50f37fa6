"""In CI a test that cannot run here fails the run in one line, before any test, instead of being skipped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def path_without(tool: str, folder: Path) -> str:
    """PATH with every program of the current one but `tool`, as links in `folder`."""
    folder.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        for program in Path(directory).glob("*") if Path(directory).is_dir() else ():
            link = folder / program.name
            if program.name != tool and not link.exists():
                link.symlink_to(program)
    return str(folder)


def run(tmp_path: Path, ci: bool, workers: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path_without("bwrap", tmp_path / "bin")}
    env.pop("CI", None)
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, "tests/hosted/test_box.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize("workers", ["0", "2"])  # one process; xdist workers, which hand the line on
def test_in_ci_a_missing_sandbox_stops_the_run_in_one_line(tmp_path: Path, workers: str) -> None:
    done = run(tmp_path, ci=True, workers=workers)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "CI=true" in line]
    assert done.returncode == 3, done.stdout[-2000:]
    reason = "CI=true: cannot run the selected tests: bubblewrap (Debian package bubblewrap) and root: the hosted "
    assert len(lines) == 1 and reason + "bots' sandbox: not installed" in lines[0], lines
    assert " passed" not in done.stdout and " failed" not in done.stdout, "no test ran"


def test_elsewhere_it_is_skipped_with_the_reason(tmp_path: Path) -> None:
    done = run(tmp_path, ci=False)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "skipped" in done.stdout and "failed" not in done.stdout
