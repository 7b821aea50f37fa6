"""The one interface through which a match talks to its players, wherever they run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.bots.base import Bot
from arena.games.base import Action, Game, State, Termination
from arena.games.kit import ObservationEncoder
from arena.match.faults import FaultKind


@dataclass(frozen=True)
class Clock:
    """Time control: each move may take `per_move` seconds, then draws on a bank of `bank`."""

    per_move: float = 1.0
    bank: float = 10.0


@dataclass(frozen=True)
class MatchInfo:
    """What a seat is told when its match starts."""

    match_id: str
    game: Game
    seat: int
    seats: tuple[str, ...]
    seed_commitment: str
    clock: Clock


class MoveRequest:
    """A request to one seat to move; `observation` is computed on first use."""

    __slots__ = (
        "_observation",
        "_state",
        "debug",
        "extend",
        "legal_actions",
        "paused",
        "request_id",
        "seat",
        "time_left",
    )

    def __init__(self, request_id: int, state: State[Any], seat: int, time_left: float) -> None:
        self.request_id = request_id
        self.seat = seat
        self.legal_actions: list[Action] = state.legal_actions()
        self.time_left = time_left
        """Seconds the seat may take before this answer is late (move limit plus bank)."""
        self.paused = 0.0
        """Seconds of this move's clock that stood still (see `pause`)."""
        self.extend: Callable[[float], None] | None = None
        """Set by the runner: moves this answer's deadline later."""
        self.debug = ""
        """Set by the seat with its answer: the bot's debug text for this move (`Action.debug`), if any."""
        self._state = state
        self._observation: Any = None

    def pause(self, seconds: float) -> None:
        """Stop this move's clock for `seconds` that were not the bot's (the store was unreachable)."""
        self.paused += seconds
        if self.extend is not None:
            self.extend(seconds)

    @property
    def observation(self) -> Any:
        if self._observation is None:
            self._observation = self._state.observation(self.seat)
        return self._observation

    def encoded_observation(self, encoder: ObservationEncoder) -> bytes:
        """`encoder.encode_bytes(self.observation)`, without making the observation if nothing asked for it."""
        if self._observation is not None:
            return encoder.encode_bytes(self._observation)
        return encoder.encode_seat(self._state, self.seat)


@dataclass(frozen=True)
class MatchEnd:
    """What every seat is told when its match is over."""

    match_id: str
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: Termination
    seed: bytes
    forfeited: tuple[int, ...] = ()


class SeatFailure(Exception):
    """The seat cannot answer (late, gone, or it sent garbage); the message says which."""


class SeatTimeout(SeatFailure):
    pass


class SeatGone(SeatFailure):
    """The player behind the seat left and did not come back within the grace period, or its process ended.

    `kind` says which for the record: disconnected, crashed (a hosted bot's process ended), or limit
    (it hit a limit of its sandbox); the message is the detail."""

    def __init__(self, detail: str, kind: FaultKind = FaultKind.DISCONNECTED) -> None:
        super().__init__(detail)
        self.kind = kind


class SeatLost(Exception):
    """The seat cannot be reached through no fault of its player: the node serving its session died, and the
    bot did not reconnect to a living one within the grace period. Not a forfeit: the match cannot go on as a
    fair one, so it is aborted, never rated (a tournament plays it again)."""


class Seat(ABC):
    """One player of one match: an in-process bot, a remote session, a seat on another node."""

    name: str
    timed: bool = True
    """Whether the runner enforces the clock; in-process bots answer synchronously."""

    async def start(self, info: MatchInfo) -> None:  # noqa: B027 - optional hook
        """The match begins."""

    @abstractmethod
    async def request(self, move: MoveRequest) -> Action:
        """The seat's answer to a move request; raises SeatFailure when it has none."""

    async def reject(self, move: MoveRequest, reason: str) -> None:  # noqa: B027 - optional hook
        """The answer to `move` was late or illegal; the server played a default move."""

    async def end(self, result: MatchEnd) -> None:  # noqa: B027 - optional hook
        """The match is over."""


@dataclass
class BotSeat(Seat):
    """A built-in bot playing in the runner's own process."""

    name: str
    make: Callable[[Game, int], Bot]
    bot: Bot | None = field(default=None, init=False)
    timed = False

    async def start(self, info: MatchInfo) -> None:
        self.bot = self.make(info.game, info.seat)

    async def request(self, move: MoveRequest) -> Action:
        assert self.bot is not None, "start() comes before request()"
        return self.bot.act(move)


def seat_names(seats: Sequence[Seat]) -> tuple[str, ...]:
    return tuple(seat.name for seat in seats)
