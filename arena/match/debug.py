"""A bot's debug output: the optional text of each Action, bounded and kept with the replay.

A bot may say a line about each move (`Action.debug`): its reasoning, an evaluation. The arena
keeps at most `MOVE_BYTES` of it per move and `MATCH_BYTES` per seat and match (UTF-8); a longer
text is cut at a character boundary and ends with `CUT`. The texts go into the replay record as
"debug": [[move, seat, text], ...]; nothing here ever reaches another seat.
"""

from __future__ import annotations

MOVE_BYTES = 1024
"""The most one move's text keeps (UTF-8 bytes, the mark included)."""
MATCH_BYTES = 64 * 1024
"""The most one seat's texts keep together in one match."""
CUT = "…[cut]"
"""Ends a text that was cut."""

DebugEntry = tuple[int, int, str]
"""(move index, seat, text), as the replay record keeps it."""


def cut(text: str, limit: int = MOVE_BYTES) -> str:
    """`text` when its UTF-8 fits in `limit` bytes, else as much of it as fits beside the mark, and the mark."""
    data = text.encode()
    if len(data) <= limit:
        return text
    room = limit - len(CUT.encode())
    if room < 0:
        return ""
    return data[:room].decode(errors="ignore") + CUT


class DebugLog:
    """One match's debug texts, each seat within its budget."""

    def __init__(self, seats: int) -> None:
        self.left = [MATCH_BYTES] * seats
        self.entries: list[DebugEntry] = []

    def add(self, move: int, seat: int, text: str) -> str:
        """Keep `seat`'s text for move `move`, cut to what its budgets allow; returns what was kept ("" for nothing)."""
        if not text or self.left[seat] <= 0:
            return ""
        kept = cut(text)
        size = len(kept.encode())
        if size > self.left[seat]:
            kept, self.left[seat] = cut(kept, self.left[seat]), 0  # the match's budget is spent
        else:
            self.left[seat] -= size
        if kept:
            self.entries.append((move, seat, kept))
        return kept
