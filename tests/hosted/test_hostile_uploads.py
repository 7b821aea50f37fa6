"""Hostile uploads against a real node process: refused in one line, nothing written on the host, the node's
memory bounded, and an honest rated match played meanwhile untouched.

The node runs as `arena serve` (root, as hosted bots need), in a memory cgroup of 1 GiB so that a node
that reads a bomb into its own memory is killed instead of the machine; its TMPDIR is a folder of its
own, so whatever it leaves on the host is found there.
"""

from __future__ import annotations

import asyncio
import functools
import os
import tempfile
from pathlib import Path

import grpc
import pytest

from arena.match import Clock
from arena.sdk import Client
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.hosted.bombs import long_names, many_files, symlink_chain
from tests.hosted.escape import NormalBot
from tests.hosted.nodes import ADMIN, Node, node_process
from tests.server.conftest import bearer

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.sandbox,
]
NODE_MEMORY_CAP = 1 << 30
PEAK_RSS_BOUND = 200 << 20
"""The most memory the node may ever have held (VmHWM): it holds an upload (at most 20 MB), never its contents."""
OLD_DESTINATION = os.path.join(tempfile.gettempdir(), "arena-packages-xxxxxxxx", "tmpxxxxxxxx")
"""Where nodes used to unpack a package (tempfile's names), whose length the symlink chain is cut to."""
CLOCK = Clock(per_move=0.5, bank=2.0)
CHUNK = 256 << 10


def upload(name: str, data: bytes) -> list[api_pb.SubmitBotRequest]:
    first = api_pb.SubmitBotRequest(name=name, game="friday13", run="python bot.py")
    return [first] + [api_pb.SubmitBotRequest(chunk=data[at : at + CHUNK]) for at in range(0, len(data), CHUNK)]


async def honest_matches(node: Node, honest: str, stop: asyncio.Event) -> list[pb.MatchSummary]:
    """Rated matches of the honest bot against built-in bots, one after another, until `stop` is set."""
    played = []
    while not stop.is_set():
        request = api_pb.CreateMatchRequest(
            game=pb.GameSpec(game="friday13"), seats=[honest, "builtin:random", "builtin:random", "builtin:random"]
        )
        request.clock.CopyFrom(pb.Clock(per_move_ms=int(CLOCK.per_move * 1000), bank_ms=int(CLOCK.bank * 1000)))
        match_id = (await node.api.CreateMatch(request, metadata=bearer(ADMIN))).match_id
        while not (summary := (await node.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))).match).ended_ms:
            await asyncio.sleep(0.05)
        played.append(summary)
    return played


async def test_hostile_packages_are_refused_without_touching_the_host_or_the_nodes_memory(
    redis_url: str, tmp_path: Path
) -> None:
    outside = Path(tempfile.mkdtemp(prefix="arena-outside-"))
    sentinel = outside / "sentinel"
    sentinel.write_text("root's own file\n")
    sentinel.chmod(0o600)
    bombs = {
        "chain": (symlink_chain(OLD_DESTINATION, outside), "the package member 'a' is a symbolic link"),
        "names": (long_names(), "member 1 has a pax header of 268,435,"),
        "files": (many_files(), "the package holds more than 2,000 members"),
    }
    assert len(bombs["names"][0]) > 1_000_000 and len(bombs["files"][0]) < 2_500_000
    try:
        async with node_process(redis_url, memory_limit=NODE_MEMORY_CAP) as node:
            owner = await node.owner("mallory")
            honest_token = await node.bot(await node.owner("honest"), "honest")
            errors: list[str] = []
            client = Client(functools.partial(NormalBot, errors=errors), node.address, honest_token, backoff=0.05)
            connection = asyncio.create_task(client.run())
            await asyncio.wait_for(client.welcomed.wait(), 30)
            stop = asyncio.Event()
            matches = asyncio.create_task(honest_matches(node, "honest", stop))
            peaks: dict[str, int] = {}
            said: dict[str, tuple[str, str]] = {}
            """Per bomb: the call's status and its details (or the stored version's reason, if it was taken)."""
            try:
                for name, (data, _) in bombs.items():
                    if node.process.poll() is not None:
                        said[name] = ("the node was dead", f"exit code {node.process.returncode}")
                        continue
                    await node.bot(owner, name)
                    node.reset_peak_rss()
                    try:
                        reply = await node.api.SubmitBot(iter(upload(name, data)), metadata=bearer(owner), timeout=300)
                        said[name] = ("OK", f"stored as version {reply.version.version}: {reply.version.reason}")
                    except grpc.aio.AioRpcError as error:
                        said[name] = (error.code().name, error.details() or "")
                    # A node killed at its memory cap held at least the cap.
                    peaks[name] = node.peak_rss() if node.process.poll() is None else NODE_MEMORY_CAP
            finally:
                stop.set()
                (played,) = await asyncio.gather(matches, return_exceptions=True)
                client.stop()
                await connection
            report = f"said: {said}, peak memory: {peaks}, node log: {node.log()[-1000:]}"
            assert sentinel.read_text() == "root's own file\n", report
            assert sorted(path.name for path in outside.iterdir()) == ["sentinel"], report
            for name, (_, reason) in bombs.items():
                code, details = said[name]
                assert code == "INVALID_ARGUMENT" and reason in details, report
                assert "\n" not in details and len(details) < 300, details
                logs = await node.api.GetBotLogs(api_pb.GetBotLogsRequest(name=name), metadata=bearer(owner))
                assert logs.versions == [], "a refused upload stores nothing"
            print("the node's peak memory while each was refused: " + ", ".join(
                f"{name} {peak / 1e6:.1f} MB" for name, peak in peaks.items()))  # fmt: skip
            assert peaks and max(peaks.values()) < PEAK_RSS_BOUND, report
            assert node.leftovers() == [], "the node left files on the host"
            assert node.log_file.stat().st_size < 100_000, "a refusal is logged in a line, not with the names it read"
            assert isinstance(played, list) and played, played
            assert all(summary.termination == pb.TERMINATION_NORMAL for summary in played), played
            assert errors == [], f"the honest seat was struck: {errors}"
    finally:
        for path in outside.iterdir():
            path.unlink()
        outside.rmdir()
