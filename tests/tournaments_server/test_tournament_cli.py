"""`arena tournament create|run|show|list` against a real `arena serve`, with built-in bots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import free_port

ADMIN = "ata_cli-tournament"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(tmp_path / "data"),
            "--no-web",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    assert "serving on" in process.stdout.readline()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)


def arena(*args: str, server: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_SERVER": server, "ARENA_TOKEN": ADMIN, "COLUMNS": "160"}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_a_tournament_is_created_run_to_the_end_shown_and_listed(server: str) -> None:
    created = arena(
        "tournament",
        "create",
        "cli-cup",
        "--game",
        "friday13",
        "--format",
        "swiss",
        "--entrants",
        "builtin:random,builtin:heuristic,builtin:mc",
        "--players",
        "3",
        "--rounds",
        "2",
        "--seed",
        "c",
        server=server,
    )
    assert created.returncode == 0, created.stderr
    assert created.stdout.strip() == "tournament cli-cup: 2 matches queued"
    ran = arena("tournament", "run", "cli-cup", server=server)
    assert ran.returncode == 0, ran.stderr
    assert "cli-cup: friday13 swiss, 2/2 matches" in ran.stdout
    shown = arena("tournament", "show", "cli-cup", "--json", server=server)
    data = json.loads(shown.stdout)
    assert (data["done"], data["total"], data["finished"], data["format"]) == (2, 2, True, "swiss")
    assert sorted(row["bot"] for row in data["standings"]) == ["builtin:heuristic", "builtin:mc", "builtin:random"]
    assert all(row["games"] == 2 and row["mu"] is not None for row in data["standings"])
    listed = arena("tournament", "list", "--json", server=server)
    assert [(t["tournament"], t["done"]) for t in json.loads(listed.stdout)] == [("cli-cup", 2)]
    single = arena(
        "tournament",
        "create",
        "one-cup",
        "--game",
        "friday13",
        "--entrants",
        "builtin:random,builtin:mc,builtin:heuristic",
        "--table-size",
        "3",
        "--json",
        server=server,
    )
    assert single.returncode == 0, single.stderr
    made = json.loads(single.stdout)
    assert (made["tournament"], made["total"], made["done"], made["format"]) == ("one-cup", 1, 0, "round-robin")
    singular = arena(
        "tournament",
        "create",
        "two-cup",
        "--game",
        "friday13",
        "--entrants",
        "builtin:random,builtin:mc,builtin:heuristic",
        "--table-size",
        "3",
        server=server,
    )
    assert singular.stdout.strip() == "tournament two-cup: 1 match queued"


def test_tournament_commands_explain_what_is_wrong(server: str) -> None:
    again = ["tournament", "create", "dup", "--game", "friday13", "--entrants", "builtin:random,builtin:mc,x"]
    missing = arena(*again, "--players", "3", server=server)
    assert missing.returncode == 2 and missing.stderr.strip() == "arena: error: no bot named 'x' is registered"
    unknown = arena("tournament", "show", "nope", server=server)
    assert unknown.returncode == 2 and unknown.stderr.strip() == "arena: error: no tournament named 'nope'"
    down = arena("tournament", "list", server=f"127.0.0.1:{free_port()}")
    assert down.returncode == 2 and "cannot reach the arena" in down.stderr
