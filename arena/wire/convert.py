"""Conversions between the wire messages (arena.v1) and the engine's types, both ways.

The server turns engine observations into messages; the SDK turns them back, so that the
built-in policies in arena.bots run unchanged on the bot's side of the wire.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol

from arena.games import Game, make_game
from arena.games.board13 import Board13, Board13Observation
from arena.games.board13.board import FIXED, MONUMENT, NAMES, OWNER
from arena.games.cards import CardGame, CardObservation
from arena.match.seats import Clock
from arena.v1 import messages_pb2 as pb

TERMINATIONS = {
    "normal": pb.TERMINATION_NORMAL,
    "forfeit": pb.TERMINATION_FORFEIT,
    "aborted": pb.TERMINATION_ABORTED,
}
TERMINATION_NAMES = {value: name for name, value in TERMINATIONS.items()}


class UnsupportedGame(ValueError):
    """A game whose observations have no wire form yet."""


def game_from_spec(spec: pb.GameSpec, seats: int = 0) -> Game:
    """The game a GameSpec names; `players` 0 means `seats`. Raises GameError for bad specs."""
    params: dict[str, Any] = {}
    players = spec.players or seats
    if players:
        params["players"] = players
    if spec.edition:
        params["edition"] = spec.edition
    if spec.scenario:
        params["scenario"] = spec.scenario
    return make_game(spec.game, **params)


def spec_from_params(game: str, params: dict[str, Any]) -> pb.GameSpec:
    return pb.GameSpec(
        game=game,
        players=int(params.get("players", 0)),
        edition=str(params.get("edition", "")),
        scenario=str(params.get("scenario", "")),
    )


def spec_from_game(game: Game) -> pb.GameSpec:
    return spec_from_params(game.name, game.params())


def clock_to_pb(clock: Clock) -> pb.Clock:
    return pb.Clock(per_move_ms=round(clock.per_move * 1000), bank_ms=round(clock.bank * 1000))


def clock_from_pb(message: pb.Clock) -> Clock:
    return Clock(per_move=message.per_move_ms / 1000, bank=message.bank_ms / 1000)


# -- card games ---------------------------------------------------------------------------------


@cache
def _cards(suits: tuple[str, ...]) -> tuple[pb.Card, ...]:
    """Every card code's message, made once per deck: codes are suit * 8 + value."""
    return tuple(pb.Card(suit=suits[code >> 3], value=code & 7) for code in range(32))


