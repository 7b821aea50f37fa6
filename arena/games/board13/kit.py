"""The kit of board13: its wire messages and its web view (the game has no hidden information)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar

from arena import protowire as wire
from arena.games.base import Action, Game
from arena.games.board13.board import FIXED, MONUMENT, NAMES, OWNER
from arena.games.board13.render import board_layout
from arena.games.board13.rules import DEFAULT_SCENARIO, Board13, Board13Observation
from arena.games.board13.scenario import Scenario
from arena.games.kit import GameKit, ObservationEncoder, Parameter
from arena.v1 import messages_pb2 as pb

FIELD_KINDS = (pb.FIELD_KIND_NEUTRAL, pb.FIELD_KIND_BLACK_ONLY, pb.FIELD_KIND_WHITE_ONLY)
"""Scenario field kinds 0 (neutral), 1 (black only), 2 (white only) on the wire."""
STONE_PIECES = (pb.PIECE_EMPTY, pb.PIECE_BLACK, pb.PIECE_WHITE)
MONUMENT_PIECES = (pb.PIECE_NEUTRAL_MONUMENT, pb.PIECE_BLACK_MONUMENT, pb.PIECE_WHITE_MONUMENT)
VIEW_KEYS = ("current_player", "ply", "ply_limit", "goal", "reserves", "toppled", "scores")


@cache
def _field(index: int, kind: int, code: int) -> pb.Field:
    """The message of one field holding the piece `code` (board.py's bits: owner, monument, fixed)."""
    monument = bool(code & MONUMENT)
    piece = (MONUMENT_PIECES if monument else STONE_PIECES)[code & OWNER]
    movable = monument and not code & FIXED
    return pb.Field(square=NAMES[index], kind=FIELD_KINDS[kind], piece=piece, movable=movable)


def _piece_code(field: pb.Field) -> int:
    if field.piece in MONUMENT_PIECES:
        return MONUMENT_PIECES.index(field.piece) | MONUMENT | (0 if field.movable else FIXED)
    return STONE_PIECES.index(field.piece) if field.piece in STONE_PIECES else 0


class Board13Encoder(ObservationEncoder):
    """Turns the successive positions of one match into messages, reusing what is unchanged.

    A move changes a few of the 49 fields and adds one to the moves so far, so the encoder keeps the
    public part of the last message (the whole position: board13 hides nothing) and brings only that
    up to date; each seat's message is then its encoding followed by the seat's field. Positions must
    come in the order of the match (any seat's, or public views), as `encoder_for` says.
    """

    __slots__ = ("_board", "_moves", "_played", "_scenario", "_template", "game")

    def __init__(self, game: Board13) -> None:
        self.game = game
        self._moves: dict[tuple[int, int], pb.Board13Move] = {}
        self._template = pb.Board13Observation()
        self._scenario: Scenario | None = None
        self._board: tuple[int, ...] = ()
        self._played: tuple[int, ...] = ()
        """The moves in the template: their count, or a move of another history, restarts it."""

    def encode(self, obs: Board13Observation) -> pb.Observation:
        return pb.Observation.FromString(self.encode_bytes(obs))

    def encode_bytes(self, obs: Board13Observation) -> bytes:
        """The encoding of `obs` as an `Observation` message: the kept position's, then the seat's field
        (a parser merges the two into one Board13Observation; see arena.protowire)."""
        self._update(obs)
        body = self._template.SerializeToString() + _seat_field(obs.seat)
        return _OBSERVATION_BOARD13 + wire.varint(len(body)) + body

    def _update(self, obs: Board13Observation) -> None:
        """Bring the kept position (every field but the seat) up to `obs`."""
        public = self._template
        scenario = obs.scenario
        played = len(self._played)
        if (
            scenario is not self._scenario
            or len(obs.moves) < played
            or (played and obs.moves[played - 1] != self._played[-1])
        ):
            self._start(obs)
            played = 0
        else:
            fields, kinds = public.fields, scenario.kinds
            for index, (was, code) in enumerate(zip(self._board, obs.board, strict=True)):
                if was != code:
                    fields[index].CopyFrom(_field(index, kinds[index], code))
        self._board = obs.board
        if len(obs.moves) != played:
            public.moves.extend(
                [self._move(seat, action) for seat, action in zip(obs.movers[played:], obs.moves[played:], strict=True)]
            )
            self._played = obs.moves
        public.reserves[:] = obs.reserves
        public.toppled[:] = obs.toppled
        public.neutral_toppled[:] = obs.neutral_toppled
        public.ply = obs.ply
        if obs.current_player >= 0:
            public.current_player = obs.current_player
        else:
            public.ClearField("current_player")  # nobody is to move: the match is over
        public.passes = obs.passes
        public.scores[:] = obs.scores

    def _start(self, obs: Board13Observation) -> None:
        """The template from scratch: a new match, or positions that do not follow the last one."""
        public = self._template
        public.Clear()
        scenario = self._scenario = obs.scenario
        public.scenario = scenario.name
        public.ply_limit = scenario.ply_limit
        public.capture_diagonal = scenario.capture_diagonal
        public.goal = scenario.goal
        public.fields.extend(
            [
                _field(index, kind, code)
                for index, (kind, code) in enumerate(zip(scenario.kinds, obs.board, strict=True))
            ]
        )
        self._played = ()

    def _move(self, seat: int, action: int) -> pb.Board13Move:
        move = self._moves.get((seat, action))
        if move is None:
            move = pb.Board13Move(seat=seat, action_id=action, text=self.game.action_text(action))
            self._moves[seat, action] = move
        return move


_OBSERVATION_BOARD13 = wire.key(wire.number_of(pb.Observation, "board13"), wire.LENGTH_DELIMITED)


@cache
def _seat_field(seat: int) -> bytes:
    return wire.signed_field(wire.number_of(pb.Board13Observation, "seat"), seat)


def _current_player(message: pb.Board13Observation) -> int:
    """The seat to move, or -1 (as in the engine) when the message says nobody is."""
    return message.current_player if message.HasField("current_player") else -1


def board13_observation_from_pb(
    game: Board13, message: pb.Board13Observation, legal: Sequence[int]
) -> Board13Observation:
    """The engine's observation of `message.seat`, with the legal actions of its request."""
    own_turn = message.seat == _current_player(message)
    return Board13Observation(
        game=game.name,
        scenario=game.scenario,
        seat=message.seat,
        current_player=_current_player(message),
        board=tuple(_piece_code(field) for field in message.fields),
        reserves=(message.reserves[0], message.reserves[1]),
        toppled=(message.toppled[0], message.toppled[1]),
        neutral_toppled=(message.neutral_toppled[0], message.neutral_toppled[1]),
        ply=message.ply,
        passes=message.passes,
        legal_actions=tuple(legal) if own_turn else (),
        moves=tuple(move.action_id for move in message.moves),
        movers=tuple(move.seat for move in message.moves),
        scores=tuple(message.scores),
    )


class Board13Kit(GameKit):
    parameters = (
        Parameter("scenario", DEFAULT_SCENARIO, "a shipped scenario's name or a scenario file (docs/BOARD13.md)"),
    )
    observation_field = "board13"
    drawing: ClassVar[Mapping[str, Any]] = {"kind": "board", "score_table": "final"}

    def encoder(self, game: Game) -> Board13Encoder:
        assert isinstance(game, Board13), f"{game.name} is not board13"
        return Board13Encoder(game)

    def observation_from_pb(self, game: Game, message: Any, legal: Sequence[Action]) -> Board13Observation:
        assert isinstance(game, Board13), f"{game.name} is not board13"
        return board13_observation_from_pb(game, message, legal)

    def public_view(self, observation: Board13Observation) -> dict[str, Any]:
        """The position field by field, with the ply, goal, reserves and scores."""
        shown = observation.to_dict()
        return {
            "kind": "board",
            "board": board_layout(observation.scenario, observation.board),
            **{key: shown[key] for key in VIEW_KEYS},
        }
