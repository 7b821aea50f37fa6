"""The kit of the card games (friday13, amigo13): their wire messages, public record and web view.

The two games share it as they share their rules; each declares its own parameters and suit
drawing in a subclass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from arena.games.base import Action, Game, State
from arena.games.cards import CardGame, CardObservation
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
        if obs.current_player >= 0:
            public.current_player = obs.current_player
        else:
            public.ClearField("current_player")  # nobody is to move: the match is over
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
