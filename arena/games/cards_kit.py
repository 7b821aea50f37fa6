"""The kit of the card games (friday13, amigo13): their wire messages, public record and web view.

The two games share it as they share their rules; each declares its own parameters and suit
drawing in a subclass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from mypy_extensions import mypyc_attr

from arena import protowire as wire
from arena.games.base import Action, Game, State
from arena.games.cards import CardGame, CardObservation, CardState
from arena.games.kit import Frame, GameKit
from arena.v1 import messages_pb2 as pb

CARD_VIEW_KEYS = (
    "round",
    "rounds",
    "current_player",
    "piles",
    "hand_sizes",
    "draw_pile_size",
    "dummy_size",
    "collected",
    "scores",
    "round_penalties",
)
"""What a spectator sees of a card game: piles, hand sizes, taken cards, scores (no hands)."""


_FIELDS = pb.CardObservation
_OBSERVATION_CARDS = wire.key(wire.number_of(pb.Observation, "cards"), wire.LENGTH_DELIMITED)
_HAND = wire.number_of(_FIELDS, "hand")
_PILES = wire.number_of(_FIELDS, "piles")
_COLLECTED = wire.number_of(_FIELDS, "collected")
_MOVES = wire.number_of(_FIELDS, "moves")
_CURRENT = wire.key(wire.number_of(_FIELDS, "current_player"), wire.VARINT)
_HAND_SIZES = wire.number_of(_FIELDS, "hand_sizes")
_DRAW_PILE = wire.number_of(_FIELDS, "draw_pile_size")
_SCORES = wire.number_of(_FIELDS, "scores")
_SEAT = wire.number_of(_FIELDS, "seat")
_PENALTIES = wire.number_of(_FIELDS, "round_penalties")
_LIST_CARDS = wire.number_of(pb.CardList, "cards")
_PILE_CARDS = wire.number_of(pb.Pile, "cards")
_PILE_TOTAL = wire.number_of(pb.Pile, "total")
_MOVE_CARD = wire.number_of(pb.CardMove, "card")


@cache
def _cards(suits: tuple[str, ...]) -> tuple[bytes, ...]:
    """Every card code's encoding (a `Card`), made once per deck: codes are suit * 8 + value."""
    return tuple(pb.Card(suit=suits[code >> 3], value=code & 7).SerializeToString() for code in range(32))


@cache
def _card_fields(suits: tuple[str, ...], number: int) -> tuple[bytes, ...]:
    """Every card as an element of the repeated field `number` (a hand, a pile's or a list's cards)."""
    return tuple(wire.embedded(number, card) for card in _cards(suits))


@cache
def _moves(suits: tuple[str, ...], players: int) -> list[list[bytes]]:
    """Per seat, every action as an element of `CardObservation.moves`: made once per deck and table size."""
    cards = _cards(suits)
    return [
        [
            wire.embedded(
                _MOVES, pb.CardMove(seat=seat, pile=suits[action % 3]).SerializeToString() + _card(cards, action)
            )
            for action in range(96)
        ]
        for seat in range(players)
    ]


