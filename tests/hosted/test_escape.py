"""The escape suite: a hostile hosted bot tries one class of escape at a time; every attempt must be refused.

Each test submits tests/hosted/hostile_bot.py told what to try (the validation match seats it
against builtin:random), then seats it at a table with a normal SDK bot connected over TCP from the
test and a built-in bot: the normal bot's match must end normally, without a strike. Both runs must
report every attempt (a bot that died before reporting does not pass), and none may say GOT.
The resource cases (memory, fork bomb) that need no hostile bot are in test_sandbox.py.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal

import pytest

from arena.v1 import arena_service_pb2 as api_pb
from tests.hosted.escape import DISK_BOUND, MIB, Scene, marked, planted
from tests.hosted.escape import scene_fixture as scene_fixture  # the `scene` fixture

pytestmark = pytest.mark.asyncio

ATTEMPTS = {
    "privilege": ("uid", "capabilities", "no_new_privs", "setuid 0", "new user namespace"),
    "environ": ("server environ", "init environ", "environ scan", "server memory"),
    "data": ("data dir list", "data dir read", "redis unix socket", "redis tcp", "arena tcp"),
    "signal": ("signal 0 to server", "SIGCONT to server", "SIGCONT to another process", "ptrace server"),
    "namespace": ("arena tcp", "setns init net", "setns server net", "setns init mnt", "setns server mnt"),
    "limits": ("setrlimit NPROC", "setrlimit AS", "setrlimit CPU", "setrlimit FSIZE", "cgroup write", "cgroup leave"),
    "cpu": ("cpu hog",),
}
"""The attacks judged by the bot alone, and the attempts each must report."""


@pytest.mark.parametrize("attack", sorted(ATTEMPTS))
async def test_every_attempt_is_refused(scene: Scene, attack: str) -> None:
    played = await scene.escape(attack)
    played.assert_refused(ATTEMPTS[attack])


@pytest.mark.parametrize("scene", ["runtime"], indirect=True)
async def test_a_data_directory_inside_the_runtime_is_out_of_sight(scene: Scene) -> None:
    # The data directory sits in a folder the sandbox binds in (the interpreter's prefix): it must be covered.
    played = await scene.escape("data")
    played.assert_refused(ATTEMPTS["data"])


async def test_a_bot_cannot_read_other_bots_tokens_or_directories(scene: Scene) -> None:
    # A second hosted bot at the table, started before the hostile one: its process, token and directory are up.
    peer = await scene.submitted("peer", "none")
    assert peer.version.status == api_pb.HOSTED_VERSION_STATUS_OK, peer
    played = await scene.escape("tokens", peers=("peer",))
    played.assert_refused(("other tokens", "other workdirs"))


async def test_a_bot_cannot_leak_secrets_through_its_logs(scene: Scene) -> None:
    played = await scene.escape("leak")
    for stderr in played.stderrs:
        for what, secret in scene.secrets.items():
            assert secret not in stderr, f"{what} is in the bot's stored stderr"
    played.assert_refused(("leak",))


async def test_no_backdoor_is_left_in_the_interpreter_or_the_arena_package(scene: Scene) -> None:
    played = await scene.escape("backdoor")
    left = planted(scene.marker, played.stderrs)
    for path in left:
        path.unlink(missing_ok=True)
    assert not left, f"files planted on the host: {left}"
    played.assert_refused(("write site-packages", "write arena package", "write sys.prefix"))


async def test_no_process_outlives_its_match(scene: Scene) -> None:
    played = await scene.escape("outlive")
    # Both runs are stored, so both launches ended; give the host a moment to reap what it killed.
    for _ in range(50):
        left = marked(scene.marker)
        if not left:
            break
        await asyncio.sleep(0.1)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes of the bot outlived its matches: {left}\n{played.lines()}"
    played.assert_refused(("outlive cgroup",), judged=("outlive",))


async def test_filling_the_disk_stops_at_a_bounded_size(scene: Scene) -> None:
    start = shutil.disk_usage("/tmp").free
    lowest = start
    watching = True

    async def watch() -> None:
        nonlocal lowest
        while watching:
            lowest = min(lowest, shutil.disk_usage("/tmp").free)
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    try:
        played = await scene.escape("disk")
    finally:
        watching = False
        await watcher
    played.assert_refused((), judged=("fill /tmp", "fill cwd"))
    for reported in played.reports():
        for one in reported:
            written = re.search(r"wrote (\d+) MiB", one.detail)
            assert written and int(written[1]) * MIB < DISK_BOUND, one.line
    assert start - lowest < DISK_BOUND, f"the host's free disk dropped by {(start - lowest) // MIB} MiB"
