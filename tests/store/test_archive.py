"""Retention: old finished matches move from Redis to the disk archive, crash-safely, and still read."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis as redis_sync
import yaml
from redis.asyncio import Redis
from redis.exceptions import LockError
from starlette.exceptions import HTTPException

from arena.games import Termination
from arena.node.retention import DAY_MS, Retention, RetentionConfig
from arena.ratings import ResultRecord
from arena.store import MatchRecord, Store, keys
from arena.store.archive import MEMBER_LINES, Archive, Archiver, ArchiveUnreadable, Location, day_file
from arena.store.codec import text
from arena.store.ratings import RatingStore, RatingStoreError
from arena.store.replays import encode_replay
from arena.store.work import MatchOrder, WorkQueue
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from arena.web.data import WebData
from tests.cli.test_environment import arena
from tests.server.conftest import ADMIN, bearer, start_arena
from tests.store.test_replays import played

NOW = 1_800_000_000_000
OLD = NOW - 40 * DAY_MS


async def store_match(
    store: Store, match_id: str, started_ms: int, replay: dict[str, Any] | None, *, ended: bool = True, **extra: Any
) -> MatchRecord:
    """A match listed at its start and (unless not `ended`) stored at its end, as the match host does it."""
    seats = list(replay["seats"]) if replay else ["ann", "bob"]
    game = replay["game"] if replay else "friday13"
    record = MatchRecord(match_id, game, {"players": len(seats)}, seats, started_ms, **extra)
    await store.match_started(record)
    if ended:
        record.termination = Termination.NORMAL if replay else Termination.ABORTED
        record.scores, record.ranks, record.ended_ms = [1] * len(seats), [1] * len(seats), started_ms + 9_000
        await store.match_ended(record, replay)
    return record


@pytest.mark.asyncio
async def test_old_finished_matches_leave_redis_for_the_archive_and_still_read(redis: Redis, tmp_path: Path) -> None:
    archive = Archive(tmp_path / "archive")
    store = Store(redis, archive=archive)
    friday = await played("friday13", ("heuristic", "random", "random", "heuristic"), 1, players=4)
    board = await played("board13", ("random", "random"), 2)
    await store_match(store, "m000001", OLD, friday, tournament_id="cup")
    await store_match(store, "m000002", OLD + 1, board)
    await store_match(store, "m000003", OLD + 2, None)  # aborted: no replay
    await store_match(store, "m000004", OLD + 3, friday, ended=False)  # still running: stays
    await store_match(store, "m000005", NOW - DAY_MS, friday)  # younger than the retention age: stays
    await redis.hset(keys.WORK_RESULTS, "m000001", json.dumps({"match_id": "m000001"}))

    moved = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)

    assert moved is not None and (moved.archived, moved.kept, moved.recovered) == (3, 1, 0)
    for match_id in ("m000001", "m000002", "m000003"):
        assert not await redis.exists(keys.match(match_id))
        assert await redis.zscore(keys.MATCHES, match_id) is None
    assert not await redis.zscore(keys.matches_of_tournament("cup"), "m000001")
    assert not await redis.zscore(keys.matches_of_bot("heuristic"), "m000001")
    assert not await redis.hexists(keys.WORK_RESULTS, "m000001")
    assert await redis.exists(keys.match("m000004"), keys.match("m000005")) == 2
    assert not await redis.exists(keys.ARCHIVE_PENDING)
    assert await redis.get(keys.ARCHIVE_HORIZON) == str(NOW - 30 * DAY_MS).encode()
    # Read by id through the index, as every reader does: the very records stored.
    found = await store.get_match("m000001")
    assert found is not None and found[1] == friday and found[0].tournament_id == "cup"
    found = await store.get_match("m000002")
    assert found is not None and found[1] == board and found[0].game == "board13"
    found = await store.get_match("m000003")
    assert found is not None and found[1] is None and found[0].termination == Termination.ABORTED
    assert await store.get_match("m999999") is None
    # The lists cover what Redis holds: the last 30 days, and the running match.
    assert [record.match_id for record in await store.list_matches(bot="heuristic")] == ["m000005", "m000004"]
    # One file per game and day; each match once in it, with its work result.
    lines = list(archive.matches(day_file("friday13", OLD)))
    assert [line.match_id for line in lines] == ["m000001", "m000003"]
    assert lines[0].result == '{"match_id":"m000001"}' and lines[1].result is None
    assert [line.match_id for line in archive.matches(day_file("board13", OLD))] == ["m000002"]
    # A second run finds nothing more to move.
    again = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)
    assert again is not None and (again.archived, again.kept) == (0, 1)


@pytest.mark.asyncio
async def test_a_large_move_writes_small_members_and_every_match_reads_from_its_own(
    redis: Redis, tmp_path: Path
) -> None:
    archive = Archive(tmp_path)
    store = Store(redis, archive=archive)
    count = 2 * MEMBER_LINES + 5
    for number in range(count):
        await store_match(store, f"m{number:06d}", OLD + number, None)
    moved = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)
    assert moved is not None and moved.archived == count
    offsets = set()
    for number in range(count):
        where = await redis.hget(keys.archive_index(f"m{number:06d}"), f"m{number:06d}")
        assert where is not None
        offsets.add(Location.parse(text(where)).offset)
        found = await store.get_match(f"m{number:06d}")
        assert found is not None and found[0].started_ms == OLD + number
    assert len(offsets) == 3
    assert len(list(archive.matches(day_file("friday13", OLD)))) == count


@pytest.mark.asyncio
async def test_retention_off_or_another_nodes_lock_moves_nothing(redis: Redis, tmp_path: Path) -> None:
    archive = Archive(tmp_path)
    await store_match(Store(redis), "m000001", OLD, None)
    assert await Retention(redis, archive, RetentionConfig(days=0)).run_once(NOW) is None
    other = await Archiver(redis, archive).lock()
    assert other is not None
    assert await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW) is None
    assert await redis.exists(keys.match("m000001"))
    await Archiver(redis, archive).unlock(other)
    moved = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)
    assert moved is not None and moved.archived == 1
    assert not await redis.exists(keys.ARCHIVE_LOCK)


CRASHING_MOVE = """
import asyncio, os, signal, sys
from pathlib import Path
from redis.asyncio import Redis
from arena.store.archive import Archive, Archiver

