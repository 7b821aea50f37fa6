"""The benchmarks' plain reference engine plays Friday the 13th exactly as the project's engine
does: the same deals, the same legal moves at every turn and the same scores, match after match."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import pytest

from arena.games import make_game
from arena.games.friday13 import Friday13
from arena.match.local import match_seed
from tests.benchmarks.scripts import benchmark_module

MATCHES = 12
"""Seeded matches per player count and edition: a few dozen in all, well under a second."""


@pytest.fixture(scope="module")
def reference() -> Iterator[ModuleType]:
    """The reference module, imported as the benchmark scripts import it (from their folder)."""
    with benchmark_module("plain_reference") as module:
        yield module


def friday(players: int, edition: str = "en") -> Friday13:
    game = make_game("friday13", players=players, edition=edition)
    assert isinstance(game, Friday13)
    return game


def move_of(game: Friday13, action: int) -> tuple[str, str]:
    """The reference's move for one of the project's action ids (`card code * 3 + pile`)."""
    code, pile = divmod(action, 3)
    return game.card_text(code), game.rules.suits[pile]


@pytest.mark.parametrize(("players", "edition"), [(3, "en"), (4, "en"), (5, "en"), (6, "en"), (3, "de"), (4, "de")])
def test_the_reference_deals_moves_and_scores_like_the_engine(
    reference: ModuleType, players: int, edition: str
) -> None:
    game = friday(players, edition)
    for number in range(MATCHES):
        seed = match_seed("plain", number)
        state = game.new_match(seed)
        plain = reference.PlainFriday13(players, seed, edition)
        choose = random.Random(number).choice
        dealt_round = -1
        while not state.is_terminal():
            assert not plain.over
            if state.round != dealt_round:
                dealt_round = state.round
                assert plain.round == state.round
                assert plain.first_player == state.first_player
                assert [sorted(hand) for hand in plain.hands] == [
                    sorted(game.card_text(code) for code in hand) for hand in state.hands
                ]
                assert sorted(plain.dummy) == sorted(game.card_text(code) for code in state.dummy)
            assert plain.turn == state.current_player()
            actions = state.legal_actions()
            # The two list the same moves in different orders: card text order, card code order.
            assert sorted(plain.legal_moves()) == sorted(move_of(game, action) for action in actions)
            action = choose(actions)
            state.apply(action)
            plain.play(move_of(game, action))
        assert plain.over
        assert plain.legal_moves() == []
        assert plain.round_scores == state.penalties
        assert tuple(plain.scores) == state.outcome().scores


def test_the_rulebook_scoring_example_gives_8_10_11(reference: ModuleType) -> None:
    def cards(counts: dict[str, int]) -> list[str]:
        return [f"{suit}:1" for suit, count in counts.items() for _ in range(count)]

    michelle = cards({"cat": 2, "mirror": 4, "friday": 3})
    jasmin = cards({"ladder": 4, "cat": 5, "mirror": 1, "friday": 2})
    tom = cards({"ladder": 3, "cat": 5, "mirror": 3})
    assert reference.score_round([michelle, jasmin, tom]) == [8, 10, 11]


def test_a_card_goes_only_where_the_rules_allow(reference: ModuleType) -> None:
    plain = reference.PlainFriday13(4, match_seed("plain", 0))
    hand = plain.hands[plain.turn]
    omen = next(card for card in hand if not card.startswith("friday:"))
    wrong_pile = next(pile for pile in reference.OMENS if not omen.startswith(pile + ":"))
    with pytest.raises(ValueError, match="cannot go on"):
        plain.play((omen, wrong_pile))
    missing = next(card for card in reference.new_deck() if card not in hand and not card.startswith("friday:"))
    with pytest.raises(ValueError):
        plain.play((missing, reference.suit_of(missing)))
    assert plain.hands[plain.turn] == hand
