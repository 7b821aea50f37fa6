"""The 7x7 board: field names, piece codes and the line tables the engine walks.

A field is an int 0..48: `a1` is 0, `g1` is 6, `a2` is 7 and `g7` is 48 (rank by rank, files a..g).
Every table here is computed once at import, so the hot paths only index tuples.
"""

from __future__ import annotations

SIZE = 7
FIELDS = SIZE * SIZE
FILES = "abcdefg"

BLACK = 0
WHITE = 1
SIDES = ("black", "white")
"""Seat 0 plays black and always moves first; seat 1 plays white."""

# A piece is a small int: the low two bits say whose it is (1 black, 2 white, 0 nobody's),
# MONUMENT marks a monument and FIXED one that may not move. 0 is an empty field.
EMPTY = 0
OWNER = 3
MONUMENT = 4
FIXED = 8
BLACK_STONE = 1
WHITE_STONE = 2
BLACK_MONUMENT = 1 | MONUMENT | FIXED
WHITE_MONUMENT = 2 | MONUMENT | FIXED
MOVABLE_BLACK_MONUMENT = 1 | MONUMENT
MOVABLE_WHITE_MONUMENT = 2 | MONUMENT
NEUTRAL_MONUMENT = MONUMENT | FIXED

STONES = (BLACK_STONE, WHITE_STONE)
"""The ordinary stone of each side."""

GLYPHS = {
    EMPTY: ".",
    BLACK_STONE: "b",
    WHITE_STONE: "w",
    BLACK_MONUMENT: "B",
    WHITE_MONUMENT: "W",
    MOVABLE_BLACK_MONUMENT: "B*",
    MOVABLE_WHITE_MONUMENT: "W*",
    NEUTRAL_MONUMENT: "N",
}
"""How diagrams write each piece: lower case stones, upper case monuments, `*` when movable."""

PIECE_NAMES = {
    BLACK_STONE: "black",
    WHITE_STONE: "white",
    BLACK_MONUMENT: "black_monument",
    WHITE_MONUMENT: "white_monument",
    MOVABLE_BLACK_MONUMENT: "black_monument",
    MOVABLE_WHITE_MONUMENT: "white_monument",
    NEUTRAL_MONUMENT: "neutral_monument",
}

ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, -1), (-1, 1))


def field_name(field: int) -> str:
    return f"{FILES[field % SIZE]}{field // SIZE + 1}"


NAMES = tuple(field_name(field) for field in range(FIELDS))
_INDEX = {name: field for field, name in enumerate(NAMES)}


def parse_field(text: str) -> int | None:
    """The field named by `text` (`d4`, case-insensitive), or None if it names no field."""
    return _INDEX.get(text.strip().lower())


def _step(field: int, df: int, dr: int) -> int | None:
    file, rank = field % SIZE + df, field // SIZE + dr
    if 0 <= file < SIZE and 0 <= rank < SIZE:
        return rank * SIZE + file
    return None


def _ray(field: int, df: int, dr: int) -> tuple[int, ...]:
    squares = []
    here = _step(field, df, dr)
    while here is not None:
        squares.append(here)
        here = _step(here, df, dr)
    return tuple(squares)


RAYS = tuple(tuple(ray for df, dr in ORTHOGONAL + DIAGONAL if (ray := _ray(field, df, dr))) for field in range(FIELDS))
"""Per field, the fields along each of the eight directions, nearest first (empty rays left out)."""


def _pairs(directions: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    table = []
    for field in range(FIELDS):
        pairs = []
        for df, dr in directions:
            ray = _ray(field, df, dr)
            if len(ray) >= 2:
                pairs.append((ray[0], ray[1]))
        table.append(tuple(pairs))
    return tuple(table)


def _axes(directions: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    table = []
    for field in range(FIELDS):
        axes = []
        for df, dr in directions[:2]:
            ahead, behind = _step(field, df, dr), _step(field, -df, -dr)
            if ahead is not None and behind is not None:
                axes.append((ahead, behind))
        table.append(tuple(axes))
    return tuple(table)


CLAMPS = (_pairs(ORTHOGONAL), _pairs(ORTHOGONAL + DIAGONAL))
"""CLAMPS[diagonal][field]: (neighbour, the field beyond it) for each capture direction.

A stone arriving on `field` captures the enemy on `neighbour` when its own side holds `beyond`.
"""

_ORTHOGONAL_AXES = _axes(ORTHOGONAL)
_DIAGONAL_AXES = _axes(DIAGONAL)
AXES = (
    _ORTHOGONAL_AXES,
    tuple(straight + slanted for straight, slanted in zip(_ORTHOGONAL_AXES, _DIAGONAL_AXES, strict=True)),
)
"""AXES[diagonal][field]: the two neighbours on either side of `field` along each capture line.

The entry ban forbids a field whose two neighbours on one such line are both enemy pieces.
"""


def _flanks(directions: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    table = []
    for field in range(FIELDS):
        flanks = []
        for df, dr in directions:
            if (df, dr) > (-df, -dr):
                continue
            ray = _ray(field, df, dr)
            if len(ray) >= 2:
                flanks.append((ray[0], ray[1]))
        table.append(tuple(flanks))
    return tuple(table)


FLANKS = (_flanks(ORTHOGONAL), _flanks(ORTHOGONAL + DIAGONAL))
"""FLANKS[diagonal][field]: (middle, far) along half the capture directions, one per line.

When `field` and `far` both hold enemy pieces, `middle` is under the entry ban; walking every
enemy piece this way finds each banned field once per line, whatever the enemy count.
"""

LINES = frozenset((field, target) for field in range(FIELDS) for ray in RAYS[field] for target in ray)
"""The (from, to) pairs joined by a straight line: the only moves that can exist."""


def between(start: int, end: int) -> tuple[int, ...]:
    """The fields strictly between two fields on one straight line."""
    for ray in RAYS[start]:
        if end in ray:
            return ray[: ray.index(end)]
    raise ValueError(f"{field_name(start)} and {field_name(end)} are not on one line")


def distance(a: int, b: int) -> int:
    """King's-move distance: the number of one-field steps from `a` to `b`."""
    return max(abs(a % SIZE - b % SIZE), abs(a // SIZE - b // SIZE))
