"""The cores a process may use (`arena serve`'s default number of workers), a container's CPU limit counted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.node.builtin_pool import PoolConfig
from arena.node.cpus import usable_cores
from arena.workers import builtin_share

AFFINITY = len(os.sched_getaffinity(0))


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, AFFINITY),  # no cgroup files readable: the affinity alone
        ({"cpu.max": "max 100000\n"}, AFFINITY),  # cgroup v2, no limit
        ({"cpu.max": "100000 100000\n"}, 1),  # v2: one CPU
        ({"cpu.max": "50000 100000\n"}, 1),  # half a CPU still runs one worker
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, AFFINITY),  # v1, no limit
        ({"cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1),  # v1: one CPU
        ({"cpu,cpuacct/cpu.cfs_quota_us": "150000\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, min(AFFINITY, 2)),
        ({"cpu.max": "garbage\n"}, AFFINITY),  # unreadable: no limit assumed
        ({"cpu.max": "6400000 100000\n"}, AFFINITY),  # a limit above the cores this process may use
    ],
)
def test_the_default_is_the_affinity_capped_by_the_cgroups_cpu_limit(
    tmp_path: Path, files: dict[str, str], expected: int
) -> None:
    assert usable_cores(write(tmp_path, files)) == expected


@pytest.mark.parametrize(("cores", "workers", "each"), [(2, 1, 1), (2, 2, 1), (16, 1, 15), (16, 2, 8), (16, 16, 1)])
def test_a_workers_built_in_pool_is_its_share_of_the_cores_less_one(cores: int, workers: int, each: int) -> None:
    assert builtin_share(PoolConfig(), workers, cores).size() == each
    assert builtin_share(PoolConfig(workers=3), workers, cores).size() == 3  # a number given is each worker's
