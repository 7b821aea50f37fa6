"""The engine contract every game implements, and the registry of games by name.

A `Game` holds rules and parameters; `Game.new_match(seed)` deals a `State`. The base `State`
owns the guards (match over, illegal action) so that a game only writes the hooks. Nothing in
`arena.games` does I/O: the engines are pure and deterministic for a given seed.

This module is compiled with mypyc where the build can (see setup.py), as are the card engines
that build on it; `Game` and `State` stay open to subclasses in plain Python (board13, tests).
"""

from __future__ import annotations

import hashlib
import inspect
import struct
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar

from mypy_extensions import mypyc_attr

if TYPE_CHECKING:
    # The kit module builds on this one; the registry only stores kits.
    from arena.games.kit import GameKit

REPLAY_FORMAT = "arena-replay/1"

Action = int
"""An action is a small integer id, stable across versions; `Game.action_text` names it."""


class Observation(Protocol):
    """What a seat (or a spectator) sees; each game has its own frozen dataclass."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data, with cards and actions in text form."""
        ...


class GameError(ValueError):
    """Base class of every error the engines raise for bad input."""


class IllegalAction(GameError):
    """A well-formed action that the rules do not allow now; the message says why."""


class InvalidActionText(GameError):
    """Text that does not name any action of the game, e.g. `cat:3` (there is no 3)."""


class InvalidParameters(GameError):
    """Game parameters the rules do not support, e.g. 7 players."""


class UnknownGame(GameError):
    """A game name that is not registered."""


class Termination(StrEnum):
    """How a match ended; the values are what records and the store hold."""

    NORMAL = "normal"
    """Played to the end by the rules."""
    UNFINISHED = "unfinished"
    """Not over yet (a state's provisional outcome), or stopped by a rule's move limit."""
    FORFEIT = "forfeit"
    """A seat lost by forfeit (timeouts, illegal moves, a lost connection); it ranks last."""
    ABORTED = "aborted"
    """Stopped through the arena's fault; stored but not rated."""
    RUNNING = "running"
    """A live record's: the match is still being played."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """Final scores and ranks of a match, seat by seat; rank 1 is best."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: Termination = Termination.NORMAL

    def __reduce__(self) -> tuple[type[Outcome], tuple[object, ...]]:
        return rebuilt(self)


def rebuilt(instance: Any) -> tuple[Any, tuple[object, ...]]:
    """`__reduce__` for a frozen dataclass: pickled as its class and fields, unpickled through `__init__`.

    Compiled with mypyc, a frozen dataclass refuses pickle's default restore (which sets attributes
    one by one), and built-in bots' worker processes are sent games and observations by pickle.
    """
    return type(instance), tuple(getattr(instance, field.name) for field in fields(instance))


def ranks_from_scores(scores: Sequence[int], *, lower_is_better: bool = True) -> tuple[int, ...]:
    """Rank 1 + the number of players strictly better, so ties share the better rank."""
    if lower_is_better:
        return tuple(1 + sum(other < mine for other in scores) for mine in scores)
    return tuple(1 + sum(other > mine for other in scores) for mine in scores)


def seed_commitment(seed: bytes) -> str:
    """The SHA-256 of the seed bytes, published at match start and checked at the end."""
    return hashlib.sha256(seed).hexdigest()


T = TypeVar("T")
_HIGH_BYTE = b"\x3f"
_SECOND_BYTE = bytes([0xF0 | (b & 0x0F) for b in range(256)])


class SeedStream:
    """Deterministic draws from a seed, simple enough to re-implement in any language.

    The stream is the output of SHAKE-256(seed), read front to back in 64-bit big-endian
    words. `below(n)` takes one word: word mod n (the bias is below 2**-57). `shuffled` takes
    one word per card and sorts the cards by (bits 8-51 of their word, card code).
    """

    __slots__ = ("_seed", "_data", "_position", "_expected")

    def __init__(self, seed: bytes, expected_words: int = 64) -> None:
        self._seed = seed
        self._data = b""
        """The output read so far and beyond, made on the first draw (a search's states never draw)."""
        self._position = 0
        self._expected = 8 * expected_words

    def _take(self, size: int) -> bytes:
        end = self._position + size
        if end > len(self._data):
            # SHAKE output is extendable: a longer digest starts with the shorter one.
            self._data = hashlib.shake_256(self._seed).digest(max(2 * end, self._expected))
        chunk = self._data[self._position : end]
        self._position = end
        return chunk

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        word: int = struct.unpack(">Q", self._take(8))[0]
        return word % n

    def shuffled(self, codes: bytes) -> bytes:
        """The card codes (each below 256) in a new uniformly random order."""
        count = len(codes)
        block = bytearray(self._take(8 * count))
        # Setting a word's top 12 bits to 0x3FF makes it the double 1.(low 52 bits); with the
        # code as its lowest byte the doubles sort by key, and sorting floats is fast in C.
        block[0::8] = _HIGH_BYTE * count
        block[1::8] = block[1::8].translate(_SECOND_BYTE)
        block[7::8] = codes
        layout = f">{count}d"
        return struct.pack(layout, *sorted(struct.unpack(layout, block)))[7::8]

    def copy(self) -> SeedStream:
        twin = SeedStream(self._seed, 0)
        twin._data, twin._position, twin._expected = self._data, self._position, self._expected
        return twin


