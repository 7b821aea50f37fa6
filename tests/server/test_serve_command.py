"""`arena serve` as a person runs it: embedded Redis on disk, the admin token once, a clean stop."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.node.cpus import usable_cores
from tests.conftest import free_port

ARENA = [sys.executable, "-m", "arena.cli"]


@contextmanager
def serving(data_dir: Path, port: int) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    # `arena serve` as a user starts it: its default number of workers (one per core), under a supervisor.
    env = {key: value for key, value in os.environ.items() if key not in ("ARENA_ADMIN_TOKEN", "ARENA_WORKERS")}
    process = subprocess.Popen(
        [*ARENA, "serve", "--port", str(port), "--data-dir", str(data_dir), "--http-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    lines = [process.stdout.readline().strip()]
    assert lines[0].startswith(f"arena: serving on 127.0.0.1:{port}"), lines
    lines.append(process.stdout.readline().strip())
    assert lines[1].startswith("arena: web UI on http://127.0.0.1:"), lines
    try:
        yield process, lines
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=40)
        # read(), not communicate(timeout=...): that reads the pipe itself, past what readline() buffered already.
        lines += process.stdout.read().splitlines()


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=60)


def test_serve_keeps_its_data_in_the_embedded_redis_and_prints_the_admin_token_once(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    with serving(data, port) as (process, lines):
        assert process.stdout is not None
        assert "admin token" in process.stdout.readline()
        token = process.stdout.readline().strip()
        assert token.startswith("ata_")
        created = arena(
            "match",
            "create",
            "friday13",
            "--seats",
            "builtin:random,builtin:random,builtin:heuristic",
            "--server",
            f"127.0.0.1:{port}",
            "--token",
            token,
        )
        assert created.returncode == 0, created.stderr
        match_id = created.stdout.strip()
        web = lines[1].rpartition(" ")[2]
        with urllib.request.urlopen(f"{web}api/matches/{match_id}", timeout=10) as page:
            assert json.loads(page.read())["match"]["seats"][2] == "builtin:heuristic"
        wrong = arena(
            "match", "create", "friday13", "--seats", "x,y,z", "--server", f"127.0.0.1:{port}", "--token", token
        )
        assert wrong.returncode == 2 and wrong.stderr.strip() == "arena: error: bot 'x' is not connected"
        time.sleep(0.5)
    assert process.returncode == 0, lines
    # One worker a core unless told otherwise: more than one sits under a supervisor, which names them.
    expected = usable_cores()
    workers = [line for line in lines if re.fullmatch(r"arena: \d+ workers: .*", line)]
    assert (workers[0].split()[1] if workers else "1") == str(expected), lines
    assert not [line for line in lines if "did not stop" in line], lines
    assert (data / "appendonly.aof").exists()
    with serving(data, port) as (process, lines):
        time.sleep(0.3)
        listed = arena(
            "match",
            "create",
            "friday13",
            "--seats",
            "builtin:random,builtin:random,builtin:random",
            "--server",
            f"127.0.0.1:{port}",
            "--token",
            token,
        )
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.strip() > match_id
    assert not any("admin token" in line for line in lines), "the token is printed on first start only"


def test_client_commands_say_when_the_server_is_down() -> None:
    down = arena(
        "match", "create", "friday13", "--seats", "a,b,c", "--server", f"127.0.0.1:{free_port()}", "--token", "t"
    )
    assert down.returncode == 2
    assert "cannot reach the arena at 127.0.0.1:" in down.stderr


def test_serve_explains_an_unreachable_redis() -> None:
    result = arena("serve", "--port", str(free_port()), "--redis-url", f"redis://127.0.0.1:{free_port()}/0")
    assert result.returncode == 2
    assert result.stderr.startswith("arena: error: cannot reach Redis at redis://127.0.0.1:")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_node_told_to_serve_no_web_ui_plays_on_and_leaves_the_http_port_alone(tmp_path: Path) -> None:
    port, http_port = free_port(), free_port()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": "ata_" + "n" * 43, "ARENA_NO_WEB": "1"}
    command = [*ARENA, "serve", "--port", str(port), "--http-port", str(http_port), "--data-dir", str(tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith(f"arena: serving on 127.0.0.1:{port}"), first
        listed = subprocess.run(
            [*ARENA, "bot", "list", "--server", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert listed.returncode == 0, listed.stderr
        with socket.socket() as probe:  # nothing listens on the web UI's port
            probe.bind(("127.0.0.1", http_port))
    finally:
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=30)
    assert process.returncode == 0, rest
    assert "web UI" not in first + rest
    both = arena("serve", "--no-web", "--web-in-node")
    assert (both.returncode, both.stderr.strip()) == (2, "arena: error: give --no-web or --web-in-node, not both")
