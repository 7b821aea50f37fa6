"""Hosted bots as real processes in the sandbox: what they may not do, and what happens when they try."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.hosted import cgroups
from arena.node.hosted import HostedManager, Launch
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.hosted.conftest import host_processes, logs, misbehaving, submit
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio


async def test_a_hosted_bot_cannot_open_a_tcp_connection(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "netty")
    reply = await submit(arena, owner, "netty", misbehaving(tmp_path / "netty", f"tcp {arena.server.port}"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, reply
    assert "tcp: blocked" in reply.stderr_tail
    assert "tcp: connected" not in reply.stderr_tail


def processes_of(uid: int) -> list[int]:
    """The host's live processes running as `uid`."""
    return [process.pid for process in host_processes() if process.uid == uid]


async def forfeited_but_finished(arena: Arena, match_id: str) -> dict[str, Any]:
    """The validation match ended for the other seats: scores for all, the hosted seat forfeited."""
    summary, replay = await arena.finished(match_id)
    assert summary.ended_ms and len(summary.scores) == 4
    assert summary.termination == pb.TERMINATION_FORFEIT
    assert replay["forfeited"] == [0]
    return replay


async def test_a_bot_past_its_memory_limit_is_stopped_and_forfeits(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "hog")
    reply = await submit(arena, owner, "hog", misbehaving(tmp_path / "hog", "hog"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_FAILED
    assert "forfeited" in reply.version.reason
    assert "MemoryError" in reply.stderr_tail
    replay = await forfeited_but_finished(arena, reply.version.validation_match_id)
    # The address space limit is the process's own (an rlimit): the node reads the failed allocation in its stderr.
    [forfeit] = replay["forfeits"]
    assert (forfeit["seat"], forfeit["bot"], forfeit["kind"]) == (0, "hog", "limit"), forfeit
    assert forfeit["detail"].startswith("memory limit of 1024 MiB a process hit"), forfeit


async def test_a_dead_bot_is_judged_by_its_end_even_when_its_grace_runs_out_first(
    arena: Arena, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under load the launches' watcher may look later than the session's grace (2 s here) runs out: it never sees
    # an exit here. The seat must forfeit for the limit the process hit all the same, not as `disconnected`.
    seen = HostedManager._ending

    def late(self: HostedManager, launch: Launch) -> str:
        ending = seen(self, launch)
        return "" if launch.sandboxed.process.returncode is not None else ending

    monkeypatch.setattr(HostedManager, "_ending", late)
    owner = await arena.owner()
    await arena.bot(owner, "hog")
    reply = await submit(arena, owner, "hog", misbehaving(tmp_path / "hog", "hog"))
    replay = await forfeited_but_finished(arena, reply.version.validation_match_id)
    [forfeit] = replay["forfeits"]
    assert (forfeit["seat"], forfeit["kind"]) == (0, "limit"), forfeit
    assert forfeit["detail"].startswith("memory limit of 1024 MiB a process hit"), forfeit
    run = (await logs(arena, owner, "hog")).runs[0]
    assert run.ending.startswith("memory limit of 1024 MiB a process hit"), run.ending


async def test_a_fork_bomb_is_contained_stopped_and_forfeits(
    arena: Arena, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "forky")
    # The groups this node makes, by name: other tests' nodes may make groups of their own meanwhile.
    made: list[Path] = []
    create = cgroups.Cgroups.create

    def recorded(self: cgroups.Cgroups, limits: cgroups.GroupLimits) -> cgroups.Group:
        group = create(self, limits)
        made.extend(group.folders.values())
        return group

    monkeypatch.setattr(cgroups.Cgroups, "create", recorded)
    reply = await submit(arena, owner, "forky", misbehaving(tmp_path / "forky", "fork"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_FAILED
    assert "Resource temporarily unavailable" in reply.stderr_tail
    replay = await forfeited_but_finished(arena, reply.version.validation_match_id)
    # Its process ends once a fork fails in it; on a busy machine its three late answers may come first.
    [forfeit] = replay["forfeits"]
    assert (forfeit["seat"], forfeit["bot"]) == (0, "forky") and forfeit["kind"] in ("limit", "strikes"), forfeit
    if forfeit["kind"] == "limit":
        assert forfeit["detail"].startswith("process limit of 64 hit: "), forfeit  # the pids cgroup's count
    run = (await logs(arena, owner, "forky")).runs[0]
    assert "process limit of 64 hit: " in run.ending, run.ending  # how it was stopped, the limit it hit
    assert made, "the bot ran in a group of its own"
    assert not [folder for folder in made if folder.exists()], "its processes and cgroup are gone"


async def test_a_bot_that_never_exits_is_killed_at_match_end(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "stayer")
    reply = await submit(arena, owner, "stayer", misbehaving(tmp_path / "stayer", "linger"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, reply
    run = (await logs(arena, owner, "stayer")).runs[0]
    assert run.ending == "stopped at the end of its matches"
    assert run.match_ids == [reply.version.validation_match_id]
    uid = int(run.stderr.split("linger: child ")[1].split()[2])
    assert uid != 0
    assert processes_of(uid) == [], "its child in a session of its own was killed too"


async def test_a_bot_that_never_answers_fails_validation(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "quiet")
    reply = await submit(arena, owner, "quiet", misbehaving(tmp_path / "quiet", "silent"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_FAILED
    assert "did not answer in time" in reply.version.reason


async def test_a_bot_that_crashes_before_connecting_fails_and_shows_its_stderr(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "crashy")
    reply = await submit(arena, owner, "crashy", misbehaving(tmp_path / "crashy", "crash"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_FAILED
    assert "never connected" in reply.version.reason
    assert "crash: no luck today" in reply.stderr_tail
    run = (await logs(arena, owner, "crashy")).runs[0]
    assert run.ending == "exited with code 1"


async def test_a_bot_that_never_connects_is_stopped_and_fails(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "mute")
    reply = await submit(arena, owner, "mute", misbehaving(tmp_path / "mute", "mute"))
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_FAILED
    run = (await logs(arena, owner, "mute")).runs[0]
    assert run.ending == "never connected"
