"""Requests go out as pieces encoded once and joined (arena.protowire): what a bot parses must be
the very message the protobuf library would have built, field for field. The reference builds it
whole, as benchmarks/request_encoding.py's reference does."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import protowire as wire
from arena.games import make_game
from arena.games.cards import CardObservation
from arena.match import MoveRequest
from arena.node.remote_seat import legal_actions_of, match_field, request_body
from arena.node.sessions import Pending
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from arena.wire.convert import encoder_for
from tests.benchmarks.scripts import benchmark_module

with benchmark_module("request_encoding") as request_encoding:
    built = request_encoding.whole_observation
    whole_request = request_encoding.whole_request

INT32 = st.integers(-(2**31), 2**31 - 1)
UINT32 = st.integers(0, 2**32 - 1)
TABLES = [(name, players) for name in ("friday13", "amigo13") for players in (3, 4, 5, 6)]


@given(INT32)
def test_a_signed_field_is_encoded_as_the_library_does(value: int) -> None:
    assert (
        wire.signed_field(wire.number_of(pb.CardObservation, "seat"), value)
        == pb.CardObservation(seat=value).SerializeToString()
    )


@given(UINT32)
def test_an_unsigned_field_is_encoded_as_the_library_does(value: int) -> None:
    assert (
        wire.unsigned_field(wire.number_of(pb.LegalAction, "id"), value) == pb.LegalAction(id=value).SerializeToString()
    )


@given(st.lists(st.integers(0, 300), max_size=40) | st.lists(INT32, max_size=40))
def test_a_packed_field_is_encoded_as_the_library_does(values: list[int]) -> None:
    number = wire.number_of(pb.CardObservation, "scores")
    assert wire.packed(number, values) == pb.CardObservation(scores=values).SerializeToString()


@given(st.text(min_size=1, max_size=300))
def test_an_embedded_field_is_encoded_as_the_library_does(text: str) -> None:
    number = wire.number_of(bot_pb.Action, "debug")
    assert wire.embedded(number, text.encode()) == bot_pb.Action(debug=text).SerializeToString()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TABLES), st.binary(min_size=8, max_size=8), st.integers(0, 2**32), st.integers(0, 150))
def test_every_card_observation_parses_to_the_message_built_whole(
    table: tuple[str, int], seed: bytes, moves_seed: int, joined_at: int
) -> None:
    """Each seat's and public views through a whole match, from an encoder that joins at move `joined_at`
    (a match taken over mid-round) and sees every later observation in order, as a match's encoder does."""
    name, players = table
    game = make_game(name, players=players)
    state = game.new_match(seed)
    rng = random.Random(moves_seed)
    encoder = encoder_for(game)
    checked = 0
    for move in range(10_000):
        if move >= joined_at:
            views: list[Any] = [state.public_observation()]
            if not state.is_terminal():
                views.insert(0, state.observation(state.current_player()))
            for obs in views:
                assert pb.Observation.FromString(encoder.encode_bytes(obs)) == built(obs)
                assert encoder.encode(obs) == built(obs)
                checked += 1
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    assert checked > 0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TABLES), st.binary(min_size=8, max_size=8), st.integers(0, 2**32), st.integers(0, 150))
def test_a_view_read_from_the_state_is_the_encoded_observation_byte_for_byte(
    table: tuple[str, int], seed: bytes, moves_seed: int, joined_at: int
) -> None:
    """`encode_seat(state, seat)`, which a node sends without making the observation, is what
    `encode_bytes(state.observation(seat))` gives: for every seat and the spectators' view (-1) at every move,
    so a seat learns nothing from it that its observation hides. The encoder reading the state also takes
    some views as observations in between (a match's encoder is shared with its watchers' public views),
    and both encoders join at move `joined_at`, as a match taken over mid-round."""
    name, players = table
    game = make_game(name, players=players)
    state = game.new_match(seed)
    rng = random.Random(moves_seed)
    from_state, from_observation = encoder_for(game), encoder_for(game)
    checked = 0
    for move in range(10_000):
        if move >= joined_at:
            for seat in rng.sample(range(-1, players), players + 1):
                seen = state.observation(seat) if seat >= 0 else state.public_observation()
                expected = from_observation.encode_bytes(seen)
                mixed = rng.random() < 0.2
                assert (from_state.encode_bytes(seen) if mixed else from_state.encode_seat(state, seat)) == expected
                checked += not mixed
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    assert checked > 0


def test_a_request_parses_to_its_fields_and_a_resent_one_has_the_time_left_then() -> None:
    game = make_game("friday13", players=4)
    state = game.new_match(b"a request")
    move = MoveRequest(7, state, state.current_player(), 1.0)
    seen = state.observation(move.seat)
    assert isinstance(seen, CardObservation)
    body = request_body(match_field("m-" + "x" * 98), encoder_for(game), move, legal_actions_of(game))
    pending = Pending("m-" + "x" * 98, 41, body, 0.0, None)  # type: ignore[arg-type]
    first = bot_pb.ConnectResponse.FromString(pending.encoded(1.0)).action_request
    assert first == whole_request(game, "m-" + "x" * 98, 41, state, move.seat).action_request
    assert first.observation == built(seen) and first.time_left_ms == 1000
    again = bot_pb.ConnectResponse.FromString(pending.encoded(0.75)).action_request
    assert again.time_left_ms == 750 and again.request_id == 41 and again.observation == first.observation
    assert bot_pb.ConnectResponse.FromString(pending.encoded(-1.0)).action_request.time_left_ms == 0
