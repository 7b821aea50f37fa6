"""Numeric encodings of what one seat sees, for learning code: a flat float32 vector in [0, 1].

An encoding reads only the engine's observation of a seat (`State.observation(seat)`), which is
exactly what the wire gives that seat, so it cannot hold another seat's hand, the dummy, the draw
pile's order or the seed. A bot on the SDK encodes `turn.observation` with the same function and
gets the same vector as in training.

Every seat is written relative to the observer (index 0 is the observer, 1 the next seat
clockwise, ...), so one policy serves every seat. The card games' vector has the same length for
friday13 and amigo13, every edition and every number of players (absent seats are zeros); the
board game's is the board seen from the observer's side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.games.base import Game
from arena.games.board13.board import FIELDS, FIXED, MONUMENT, NEUTRAL_MONUMENT, OWNER
from arena.games.board13.rules import ACTION_COUNT, Board13, Board13Observation
from arena.games.cards import LIMIT, WILD, CardGame, CardObservation

Vector = npt.NDArray[np.float32]

CODES = 32
"""Card codes are suit * 8 + value with four suits: every card of both card games has a slot."""
SEATS = 6
"""The most players a card game takes: the per-seat blocks have this many rows."""
CARD_ACTIONS = CODES * 3
"""An action is card * 3 + pile, so ids are below 96."""
HAND_SCALE = 16
"""More cards than any hand holds (14: friday13, German edition, three players)."""


@dataclass(frozen=True)
class Encoding:
    """How one game's observations become vectors and its actions mask positions."""

    size: int
    """Length of the observation vector."""
    actions: int
    """Size of the action space: every action id of the game is below it."""
    encode: Callable[[Any], Vector]
    """The vector of an engine observation."""
    worst_return: float
    """The lowest total reward a seat can get in a match: what an illegal move earns in a wrapper."""


def encoding_for(game: Game) -> Encoding:
    """The encoding of the game's family; ValueError for a game no encoding knows."""
    if isinstance(game, CardGame):
        return _card_encoding(game)
    if isinstance(game, Board13):
        return Encoding(BOARD_SIZE, ACTION_COUNT, encode_board, -1.0)
    raise ValueError(f"arena.envs has no numeric encoding for {game.name}")


def action_mask(legal: Any, actions: int) -> npt.NDArray[np.int8]:
    """1 for every legal action id, 0 elsewhere: the `action_mask` PettingZoo's samplers read."""
    mask = np.zeros(actions, dtype=np.int8)
    mask[list(legal)] = 1
    return mask


# -- the card games ------------------------------------------------------------------------------

CARD_SIZE = (
    CODES  # own hand, per card code
    + CODES  # cards played this round, per card code
    + 3 * (LIMIT + 1)  # each pile's total, one-hot
    + 3 * 2  # each pile's omen cards and wild cards
    + SEATS * 4  # each seat's cards taken this round, per suit
    + SEATS  # each seat's hand size
    + 2  # draw pile and dummy sizes
    + SEATS  # which seats play
    + SEATS  # the observer's place in this round's order of play, one-hot
    + SEATS  # the seat to move, one-hot (none once the match is over)
    + 1  # rounds played
    + SEATS  # each seat's score
)


def _card_encoding(game: CardGame) -> Encoding:
    deck = game.rules.deck
    copies = np.ones(CODES, dtype=np.float32)
    for code in set(deck):
        copies[code] = deck.count(code)
    suit_cards = np.array([sum(1 for code in deck if code >> 3 == suit) for suit in range(4)], dtype=np.float32)
    omens = float(suit_cards[:3].max())
    worst_round = float(suit_cards[:3].sum() + 2 * suit_cards[WILD])
    worst_match = worst_round * game.rules.rounds

    def encode(obs: CardObservation) -> Vector:
        return encode_cards(obs, copies, suit_cards, omens, float(len(deck)), worst_match)

    return Encoding(CARD_SIZE, CARD_ACTIONS, encode, -worst_match)


