"""A process the node starts dies with it, however the node dies (kill -9 included)."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process with SIGKILL when its parent, `parent`, dies; exit at once if
    it is dead already. (The signal follows the parent's thread that started this process: start it
    from the thread that lives as long as the parent's work, its event loop's.)"""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the signal was asked for
        os._exit(1)
