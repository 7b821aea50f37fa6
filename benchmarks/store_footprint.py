"""Redis memory per stored match: replay records as JSON text (before) and as stored now.

    python benchmarks/store_footprint.py [--played 1000] [--stored 100000] [--bots 40]

Plays `--played` real 4-player friday13 matches in this process (the engine's MatchRunner,
heuristic and random bots, four seatings), then for each stored form starts a fresh embedded
Redis (`open_redis`, the server's own, AOF on) and stores `--stored` matches through the store's
own write path: `Store.match_started` then `Store.match_ended`, one MULTI/EXEC each, as a node
does. Match k stores the replay of played match k mod `--played` under its own id, with four of
`--bots` bot names as seats (so the per-bot indexes grow as on a real arena). Reports Redis's
`used_memory` per stored match (its growth over the run divided by the matches), the stored
replay's mean size, and the memory for all of them. "json" is the form stored before (the
record's compact JSON text, still read back); "now" is what `arena/store/replays.py` stores
(the seed and action ids, re-played on read). Connections are opened before the first reading
(each costs Redis about 20 KB, which is not the matches'). Every 1,000th match is read back through `Store.get_match` and must equal the record played.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from unittest.mock import patch

from machine import describe

from arena.bots import make_bot
from arena.games import make_game
from arena.match.runner import MatchRunner
from arena.match.seats import BotSeat
from arena.store import Store, embedded, replays
from arena.store.codec import compact_json
from arena.store.store import MatchRecord

FORMS: dict[str, Callable[[Any], bytes]] = {
    "json": lambda record: compact_json(record).encode(),
    "now": replays.encode_replay,
}
BATCH = 32
"""Matches stored concurrently (each its own two transactions), over as many connections."""


def play(matches: int) -> list[dict[str, Any]]:
    """Replay records of real matches, played by the runner a node uses, with in-process bots."""
    game = make_game("friday13", players=4)
    bots = ("heuristic", "random", "random", "heuristic")

    async def one(number: int) -> dict[str, Any]:
        seats = [
            BotSeat(name, partial(make_bot, name, seed=number * 16 + seat))
            for seat, name in enumerate(bots[number % 4 :] + bots[: number % 4])
        ]
        seed = hashlib.sha256(f"store-footprint-{number}".encode()).digest()[:16]
        return (await MatchRunner(game, seats, seed, match_id=f"m{number}").run()).record

    async def every() -> list[dict[str, Any]]:
        return [await one(number) for number in range(matches)]

    return asyncio.run(every())


async def used_memory(redis: Any) -> int:
    return int((await redis.info("memory"))["used_memory"])


async def store_all(form: str, records: list[dict[str, Any]], stored: int, bots: list[str]) -> dict[str, float]:
    picker = random.Random(13)
    # The store's own write path, with this form of the replay.
    with tempfile.TemporaryDirectory() as data_dir, patch("arena.store.store.encode_replay", FORMS[form]):
        async with embedded.open_redis(None, Path(data_dir)) as redis:
            store = Store(redis)
            # Every connection the run uses is open before the first reading (each costs Redis ~20 KB).
            await asyncio.gather(*(redis.ping() for _ in range(BATCH)))
            await redis.set("arena:footprint:warm-up", 1)
            before = await used_memory(redis)
            started = time.perf_counter()
            now = 1_700_000_000_000

            async def one(number: int) -> None:
                played = records[number % len(records)]
                record = MatchRecord(
                    f"m{number + 1:06d}", "friday13", played["params"], picker.sample(bots, 4), now + number * 50
                )
                await store.match_started(record)
                record.scores, record.ranks = list(played["scores"]), list(played["ranks"])
                record.ended_ms = record.started_ms + 9_000
                await store.match_ended(record, played)

            for first in range(0, stored, BATCH):
                await asyncio.gather(*(one(number) for number in range(first, min(first + BATCH, stored))))
            seconds = time.perf_counter() - started
            after = await used_memory(redis)
            for number in range(0, stored, 1000):
                found = await store.get_match(f"m{number + 1:06d}")
                assert found is not None and found[1] == records[number % len(records)], number
    sizes = [len(FORMS[form](record)) for record in records]
    return {
        "per_match": (after - before) / stored,
        "total": after - before,
        "replay": statistics.mean(sizes),
        "s": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--played", type=int, default=1000, help="real matches played (default 1000)")
    parser.add_argument("--stored", type=int, default=100_000, help="matches stored per form (default 100000)")
    parser.add_argument("--bots", type=int, default=40, help="bot names the seats are drawn from (default 40)")
    parser.add_argument("--forms", default="json,now", help="stored forms to measure, in this order")
    args = parser.parse_args()
    print(describe())
    started = time.perf_counter()
    records = play(args.played)
    print(f"played {len(records)} friday13 4-player matches in {time.perf_counter() - started:.1f} s")
    bots = [f"bot-{number:02d}" for number in range(args.bots)]
    print(f"{'form':<10} {'replay B':>9} {'Redis B/match':>14} {f'Redis MB for {args.stored:,}':>20} {'store s':>8}")
    for form in args.forms.split(","):
        got = asyncio.run(store_all(form, records, args.stored, bots))
        print(
            f"{form:<10} {got['replay']:>9.0f} {got['per_match']:>14.0f} {got['total'] / 1e6:>20.1f} {got['s']:>8.1f}"
        )


if __name__ == "__main__":
    main()