def encode_cards(
    obs: CardObservation,
    copies: Vector,
    suit_cards: Vector,
    omens: float,
    deck_size: float,
    worst_match: float,
) -> Vector:
    """The vector of a card game observation; the scales come from the game's deck."""
    out = np.zeros(CARD_SIZE, dtype=np.float32)
    players = obs.players
    me = obs.seat if obs.seat >= 0 else 0
    seats = [(me + offset) % players for offset in range(players)]
    at = 0
    np.add.at(out, at + np.asarray(obs.hand, dtype=np.intp), 1.0)
    out[at : at + CODES] /= copies
    at += CODES
    played = np.asarray([action // 3 for action in obs.moves], dtype=np.intp)
    np.add.at(out, at + played, 1.0)
    out[at : at + CODES] /= copies
    at += CODES
    for pile in range(3):
        out[at + pile * (LIMIT + 1) + obs.totals[pile]] = 1.0
    at += 3 * (LIMIT + 1)
    for pile in range(3):
        wilds = sum(1 for code in obs.piles[pile] if code >> 3 == WILD)
        out[at + 2 * pile] = (len(obs.piles[pile]) - wilds) / omens
        out[at + 2 * pile + 1] = wilds / suit_cards[WILD]
    at += 6
    for row, seat in enumerate(seats):
        for code in obs.collected[seat]:
            out[at + 4 * row + (code >> 3)] += 1.0
        out[at + 4 * row : at + 4 * row + 4] /= suit_cards
    at += SEATS * 4
    for row, seat in enumerate(seats):
        out[at + row] = obs.hand_sizes[seat] / HAND_SCALE
    at += SEATS
    out[at] = obs.draw_pile_size / deck_size
    out[at + 1] = obs.dummy_size / deck_size
    at += 2
    out[at : at + players] = 1.0
    at += SEATS
    out[at + (me - obs.first_player) % players] = 1.0
    at += SEATS
    if obs.current_player >= 0:
        out[at + (obs.current_player - me) % players] = 1.0
    at += SEATS
    out[at] = len(obs.round_penalties) / obs.rounds
    at += 1
    for row, seat in enumerate(seats):
        out[at + row] = min(obs.scores[seat] / worst_match, 1.0)
    return out


# -- board13 -------------------------------------------------------------------------------------

BOARD_PLANES = 9
"""Per field: own stone, own fixed monument, own movable monument, the same three for the
opponent, a neutral monument, whether the observer may land there, whether the opponent may."""
BOARD_SIZE = BOARD_PLANES * FIELDS + 10


def encode_board(obs: Board13Observation) -> Vector:
    """The vector of a board13 observation, from the observer's side (black or white alike)."""
    out = np.zeros((BOARD_PLANES, FIELDS), dtype=np.float32)
    me = obs.seat if obs.seat >= 0 else 0
    mine = me + 1
    for spot, code in enumerate(obs.board):
        if not code:
            continue
        if code == NEUTRAL_MONUMENT:
            out[6, spot] = 1.0
            continue
        base = 0 if code & OWNER == mine else 3
        if code & MONUMENT:
            out[base + (1 if code & FIXED else 2), spot] = 1.0
        else:
            out[base, spot] = 1.0
    allowed = obs.scenario.allowed
    out[7] = allowed[me]
    out[8] = allowed[1 - me]
    scalars = np.zeros(10, dtype=np.float32)
    scalars[0] = obs.reserves[me] / FIELDS
    scalars[1] = obs.reserves[1 - me] / FIELDS
    scalars[2] = obs.toppled[me] / FIELDS
    scalars[3] = obs.toppled[1 - me] / FIELDS
    scalars[4] = obs.neutral_toppled[me] / FIELDS
    scalars[5] = obs.neutral_toppled[1 - me] / FIELDS
    scalars[6] = min(obs.ply / obs.scenario.ply_limit, 1.0)
    scalars[7] = obs.passes / 2
    scalars[8] = obs.scenario.goal == "neutral_monuments"
    scalars[9] = obs.scenario.capture_diagonal
    return np.concatenate([out.ravel(), scalars])
