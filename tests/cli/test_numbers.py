"""Every number a command takes is bounded: a value out of range is one line and exit code 2.

Without bounds a number went on to the wire (a uint32 field: a traceback), or into a run that filled
the memory (`arena play --games 99999999999999999` grew to 23 GB). The walk over every command's
options keeps a new option from coming without bounds.
"""

from __future__ import annotations

import math
import subprocess
import sys

import click
import pytest

from arena.cli import app, main
from arena.cli.options import MOST_MATCHES
from arena.tournaments.spec import MAX_MATCHES


def numeric_options() -> list[tuple[list[str], click.Option]]:
    """(command path, option) for every option of every command that takes a number."""
    found: list[tuple[list[str], click.Option]] = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
            return
        for param in command.params:
            if isinstance(param, click.Option) and isinstance(param.type, click.types._NumberParamTypeBase):
                found.append((path, param))

    walk(app, [])
    return found


OPTIONS = numeric_options()


def test_the_walk_finds_the_numbers_of_play_serve_and_test() -> None:
    names = {(" ".join(path), option.opts[0]) for path, option in OPTIONS}
    assert {
        ("play", "--games"),
        ("serve", "--per-move-ms"),
        ("test", "--margin"),
        ("match create", "--bank-ms"),
    } <= names


@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in OPTIONS])
def test_every_number_has_both_bounds(path: list[str], option: click.Option) -> None:
    bounds = option.type
    assert isinstance(bounds, click.IntRange | click.FloatRange), f"{option.opts[0]} of {path} takes any number"
    assert bounds.min is not None and bounds.max is not None, f"{option.opts[0]} of {path} has an open end"
    assert math.isfinite(bounds.min) and math.isfinite(bounds.max)


def out_of_range(option: click.Option) -> list[str]:
    bounds = option.type
    assert isinstance(bounds, click.IntRange | click.FloatRange)
    assert bounds.min is not None and bounds.max is not None
    if isinstance(bounds, click.IntRange):
        return [str(bounds.max + 1), str(bounds.min - 1), "99999999999999999999", "-99999999999999999999"]
    return [str(bounds.max * 10 + 1), "nan", "inf", "-inf"]


@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in OPTIONS])
def test_a_number_out_of_range_is_one_line_and_exit_code_2(
    path: list[str], option: click.Option, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for value in out_of_range(option):
        monkeypatch.setattr(sys, "argv", ["arena", *path, option.opts[0], value])
        with pytest.raises(SystemExit) as ended:
            main()
        out, err = capsys.readouterr()
        assert (ended.value.code, out) == (2, ""), (value, out, err)
        assert err.startswith(f"arena: error: Invalid value for '{option.opts[0]}'") and err.count("\n") == 1, err


def test_the_cli_bound_of_tournament_matches_is_the_tournaments_own() -> None:
    assert MOST_MATCHES == MAX_MATCHES


DEAD = ["--server", "127.0.0.1:1", "--token", "x"]
"""No server: the number is refused before any call."""


@pytest.mark.parametrize(
    "args",
    [
        ["play", "friday13", "--bots", "random,random,random", "--games", "99999999999999999"],
        ["match", "create", "friday13", "--seats", "a,b,c", "--per-move-ms", "99999999999999", *DEAD],
        ["tournament", "create", "t", "--game", "friday13", "--entrants", "a,b,c", "--rounds", "4294967296", *DEAD],
        ["tournament", "create", "t", "--game", "friday13", "--entrants", "a,b,c", "--players", "-1", *DEAD],
        ["test", "random", "heuristic", "--game", "friday13", "--margin", "nan"],
        ["test", "random", "heuristic", "--game", "friday13", "--elo0", "5", "--elo1", "5"],
    ],
    ids=["play games", "match per-move-ms", "tournament rounds", "tournament players", "test nan", "test equal elos"],
)
def test_the_numbers_that_ended_in_tracebacks_or_filled_the_memory_end_in_one_line(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.startswith("arena: error: ") and done.stderr.count("\n") == 1, done.stderr
