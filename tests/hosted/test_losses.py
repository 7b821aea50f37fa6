"""A hosted bot's loss explained: a process that dies mid-match forfeits as crashed, with its exit code and the
move, and its run (the stderr of that match) is found from the match, by its owner alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.node.hosted import match_runs
from arena.store.hosted import HostedRun, HostedStore, NotYourBot
from arena.store.store import NotFound, Principal
from arena.v1 import arena_service_pb2 as api_pb
from tests.hosted.conftest import misbehaving, submit
from tests.hosted.test_sandbox import forfeited_but_finished
from tests.server.conftest import Arena
from tests.waiting import until

pytestmark = pytest.mark.asyncio


async def test_a_hosted_bot_that_dies_mid_match_forfeits_as_crashed_and_its_run_is_found_from_the_match(
    arena: Arena, tmp_path: Path
) -> None:
    owner = await arena.owner("dora")
    await arena.bot(owner, "dier")
    reply = await submit(arena, owner, "dier", misbehaving(tmp_path / "dier", "die 3"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_FAILED
    match_id = reply.version.validation_match_id
    replay = await forfeited_but_finished(arena, match_id)
    [forfeit] = replay["forfeits"]
    assert (forfeit["seat"], forfeit["bot"], forfeit["kind"], forfeit["detail"]) == (
        0,
        "dier",
        "crashed",
        "exited with code 3",
    )
    moves = [move for entry in replay["rounds"] for move in entry["moves"]]
    assert moves[forfeit["move"]]["seat"] == 0, "the move it was asked for when it died"
    assert [move["seat"] for move in moves[: forfeit["move"]]].count(0) == 3, "after its three answers"

    store = arena.server.store

    async def stored() -> bool:
        return bool(await match_runs(store, Principal("owner", "dora"), "dier", match_id))

    await until(stored, "the run of the launch that played the match", timeout=30)
    [run] = await match_runs(store, Principal("owner", "dora"), "dier", match_id)
    assert run.match_ids == (match_id,) and run.ending == "exited with code 3"
    assert "die: leaving after 3 answers" in run.stderr
    assert await match_runs(store, Principal("admin", "admin"), "dier", match_id) == [run]
    with pytest.raises(NotYourBot, match="belongs to another owner"):
        await match_runs(store, Principal("owner", "mallory"), "dier", match_id)
    with pytest.raises(NotFound, match="no bot named 'nobody'"):
        await match_runs(store, Principal("owner", "dora"), "nobody", match_id)


async def test_the_runs_of_a_match_are_those_that_played_it_not_those_whose_stderr_names_it(arena: Arena) -> None:
    hosted = HostedStore(arena.server.store.redis)
    played = HostedRun(1, ("m000007", "m000008"), 1, 2, "stopped at the end of its matches", "ok", "n1")
    mentions = HostedRun(1, ("m000009",), 3, 4, "exited with code 1", 'looking for "m000007" in my notes', "n1")
    later = HostedRun(2, ("m000007",), 5, 6, "exited with code 2", "boom", "n2")
    for run in (played, mentions, later):
        await hosted.add_run("busy", run)
    assert await hosted.runs_of_match("busy", "m000007") == [later, played], "newest first"
    assert await hosted.runs_of_match("busy", "m000009") == [mentions]
    assert await hosted.runs_of_match("busy", "m00000") == []
    assert await hosted.runs_of_match("nobody", "m000007") == []
