"""Options set from environment variables: a bad value names the variable, in one line, exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from arena.cli import app
from arena.cli.options import EnvOption


def arena(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in a new process with no ARENA_* variables but `env`; a command that would serve
    is stopped by the timeout and fails the test."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        env={**clean, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def every_option(group: click.Group, path: str = "arena") -> Iterator[tuple[str, click.Parameter]]:
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from every_option(command, f"{path} {name}")
        else:
            yield from ((f"{path} {name}", parameter) for parameter in command.params)


SERVE = ("serve", "--port", "0", "--http-port", "0", "--data-dir", "data")


@pytest.mark.parametrize(
    ("variable", "value", "args", "problem"),
    [
        ("ARENA_MATCH_SLOTS", "abc", SERVE, "'abc' is not a valid integer range"),
        ("ARENA_MATCH_SLOTS", "0", SERVE, "0 is not in the range x>=1"),
        ("ARENA_CLAIM_IDLE_MS", "5", SERVE, "5 is not in the range x>=100"),
        ("ARENA_REDIS_CONNECTIONS", "many", SERVE, "'many' is not a valid integer range"),
        ("ARENA_UNSAFE_NO_SANDBOX", "maybe", SERVE, "'maybe' is not a valid boolean"),
        ("ARENA_CA_CERT", "no-such.pem", ("leaderboard", "friday13"), "File 'no-such.pem' does not exist"),
        ("ARENA_TLS", "perhaps", ("tournament", "list"), "'perhaps' is not a valid boolean"),
    ],
)
def test_a_bad_value_from_the_environment_names_the_variable_in_one_line(
    tmp_path: Path, variable: str, value: str, args: tuple[str, ...], problem: str
) -> None:
    done = arena(*args, env={variable: value}, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"arena: error: {variable}={value}: ") and done.stderr.count("\n") == 1
    assert problem in done.stderr and f"fix or unset {variable}" in done.stderr
    assert "Invalid value for" not in done.stderr


def test_the_token_variable_named_is_the_one_that_is_set(tmp_path: Path) -> None:
    """ARENA_CA_CERT is read beside a token; the message names the CA variable, the token stays unprinted."""
    done = arena(
        "owner", "create", "alice", env={"ARENA_ADMIN_TOKEN": "ata_secret", "ARENA_CA_CERT": "x.pem"}, cwd=tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.startswith("arena: error: ARENA_CA_CERT=x.pem: ") and "ata_secret" not in done.stderr


@pytest.mark.parametrize(
    ("args", "option"),
    [
        ((*SERVE, "--match-slots", "abc"), "--match-slots"),
        (("leaderboard", "friday13", "--ca-cert", "no-such.pem"), "--ca-cert"),
    ],
)
def test_a_bad_value_on_the_command_line_names_the_option_even_when_the_variable_is_set_too(
    tmp_path: Path, args: tuple[str, ...], option: str
) -> None:
    env = {"ARENA_MATCH_SLOTS": "abc", "ARENA_CA_CERT": "also-missing.pem"}
    done = arena(*args, env=env, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"arena: error: Invalid value for '{option}': ")
    assert "ARENA_" not in done.stderr


def test_every_option_read_from_the_environment_can_name_its_variable() -> None:
    """Only an EnvOption knows, while its value is checked, that the value came from the environment."""
    plain = [
        f"{command} {parameter.opts[0]}"
        for command, parameter in every_option(app)
        if parameter.envvar and not isinstance(parameter, EnvOption)
    ]
    assert plain == []


def test_every_variable_an_option_reads_is_named_in_its_help() -> None:
    """`--help` is where the variables are listed (README points there): each option says its variable."""
    unnamed = []
    for command, parameter in every_option(app):
        envvar = parameter.envvar
        names = {envvar} if isinstance(envvar, str) else set(envvar or ())
        help_text = getattr(parameter, "help", "") or ""
        unnamed += [f"{command} {parameter.opts[0]}: {name}" for name in sorted(names) if name not in help_text]
    assert unnamed == []