async def main():
    redis = Redis.from_url(sys.argv[1])
    archiver = Archiver(redis, Archive(Path(sys.argv[2])))
    token = await archiver.lock()
    # Killed once the lines are written and fsync'ed, before Redis changes: the worst moment.
    await archiver.run(int(sys.argv[3]), token, after_write=lambda: os.kill(os.getpid(), signal.SIGKILL))

asyncio.run(main())
"""


@pytest.mark.asyncio
async def test_a_move_killed_between_the_disk_and_redis_is_undone_at_the_next_run(
    redis: Redis, redis_url: str, tmp_path: Path
) -> None:
    archive = Archive(tmp_path)
    store = Store(redis, archive=archive)
    friday = await played("friday13", ("random", "random", "random", "random"), 3, players=4)
    await store_match(store, "m000001", OLD, friday)
    await store_match(store, "m000002", OLD + 1, friday)
    cutoff = NOW - 30 * DAY_MS
    crashed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CRASHING_MOVE), redis_url, str(tmp_path), str(cutoff)],
        capture_output=True,
        timeout=60,
    )
    assert crashed.returncode == -9, crashed.stderr.decode()
    # The lines reached the disk; Redis still holds both matches, and says what to cut off.
    file = day_file("friday13", OLD)
    assert [line.match_id for line in archive.matches(file)] == ["m000001", "m000002"]
    assert await redis.get(keys.ARCHIVE_PENDING) == json.dumps({file: 0}, separators=(",", ":")).encode()
    found = await store.get_match("m000001")
    assert found is not None and found[1] == friday
    await redis.delete(keys.ARCHIVE_LOCK)  # as its expiry would, 60 s after the crash

    moved = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)

    assert moved is not None and (moved.recovered, moved.archived) == (1, 2)
    assert [line.match_id for line in archive.matches(file)] == ["m000001", "m000002"]  # once each
    assert not await redis.exists(keys.match("m000001"), keys.match("m000002"), keys.ARCHIVE_PENDING)
    for match_id in ("m000001", "m000002"):
        found = await store.get_match(match_id)
        assert found is not None and found[1] == friday


@pytest.mark.asyncio
async def test_a_move_that_lost_its_lock_changes_no_redis_key_and_is_cut_off_later(
    redis: Redis, redis_url: str, tmp_path: Path
) -> None:
    archive = Archive(tmp_path)
    await store_match(Store(redis), "m000001", OLD, None)
    archiver = Archiver(redis, archive)
    token = await archiver.lock()
    assert token is not None
    other_node = redis_sync.Redis.from_url(redis_url)

    def lock_taken_over() -> None:  # as when this node stalled past the lock's expiry and another took it
        other_node.set(keys.ARCHIVE_LOCK, "another-node")

    with pytest.raises(LockError, match="another node archives now"):
        await archiver.run(NOW, token, after_write=lock_taken_over)
    other_node.close()
    assert await redis.exists(keys.match("m000001"))
    assert await redis.zscore(keys.MATCHES, "m000001") is not None
    assert await redis.exists(keys.ARCHIVE_PENDING)
    await redis.delete(keys.ARCHIVE_LOCK)
    moved = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)
    assert moved is not None and (moved.recovered, moved.archived) == (1, 1)
    assert [line.match_id for line in archive.matches(day_file("friday13", OLD))] == ["m000001"]


@pytest.mark.asyncio
async def test_an_archived_match_this_node_cannot_read_is_one_clear_line(redis: Redis, tmp_path: Path) -> None:
    archive = Archive(tmp_path)
    store = Store(redis, archive=archive)
    await store_match(store, "m000001", OLD, None)
    await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)
    with pytest.raises(ArchiveUnreadable, match="this node has no archive"):
        await Store(redis).get_match("m000001")
    archive.path(day_file("friday13", OLD)).write_bytes(b"not gzip at all, longer than the member was")
    with pytest.raises(ArchiveUnreadable, match=r"^match m000001 is archived in .*, which this node cannot read"):
        await store.get_match("m000001")
    archive.path(day_file("friday13", OLD)).unlink()
    with pytest.raises(ArchiveUnreadable, match="No such file or directory"):
        await store.get_match("m000001")


@pytest.mark.asyncio
async def test_getmatch_the_web_api_and_the_work_path_serve_archived_matches(redis_url: str, tmp_path: Path) -> None:
    friday = await played("friday13", ("heuristic", "random", "random", "heuristic"), 4, players=4)
    config = RetentionConfig(days=30, archive_dir=tmp_path / "shared", every=3600)
    # A work match whose result the work stream stored (the path tournaments and the ladder take), played
    # before the arena starts, so that its work host does not take the order.
    redis = Redis.from_url(redis_url)
    queue = WorkQueue(redis, "earlier-node#1")
    await queue.ensure_group()
    await queue.submit([MatchOrder("m000003", "friday13", {"players": 4}, tuple(friday["seats"]), "00" * 16)])
    (delivery,) = await queue.read(1, block_ms=100)
    record = MatchRecord("m000003", "friday13", {"players": 4}, list(friday["seats"]), OLD + 2)
    await queue.started(delivery, record, delivery.order.seed, fresh=True)
    record.termination, record.ended_ms = Termination.NORMAL, OLD + 3
    result = ResultRecord("m000003", tuple(friday["seats"]), (1, 2, 3, 4), (1, 2, 3, 4), Termination.NORMAL)
    assert await queue.store_result(delivery, record, encode_replay(friday), result)
    await queue.ack(delivery)
    await redis.aclose()
    async with start_arena(redis_url, retention=config, data_dir=tmp_path / "data") as arena:
        store = arena.server.store
        await store_match(store, "m000001", OLD, friday)
        await store_match(store, "m000002", OLD + 1, None)
        assert store.archive is not None
        moved = await Retention(store.redis, store.archive, config).run_once(NOW)
        assert moved is not None and moved.archived == 3
        assert (tmp_path / "shared" / "friday13").is_dir()

        for match_id in ("m000001", "m000003"):
            response = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))
            assert response.match.match_id == match_id and json.loads(response.replay_json) == friday
        response = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id="m000002"))
        assert response.match.termination == pb.TERMINATION_ABORTED and response.replay_json == ""
        web = WebData(store, arena.server.ratings)  # type: ignore[arg-type]
        shown = await web.match("m000001")
        assert shown["replay"] == friday and len(shown["frames"]) > 100

        # The file vanishes (a node without the shared volume): one line, and the server serves on.
        archive_file = tmp_path / "shared" / f"{day_file('friday13', OLD)}.jsonl.gz"
        archive_file.rename(archive_file.with_suffix(".moved"))
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await arena.api.GetMatch(api_pb.GetMatchRequest(match_id="m000001"))
        assert failed.value.code() == grpc.StatusCode.DATA_LOSS
        assert "which this node cannot read" in (failed.value.details() or "")
        assert "\n" not in (failed.value.details() or "")
        with pytest.raises(HTTPException) as web_failed:
            await web.match("m000001")
        assert web_failed.value.status_code == 500
        await store_match(store, "m000004", NOW, None)  # the server serves on
        response = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id="m000004"))
        assert response.match.match_id == "m000004"


def test_serve_refuses_a_bad_retention_age_in_one_line(tmp_path: Path) -> None:
    serve = ("serve", "--port", "0", "--http-port", "0", "--data-dir", "data")
    done = arena(*serve, "--retain-days", "-1", env={}, cwd=tmp_path)
    assert (
        done.returncode == 2 and "--retain-days" in done.stderr and "-1 is not in the range 0<=x<=36500" in done.stderr
    )
    done = arena(*serve, env={"ARENA_RETAIN_DAYS": "soon"}, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("arena: error: ARENA_RETAIN_DAYS=soon: ")
    assert done.stderr.count("\n") == 1


def test_every_compose_node_shares_one_archive_volume(repo_root: Path) -> None:
    compose = yaml.safe_load((repo_root / "docker-compose.yml").read_text())
    for name in ("arena", "arena-hosted"):
        node = compose["services"][name]
        archive_dir = Path(node["environment"]["ARENA_ARCHIVE_DIR"])
        mounts = [volume.split(":")[:2] for volume in node["volumes"]]
        assert any(source == "arena-archive" and archive_dir.is_relative_to(target) for source, target in mounts), name
    assert "arena-archive" in compose["volumes"]


def rating_results(old: int, new: int) -> list[ResultRecord]:
    """`old` results of matches finished 40 days before NOW, then `new` ones finished at NOW, four bots of six."""
    names = ["ann", "bob", "cid", "dee", "eve", "fay"]
    results = []
    for number in range(old + new):
        seats = tuple(names[(number + k) % 6] for k in (0, 1, 3))
        ranks = ((1, 2, 3), (3, 1, 2), (2, 2, 1))[number % 3]
        finished = (OLD if number < old else NOW) / 1000 + number
        results.append(ResultRecord(f"r{number:03d}", seats, ranks, ranks, finished_at=finished))
    return results


async def board_of(ratings: RatingStore) -> list[tuple[str, float, float, int]]:
    return [(row.bot, row.mu, row.sigma, row.games) for row in await ratings.leaderboard("friday13")]


@pytest.mark.asyncio
async def test_old_rating_results_move_to_the_archive_and_a_recompute_still_rates_from_all(
    redis: Redis, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    archive = Archive(tmp_path)
    ratings = RatingStore(redis, archive=archive)
    results = rating_results(30, 10)
    for result in results:
        await ratings.apply("friday13", result)
    before = await board_of(ratings)

    with caplog.at_level("INFO", logger="arena.node.retention"):
        moved = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)

    assert moved is not None and moved.results == 30
    assert "archived 0 matches and 30 rating results older than 30 days" in caplog.text
    assert await redis.llen(keys.results("friday13")) == 10
    assert await redis.scard(keys.results_applied("friday13")) == 10
    assert await ratings.results("friday13") == results
    assert await ratings.is_applied("friday13", "r035") and not await ratings.is_applied("friday13", "r005")
    book = await ratings.recompute("friday13")
    assert len(book.applied) == 40
    assert await board_of(ratings) == before
    assert await redis.scard(keys.results_applied("friday13")) == 10  # archived ids are not added back
    again = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)
    assert again is not None and again.results == 0
    assert len(archive.results("friday13", 30)) == 30

    # A node without the archive refuses in one line rather than rate from the last 10 results only.
    with pytest.raises(
        RatingStoreError, match=r"^the oldest 30 results of friday13 are in the disk archive, .*--archive-dir$"
    ):
        await RatingStore(redis).recompute("friday13")
    (tmp_path / "friday13" / "results.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(
        RatingStoreError, match=r"^30 results of friday13 are archived in .*, which this node cannot read"
    ):
        await ratings.recompute("friday13")
    assert await board_of(ratings) == before  # nothing rewritten


@pytest.mark.asyncio
async def test_a_results_move_cut_short_after_the_disk_write_is_cut_off_and_done_again(
    redis: Redis, tmp_path: Path
) -> None:
    archive = Archive(tmp_path)
    ratings = RatingStore(redis, archive=archive)
    results = rating_results(12, 3)
    for result in results:
        await ratings.apply("friday13", result)
    archiver = Archiver(redis, archive)
    token = await archiver.lock()
    assert token is not None

    def dies() -> None:  # as a node killed after the fsync, before its Redis transaction
        raise SystemExit("killed")

    with pytest.raises(SystemExit):
        await archiver.run(NOW - 30 * DAY_MS, token, after_write=dies, batch=5)
    await archiver.unlock(token)
    # The first 5 lines reached the disk, and Redis still holds all 15 results.
    assert len(archive.results("friday13", 5)) == 5
    assert await redis.llen(keys.results("friday13")) == 15
    assert await ratings.results("friday13") == results  # the counter says 0 archived: the extra lines are not read

    moved = await Retention(redis, archive, RetentionConfig(days=30)).run_once(NOW)

    assert moved is not None and (moved.recovered, moved.results) == (1, 12)
    assert await ratings.results("friday13") == results
    with pytest.raises(ArchiveUnreadable, match="holds 12 results of friday13; Redis counts 13"):
        archive.results("friday13", 13)  # each line once


@pytest.mark.asyncio
async def test_recompute_ratings_on_a_node_that_cannot_read_the_archived_results_fails_in_one_line(
    redis_url: str, tmp_path: Path
) -> None:
    config = RetentionConfig(days=30, archive_dir=tmp_path / "shared", every=3600)
    async with start_arena(redis_url, retention=config, data_dir=tmp_path / "data") as arena:
        ratings = arena.server.ratings
        assert ratings is not None
        for result in rating_results(4, 2):
            await ratings.apply("friday13", result)
        store = arena.server.store
        assert store.archive is not None
        moved = await Retention(store.redis, store.archive, config).run_once(NOW)
        assert moved is not None and moved.results == 4
        metadata = bearer(ADMIN)
        response = await arena.api.RecomputeRatings(api_pb.RecomputeRatingsRequest(game="friday13"), metadata=metadata)
        assert response.results == 6
        (tmp_path / "shared" / "friday13" / "results.jsonl.gz").unlink()
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await arena.api.RecomputeRatings(api_pb.RecomputeRatingsRequest(game="friday13"), metadata=metadata)
        assert failed.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        details = failed.value.details() or ""
        assert "4 results of friday13 are archived in" in details and "\n" not in details
        assert (await arena.api.GetLeaderboard(api_pb.GetLeaderboardRequest(game="friday13"))).rows  # serves on
