"""From `arena demo --stay` to your own bot: the commands the demo prints work as printed, in a shell.

The demo makes an owner account for the person at the keyboard and keeps its token, and the admin
token, in the data directory (0600); it prints the commands that register and connect a bot of theirs
and challenge the sample bots. Here a shell runs those very lines, a challenge is played, the admin
token makes another owner, and `arena serve` on the same data directory says where the tokens are.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.demo.conftest import read_until

DEMO_TIMEOUT = 400.0
"""Seconds the quick demo may take to serve on a busy machine (its tournaments, npm ci the first time)."""


@pytest.fixture
def environment() -> dict[str, str]:
    """No ARENA_* variables; `arena` and `python` from this interpreter's environment, as after `pip install -e .`."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    return {**clean, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{clean.get('PATH', '')}", "COLUMNS": "200"}


@pytest.fixture
def demo(tmp_path: Path, environment: dict[str, str]) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    command = [sys.executable, "-m", "arena.cli", "demo", "--quick", "--stay", "--port", "0", "--http-port", "0"]
    process = subprocess.Popen(
        [*command, "--data-dir", "data"], cwd=tmp_path, env=environment, stdout=subprocess.PIPE, text=True
    )
    try:
        yield process, read_until(process, r"^demo: still serving on", DEMO_TIMEOUT)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def commands(lines: list[str], after: str) -> list[str]:
    """The indented command lines printed under the line that starts with `after`."""
    start = next(number for number, line in enumerate(lines) if line.startswith(after))
    found = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        found.append(line.strip())
    return found


def shell(script: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run `script` in bash; its exit code and what it printed. The output goes through a file, not a pipe,
    so that a program it leaves running in the background (the bot) does not hold this up."""
    log = cwd / "shell.log"
    with log.open("w") as out:
        code = subprocess.run(
            ["bash", "-c", script], cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=300
        )
    return code.returncode, log.read_text()


def test_the_printed_commands_take_you_from_the_demo_to_a_challenge_of_your_own_bot(
    tmp_path: Path, environment: dict[str, str], demo: tuple[subprocess.Popen[str], list[str]]
) -> None:
    process, lines = demo
    data = tmp_path / "data"
    for name in ("admin.token", "owner-you.token"):
        assert (data / name).stat().st_mode & 0o777 == 0o600, name
    setup = commands(lines, "demo: your own bot, from another terminal")
    assert (
        len(setup) == 3
        and setup[0].startswith("export ARENA_SERVER=")
        and setup[2].endswith("# your bot: start from a copy")
    )
    challenges = commands(lines, "demo: once it is connected, challenge the sample bots")
    assert challenges == [
        "arena challenge my-bot --against py-mc,builtin:heuristic",
        "arena challenge my-bot --against py-heuristic --game board13",
    ]
    more = next(line for line in lines if line.startswith("demo: more owners: "))
    address = re.search(r"ARENA_SERVER=(\S+)", setup[0])
    assert address
    elsewhere = {**environment, "ARENA_SERVER": address.group(1)}

    bot_pid = tmp_path / "bot.pid"
    connected = 'python -c \'import json, sys; sys.exit(not any(b["name"] == "my-bot" and b["connected"] for b in json.load(sys.stdin)))\''
    script = "\n".join(
        [
            "set -e",
            *setup,
            f"echo $! > {bot_pid}",
            f"until arena bot list --json | {connected}; do sleep 0.2; done",
            *challenges,
        ]
    )
    try:
        code, out = shell(script, tmp_path, environment)
        assert code == 0, out
        started = re.findall(r"^challenge (\S+): (\w+), my-bot vs (.+) \(unrated\)$", out, re.MULTILINE)
        assert [(game, seats) for _, game, seats in started] == [
            ("friday13", "py-mc vs builtin:heuristic"),
            ("board13", "py-heuristic"),
        ], out
        for match_id, _, _ in started:
            code, out = shell(
                f"until arena match show {match_id} --json | grep -q '\"ended_ms\": [1-9]'; do sleep 0.2; done; "
                f"arena match show {match_id} --json",
                tmp_path,
                elsewhere,
            )
            summary = json.loads(out)
            assert summary["termination"] == "normal" and summary["seats"][0] == "my-bot", summary
    finally:
        if bot_pid.exists():
            subprocess.run(["kill", bot_pid.read_text().strip()], check=False)

    code, out = shell(more.removeprefix("demo: more owners: "), tmp_path, environment)
    assert code == 0 and out.startswith("owner NAME created"), out

    process.send_signal(signal.SIGINT)
    process.wait(timeout=60)
    log = tmp_path / "serve.log"
    with log.open("w") as stderr:
        serve = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "serve", "--data-dir", "data", "--port", "0", "--http-port", "0"],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        said = read_until(serve, r"^arena: tokens", 120)
        assert said[-2].startswith("arena: serving on")
        assert said[-1] == (
            "arena: tokens `arena demo` keeps in this data directory (mode 0600): the admin's in data/admin.token, "
            "owner you's in data/owner-you.token"
        )
    finally:
        serve.send_signal(signal.SIGINT)
        try:
            serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            serve.kill()
            pytest.fail(f"arena serve did not stop within 60 s of SIGINT; its log ends:\n{log.read_text()[-3000:]}")
