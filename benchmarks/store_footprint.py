"""Redis memory per stored match: replay records as JSON text (before) and as stored now.

    python benchmarks/store_footprint.py [--played 1000] [--stored 100000] [--bots 40] [--clock spread] [--rated]

Plays `--played` real 4-player friday13 matches in this process (the engine's MatchRunner,
heuristic and random bots, four seatings), then for each stored form starts a fresh embedded
Redis (`open_redis`, the server's own, AOF on) and stores `--stored` matches through the store's
own write path: `Store.match_started` then `Store.match_ended`, one MULTI/EXEC each, as a node
does; with `--rated` each match's result is then applied to the ratings as a node does (rating
hashes, leaderboard, history streams, the results list), so that their memory is counted too.
With `--clock fast|spread` each record carries a clock (`with_clock`) as connected bots' matches
do. Match k stores the replay of played match k mod `--played` under its own id, with four of
`--bots` bot names as seats (so the per-bot indexes grow as on a real arena). Reports Redis's
`used_memory` per stored match (its growth over the run divided by the matches), the stored
replay's mean size, and the memory for all of them. "json" is the form stored before (the
record's compact JSON text, still read back); "now" is what `arena/store/replays.py` stores
(the seed and action ids, re-played on read). Connections are opened before the first reading
(each costs Redis about 20 KB, which is not the matches'). Every 1,000th match is read back through `Store.get_match` and must equal the record played.

Then, on the "now" form's Redis, the retention policy runs (`arena/store/archive.py`'s `Archiver`,
as `arena serve --retain-days` does) with a cutoff that archives the oldest `--archived` share of
the matches: Redis's memory is read again, with the archive's bytes per match on disk, and
`Store.get_match` is timed for a match still in Redis and for an archived one, alternating
(`--reads` of each), so that both see the same machine load.
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
from arena.games import Termination, make_game
from arena.match.runner import MatchRunner
from arena.match.seats import BotSeat
from arena.ratings import ResultRecord
from arena.store import Store, embedded, replays
from arena.store.archive import Archive, Archiver
from arena.store.codec import compact_json
from arena.store.ratings import RatingStore
from arena.store.store import MatchRecord

FORMS: dict[str, Callable[[Any], bytes]] = {
    "json": lambda record: compact_json(record).encode(),
    "now": replays.encode_replay,
}
BATCH = 32
"""Matches stored concurrently (each its own two transactions), over as many connections."""


CLOCKS = ("none", "fast", "spread")


def with_clock(record: dict[str, Any], kind: str, number: int) -> dict[str, Any]:
    """The record with the clock a node's runner writes when all four seats are connected bots:
    "fast" bots answer in 0-3 ms, "spread" ones in 0-900 ms with one move in 37 over the 1 s
    limit (their banks run down). In-process bots are not timed, so their records have none."""
    if kind == "none":
        return record
    draw = random.Random(number)
    moves = sum(len(entry["moves"]) for entry in record["rounds"])
    banks = [10_000] * 4
    timing: list[list[int] | None] = []
    for move in range(moves):
        if kind == "fast":
            think = draw.randrange(0, 4)
        else:
            think = draw.randrange(0, 900) if move % 37 else 1_000 + draw.randrange(0, 400)
        banks[move % 4] = max(0, banks[move % 4] - max(0, think - 1_000))
        timing.append([think, banks[move % 4]])
    return {**record, "clock": {"per_move_ms": 1000, "bank_ms": 10000, "moves": timing, "strikes": []}}


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


async def store_all(
    form: str,
    records: list[dict[str, Any]],
    stored: int,
    bots: list[str],
    archived: float = 0.0,
    reads: int = 0,
    rated: bool = False,
) -> dict[str, float]:
    picker = random.Random(13)
    # The store's own write path, with this form of the replay.
    with tempfile.TemporaryDirectory() as data_dir, patch("arena.store.store.encode_replay", FORMS[form]):
        async with embedded.open_redis(None, Path(data_dir)) as redis:
            store = Store(redis)
            ratings = RatingStore(redis)
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
                record.termination = Termination(played["termination"])
                await store.match_ended(record, played)
                if rated:
                    # As a node rates each match it ends: ratings, leaderboard, history, the result.
                    result = ResultRecord(
                        record.match_id,
                        tuple(record.seats),
                        tuple(record.scores),
                        tuple(record.ranks),
                        record.termination,
                        finished_at=record.ended_ms / 1000,
                    )
                    await ratings.apply("friday13", result)

            for first in range(0, stored, BATCH):
                await asyncio.gather(*(one(number) for number in range(first, min(first + BATCH, stored))))
            seconds = time.perf_counter() - started
            after = await used_memory(redis)
            for number in range(0, stored, 1000):
                found = await store.get_match(f"m{number + 1:06d}")
                assert found is not None and found[1] == records[number % len(records)], number
            retained = await retain(store, Path(data_dir) / "archive", records, stored, archived, reads, now)
            if retained:
                retained["per_match_retained"] = (retained.pop("used") - before) / stored
    sizes = [len(FORMS[form](record)) for record in records]
    return {
        "per_match": (after - before) / stored,
        "total": after - before,
        "replay": statistics.mean(sizes),
        "s": seconds,
        **retained,
    }


async def retain(
    store: Store, root: Path, records: list[dict[str, Any]], stored: int, share: float, reads: int, now: int
) -> dict[str, float]:
    """Archive the oldest `share` of the matches; Redis memory, archive bytes and read latencies after."""
    if share <= 0:
        return {}
    archive = Archive(root)
    store.archive = archive
    archiver = Archiver(store.redis, archive)
    token = await archiver.lock()
    assert token is not None
    kept_from = int(stored * share)
    started = time.perf_counter()
    moved = await archiver.run(now + kept_from * 50, token)
    seconds = time.perf_counter() - started
    await archiver.unlock(token)
    assert moved.archived == kept_from, moved
    if moved.results:
        print(f"  rating results archived with the matches: {moved.results:,}")
    used = await used_memory(store.redis)
    on_disk = sum(path.stat().st_size for path in root.rglob("*.jsonl.gz"))
    picker = random.Random(7)
    times: dict[str, list[float]] = {"redis": [], "archive": []}
    for _ in range(reads):
        for where, number in (("redis", picker.randrange(kept_from, stored)), ("archive", picker.randrange(kept_from))):
            began = time.perf_counter()
            found = await store.get_match(f"m{number + 1:06d}")
            times[where].append(time.perf_counter() - began)
            assert found is not None and found[1] == records[number % len(records)], number
    return {
        "used": used,
        "archived": moved.archived,
        "archive_s": seconds,
        "disk_per_match": on_disk / moved.archived,
        "read_redis_ms": statistics.median(times["redis"]) * 1000,
        "read_archive_ms": statistics.median(times["archive"]) * 1000,
        "read_redis_p99_ms": statistics.quantiles(times["redis"], n=100)[98] * 1000,
        "read_archive_p99_ms": statistics.quantiles(times["archive"], n=100)[98] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--played", type=int, default=1000, help="real matches played (default 1000)")
    parser.add_argument("--stored", type=int, default=100_000, help="matches stored per form (default 100000)")
    parser.add_argument("--bots", type=int, default=40, help="bot names the seats are drawn from (default 40)")
    parser.add_argument("--forms", default="json,now", help="stored forms to measure, in this order")
    parser.add_argument(
        "--archived", type=float, default=0.9, help="share of the 'now' form's matches archived after (default 0.9)"
    )
    parser.add_argument("--reads", type=int, default=500, help="timed reads of each kind after archiving (default 500)")
    parser.add_argument(
        "--rated", action="store_true", help="rate every match as a node does (results, history, ratings)"
    )
    parser.add_argument(
        "--clock", choices=CLOCKS, default="none", help="the clock each record carries (see with_clock; default none)"
    )
    args = parser.parse_args()
    print(describe())
    started = time.perf_counter()
    records = [with_clock(record, args.clock, number) for number, record in enumerate(play(args.played))]
    print(f"clock in each record: {args.clock}; rated: {args.rated}")
    print(f"played {len(records)} friday13 4-player matches in {time.perf_counter() - started:.1f} s")
    bots = [f"bot-{number:02d}" for number in range(args.bots)]
    print(f"{'form':<10} {'replay B':>9} {'Redis B/match':>14} {f'Redis MB for {args.stored:,}':>20} {'store s':>8}")
    for form in args.forms.split(","):
        share = args.archived if form == "now" else 0.0
        got = asyncio.run(store_all(form, records, args.stored, bots, share, args.reads, args.rated))
        print(
            f"{form:<10} {got['replay']:>9.0f} {got['per_match']:>14.0f} {got['total'] / 1e6:>20.1f} {got['s']:>8.1f}"
        )
        if "archived" in got:
            per_match = got["per_match_retained"]
            print(
                f"  retention, {got['archived']:,.0f} of {args.stored:,} archived in {got['archive_s']:.1f} s: "
                f"Redis {per_match:.0f} B/match, {per_match * args.stored / 1e6:.1f} MB for {args.stored:,} "
                f"(without: {got['total'] / 1e6:.1f} MB); archive {got['disk_per_match']:.0f} B/match on disk"
            )
            print(
                f"  Store.get_match, {args.reads} each, alternating: in Redis p50 {got['read_redis_ms']:.2f} ms "
                f"(p99 {got['read_redis_p99_ms']:.2f}), archived p50 {got['read_archive_ms']:.2f} ms "
                f"(p99 {got['read_archive_p99_ms']:.2f})"
            )


if __name__ == "__main__":
    main()
