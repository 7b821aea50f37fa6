"""The CLI's tables in an 80-column terminal: whole bot names, one line per row, numbers aligned."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.cli.test_people_cli import cli
from tests.server.conftest import ADMIN, Arena, RandomBot

LONG_NAME = "py-hosted-heuristic-v2"
"""Longer than the names the tables used to cut ("py-hosted-he…")."""
MINUTE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")


def fits(out: str, width: int = 80) -> None:
    """Nothing cut, nothing wider than the terminal."""
    assert "…" not in out, out
    too_wide = [line for line in out.splitlines() if len(line) > width]
    assert too_wide == [], out


def row_of(out: str, name: str) -> str:
    rows = [line for line in out.splitlines() if name in line]
    assert len(rows) == 1, out
    return rows[0]


@pytest.mark.asyncio
async def test_server_tables_fit_80_columns_with_whole_names_and_one_line_rows(
    arena: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = await cli(arena, "owner", "create", "olga", "--json", token=ADMIN)
    assert code == 0, err
    owner_token = re.search(r'"token": "([^"]+)"', out)
    assert owner_token
    code, out, err = await cli(
        arena, "bot", "register", LONG_NAME, "--game", "friday13", "--json", token=owner_token.group(1)
    )
    assert code == 0, err
    token = re.search(r'"token": "([^"]+)"', out)
    assert token
    await arena.connect(RandomBot, token.group(1), games=("friday13",))
    match_id = await arena.create_match("friday13", [LONG_NAME, "builtin:random", "builtin:heuristic"])
    await arena.finished(match_id)

    code, out, err = await cli(arena, "leaderboard", "friday13")
    for _ in range(100):
        if LONG_NAME in out:
            break
        code, out, err = await cli(arena, "leaderboard", "friday13")
    assert code == 0, err
    fits(out)
    # The row holds the whole name and the whole time: a two-line timestamp would leave the
    # minute on a line of its own. (Below the table, the markers name the bots again.)
    board = out.split("\nprovisional")[0].split("\nneighbours'")[0]
    assert MINUTE.search(row_of(board, LONG_NAME)), out

    code, out, err = await cli(arena, "match", "show", match_id)
    assert code == 0, err
    fits(out)
    rows = [row_of(out, name) for name in (LONG_NAME, "builtin:random", "builtin:heuristic")]
    # Scores and ranks are right-aligned: each row's last digit sits in the same column.
    assert len({len(row.rstrip()) for row in rows}) == 1, out
    score_ends = {re.search(r"\d+(?=\s+\d+\s*$)", row).end() for row in rows}  # type: ignore[union-attr]
    assert len(score_ends) == 1, out

    code, out, err = await cli(arena, "ratings", "history", LONG_NAME, "friday13")
    assert code == 0, err
    fits(out)
    assert MINUTE.search(row_of(out, match_id)), out

    code, out, err = await cli(arena, "bot", "list")
    assert code == 0, err
    fits(out)
    assert re.search(r"friday13\s+yes\s+\d{4}-\d{2}-\d{2}$", row_of(out, LONG_NAME)), out

    code, out, err = await cli(arena, "queue", "amigo13")
    assert code == 0, err
    assert out.strip() == "amigo13 ladder, tables of 4: nobody waiting"


def test_arena_play_head_to_head_is_a_list_of_pairs_when_the_matrix_is_too_wide() -> None:
    names = ["first-heuristic-bot", "second-heuristic-bot", "third-random-bot-here"]
    bots = ",".join(f"{name}={kind}" for name, kind in zip(names, ["heuristic", "heuristic", "random"], strict=True))
    args = [sys.executable, "-m", "arena.cli", "play", "friday13", "--players", "3", "--bots", bots, "--games", "6"]
    narrow = subprocess.run(
        [*args, "--duplicate"], capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "80"}
    )
    assert narrow.returncode == 0, narrow.stderr
    tables = narrow.stdout.split("head to head")[1]
    # One row per pair, each naming both bots in full.
    for upper, lower in [(names[0], names[1]), (names[0], names[2]), (names[1], names[2])]:
        assert re.search(rf"^({upper}|{lower})\s+({upper}|{lower})\s+[+-]\d", tables, re.MULTILINE), narrow.stdout
    fits(narrow.stdout.split("not yet established")[0])
    wide = subprocess.run(
        [*args, "--duplicate"], capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"}
    )
    assert wide.returncode == 0, wide.stderr
    matrix = wide.stdout.split("head to head")[1]
    # The matrix: a header line naming every bot, then a row per bot.
    assert any(all(name in line for name in names) for line in matrix.splitlines()), wide.stdout