class CardEncoder:
    """Turns the successive observations of one match into messages, reusing what is unchanged.

    Within a round the moves and collected cards only grow and a pile only grows or restarts,
    so the encoder keeps the public part of the last message and brings it up to date; each
    observation is then one copy of that part plus the seat's hand. Observations must come in
    the order of the match (any seat's, or public views).
    """

    __slots__ = ("_collected", "_moves", "_penalties", "_piles", "_round", "_template")

    def __init__(self) -> None:
        self._template = pb.CardObservation()
        self._round = -1
        self._moves = 0
        self._collected: list[int] = []
        self._piles: list[tuple[int, ...]] = []
        self._penalties = 0

    def encode(self, obs: CardObservation) -> pb.Observation:
        message = pb.Observation()
        self.encode_into(obs, message)
        return message

    def encode_into(self, obs: CardObservation, message: pb.Observation) -> None:
        """Write `obs` into `message` (usually a field of the message about to be sent)."""
        cards = _cards(obs.suits)
        public = self._template
        if obs.round != self._round:
            self._start_round(obs)
        if len(obs.round_penalties) != self._penalties:
            self._penalties = len(obs.round_penalties)
            del public.round_penalties[:]
            public.round_penalties.extend(pb.RoundPenalties(penalties=p) for p in obs.round_penalties)
        public.scores[:] = obs.scores
        if len(obs.moves) != self._moves:
            moves = _moves(obs.suits, obs.players)
            first, players = obs.first_player, obs.players
            for index in range(self._moves, len(obs.moves)):
                public.moves.append(moves[(first + index) % players][obs.moves[index]])
            self._moves = len(obs.moves)
        for seat, taken in enumerate(obs.collected):
            known = self._collected[seat]
            if len(taken) != known:
                public.collected[seat].cards.extend([cards[code] for code in taken[known:]])
                self._collected[seat] = len(taken)
        for index, pile in enumerate(obs.piles):
            known_pile = self._piles[index]
            if pile != known_pile:
                target = public.piles[index]
                if pile[: len(known_pile)] != known_pile:
                    del target.cards[:]
                    known_pile = ()
                target.cards.extend([cards[code] for code in pile[len(known_pile) :]])
                target.total = obs.totals[index]
                self._piles[index] = pile
        public.current_player = max(obs.current_player, 0)
        public.hand_sizes[:] = obs.hand_sizes
        public.draw_pile_size = obs.draw_pile_size
        seat_view = message.cards
        seat_view.CopyFrom(public)
        seat_view.hand.extend([cards[code] for code in obs.hand])
        seat_view.seat = obs.seat

    def _start_round(self, obs: CardObservation) -> None:
        public = self._template
        self._round, self._moves, self._collected = obs.round, 0, [0] * obs.players
        self._piles = [()] * len(obs.piles)
        del public.moves[:]
        del public.collected[:]
        public.collected.extend(pb.CardList() for _ in range(obs.players))
        del public.piles[:]
        public.piles.extend(pb.Pile(suit=obs.suits[index], total=0) for index in range(len(obs.piles)))
        public.round = obs.round
        public.rounds = obs.rounds
        public.first_player = obs.first_player
        public.dealer = obs.dealer
        public.dummy_size = obs.dummy_size


