"""Chaos drills: what becomes of rated matches when Redis, a node or the bots' node fails mid-run.

    python benchmarks/chaos.py [--matches 16] [--only NAME ...] [--load-matches 500] [--load-sessions 1000] [-v]

Each scenario of tests/chaos/drills.py starts its own processes on loopback: a redis-server with
AOF (fsync always), `arena serve` nodes on it (ARENA_CLAIM_IDLE_MS=1500), random SDK bots
registered through the API, and queues rated four-player friday13 matches on the work stream;
after a quarter of them have results it strikes (kill -9 Redis for 5 s or 30 s and restart it
on its AOF, kill -9 a node, SIGTERM a node), then waits for every result. The load scenario runs
one node with every match at once and no fault. The table counts the matches finished
(normally or by forfeit), aborted, lost (no result 30 s after the fault), the bots rated twice
(or ratings that differ from a recompute of the stored results), results never rated, replays
that do not re-play under the engine; recovery is the seconds from the fault (from Redis being
back) to the first and the last result of the matches the struck node(s) held, takeover the
seconds until a living node held all of them. Goal: 0 aborted, lost, rated twice, unrated and
bad replays; recovery within the claim delay + 10 s = 11.5 s; takeover after a SIGTERM within
1 s. Everything shares this machine's cores: Redis, the nodes and the bot processes.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the drills live with the tests that run them

from machine import describe

from tests.chaos import drills

NAMES = [*drills.SCENARIOS, "load"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=16, help="matches of each fault drill (default 16)")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=NAMES,
        default=NAMES,
        metavar="NAME",
        help=f"run only these scenarios: {', '.join(NAMES)}",
    )
    parser.add_argument("--load-matches", type=int, default=500, help="matches at once in the load drill (500)")
    parser.add_argument("--load-sessions", type=int, default=1000, help="bot sessions of the load drill (1000)")
    parser.add_argument("-v", "--verbose", action="store_true", help="say what each drill does as it goes")
    options = parser.parse_args()
    logging.basicConfig(level=logging.INFO if options.verbose else logging.WARNING, format="%(message)s")
    print(f"machine: {describe()}", flush=True)
    rows = []
    for name in options.only:
        if name == "load":
            row = asyncio.run(drills.load(options.load_matches, options.load_sessions))
        else:
            row = asyncio.run(drills.SCENARIOS[name](options.matches))
        rows.append(row)
        print(row.report(), flush=True)
    print()
    print(drills.table(rows))
    missed = sum(1 for row in rows if row.failures())
    print(f"\n{len(rows) - missed} of {len(rows)} scenarios met every goal")


if __name__ == "__main__":
    main()
