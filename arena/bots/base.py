"""The contract between a policy and whoever runs it: the match runner, or the SDK."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

from mypy_extensions import mypyc_attr

from arena.games.base import Action, Game


class Turn(Protocol):
    """A request to move: what the seat sees and what it may do.

    `observation` may be computed on first use, so a bot that needs only the legal actions
    does not pay for it.
    """

    @property
    def seat(self) -> int: ...

    @property
    def legal_actions(self) -> Sequence[Action]: ...

    @property
    def observation(self) -> Any: ...


@mypyc_attr(allow_interpreted_subclasses=True)  # bots written with the SDK derive from it
class Bot(ABC):
    """A policy for one seat of one match. A new instance plays each match."""

    name: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, game: Game, seat: int, seed: int = 0) -> None:
        self.game = game
        self.seat = seat
        self.rng = random.Random(seed)

    @abstractmethod
    def act(self, turn: Turn) -> Action:
        """The action to play; it must be one of `turn.legal_actions`."""


class StaticTurn:
    """A Turn built from data already at hand (the SDK, tests)."""

    __slots__ = ("legal_actions", "observation", "seat")

    def __init__(self, seat: int, legal_actions: Sequence[Action], observation: Any) -> None:
        self.seat = seat
        self.legal_actions = legal_actions
        self.observation = observation
