"""The board for people: a text diagram for the CLI and a field-by-field structure for the web viewer."""

from __future__ import annotations

from typing import Any

from arena.games.board13.board import FIELDS, FILES, FIXED, GLYPHS, MONUMENT, NAMES, OWNER, PIECE_NAMES, SIDES, SIZE
from arena.games.board13.rules import Board13Observation
from arena.games.board13.scenario import BLACK_FIELD, KIND_NAMES, WHITE_FIELD, Scenario

RESERVED_GLYPHS = {BLACK_FIELD: "+", WHITE_FIELD: "-"}
LEGEND = "b/w stones, B/W/N black/white/neutral monuments (* movable), +/- empty black-only/white-only fields"


def render_text(obs: Board13Observation) -> str:
    """The position as text: a header line, the board with rank 7 on top, reserves and toppled monuments."""
    scenario = obs.scenario
    if obs.current_player >= 0:
        status = f"{SIDES[obs.current_player]} to move"
    elif not obs.scores:
        status = "over"
    elif obs.scores[0] == obs.scores[1]:
        status = "drawn"
    else:
        status = f"{SIDES[obs.scores.index(max(obs.scores))]} won"
    header = f"board13 {scenario.name}: ply {obs.ply}/{scenario.ply_limit}, {status}"
    files = "    " + "  ".join(FILES)
    lines = [header, files]
    for rank in range(SIZE - 1, -1, -1):
        cells = []
        for file in range(SIZE):
            spot = rank * SIZE + file
            code = obs.board[spot]
            glyph = GLYPHS[code] if code else RESERVED_GLYPHS.get(scenario.kinds[spot], ".")
            cells.append(glyph.ljust(2))
        lines.append(f"{rank + 1:>2}  {' '.join(cells)} {rank + 1}")
    lines.append(files)
    lines.append(
        f"reserve: black {obs.reserves[0]}, white {obs.reserves[1]}; "
        f"monuments toppled: black {obs.toppled[0]}, white {obs.toppled[1]}; goal: {scenario.goal}"
    )
    lines.append(LEGEND)
    return "\n".join(lines)


def board_layout(scenario: Scenario, board: tuple[int, ...] | None = None) -> dict[str, Any]:
    """Everything a viewer needs to draw the board: each field's kind, decoration and piece.

    Fields are listed a1, b1, ... g7. `shape` follows the original boards: coloured fields are
    square, plain ones round; `highlighted` marks the 13 tilted fields.
    """
    board = scenario.board if board is None else board
    fields = []
    for spot in range(FIELDS):
        kind = scenario.kinds[spot]
        colour = scenario.colours[spot] or ("board" if kind == 0 else KIND_NAMES[kind])
        code = board[spot]
        piece: dict[str, Any] | None = None
        if code:
            owner = code & OWNER
            piece = {
                "name": PIECE_NAMES[code],
                "side": SIDES[owner - 1] if owner else "neutral",
                "monument": bool(code & MONUMENT),
                "movable": not code & FIXED,
            }
        fields.append(
            {
                "field": NAMES[spot],
                "kind": KIND_NAMES[kind],
                "colour": colour,
                "shape": "round" if colour == "board" else "square",
                "highlighted": spot in scenario.highlighted,
                "piece": piece,
            }
        )
    return {"size": SIZE, "files": FILES, "fields": fields}