G = TypeVar("G", bound="Game")


@mypyc_attr(allow_interpreted_subclasses=True)
class State(ABC, Generic[G]):
    """One match in progress. Subclasses write the `_hooks`; the guards live here."""

    game: G

    @abstractmethod
    def current_player(self) -> int:
        """The seat to move, or -1 when the match is over."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every action the current player may take, in ascending id order."""

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def _illegal_reason(self, action: Action) -> str | None:
        """Why `action` is not allowed now, or None when it is."""

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Carry out an action already known to be legal."""

    @abstractmethod
    def outcome(self) -> Outcome:
        """Scores and ranks; only meaningful once the match is over."""

    @abstractmethod
    def clone(self) -> Self:
        """An independent copy, cheap enough for search bots."""

    @abstractmethod
    def observation(self, seat: int) -> Observation:
        """Exactly what `seat` may see now."""

    @abstractmethod
    def public_observation(self) -> Observation:
        """What a spectator may see while the match runs: no hidden information."""

    @abstractmethod
    def record(self, seats: Sequence[str], termination: Termination = Termination.NORMAL) -> dict[str, Any]:
        """The `arena-replay/1` record of the match so far, hidden information included."""

    @abstractmethod
    def default_action(self) -> Action:
        """A safe move the server plays for a seat that is late, wrong or gone."""

    def why_illegal(self, action: object) -> str | None:
        """Why `action` may not be played now, in a sentence; None when it may.

        It takes any value, so that compiled and plain Python answer alike what is no action id."""
        if self.is_terminal():
            return "the match is over; no more actions are accepted"
        if not isinstance(action, int) or isinstance(action, bool):
            return f"{action!r} is not an action id"
        return self._illegal_reason(action)

    def apply(self, action: object) -> None:
        """Carry out `action` for the current player, or raise IllegalAction saying why."""
        reason = self.why_illegal(action)
        if reason is not None:
            raise IllegalAction(reason)
        assert isinstance(action, int)  # why_illegal refuses anything else
        self._apply(action)

    def apply_trusted(self, action: Action) -> None:
        """Carry out an action known to be legal, without the checks: for search playouts,
        whose policies choose only legal actions. Anything from outside goes through `apply`."""
        self._apply(action)

    def apply_text(self, text: str) -> Action:
        """Parse and apply an action given in text form; returns its id."""
        action = self.game.action_from_text(text)
        self.apply(action)
        return action


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC):
    """Rules and parameters of one game; `new_match` deals a fresh `State`."""

    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    score_name: ClassVar[str] = "penalty"
    """What `Outcome.scores` count, for tables: penalty points in the card games."""
    lower_is_better: ClassVar[bool] = True

    players: int

    @abstractmethod
    def new_match(self, seed: bytes) -> State[Any]:
        """A new match dealt from `seed`: the same seed always gives the same match."""

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """The parameters as stored in replay records, e.g. {"players": 4, "edition": "en"}."""

    @abstractmethod
    def action_text(self, action: Action) -> str:
        """The readable form of an action id, e.g. `cat:5` or `friday:4>mirror`."""

    @abstractmethod
    def action_from_text(self, text: str) -> Action:
        """The action id named by `text`; raises InvalidActionText."""

    @abstractmethod
    def replay(self, record: Mapping[str, Any]) -> State[Any]:
        """Re-play a replay record from its seed and moves; raises GameError if it is false."""

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.params().items())
        return f"make_game({self.name!r}, {args})"


GameFactory = Callable[..., Game]
_REGISTRY: dict[str, tuple[GameFactory, GameKit]] = {}
_PARAMETERS: dict[str, tuple[str, ...]] = {}
"""Each registered game's parameter names, read from its factory once: a node makes games at every
match's start and end, and reading a signature costs more than making the game."""


def register(name: str, factory: GameFactory, kit: GameKit) -> None:
    """Make a game available by name to `make_game`, the CLI and the server, with its kit: all
    that the arena needs of the game besides its rules (arena.games.kit)."""
    _REGISTRY[name] = (factory, kit)
    _PARAMETERS[name] = tuple(inspect.signature(factory).parameters)


def kit_of(name: str) -> GameKit:
    """The kit of the registered game `name`; raises UnknownGame."""
    return _registered(name)[1]


def _registered(name: str) -> tuple[GameFactory, GameKit]:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownGame(f"unknown game {name!r}; choose one of: {known}") from None


def game_names() -> list[str]:
    return sorted(_REGISTRY)


def make_game(name: str, **params: Any) -> Game:
    """The registered game `name` with `params`; raises UnknownGame or InvalidParameters."""
    factory = _registered(name)[0]
    accepted = _PARAMETERS[name]
    for key in params:
        if key not in accepted:
            takes = ", ".join(accepted) or "no parameters"
            raise InvalidParameters(f"{name} has no parameter {key!r} (it takes: {takes})")
    return factory(**params)
