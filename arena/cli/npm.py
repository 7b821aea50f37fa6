"""A folder's Node packages installed (`npm ci`), one install at a time per folder.

`npm ci` first removes node_modules, so a second install started meanwhile (the demo beside a test
that uploads the sample Node bot, two test workers) fails with ENOTEMPTY or leaves the first one's
bot without its packages. The lock is an flock on a file in the temp directory, named by the
folder: never inside it, since the folder is uploaded as a hosted bot's package.
"""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
import tempfile
from pathlib import Path

TIMEOUT = 600.0
"""Seconds an install may take (a slow registry) before it counts as failed."""


def installed(directory: Path) -> bool:
    """Whether `directory`'s packages are there and no older than its lock file."""
    marker = directory / "node_modules" / ".package-lock.json"
    lock = directory / "package-lock.json"
    return marker.exists() and (not lock.exists() or marker.stat().st_mtime >= lock.stat().st_mtime)


def npm_ci(directory: Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str] | None:
    """Run `npm ci` in `directory` unless its packages are installed; None when nothing was run.

    Raises subprocess.TimeoutExpired past `timeout`; a failed install is the returned process's code."""
    folder = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"arena-npm-ci-{folder}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if installed(directory):
            return None
        return subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
