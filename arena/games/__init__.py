"""Rules of every game on the arena: pure, deterministic, no I/O."""

from arena.games import amigo13, board13, friday13
from arena.games.base import (
    Action,
    Game,
    GameError,
    IllegalAction,
    InvalidActionText,
    InvalidParameters,
    Outcome,
    State,
    Termination,
    UnknownGame,
    game_names,
    kit_of,
    make_game,
)

__all__ = [
    "Action",
    "Game",
    "GameError",
    "IllegalAction",
    "InvalidActionText",
    "InvalidParameters",
    "Outcome",
    "State",
    "Termination",
    "UnknownGame",
    "amigo13",
    "board13",
    "friday13",
    "game_names",
    "kit_of",
    "make_game",
]
