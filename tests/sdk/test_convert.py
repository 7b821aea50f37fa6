"""Observations survive the trip engine -> wire -> engine, so built-in policies run in SDK bots."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.bots import make_bot
from arena.bots.base import StaticTurn
from arena.games import make_game
from arena.games.board13 import scenario_names
from arena.games.cards_kit import CardEncoder
from arena.v1 import messages_pb2 as pb
from arena.wire import convert

TABLES = [
    ("friday13", {"players": 3}),
    ("friday13", {"players": 6, "edition": "de"}),
    ("amigo13", {"players": 3}),
    ("amigo13", {"players": 5}),
]


@pytest.mark.parametrize(("name", "params"), TABLES)
def test_every_observation_of_a_match_comes_back_unchanged(name: str, params: dict[str, object]) -> None:
    game = make_game(name, **params)
    rng = random.Random(7)
    state = game.new_match(b"convert")
    encoder = CardEncoder()
    while not state.is_terminal():
        seat = state.current_player()
        for watcher in (seat, (seat + 1) % game.players, -1):
            observation: Any = state.observation(watcher) if watcher >= 0 else state.public_observation()
            message = encoder.encode(observation)
            assert message == CardEncoder().encode(observation), "the incremental encoder drifted"
            if watcher >= 0:
                legal = state.legal_actions() if watcher == seat else []
                assert convert.observation_from_pb(game, message, legal) == observation
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("scenario", scenario_names())
def test_board13_positions_come_back_unchanged(scenario: str) -> None:
    game = make_game("board13", scenario=scenario)
    rng = random.Random(5)
    state = game.new_match(b"")
    encoder = convert.encoder_for(game)
    for _ in range(60):
        if state.is_terminal():
            break
        seat = state.current_player()
        for watcher in (seat, 1 - seat):
            observation = state.observation(watcher)
            message = encoder.encode(observation)
            assert message == convert.encoder_for(game).encode(observation), "the incremental encoder drifted"
            legal = state.legal_actions() if watcher == seat else []
            assert convert.observation_from_pb(game, message, legal) == observation
        state.apply(rng.choice(state.legal_actions()))
    view = encoder.encode(state.public_observation()).board13
    assert view == convert.encoder_for(game).encode(state.public_observation()).board13
    # Positions of other matches through the same encoder: it starts over rather than carry one on,
    # also when the histories are as long (three moves each, the last ones differing).
    first, last = game.new_match(b""), game.new_match(b"")
    for _ in range(3):
        first.apply(ones := first.legal_actions()[0])
        last.apply(others := last.legal_actions()[-1])
    assert ones != others
    for other in (first, last, game.new_match(b"")):
        assert encoder.encode(other.observation(0)) == convert.encoder_for(game).encode(other.observation(0))
    assert view.seat == -1 and len(view.fields) == 49 and view.scenario == scenario
    assert [move.text for move in view.moves][:1] == [game.action_text(view.moves[0].action_id)]


def test_a_spectators_view_has_no_hand_and_seat_minus_one() -> None:
    game = make_game("amigo13", players=4)
    state = game.new_match(b"x")
    view = convert.observation_to_pb(game, state.public_observation()).cards
    assert view.seat == -1 and len(view.hand) == 0 and view.draw_pile_size == 50 - 20
    assert sum(view.hand_sizes) == 20


def test_builtin_policies_choose_the_same_action_from_the_converted_observation() -> None:
    game = make_game("friday13", players=4)
    state = game.new_match(b"same")
    rng = random.Random(3)
    for _ in range(60):
        seat = state.current_player()
        legal = state.legal_actions()
        direct = make_bot("heuristic", game, seat).act(StaticTurn(seat, legal, state.observation(seat)))
        wire = convert.observation_to_pb(game, state.observation(seat))
        converted = convert.observation_from_pb(game, wire, legal)
        assert make_bot("heuristic", game, seat).act(StaticTurn(seat, legal, converted)) == direct
        state.apply(rng.choice(legal))


def test_game_specs_and_clocks_round_trip() -> None:
    game = make_game("friday13", players=5, edition="de")
    spec = convert.spec_from_game(game)
    assert spec == pb.GameSpec(game="friday13", players=5, edition="de", params={"edition": "de"})
    assert repr(convert.game_from_spec(spec)) == repr(game)
    assert repr(convert.game_from_spec(pb.GameSpec(game="amigo13"), seats=3)) == repr(make_game("amigo13", players=3))
    clock = convert.clock_from_pb(pb.Clock(per_move_ms=1500, bank_ms=10000))
    assert (clock.per_move, clock.bank) == (1.5, 10.0)
    assert convert.clock_to_pb(clock) == pb.Clock(per_move_ms=1500, bank_ms=10000)