def _card(cards: tuple[bytes, ...], action: int) -> bytes:
    return wire.embedded(_MOVE_CARD, cards[action // 3])


class CardEncoder:
    """Turns the successive observations of one match into `Observation` encodings, re-encoding only what changed.

    Within a round the moves and collected cards only grow and a pile only grows or restarts, so
    the encoder keeps each part's encoding and renews a part when it changes: a move adds its
    element to the moves, a pile or a seat's taken cards is encoded again when it changes. An
    observation is then those parts joined with its seat's hand (see arena.protowire).
    Observations must come in the order of the match (any seat's, or public views).
    """

    __slots__ = (
        "_collected",
        "_head",
        "_moves",
        "_penalties",
        "_pile_fields",
        "_piles",
        "_played",
        "_round",
        "_scores",
        "_scores_field",
        "_taken",
    )

    def __init__(self) -> None:
        self._round = -1
        self._head = b""
        """The fields fixed within a round: its number, the rounds, first player, dealer, dummy size."""
        self._moves = bytearray()
        self._played = 0
        self._taken: list[int] = []
        self._collected: list[bytes] = []
        self._piles: list[tuple[int, ...]] = []
        self._pile_fields: list[bytes] = []
        self._penalties = (-1, b"")
        self._scores: tuple[int, ...] = ()
        self._scores_field = b""

    def encode(self, obs: CardObservation) -> pb.Observation:
        return pb.Observation.FromString(self.encode_bytes(obs))

    def encode_bytes(self, obs: CardObservation) -> bytes:
        """The encoding of `obs` as an `Observation` message."""
        return self._encode(
            obs.suits,
            (obs.round, obs.rounds, obs.first_player, obs.dealer, obs.dummy_size),
            obs.round_penalties,
            obs.scores,
            obs.moves,
            obs.collected,
            obs.piles,
            obs.totals,
            obs.current_player,
            obs.hand_sizes,
            obs.draw_pile_size,
            obs.hand,
            obs.seat,
        )

    def encode_seat(self, state: CardState, seat: int) -> bytes:
        """`encode_bytes(state.observation(seat))`, the same bytes, read from the state without making the
        observation: a node encodes one for every request it sends (benchmarks/request_encoding.py). The
        seat's hand comes from `CardState.hand_of`, as the observation's does; everything else is public."""
        rules = state.rules
        return self._encode(
            rules.suits,
            (state.round, rules.rounds, state.first_player, state.dealer, len(state.dummy)),
            state.penalties,
            state.scores,
            state.moves,
            state.collected,
            state.piles,
            state.totals,
            state.turn,
            [len(hand) for hand in state.hands],
            len(state.draw),
            state.hand_of(seat),
            seat,
        )

    def _encode(
        self,
        suits: tuple[str, ...],
        head: tuple[int, int, int, int, int],
        round_penalties: Sequence[Sequence[int]],
        scores: Sequence[int],
        moves: Sequence[int],
        collected: Sequence[Sequence[int]],
        piles: Sequence[Sequence[int]],
        totals: Sequence[int],
        current_player: int,
        hand_sizes: Sequence[int],
        draw_pile_size: int,
        hand: Sequence[int],
        seat: int,
    ) -> bytes:
        """The observation made of these parts, encoded; `head` is the round, the rounds, the first player,
        the dealer and the dummy's size, which are fixed within a round."""
        if head[0] != self._round:
            self._start_round(suits, head, len(hand_sizes), len(piles))
        if len(round_penalties) != self._penalties[0]:
            encoded = b"".join(
                [wire.embedded(_PENALTIES, pb.RoundPenalties(penalties=p).SerializeToString()) for p in round_penalties]
            )
            self._penalties = (len(round_penalties), encoded)
        if not _same(scores, self._scores):
            self._scores, self._scores_field = tuple(scores), wire.packed(_SCORES, scores)
        if len(moves) != self._played:
            players = len(hand_sizes)
            by_seat = _moves(suits, players)
            first = head[2]
            for index in range(self._played, len(moves)):
                self._moves += by_seat[(first + index) % players][moves[index]]
            self._played = len(moves)
        for taker, taken in enumerate(collected):
            if len(taken) != self._taken[taker]:
                listed = _card_fields(suits, _LIST_CARDS)
                self._collected[taker] = wire.embedded(_COLLECTED, b"".join([listed[code] for code in taken]))
                self._taken[taker] = len(taken)
        for index, pile in enumerate(piles):
            if not _same(pile, self._piles[index]):
                piled = _card_fields(suits, _PILE_CARDS)
                encoded = _pile_suit(suits[index]) + b"".join([piled[code] for code in pile])
                self._pile_fields[index] = wire.embedded(
                    _PILES, encoded + wire.unsigned_field(_PILE_TOTAL, totals[index])
                )
                self._piles[index] = tuple(pile)
        cards = _card_fields(suits, _HAND)
        body = b"".join(
            [
                self._head,
                # An unset current_player says nobody is to move: the match is over.
                _current_field(current_player),
                wire.packed(_HAND_SIZES, hand_sizes),
                wire.unsigned_field(_DRAW_PILE, draw_pile_size),
                *self._pile_fields,
                *self._collected,
                self._moves,
                self._scores_field,
                self._penalties[1],
                *[cards[code] for code in hand],
                _seat_field(seat),
            ]
        )
        return _OBSERVATION_CARDS + wire.varint(len(body)) + body

    def _start_round(
        self, suits: tuple[str, ...], head: tuple[int, int, int, int, int], players: int, piles: int
    ) -> None:
        round_, rounds, first_player, dealer, dummy_size = head
        self._round, self._played, self._moves = round_, 0, bytearray()
        self._taken = [0] * players
        self._collected = [wire.embedded(_COLLECTED, b"")] * players
        self._piles = [()] * piles
        self._pile_fields = [wire.embedded(_PILES, _pile_suit(suits[index])) for index in range(piles)]
        fixed = pb.CardObservation(
            round=round_, rounds=rounds, first_player=first_player, dealer=dealer, dummy_size=dummy_size
        )
        self._head = fixed.SerializeToString()


def _same(numbers: Sequence[int], kept: tuple[int, ...]) -> bool:
    """Whether `numbers` (a tuple of an observation, or the state's list) holds what `kept` does."""
    return len(numbers) == len(kept) and all(number == kept[index] for index, number in enumerate(numbers))


@cache
def _current_field(seat: int) -> bytes:
    return _CURRENT + wire.varint(seat) if seat >= 0 else b""


@cache
def _seat_field(seat: int) -> bytes:
    return wire.signed_field(_SEAT, seat)


@cache
def _pile_suit(suit: str) -> bytes:
    return pb.Pile(suit=suit).SerializeToString()


def _current_player(message: pb.CardObservation) -> int:
    """The seat to move, or -1 (as in the engine) when the message says nobody is."""
    return message.current_player if message.HasField("current_player") else -1


def card_observation_from_pb(game: CardGame, message: pb.CardObservation, legal: Sequence[int]) -> CardObservation:
    """The engine's observation of the seat `message.seat`, with the legal actions of its request."""
    suits = game.rules.suits
    index = {suit: number for number, suit in enumerate(suits)}

    def code(card: pb.Card) -> int:
        return index[card.suit] * 8 + card.value

    players = len(message.hand_sizes)
    own_turn = message.seat == _current_player(message)
    return CardObservation(
        game=game.name,
        suits=suits,
        seat=message.seat,
        players=players,
        round=message.round,
        rounds=message.rounds,
        first_player=message.first_player,
        dealer=message.dealer,
        current_player=_current_player(message),
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


def piles_after(piles: Sequence[Mapping[str, Any]], move: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The piles after `move` as its record tells: a pile that was taken restarts with the card played."""
    after = []
    for pile in piles:
        shown = dict(pile)
        if pile["pile"] == move["pile"]:
            kept = [] if move["took"] else pile["cards"]
            shown = {"pile": pile["pile"], "cards": [*kept, move["card"]], "total": move["total"]}
        after.append(shown)
    return after


@mypyc_attr(allow_interpreted_subclasses=True)  # each card game's kit derives from it
class CardKit(GameKit):
    """What friday13 and amigo13 share outside their rules; each game's subclass names its suits' drawing."""

    hidden_record_keys = ("hands", "dummy", "draw_pile")
    observation_field = "cards"

    def encoder(self, game: Game) -> CardEncoder:
        return CardEncoder()

    def observation_from_pb(self, game: Game, message: Any, legal: Sequence[Action]) -> CardObservation:
        assert isinstance(game, CardGame), f"{game.name} is not a card game"
        return card_observation_from_pb(game, message, legal)

    def public_view(self, observation: CardObservation) -> dict[str, Any]:
        shown = observation.to_dict()
        return {"kind": "cards", **{key: shown[key] for key in CARD_VIEW_KEYS}}

    def move_text(self, game: Game, move: Mapping[str, Any]) -> str:
        """The record's card and pile as the game's own action text (`cat:5`, `friday:4>mirror`)."""
        assert isinstance(game, CardGame), f"{game.name} is not a card game"
        return game.action_text(game.card_from_text(move["card"]) * 3 + game.rules.suits.index(move["pile"]))

    def frame(self, state: State[Any], round_index: int, move: Mapping[str, Any] | None, before: Frame | None) -> Frame:
        """The frame with every seat's hand. The engine deals the next round as soon as the last card
        of a round is played, so the frame of a round's last move keeps the piles that move left (from
        the record) while the hands are empty and the scores already count the round."""
        shown = super().frame(state, round_index, move, before)
        seats = range(state.game.players)
        shown["hands"] = [state.observation(seat).to_dict()["hand"] for seat in seats]
        if move is not None and before is not None and shown["view"]["round"] != round_index:
            piles = piles_after(before["view"]["piles"], move)
            shown["view"] = {**shown["view"], "round": round_index, "current_player": -1, "piles": piles}
            shown["hands"] = [[] for _ in seats]
        return shown
