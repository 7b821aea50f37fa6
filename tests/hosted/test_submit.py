"""Submitting hosted bots: versions and history, bad input, logs only for their owner, the Node sample."""

from __future__ import annotations

import shutil
from pathlib import Path

import grpc
import pytest

from arena.games import Termination
from arena.hosted.package import pack
from arena.ratings import ResultRecord
from arena.store import keys
from arena.store.hosted import HostedStatus, HostedStore
from arena.store.ratings import RatingStore
from arena.store.store import BotKind
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.hosted.conftest import logs, misbehaving, requests, submit
from tests.server.conftest import ADMIN, Arena, RandomBot, bearer
from tests.server.test_mixed_table import node_bot  # noqa: F401 - the fixture that runs npm ci

pytestmark = pytest.mark.asyncio
REPO = Path(__file__).resolve().parents[2]


async def test_a_second_submit_is_version_2_with_history_kept_and_sigma_widened(arena: Arena) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "sampler")
    first = await submit(arena, owner, "sampler", REPO / "sample_bots" / "python", "python random_bot.py")
    assert (first.version.version, first.version.status) == (1, api_pb.HOSTED_VERSION_STATUS_OK)
    ratings = RatingStore(arena.server.store.redis)
    await ratings.apply(
        "friday13", ResultRecord("m-old", ("sampler", "builtin:random"), (1, 9), (1, 2), Termination.NORMAL)
    )
    before = (await ratings.ratings("friday13", ["sampler"]))["sampler"]

    second = await submit(arena, owner, "sampler", REPO / "sample_bots" / "python", "python heuristic_bot.py")
    assert (second.version.version, second.version.status) == (2, api_pb.HOSTED_VERSION_STATUS_OK)
    after = (await ratings.ratings("friday13", ["sampler"]))["sampler"]
    assert after.mu == before.mu and after.games == before.games
    assert after.sigma > before.sigma
    assert [point.match_id for point in await ratings.history("friday13", "sampler")] == ["m-old", "version:sampler:2"]
    seen = await logs(arena, owner, "sampler")
    assert [v.version for v in seen.versions] == [2, 1]
    assert [v.run for v in seen.versions] == ["python heuristic_bot.py", "python random_bot.py"]
    bots = await arena.api.ListBots(api_pb.ListBotsRequest())
    assert [(bot.name, bot.kind) for bot in bots.bots] == [("sampler", api_pb.BOT_KIND_HOSTED)]


async def test_a_failed_version_leaves_the_last_working_one_playing(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "steady")
    await submit(arena, owner, "steady", misbehaving(tmp_path / "good", "linger"))
    failed = await submit(arena, owner, "steady", misbehaving(tmp_path / "bad", "crash"))
    assert (failed.version.version, failed.version.status) == (2, api_pb.HOSTED_VERSION_STATUS_FAILED)
    active = await HostedStore(arena.server.store.redis).active("steady")
    assert active is not None and active.version == 1


async def test_a_broken_version_fails_even_with_a_remote_copy_of_the_bot_connected(
    arena: Arena, tmp_path: Path
) -> None:
    owner = await arena.owner()
    token = await arena.bot(owner, "twin")
    # The owner runs a working copy of the bot with its own token: validation must not seat it.
    remote = await arena.connect(RandomBot, token)
    failed = await submit(arena, owner, "twin", misbehaving(tmp_path / "broken", "crash"))
    assert (failed.version.version, failed.version.status) == (1, api_pb.HOSTED_VERSION_STATUS_FAILED)
    assert "never connected" in failed.version.reason
    assert "crash: no luck today" in failed.stderr_tail
    summary, _ = await arena.finished(failed.version.validation_match_id)
    assert summary.termination == pb.TERMINATION_ABORTED
    assert (remote.ended, remote.bots) == ([], {}), "the remote copy played no validation match"
    assert await HostedStore(arena.server.store.redis).active("twin") is None


