"""countdown13, a game that exists only in the tests: Nim with a secret, in one module.

Two players take 1, 2 or 3 counters in turn from a pile (13 unless the `pile` parameter says
otherwise); whoever takes the last counter loses 5 points. Each seat is dealt a secret lucky
number from the seed, and every take of exactly that many counters scores a point. A seat sees
its own lucky number; a spectator sees none until the replay.

The rules and the kit below are all a game declares: nothing outside this package names it.
It is registered only while a test asks for it (`registered`), so that every other test sees
the shipped games alone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Self

import pytest

from arena.games import base
from arena.games.base import (
    REPLAY_FORMAT,
    Action,
    Game,
    GameError,
    InvalidActionText,
    InvalidParameters,
    Outcome,
    SeedStream,
    State,
    ranks_from_scores,
    register,
    seed_commitment,
)
from arena.games.kit import JsonKit, Parameter

NAME = "countdown13"
TAKES = (1, 2, 3)
LAST_COUNTER_PENALTY = 5


@dataclass(frozen=True, slots=True)
class CountdownObservation:
    seat: int
    pile: int
    current_player: int
    lucky: int
    """The observing seat's lucky number; 0 for a spectator."""
    takes: tuple[int, ...]
    legal_actions: tuple[Action, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "pile": self.pile,
            "current_player": self.current_player,
            "lucky": self.lucky,
            "takes": list(self.takes),
        }


class Countdown(Game):
    name = NAME
    min_players = 2
    max_players = 2
    score_name = "points"
    lower_is_better = False

    def __init__(self, players: int = 2, pile: int = 13) -> None:
        if players != 2:
            raise InvalidParameters(f"{NAME} is for 2 players, not {players}")
        if not 1 <= pile <= 99:
            raise InvalidParameters(f"{NAME} starts with 1 to 99 counters, not {pile}")
        self.players = players
        self.pile = pile

    def new_match(self, seed: bytes) -> CountdownState:
        draws = SeedStream(seed)
        return CountdownState(self, seed, (1 + draws.below(3), 1 + draws.below(3)), [])

    def params(self) -> dict[str, Any]:
        return {"players": self.players, "pile": self.pile}

    def action_text(self, action: Action) -> str:
        return f"take {action}"

    def action_from_text(self, text: str) -> Action:
        word, _, count = text.strip().partition(" ")
        if word != "take" or count not in {str(take) for take in TAKES}:
            raise InvalidActionText(f"{text!r} is not a move: write take 1, take 2 or take 3")
        return int(count)

    def replay(self, record: Mapping[str, Any]) -> CountdownState:
        state = self.new_match(bytes.fromhex(record["seed"]))
        for move in record["rounds"][0]["moves"]:
            state.apply_text(move["move"])
        if state.outcome().scores != tuple(record["scores"]):
            raise GameError("the record's scores differ from what the rules give")
        return state


class CountdownState(State[Countdown]):
    def __init__(self, game: Countdown, seed: bytes, lucky: tuple[int, int], takes: list[int]) -> None:
        self.game = game
        self.seed = seed
        self.lucky = lucky
        self.takes = takes

    @property
    def pile(self) -> int:
        return self.game.pile - sum(self.takes)

    def current_player(self) -> int:
        return -1 if self.is_terminal() else len(self.takes) % 2

    def legal_actions(self) -> list[Action]:
        return [] if self.is_terminal() else [take for take in TAKES if take <= self.pile]

    def is_terminal(self) -> bool:
        return self.pile == 0

    def _illegal_reason(self, action: Action) -> str | None:
        if action not in TAKES:
            return f"{action} is not an action of {NAME}: take 1, 2 or 3"
        if action > self.pile:
            return f"only {self.pile} counters are left"
        return None

    def _apply(self, action: Action) -> None:
        self.takes.append(action)

    def outcome(self) -> Outcome:
        scores = [sum(take == self.lucky[seat] for take in self.takes[seat::2]) for seat in range(2)]
        if self.is_terminal():
            scores[(len(self.takes) - 1) % 2] -= LAST_COUNTER_PENALTY
        return Outcome(tuple(scores), ranks_from_scores(scores, lower_is_better=False))

    def clone(self) -> Self:
        return type(self)(self.game, self.seed, self.lucky, list(self.takes))

    def observation(self, seat: int) -> CountdownObservation:
        own_turn = seat == self.current_player()
        return replace(
            self.public_observation(),
            seat=seat,
            lucky=self.lucky[seat],
            legal_actions=tuple(self.legal_actions()) if own_turn else (),
        )

    def public_observation(self) -> CountdownObservation:
        return CountdownObservation(-1, self.pile, self.current_player(), 0, tuple(self.takes), ())

    def record(self, seats: Sequence[str], termination: str = "normal") -> dict[str, Any]:
        outcome = self.outcome()
        moves = [{"seat": index % 2, "move": self.game.action_text(take)} for index, take in enumerate(self.takes)]
        return {
            "format": REPLAY_FORMAT,
            "game": NAME,
            "params": self.game.params(),
            "seats": list(seats),
            "seed": self.seed.hex(),
            "seed_commitment": seed_commitment(self.seed),
            "rounds": [{"lucky": list(self.lucky), "moves": moves}],
            "scores": list(outcome.scores),
            "ranks": list(outcome.ranks),
            "termination": termination,
        }

    def default_action(self) -> Action:
        return TAKES[0]


class CountdownKit(JsonKit):
    parameters = (Parameter("pile", 13, "counters on the pile at the start"),)
    hidden_record_keys = ("lucky",)
    drawing: ClassVar[Mapping[str, Any]] = {"kind": "facts", "score_table": "final"}

    def observation_from_dict(self, game: Game, data: dict[str, Any], legal: Sequence[Action]) -> CountdownObservation:
        own_turn = data["seat"] == data["current_player"]
        return CountdownObservation(
            seat=data["seat"],
            pile=data["pile"],
            current_player=data["current_player"],
            lucky=data["lucky"],
            takes=tuple(data["takes"]),
            legal_actions=tuple(legal) if own_turn else (),
        )

    def public_view(self, observation: CountdownObservation) -> dict[str, Any]:
        return {
            "kind": "facts",
            "current_player": observation.current_player,
            "facts": [["Counters left", observation.pile], ["Takes so far", len(observation.takes)]],
        }


@contextlib.contextmanager
def registered() -> Iterator[None]:
    """countdown13 in the game registry until the block ends, as a game package registers itself."""
    with pytest.MonkeyPatch.context() as patch:
        # A copy of the registry stands in for it meanwhile, so the game leaves no trace behind.
        patch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
        register(NAME, Countdown, CountdownKit())
        yield
