"""The folders a node keeps in the system's temp directory, and the sweep of those a killed node left behind.

A node makes two: the folder of the Unix socket its hosted bots connect through, and the sandbox's
staging folder. It removes both when it stops, but a node killed with SIGKILL (an orchestrator's
last word, an OOM kill) cannot, and a node restarted again and again would fill the temp directory.
So each folder's name carries the pid of the process that made it, and a starting node removes
the folders of this user whose process is gone.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

SOCKETS = "arena-"
"""The prefix of a node's socket folder."""
STAGING = "arena-sandbox-"
"""The prefix of a node's sandbox staging folder."""
_MADE = re.compile(r"^arena-(?:sandbox-)?(\d+)-[A-Za-z0-9_]+$")
"""A folder `make` named: the prefix, the maker's pid, mkdtemp's random part."""


def make(prefix: str) -> Path:
    """A new private folder (0700) in the temp directory, named for this process."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


def sweep(folder: Path | None = None) -> list[Path]:
    """Remove the folders `make` made in `folder` (the temp directory) for this user whose process has ended.

    Folders of living processes, of other users and of other names are left alone; a pid taken again by
    another process keeps its folder until that process ends too.
    """
    removed: list[Path] = []
    root = folder or Path(tempfile.gettempdir())
    try:
        entries = list(os.scandir(root))
    except OSError as error:
        log.warning("looking for the folders of stopped nodes in %s: %s", root, error)
        return removed
    for entry in entries:
        made = _MADE.match(entry.name)
        if made is None or int(made[1]) == os.getpid():
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue  # gone meanwhile
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or _alive(int(made[1])):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    if removed:
        # Debug: a node's first line stays "serving on", which scripts and supervisors wait for.
        log.debug("removed %d folders that stopped nodes left in %s", len(removed), root)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a process of another user has the pid now
    return True
