"""`current_player` on the wire says "nobody" by its absence, not by seat 0.

An unset proto3 scalar reads as 0, which is a seat; the field is `optional`, so a finished
match's observation leaves it unset and the SDK reads it back as -1, as the engine says it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games import make_game
from arena.v1 import messages_pb2 as pb
from arena.wire.convert import encoder_for, observation_from_pb, observation_to_pb

GAMES = [("friday13", {"players": 3}), ("amigo13", {"players": 3}), ("board13", {})]


def view_of(message: pb.Observation) -> Any:
    """The game's own observation message inside the Observation oneof."""
    return getattr(message, message.WhichOneof("game") or "")


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_the_seat_to_move_is_sent_even_when_it_is_seat_0(name: str, params: dict[str, int]) -> None:
    game = make_game(name, **params)
    state = game.new_match(b"seat zero")
    rng = random.Random(3)
    while state.current_player() != 0:
        state.apply(rng.choice(state.legal_actions()))
    message = observation_to_pb(game, state.observation(0))
    view = view_of(message)
    assert view.HasField("current_player") and view.current_player == 0
    back = observation_from_pb(game, message, state.legal_actions())
    assert back.current_player == 0 and back.legal_actions == tuple(state.legal_actions())


@pytest.mark.parametrize(("name", "params"), GAMES)
def test_nobody_is_to_move_once_the_match_is_over(name: str, params: dict[str, int]) -> None:
    game = make_game(name, **params)
    state = game.new_match(b"to the end")
    encoder = encoder_for(game)
    rng = random.Random(5)
    while not state.is_terminal():
        encoder.encode(state.public_observation())  # the reused message of a live view
        state.apply(rng.choice(state.legal_actions()))
    assert state.current_player() == -1
    for message in (encoder.encode(state.public_observation()), observation_to_pb(game, state.observation(1))):
        view = view_of(message)
        assert not view.HasField("current_player"), view
        assert observation_from_pb(game, message, []).current_player == -1
