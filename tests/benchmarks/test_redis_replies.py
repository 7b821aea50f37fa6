"""The node reads Redis's replies with hiredis (a dependency), and benchmarks/redis_replies.py prints what its
docstring says for both parsers."""

from __future__ import annotations

import re

from redis.asyncio.connection import DefaultParser
from redis.utils import HIREDIS_AVAILABLE

from tests.benchmarks.scripts import run_script


def test_redis_py_parses_with_hiredis() -> None:
    assert HIREDIS_AVAILABLE, "hiredis is a dependency: pip install -e . installs it"
    assert DefaultParser.__name__ == "_AsyncHiredisParser"


def test_the_benchmark_prints_both_parsers_for_every_read() -> None:
    printed = run_script("redis_replies", "--reads", "64", "--concurrent", "4", "--repeats", "1")
    for what in ("events", "summaries", "leaderboard", "value"):
        line = rf"^{what}: python \d+ µs a read, hiredis \d+ µs \(\d+\.\dx\)$"
        assert re.search(line, printed, re.M), printed
