"""No observation ever carries another seat's hand, the dummy, the draw pile's order or the seed."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import make_game
from arena.games.cards import CardGame, CardState

CONFIGS = [("friday13", p, {"edition": e}) for p in range(3, 7) for e in ("en", "de")] + [
    ("amigo13", p, {}) for p in range(3, 7)
]
ALLOWED_KEYS = {
    "game",
    "seat",
    "players",
    "round",
    "rounds",
    "first_player",
    "dealer",
    "current_player",
    "hand",
    "piles",
    "hand_sizes",
    "draw_pile_size",
    "dummy_size",
    "collected",
    "moves",
    "scores",
    "round_penalties",
}


def positions(config: tuple[str, int, dict[str, str]], seed: bytes, choices: int, stride: int) -> list[CardState]:
    """Snapshots of one randomly played match, every `stride` moves."""
    name, players, params = config
    game = make_game(name, players=players, **params)
    assert isinstance(game, CardGame)
    rng = random.Random(choices)
    state = game.new_match(seed)
    snapshots = []
    moves = 0
    while not state.is_terminal():
        if moves % stride == 0:
            snapshots.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
        moves += 1
    snapshots.append(state)
    return snapshots


def rehide(state: CardState, rng: random.Random, keep: int) -> CardState:
    """The same position with every card hidden from seat `keep` dealt anew among its hiding places."""
    twin = state.clone()
    hidden = [code for seat, hand in enumerate(twin.hands) if seat != keep for code in hand]
    hidden += twin.dummy + twin.draw
    rng.shuffle(hidden)
    for seat, hand in enumerate(twin.hands):
        if seat != keep:
            twin.hands[seat] = [hidden.pop() for _ in hand]
    twin.dummy = [hidden.pop() for _ in twin.dummy]
    twin.draw = [hidden.pop() for _ in twin.draw]
    return twin


settings_for_games = settings(max_examples=40, deadline=None)


@settings_for_games
@given(config=st.sampled_from(CONFIGS), seed=st.binary(min_size=8, max_size=16), choices=st.integers(0, 2**32))
def test_an_observation_shows_only_the_own_hand_and_the_cards_played(
    config: tuple[str, int, dict[str, str]], seed: bytes, choices: int
) -> None:
    for state in positions(config, seed, choices, stride=5):
        played = Counter(state.game.card_text(action // 3) for action in state.moves)
        for seat in range(state.game.players):
            view = state.observation(seat).to_dict()
            assert set(view) == ALLOWED_KEYS
            assert view["hand"] == sorted(view["hand"], key=state.game.card_from_text)
            assert Counter(view["hand"]) == Counter(state.game.card_text(c) for c in state.hands[seat])
            shown = [card for pile in view["piles"] for card in pile["cards"]]
            shown += [card for taken in view["collected"] for card in taken]
            assert Counter(shown) == played, "besides its hand, a seat sees exactly the cards played this round"
            assert Counter(move["card"] for move in view["moves"]) == played
            text = json.dumps(view)
            assert state.seed.hex() not in text
            assert 'draw_pile"' not in text and 'dummy"' not in text


@settings_for_games
@given(config=st.sampled_from(CONFIGS), seed=st.binary(min_size=8, max_size=16), choices=st.integers(0, 2**32))
def test_an_observation_does_not_change_when_hidden_cards_move(
    config: tuple[str, int, dict[str, str]], seed: bytes, choices: int
) -> None:
    rng = random.Random(choices)
    for state in positions(config, seed, choices, stride=7):
        for seat in range(state.game.players):
            assert rehide(state, rng, keep=seat).observation(seat) == state.observation(seat)
        assert rehide(state, rng, keep=-1).public_observation() == state.public_observation()


def test_the_public_view_holds_no_hand_and_no_legal_actions() -> None:
    game = make_game("friday13", players=3)
    assert isinstance(game, CardGame)
    view = game.new_match(b"public").public_observation()
    assert view.hand == ()
    assert view.legal_actions == ()
    assert view.seat == -1
