"""The cores this process may use: its CPU affinity, capped by its cgroup's CPU limit.

A container given 2 CPUs on a host of 64 sees 64 in its affinity; processes sized by that (a worker
a core, built-in bots' processes) would be 32 times too many, and would fight for the 2 CPUs.
"""

from __future__ import annotations

import math
import os
from pathlib import Path


def usable_cores(cgroup_root: Path = Path("/sys/fs/cgroup")) -> int:
    """The CPUs of this process's affinity, at most its cgroup's CPU quota (rounded up), at least one."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    quota = _cpu_quota(cgroup_root)
    return max(1, min(count, math.ceil(quota))) if quota is not None else max(1, count)


def _cpu_quota(root: Path) -> float | None:
    """CPUs' worth of time the cgroup allows a period (cgroup v2's cpu.max, else v1's CFS quota); None: no limit."""
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    for folder in ("cpu", "cpu,cpuacct"):
        try:
            quota_us = int((root / folder / "cpu.cfs_quota_us").read_text())
            period_us = int((root / folder / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        return quota_us / period_us if quota_us > 0 and period_us > 0 else None
    return None
