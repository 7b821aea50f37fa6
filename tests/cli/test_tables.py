"""The CLI's tables never cut a word: columns wrap between words to fit the terminal, and a table that
cannot fit so prints its rows as records. rich alone cut "javascript" to "javascr…" in `arena bot list`
at 80 columns, and dropped whole columns when the terminal was narrower still."""

from __future__ import annotations

import io
from collections.abc import Sequence

import pytest
from rich.console import Console

from arena.cli import output
from arena.cli.bot import _bots_table

ROWS = [
    ("js-heuristic", "demo", "javascript", "friday13, amigo13, board13", "yes", "2026-01-01"),
    ("py-hosted-heuristic-v2", "a-long-owner-name", "python", "friday13", "no", "2026-01-02"),
    ("m", "you", "c++", "board13", "yes", "2026-01-03"),
]
COLUMNS = ("bot", "owner", "language", "games", "connected", "registered")


def drawn(width: int, rows: Sequence[Sequence[str]] = ROWS) -> str:
    """The bots table as `arena bot list` draws it in a terminal `width` columns wide."""
    terminal = Console(file=io.StringIO(), width=width, color_system=None)
    view = output.table("bots", COLUMNS, keep=("bot", "registered"))
    for row in rows:
        view.add_row(*row)
    terminal.print(view)
    assert isinstance(terminal.file, io.StringIO)
    return terminal.file.getvalue()


@pytest.mark.parametrize("width", range(40, 161, 8))
def test_every_word_of_every_cell_is_whole_and_no_line_is_wider_than_the_terminal(width: int) -> None:
    out = drawn(width)
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) <= width, out
    words = out.split()
    for row in ROWS:
        for cell in row:
            for word in cell.split():
                assert word in words, (word, out)
    for header in COLUMNS:
        assert header in words, (header, out)


def test_a_table_that_fits_is_a_table_with_a_line_per_row() -> None:
    out = drawn(120)
    lines = out.splitlines()
    assert lines[1].split() == list(COLUMNS)
    assert lines[3].split() == [
        "js-heuristic",
        "demo",
        "javascript",
        "friday13,",
        "amigo13,",
        "board13",
        "yes",
        "2026-01-01",
    ]


def test_at_80_columns_the_demo_bots_keep_every_column_and_wrap_their_games() -> None:
    out = drawn(80, ROWS[:1])
    assert "javascript" in out.split() and "registered" in out.split()
    assert out.splitlines()[1].split() == list(COLUMNS)


def test_a_table_too_wide_for_its_words_prints_each_row_as_a_record() -> None:
    out = drawn(44)
    lines = [line.rstrip() for line in out.splitlines()]
    assert lines[0] == "bots"
    assert lines[1:7] == [
        "bot         js-heuristic",
        "owner       demo",
        "language    javascript",
        "games       friday13, amigo13, board13",
        "connected   yes",
        "registered  2026-01-01",
    ]
    assert lines[7] == "" and lines[8] == "bot         py-hosted-heuristic-v2"


def test_the_bot_list_puts_a_space_between_games() -> None:
    class Info:
        name, owner, language, games, connected, created_ms = (
            "js",
            "demo",
            "javascript",
            ["friday13", "board13"],
            True,
            0,
        )

    view = _bots_table([Info()])
    assert list(view.columns[3].cells) == ["friday13, board13"]