async def test_a_version_plays_nothing_but_its_validation_until_it_passes(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "careful")
    first = await submit(arena, owner, "careful", misbehaving(tmp_path / "v1", "linger"))
    assert (first.version.version, first.version.status) == (1, api_pb.HOSTED_VERSION_STATUS_OK)
    hosted = HostedStore(arena.server.store.redis)
    package = pack(tmp_path / "v1")
    second = await hosted.add_version("careful", package.sha256, package.data, "python bot.py")
    assert second.status == HostedStatus.VALIDATING
    active = await hosted.active("careful")
    assert active is not None and active.version == 1, "an upload under validation does not play"
    await hosted.finish_validation("careful", second.version, "it crashed")
    active = await hosted.active("careful")
    assert active is not None and active.version == 1, "nor does it after failing"
    third = await submit(arena, owner, "careful", misbehaving(tmp_path / "v3", "linger"))
    assert (third.version.version, third.version.status) == (3, api_pb.HOSTED_VERSION_STATUS_OK)
    active = await hosted.active("careful")
    assert active is not None and active.version == 3, "a version that passes plays from then on"


async def test_the_node_sample_bot_runs_hosted(arena: Arena, tmp_path: Path, node_bot: Path) -> None:  # noqa: F811
    folder = tmp_path / "node-bot"
    shutil.copytree(node_bot.parent, folder)
    shutil.copytree(REPO / "proto", folder / "proto")
    owner = await arena.owner()
    await arena.bot(owner, "nodey")
    reply = await submit(arena, owner, "nodey", folder, "node bot.js")
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, (reply.version.reason, reply.stderr_tail)


async def call_error(arena: Arena, token: str | None, stream: list[api_pb.SubmitBotRequest]) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await arena.api.SubmitBot(iter(stream), metadata=bearer(token) if token else ())
    return caught.value


async def test_bad_submissions_get_one_line_errors_and_store_nothing(arena: Arena, tmp_path: Path) -> None:
    alice, bob = await arena.owner("alice"), await arena.owner("bob")
    await arena.bot(alice, "mine")
    folder = misbehaving(tmp_path / "bot", "linger")
    cases = [
        (None, requests("mine", folder, "python bot.py"), grpc.StatusCode.UNAUTHENTICATED, "no token"),
        ("ato_wrong", requests("mine", folder, "python bot.py"), grpc.StatusCode.UNAUTHENTICATED, "not valid"),
        (alice, requests("nobody", folder, "python bot.py"), grpc.StatusCode.NOT_FOUND, "no bot named 'nobody'"),
        (bob, requests("mine", folder, "python bot.py"), grpc.StatusCode.PERMISSION_DENIED, "another owner"),
        (alice, requests("mine", folder, "  "), grpc.StatusCode.INVALID_ARGUMENT, "give the command"),
        (alice, requests("mine", None, "python bot.py"), grpc.StatusCode.INVALID_ARGUMENT, "not a readable"),
        (
            alice,
            requests("mine", folder, "python bot.py", game="chess"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "unknown game",
        ),
        (
            alice,
            [api_pb.SubmitBotRequest(name="mine", game="friday13", run="python bot.py")]
            + [api_pb.SubmitBotRequest(chunk=bytes(900_000))] * 23,
            grpc.StatusCode.INVALID_ARGUMENT,
            "larger than 20.0 MB",
        ),
    ]
    for token, stream, code, text in cases:
        error = await call_error(arena, token, stream)
        assert (error.code(), text in (error.details() or "")) == (code, True), error.details()
        assert "\n" not in (error.details() or "")
    assert await arena.server.store.redis.exists(keys.hosted("mine"), keys.hosted_version("mine", 1)) == 0
    mine = await arena.server.store.get_bot("mine")
    assert mine is not None and mine.kind == BotKind.REMOTE


async def test_logs_are_shown_only_to_the_owner_and_admins(arena: Arena, tmp_path: Path) -> None:
    alice, bob = await arena.owner("alice"), await arena.owner("bob")
    await arena.bot(alice, "private")
    await submit(arena, alice, "private", misbehaving(tmp_path / "bot", "crash"))
    assert "crash: no luck today" in (await logs(arena, alice, "private")).runs[0].stderr
    assert "crash: no luck today" in (await logs(arena, ADMIN, "private")).runs[0].stderr
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await logs(arena, bob, "private")
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await arena.api.GetBotLogs(api_pb.GetBotLogsRequest(name="private"))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_a_version_of_an_unknown_bot_writes_nothing(arena: Arena) -> None:
    with pytest.raises(Exception, match="no bot named 'ghost'"):
        await HostedStore(arena.server.store.redis).add_version("ghost", "00", b"data", "python bot.py")
    assert await arena.server.store.redis.keys("arena:hosted*") == []
