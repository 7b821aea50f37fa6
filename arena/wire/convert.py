"""Conversions between the wire messages (arena.v1) and the engine's types, both ways.

The server turns engine observations into messages; the SDK turns them back, so that the
built-in policies in arena.bots run unchanged on the bot's side of the wire. What is generic
lives here (game specs, clocks, terminations); each game's observations are encoded and read by
its kit (arena.games.kit), which this module only finds by the game's name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games import Game, Termination, kit_of, make_game
from arena.games.kit import ObservationEncoder
from arena.match.seats import Clock
from arena.tournaments import TournamentFormat, TournamentStatus
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb

TERMINATIONS = {
    Termination.NORMAL: pb.TERMINATION_NORMAL,
    Termination.FORFEIT: pb.TERMINATION_FORFEIT,
    Termination.ABORTED: pb.TERMINATION_ABORTED,
}

TOURNAMENT_FORMATS = {
    TournamentFormat.ROUND_ROBIN: api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    TournamentFormat.GAUNTLET: api_pb.TOURNAMENT_FORMAT_GAUNTLET,
    TournamentFormat.SWISS: api_pb.TOURNAMENT_FORMAT_SWISS,
}
TOURNAMENT_STATUSES = {
    TournamentStatus.RUNNING: api_pb.TOURNAMENT_STATUS_RUNNING,
    TournamentStatus.FINISHED: api_pb.TOURNAMENT_STATUS_FINISHED,
    TournamentStatus.FINISHED_WITH_ABORTS: api_pb.TOURNAMENT_STATUS_FINISHED_WITH_ABORTS,
    TournamentStatus.CANCELLED: api_pb.TOURNAMENT_STATUS_CANCELLED,
}


def termination_to_pb(termination: Termination | None) -> pb.Termination:
    """A match's end on the wire; a running match (None) or an unfinished one is unspecified."""
    return TERMINATIONS.get(termination, pb.TERMINATION_UNSPECIFIED) if termination else pb.TERMINATION_UNSPECIFIED


SPEC_FIELDS = tuple(
    field.name for field in pb.GameSpec.DESCRIPTOR.fields if field.name not in {"game", "players", "params"}
)
"""GameSpec's own fields for parameters that games had before `params` held them all (edition,
scenario): still filled, so that bots written against them see no change."""

Encoder = ObservationEncoder


class UnsupportedGame(ValueError):
    """An observation that is not in the wire form of the match's game."""


def params_from_spec(spec: pb.GameSpec) -> dict[str, Any]:
    """The parameters a GameSpec gives besides `players`, typed as its game declares them; raises GameError."""
    texts = {name: getattr(spec, name) for name in SPEC_FIELDS}
    texts.update(spec.params)
    return kit_of(spec.game).params_from_text(texts)


def game_from_spec(spec: pb.GameSpec, seats: int = 0) -> Game:
    """The game a GameSpec names; `players` 0 means `seats`. Raises GameError for bad specs."""
    params = params_from_spec(spec)
    players = spec.players or seats
    if players:
        params["players"] = players
    return make_game(spec.game, **params)


def spec_from_params(game: str, params: Mapping[str, Any]) -> pb.GameSpec:
    others = {name: str(value) for name, value in params.items() if name != "players"}
    return pb.GameSpec(
        game=game,
        players=int(params.get("players", 0)),
        params=others,
        **{name: value for name, value in others.items() if name in SPEC_FIELDS},
    )


def spec_from_game(game: Game) -> pb.GameSpec:
    return spec_from_params(game.name, game.params())


def clock_to_pb(clock: Clock) -> pb.Clock:
    return pb.Clock(per_move_ms=round(clock.per_move * 1000), bank_ms=round(clock.bank * 1000))


def clock_from_pb(message: pb.Clock) -> Clock:
    return Clock(per_move=message.per_move_ms / 1000, bank=message.bank_ms / 1000)


def encoder_for(game: Game) -> Encoder:
    """A fresh encoder for the observations of one match of `game`, in match order."""
    return kit_of(game.name).encoder(game)


def observation_to_pb(game: Game, observation: Any) -> pb.Observation:
    """The wire form of one observation of `game` (a seat's or the public one)."""
    return encoder_for(game).encode(observation)


def observation_from_pb(game: Game, message: pb.Observation, legal: Sequence[int]) -> Any:
    """The engine observation that `message` carries, for a bot playing `game`; raises UnsupportedGame."""
    kit = kit_of(game.name)
    carried = message.WhichOneof("game")
    if carried != kit.observation_field:
        raise UnsupportedGame(f"cannot read a {carried} observation for {game.name}")
    return kit.observation_from_pb(game, getattr(message, carried), legal)
