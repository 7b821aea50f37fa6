"""One test over every registered game's kit: what the server, the SDK and the web take from it holds."""

from __future__ import annotations

import inspect
import random

import pytest

from arena.games import game_names, kit_of, make_game
from arena.v1 import messages_pb2 as pb
from arena.wire import convert

DRAWING_KINDS = {"cards", "board", "facts"}
"""The renderers arena/web/static/app.js has; a drawing names one of them."""


@pytest.mark.parametrize("name", game_names())
def test_a_kit_declares_parameters_its_factory_takes_and_a_drawing_the_viewer_has(name: str) -> None:
    kit = kit_of(name)
    game = make_game(name)
    for parameter in kit.parameters:
        assert parameter.name in inspect.signature(type(game)).parameters
        assert game.params()[parameter.name] == parameter.default
        assert not parameter.choices or parameter.default in parameter.choices
    assert kit.drawing["kind"] in DRAWING_KINDS
    assert kit.drawing["score_table"] in {"rounds", "final"}
    assert kit.observation_field in [field.name for field in pb.Observation.DESCRIPTOR.oneofs_by_name["game"].fields]


@pytest.mark.parametrize("name", game_names())
def test_a_played_match_crosses_the_wire_hides_what_it_should_and_replays_frame_by_frame(name: str) -> None:
    kit, game = kit_of(name), make_game(name)
    state = game.new_match(b"kit")
    encoder = kit.encoder(game)
    rng = random.Random(1)
    while not state.is_terminal():
        seat = state.current_player()
        message = encoder.encode(state.observation(seat))
        assert message.WhichOneof("game") == kit.observation_field
        assert convert.observation_from_pb(game, message, state.legal_actions()) == state.observation(seat)
        assert kit.public_view(state.public_observation())["kind"] == kit.drawing["kind"]
        state.apply(rng.choice(state.legal_actions()))
    record = state.record(["a"] * game.players)
    for entry in record["rounds"]:
        for move in entry["moves"]:
            assert game.action_from_text(kit.move_text(game, move)) >= 0
    frames = kit.replay_frames(game, record)
    assert len(frames) == sum(1 + len(entry["moves"]) for entry in record["rounds"])
    assert [frame["move"] for frame in frames if frame["move"] is not None] == [
        move for entry in record["rounds"] for move in entry["moves"]
    ]
    assert convert.game_from_spec(convert.spec_from_game(game)).params() == game.params()


def test_card_move_text_is_the_games_own_action_text() -> None:
    game = make_game("friday13")
    kit = kit_of("friday13")
    assert kit.move_text(game, {"card": "cat:5", "pile": "cat"}) == "cat:5"
    assert kit.move_text(game, {"card": "friday:4", "pile": "mirror"}) == "friday:4>mirror"
    with pytest.raises(ValueError, match="is not a card"):
        kit.move_text(game, {"card": "blue:3", "pile": "cat"})


def test_parameters_in_the_specs_params_are_checked_by_the_game() -> None:
    spec = pb.GameSpec(game="friday13", params={"edition": "de"})
    assert convert.game_from_spec(spec, seats=3).params() == {"players": 3, "edition": "de"}
    with pytest.raises(ValueError, match="friday13 has editions en and de, not 'fr'"):
        convert.game_from_spec(pb.GameSpec(game="friday13", params={"edition": "fr"}))
    with pytest.raises(ValueError, match="amigo13 has no parameter 'edition'"):
        convert.game_from_spec(pb.GameSpec(game="amigo13", edition="de"))