@cache
def _moves(suits: tuple[str, ...], players: int) -> list[dict[int, pb.CardMove]]:
    """Per seat, the message of every action: made once per deck and table size."""
    cards = _cards(suits)
    return [
        {action: pb.CardMove(seat=seat, card=cards[action // 3], pile=suits[action % 3]) for action in range(96)}
        for seat in range(players)
    ]


def card_observation_to_pb(obs: CardObservation) -> pb.Observation:
    return CardEncoder().encode(obs)


def card_observation_from_pb(game: CardGame, message: pb.CardObservation, legal: Sequence[int]) -> CardObservation:
    """The engine's observation of the seat `message.seat`, with the legal actions of its request."""
    suits = game.rules.suits
    index = {suit: number for number, suit in enumerate(suits)}

    def code(card: pb.Card) -> int:
        return index[card.suit] * 8 + card.value

    players = len(message.hand_sizes)
    own_turn = message.seat == message.current_player
    return CardObservation(
        game=game.name,
        suits=suits,
        seat=message.seat,
        players=players,
        round=message.round,
        rounds=message.rounds,
        first_player=message.first_player,
        dealer=message.dealer,
        current_player=message.current_player,
        hand=tuple(code(card) for card in message.hand),
        legal_actions=tuple(legal) if own_turn else (),
        piles=tuple(tuple(code(card) for card in pile.cards) for pile in message.piles),
        totals=tuple(pile.total for pile in message.piles),
        hand_sizes=tuple(message.hand_sizes),
        draw_pile_size=message.draw_pile_size,
        dummy_size=message.dummy_size,
        collected=tuple(tuple(code(card) for card in taken.cards) for taken in message.collected),
        moves=tuple(code(move.card) * 3 + index[move.pile] for move in message.moves),
        scores=tuple(message.scores),
        round_penalties=tuple(tuple(p.penalties) for p in message.round_penalties),
    )


# -- board13 ------------------------------------------------------------------------------------

FIELD_KINDS = (pb.FIELD_KIND_NEUTRAL, pb.FIELD_KIND_BLACK_ONLY, pb.FIELD_KIND_WHITE_ONLY)
"""Scenario field kinds 0 (neutral), 1 (black only), 2 (white only) on the wire."""
STONE_PIECES = (pb.PIECE_EMPTY, pb.PIECE_BLACK, pb.PIECE_WHITE)
MONUMENT_PIECES = (pb.PIECE_NEUTRAL_MONUMENT, pb.PIECE_BLACK_MONUMENT, pb.PIECE_WHITE_MONUMENT)


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


class Board13Encoder:
    """Board13 positions as messages: 49 fields, so each is encoded whole."""

    __slots__ = ("_moves", "game")

    def __init__(self, game: Board13) -> None:
        self.game = game
        self._moves: dict[tuple[int, int], pb.Board13Move] = {}

    def encode(self, obs: Board13Observation) -> pb.Observation:
        message = pb.Observation()
        self.encode_into(obs, message)
        return message

    def encode_into(self, obs: Board13Observation, message: pb.Observation) -> None:
        view = message.board13
        scenario = obs.scenario
        view.scenario = scenario.name
        view.fields.extend(
            [
                _field(index, kind, code)
                for index, (kind, code) in enumerate(zip(scenario.kinds, obs.board, strict=True))
            ]
        )
        view.reserves[:] = obs.reserves
        view.toppled[:] = obs.toppled
        view.neutral_toppled[:] = obs.neutral_toppled
        view.ply = obs.ply
        view.ply_limit = scenario.ply_limit
        view.current_player = max(obs.current_player, 0)
        view.passes = obs.passes
        view.capture_diagonal = scenario.capture_diagonal
        view.goal = scenario.goal
        view.moves.extend([self._move(seat, action) for seat, action in zip(obs.movers, obs.moves, strict=True)])
        view.scores[:] = obs.scores
        view.seat = obs.seat

    def _move(self, seat: int, action: int) -> pb.Board13Move:
        move = self._moves.get((seat, action))
        if move is None:
            move = pb.Board13Move(seat=seat, action_id=action, text=self.game.action_text(action))
            self._moves[seat, action] = move
        return move


def board13_observation_from_pb(
    game: Board13, message: pb.Board13Observation, legal: Sequence[int]
) -> Board13Observation:
    """The engine's observation of `message.seat`, with the legal actions of its request."""
    own_turn = message.seat == message.current_player
    return Board13Observation(
        game=game.name,
        scenario=game.scenario,
        seat=message.seat,
        current_player=message.current_player,
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


# -- any game ------------------------------------------------------------------------------------


class Encoder(Protocol):
    """Turns one match's observations, in match order, into messages."""

    def encode(self, obs: Any) -> pb.Observation: ...

    def encode_into(self, obs: Any, message: pb.Observation) -> None: ...


def encoder_for(game: Game) -> Encoder:
    """A fresh encoder for one match of `game`; raises UnsupportedGame."""
    if isinstance(game, CardGame):
        return CardEncoder()
    if isinstance(game, Board13):
        return Board13Encoder(game)
    raise UnsupportedGame(f"{game.name} has no wire form for its observations")


def supports(game: Game) -> bool:
    """Whether matches of `game` can be played over the wire."""
    return isinstance(game, CardGame | Board13)


def observation_to_pb(game: Game, observation: Any) -> pb.Observation:
    """The wire form of one observation of `game` (a seat's or the public one)."""
    return encoder_for(game).encode(observation)


def observation_from_pb(game: Game, message: pb.Observation, legal: Sequence[int]) -> Any:
    """The engine observation that `message` carries, for a bot playing `game`."""
    if isinstance(game, CardGame) and message.HasField("cards"):
        return card_observation_from_pb(game, message.cards, legal)
    if isinstance(game, Board13) and message.HasField("board13"):
        return board13_observation_from_pb(game, message.board13, legal)
    raise UnsupportedGame(f"cannot read a {message.WhichOneof('game')} observation for {game.name}")
