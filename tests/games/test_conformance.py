"""One conformance test for every registered game: the engine contract of DESIGN.md."""

from __future__ import annotations

import json
import random

import pytest

from arena.games import game_names, make_game
from arena.games.base import Game, IllegalAction, ranks_from_scores


def configurations() -> list[Game]:
    games = [make_game(name) for name in game_names()]
    games += [
        make_game("friday13", players=3, edition="de"),
        make_game("amigo13", players=3),
        make_game("amigo13", players=6),
    ]
    return games


@pytest.mark.parametrize("game", configurations(), ids=repr)
def test_random_play_keeps_the_contract(game: Game) -> None:
    rng = random.Random(13)
    for match in range(3):
        state = game.new_match(f"conformance-{match}".encode())
        plies = 0
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            assert legal, "a player to move always has a legal action"
            assert legal == sorted(set(legal))
            assert state.default_action() in legal
            for action in legal:
                assert game.action_from_text(game.action_text(action)) == action
            json.dumps(state.observation(seat).to_dict())
            json.dumps(state.public_observation().to_dict())

            twin = state.clone()
            before = state.observation(seat)
            action = rng.choice(legal)
            twin.apply(action)
            assert state.observation(seat) == before, "a clone is independent of its original"

            state.apply(action)
            plies += 1
            assert plies < 10_000
        assert state.current_player() == -1
        assert state.legal_actions() == []
        with pytest.raises(IllegalAction):
            state.apply(0)
        outcome = state.outcome()
        assert len(outcome.scores) == game.players
        assert outcome.ranks == ranks_from_scores(outcome.scores, lower_is_better=game.lower_is_better)
        record = state.record([f"seat{i}" for i in range(game.players)])
        json.dumps(record)
        assert game.replay(record).outcome() == outcome


@pytest.mark.parametrize("name", game_names())
def test_the_same_seed_replays_the_same_match(name: str) -> None:
    game = make_game(name)
    states = [game.new_match(b"twice") for _ in range(2)]
    rng = [random.Random(5), random.Random(5)]
    while not states[0].is_terminal():
        for state, chooser in zip(states, rng, strict=True):
            state.apply(chooser.choice(state.legal_actions()))
    assert states[0].record(["a"] * game.players) == states[1].record(["a"] * game.players)
