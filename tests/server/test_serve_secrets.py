"""`arena serve` with its secrets kept out of sight: the admin token from a file, Redis passwords never shown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from arena.app import ConfigError, ServerConfig, config_from_env
from arena.store.embedded import PASSWORD_FILE
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from tests.conftest import free_port
from tests.store.test_store_secrets import PASSWORD, locked_redis

ARENA = [sys.executable, "-m", "arena.cli"]
TOKEN = "ata_from-a-file"


def environment(**settings: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_ADMIN_TOKEN")}
    return {**env, **settings}


def serve(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`arena serve` expected to stop at once, with an error."""
    return subprocess.run(
        [*ARENA, "serve", "--port", str(free_port()), "--http-port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


@contextmanager
def serving(port: int, *args: str, env: dict[str, str]) -> Iterator[list[str]]:
    """`arena serve` running; yields its output lines so far, and the rest once it stopped."""
    process = subprocess.Popen(
        [*ARENA, "serve", "--port", str(port), "--http-port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    lines = [process.stdout.readline().strip(), process.stdout.readline().strip()]
    try:
        assert lines[0].startswith(f"arena: serving on 127.0.0.1:{port}"), lines
        yield lines
    finally:
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=20)
        lines += rest.splitlines()
    assert process.returncode == 0, lines


def create_owner(port: int, token: str) -> str:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = api_grpc.ArenaServiceStub(channel)
        response = stub.CreateOwner(
            api_pb.CreateOwnerRequest(name="alice"), metadata=[("authorization", f"Bearer {token}")], timeout=10
        )
        owner: str = response.token
        return owner


def test_serve_takes_the_admin_token_from_the_file_arena_admin_token_file_names(tmp_path: Path) -> None:
    token_file = tmp_path / "admin-token"
    token_file.write_text(f"  {TOKEN}\n\n")
    port = free_port()
    env = environment(ARENA_ADMIN_TOKEN_FILE=str(token_file))
    with serving(port, "--data-dir", str(tmp_path / "data"), env=env) as lines:
        assert create_owner(port, TOKEN)
        with pytest.raises(grpc.RpcError) as wrong:
            create_owner(port, "ata_some-other-token")
        assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert not any("admin token" in line for line in lines), "a given token is not made and printed"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda path: None, "cannot read ARENA_ADMIN_TOKEN_FILE {path}: No such file or directory"),
        (lambda path: path.mkdir(), "cannot read ARENA_ADMIN_TOKEN_FILE {path}: Is a directory"),
        (
            lambda path: path.write_text(" \n"),
            "ARENA_ADMIN_TOKEN_FILE {path} is empty: write the admin token (ata_...) into it",
        ),
        (
            lambda path: path.write_text("ata_one\nata_two\n"),
            "ARENA_ADMIN_TOKEN_FILE {path} must hold the admin token alone, one word (ata_...)",
        ),
    ],
    ids=["missing", "directory", "empty", "two-words"],
)
def test_an_unusable_admin_token_file_ends_serve_with_one_line_and_exit_code_2(
    tmp_path: Path, make: Callable[[Path], object], reason: str
) -> None:
    path = tmp_path / "admin-token"
    make(path)
    result = serve("--data-dir", str(tmp_path / "data"), env=environment(ARENA_ADMIN_TOKEN_FILE=str(path)))
    assert result.returncode == 2
    assert result.stderr == f"arena: error: {reason.format(path=path)}\n"
    assert result.stdout == ""
    assert not (tmp_path / "data").exists(), "nothing starts"


def test_serve_refuses_both_the_admin_token_and_its_file(tmp_path: Path) -> None:
    path = tmp_path / "admin-token"
    path.write_text(TOKEN)
    env = environment(ARENA_ADMIN_TOKEN=TOKEN, ARENA_ADMIN_TOKEN_FILE=str(path))
    result = serve("--data-dir", str(tmp_path / "data"), env=env)
    assert result.returncode == 2
    assert result.stderr == "arena: error: set only one of ARENA_ADMIN_TOKEN and ARENA_ADMIN_TOKEN_FILE\n"


def test_the_admin_token_leaves_the_environment_so_child_processes_do_not_inherit_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARENA_ADMIN_TOKEN_FILE", raising=False)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "ata_from-the-environment")
    config = config_from_env(ServerConfig())
    assert config.admin_token == "ata_from-the-environment"
    assert "ARENA_ADMIN_TOKEN" not in os.environ
    child = subprocess.run(["env"], capture_output=True, text=True, check=True)
    assert "ata_from-the-environment" not in child.stdout
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", "ata_from-the-environment")
    monkeypatch.setenv("ARENA_ADMIN_TOKEN_FILE", "/nonexistent")
    with pytest.raises(ConfigError):
        config_from_env(ServerConfig())
    assert "ARENA_ADMIN_TOKEN" not in os.environ, "taken out even when the settings are refused"


def test_serve_refuses_a_password_file_others_can_read_with_what_to_fix(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    password_file = data / PASSWORD_FILE
    password_file.write_text("hunter2-hunter2\n")
    password_file.chmod(0o640)
    result = serve("--data-dir", str(data), env=environment())
    assert result.returncode == 2
    assert result.stderr == (
        f"arena: error: the embedded Redis's password file {password_file} is open to others "
        f"(mode 0640): chmod 600 {password_file}\n"
    )
    assert "hunter2" not in result.stdout + result.stderr


def test_serve_with_a_wrong_redis_password_says_so_in_one_line_and_never_shows_it(tmp_path: Path) -> None:
    with locked_redis(tmp_path / "redis") as redis_port:
        url = f"redis://:not-{PASSWORD}@127.0.0.1:{redis_port}/0"
        result = serve("--redis-url", url, env=environment())
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"arena: error: Redis at redis://:***@127.0.0.1:{redis_port}/0 refused the password (or user) in its URL: "
    ), result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert PASSWORD not in result.stdout + result.stderr


def test_serve_announces_its_redis_url_with_the_password_masked(tmp_path: Path) -> None:
    port = free_port()
    with locked_redis(tmp_path / "redis") as redis_port:
        url = f"redis://:{PASSWORD}@127.0.0.1:{redis_port}/0"
        with serving(port, "--redis-url", url, env=environment(ARENA_ADMIN_TOKEN=TOKEN)) as lines:
            assert (
                lines[0]
                == f"arena: serving on 127.0.0.1:{port} (plaintext; Redis: redis://:***@127.0.0.1:{redis_port}/0)"
            )
            assert create_owner(port, TOKEN)
    assert not any(PASSWORD in line for line in lines), lines
