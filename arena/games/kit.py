"""What the arena needs of a game besides its rules, declared by the game's own package.

A game registers a `GameKit` beside its factory (`base.register`). The server, the SDK, the
node and the web UI reach a game only through its kit: they never name a game. The kit says
which parameters the game takes, how its observations travel on the wire (arena.v1) and come
back, what of its replay record stays hidden while a match runs, how a record's move reads as
action text, and what the web viewer draws (the public view of a position and a drawing
description of how to draw it).

A game without protobuf messages of its own derives from `JsonKit`: its observations travel as
`GenericObservation` JSON, and it writes only `observation_from_dict` and `public_view`.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from arena.games.base import Action, Game, GameError, InvalidParameters, Observation, State
from arena.v1 import messages_pb2 as pb


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter a game takes besides the number of players, as a command line or a form shows it."""

    name: str
    default: str | int
    help: str
    choices: tuple[str, ...] = ()
    """The values allowed, when they are a closed set; empty when any text the game checks will do."""

    def parse(self, text: str) -> str | int:
        """The value written as `text` (on the wire every parameter is text)."""
        if isinstance(self.default, int):
            try:
                return int(text)
            except ValueError:
                raise InvalidParameters(f"{self.name} is a whole number, not {text!r}") from None
        return text


class ObservationEncoder(Protocol):
    """Turns one match's observations, in match order, into messages."""

    __slots__ = ()

    def encode(self, obs: Any) -> pb.Observation: ...

    def encode_bytes(self, obs: Any) -> bytes:
        """`obs` as an encoded `Observation`, the form a request carries (arena.node.remote_seat)."""

    def encode_seat(self, state: Any, seat: int) -> bytes:
        """`encode_bytes(state.observation(seat))`, the same bytes; an encoder may read them from the state
        without making the observation (the card games' does)."""
        return self.encode_bytes(state.observation(seat))


Frame = dict[str, Any]
"""One step of the web replay: the round, the move just made (or None) and the public `view`."""


class GameKit(ABC):
    """Everything game-specific outside the rules, behind one interface the upper layers call."""

    parameters: ClassVar[tuple[Parameter, ...]] = ()
    """The game's parameters besides `players`, each a keyword of its factory."""
    hidden_record_keys: ClassVar[tuple[str, ...]] = ()
    """Keys of a record's rounds that a spectator may not see while the match runs (hands, ...)."""
    observation_field: ClassVar[str]
    """The field of the wire's `Observation` oneof that carries this game's observations."""
    drawing: ClassVar[Mapping[str, Any]]
    """How the web viewer draws the game: `kind` names the renderer ("cards", "board", "facts");
    `score_table` is "rounds" (a row per round) or "final"; a card game adds `suits`, each suit's
    `colour`, `shape` and whether it is `wild`."""

    def params_from_text(self, texts: Mapping[str, str]) -> dict[str, Any]:
        """Parameter values from their text form; a name the game does not declare passes through as
        text, so that the game's factory names it in its error."""
        declared = {parameter.name: parameter for parameter in self.parameters}
        return {name: declared[name].parse(text) if name in declared else text for name, text in texts.items() if text}

    @abstractmethod
    def encoder(self, game: Game) -> ObservationEncoder:
        """A fresh encoder for one match of `game`."""

    @abstractmethod
    def observation_from_pb(self, game: Game, message: Any, legal: Sequence[Action]) -> Observation:
        """The engine observation carried by `message` (the `observation_field` of an Observation),
        with the legal actions of its request."""

    @abstractmethod
    def public_view(self, observation: Any) -> dict[str, Any]:
        """What the web viewer shows of a public observation; its `kind` matches the drawing's."""

    def move_text(self, game: Game, move: Mapping[str, Any]) -> str:
        """A replay record's move as the action text the engine reads."""
        return str(move["move"])

    def frame(self, state: State[Any], round_index: int, move: Mapping[str, Any] | None, before: Frame | None) -> Frame:
        """The replay frame of `state` after `move` (None at a round's start); `before` is the frame before."""
        return {"round": round_index, "move": move, "view": self.public_view(state.public_observation())}

    def replay_frames(self, game: Game, record: Mapping[str, Any]) -> list[Frame]:
        """The position before the first move of each round and after every move, re-played by the engine."""
        state = game.new_match(bytes.fromhex(record["seed"]))
        frames: list[Frame] = []
        for round_index, round_record in enumerate(record["rounds"]):
            frames.append(self.frame(state, round_index, None, None))
            for move in round_record["moves"]:
                before = frames[-1]
                state.apply_text(self.move_text(game, move))
                frames.append(self.frame(state, round_index, move, before))
        return frames


class JsonKit(GameKit):
    """A kit whose observations travel as JSON (`GenericObservation`): their `to_dict` form."""

    observation_field = "generic"

    def encoder(self, game: Game) -> ObservationEncoder:
        return JsonEncoder()

    def observation_from_pb(self, game: Game, message: Any, legal: Sequence[Action]) -> Observation:
        data = json.loads(message.json)
        if not isinstance(data, dict):
            raise GameError(f"a {game.name} observation is a JSON object, not {type(data).__name__}")
        return self.observation_from_dict(game, data, legal)

    @abstractmethod
    def observation_from_dict(self, game: Game, data: dict[str, Any], legal: Sequence[Action]) -> Observation:
        """The engine observation that `data` (an observation's `to_dict`) describes."""


class JsonEncoder(ObservationEncoder):
    """Observations as JSON text in `GenericObservation`."""

    def encode(self, obs: Observation) -> pb.Observation:
        return pb.Observation(generic=pb.GenericObservation(json=json.dumps(obs.to_dict(), separators=(",", ":"))))

    def encode_bytes(self, obs: Observation) -> bytes:
        return self.encode(obs).SerializeToString()
