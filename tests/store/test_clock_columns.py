"""The stored replay's clock columns: whatever the think times and banks, they read back as written."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.store.replays import _clock_columns, _clock_moves

# Think times mostly short (one byte) with some long ones (several bytes); banks mostly as the rules
# make them (a residual of 0) with some that are not (residuals of either sign, one byte or more).
THINKS = st.one_of(st.integers(0, 126), st.integers(127, 10**7))
BANKS = st.one_of(st.just(None), st.integers(0, 10**7))


@st.composite
def clocks(draw: Any) -> tuple[dict[str, Any], list[int]]:
    per_move, bank = draw(st.integers(0, 5_000)), draw(st.integers(0, 60_000))
    seats = draw(st.lists(st.integers(0, 5), max_size=60))
    banks = [bank] * 6
    moves: list[list[int] | None] = []
    for seat in seats:
        if draw(st.integers(0, 9)) == 0:
            moves.append(None)  # played before a resume: not timed
            continue
        think, left = draw(THINKS), draw(BANKS)
        if left is None:  # what the rules make of the think time
            left = max(0, banks[seat] - max(0, think - per_move))
        banks[seat] = left
        moves.append([think, left])
    return {"per_move_ms": per_move, "bank_ms": bank, "moves": moves, "strikes": []}, seats


@given(clocks())
def test_the_columns_read_back_as_the_clock_was(case: tuple[dict[str, Any], list[int]]) -> None:
    clock, seats = case
    columns = _clock_columns(clock, seats)
    assert _clock_moves(clock, seats, columns) == clock["moves"]


@given(clocks())
def test_columns_cut_short_or_with_bytes_left_over_are_refused(case: tuple[dict[str, Any], list[int]]) -> None:
    clock, seats = case
    columns = _clock_columns(clock, seats)
    with pytest.raises(ValueError, match="bytes left over"):
        _clock_moves(clock, seats, columns + b"\0")
    if columns:
        with pytest.raises(ValueError, match="end"):  # early, or inside a number
            _clock_moves(clock, seats, columns[:-1])


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"moves": [[-1, 10_000]]}, "negative"),  # would be written as 0, an untimed move
        ({"moves": [[1.0, 10_000]]}, "whole milliseconds"),
        ({"moves": [[True, 10_000]]}, "whole milliseconds"),
        ({"per_move_ms": 1000.0}, "limits are whole"),
        ({"bank_ms": 10_000.0}, "limits are whole"),  # a bank read back as 10000.0, not 10000
    ],
    ids=["negative think time", "float think time", "bool think time", "float limit", "float bank"],
)
def test_a_clock_the_columns_would_not_read_back_exactly_is_refused(change: dict[str, Any], error: str) -> None:
    """A node's record takes its clock as the runner gave it, not as read back: so whatever the columns
    cannot give back exactly is refused (and the match stored whole, tests/store/test_encode_match.py)."""
    clock = {"per_move_ms": 1000, "bank_ms": 10_000, "moves": [[5, 10_000]], "strikes": []} | change
    with pytest.raises((TypeError, ValueError), match=error):
        _clock_columns(clock, [0])
