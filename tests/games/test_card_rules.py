"""The rules of Friday the 13th and 13, pinned on the rulebooks' own examples."""

from __future__ import annotations

import pytest

from arena.games import IllegalAction, make_game
from arena.games.amigo13 import Amigo13
from arena.games.base import ranks_from_scores
from arena.games.cards import CardGame, round_penalties
from arena.games.friday13 import Friday13
from tests.games.cardkit import arrange, cards, text_of


def friday(players: int = 4, edition: str = "en") -> Friday13:
    game = make_game("friday13", players=players, edition=edition)
    assert isinstance(game, Friday13)
    return game


def amigo(players: int = 4) -> Amigo13:
    game = make_game("amigo13", players=players)
    assert isinstance(game, Amigo13)
    return game


def collection(game: CardGame, counts: dict[str, int]) -> str:
    """`counts[suit]` cards of each suit, taken from the deck in order (values never score)."""
    deck = [game.card_text(code) for code in game.rules.deck]
    words: list[str] = []
    for suit, count in counts.items():
        words += [card for card in deck if card.startswith(suit + ":")][:count]
    return " ".join(words)


# -- scoring ----------------------------------------------------------------------------------


def test_friday13_rulebook_scoring_example_gives_8_10_11() -> None:
    game = friday(3)
    michelle = collection(game, {"cat": 2, "mirror": 4, "friday": 3})
    jasmin = collection(game, {"ladder": 4, "cat": 5, "mirror": 1, "friday": 2})
    tom = collection(game, {"ladder": 3, "cat": 5, "mirror": 3})
    assert round_penalties([cards(game, michelle), cards(game, jasmin), cards(game, tom)]) == [8, 10, 11]


def test_friday13_scoring_example_through_the_engine_at_round_end() -> None:
    game = friday(3)
    collected = [
        collection(game, {"cat": 2, "mirror": 4, "friday": 3}),
        collection(game, {"ladder": 4, "cat": 5, "mirror": 1, "friday": 2}),
        collection(game, {"ladder": 3, "cat": 5, "mirror": 3}),
    ]
    state = arrange(game, ["ladder:1", "", ""], collected=collected)
    state.apply(game.action_from_text("ladder:1"))
    assert state.penalties == [[8, 10, 11]]
    assert state.scores == [8, 10, 11]
    assert state.round == 1, "the next round is dealt"


def test_amigo13_rulebook_scoring_example_gives_7_2_17_15() -> None:
    game = amigo(4)
    marina = collection(game, {"blue": 3, "yellow": 2, "red": 1})
    georg = collection(game, {"yellow": 6, "green": 2})
    ben = collection(game, {"blue": 2, "yellow": 5, "green": 6, "red": 2})
    nils = collection(game, {"blue": 6, "yellow": 1, "green": 6, "red": 4})
    hands = [cards(game, who) for who in (marina, georg, ben, nils)]
    assert round_penalties(hands) == [7, 2, 17, 15]


def test_a_tie_for_the_most_cards_of_a_type_discards_nothing() -> None:
    game = friday(3)
    tied = collection(game, {"cat": 3})
    assert round_penalties([cards(game, tied), cards(game, tied), []]) == [3, 3, 0]


def test_friday_cards_are_never_discarded_even_by_the_majority_holder() -> None:
    game = friday(3)
    assert round_penalties([cards(game, "friday:4 friday:4"), cards(game, "friday:4"), []]) == [4, 2, 0]


def test_equal_scores_share_the_better_rank() -> None:
    assert ranks_from_scores([12, 9, 20, 9]) == (3, 1, 4, 1)
    assert ranks_from_scores([5, 7, 7, 9]) == (1, 2, 2, 4)
    assert ranks_from_scores([1, 0], lower_is_better=False) == (1, 2)


def test_the_outcome_ranks_equal_totals_together() -> None:
    game = friday(4)
    state = arrange(game, ["cat:1", "", "", ""], collected=["cat:2", "mirror:2", "mirror:1", ""])
    state.scores = [10, 10, 11, 0]
    state.round = game.rules.rounds - 1
    state.apply(game.action_from_text("cat:1"))
    assert state.is_terminal()
    # cat:2 and mirror:2/mirror:1: sole cat holder discards; mirror is tied 1-1, both score.
    assert state.outcome().scores == (10, 11, 12, 0)
    assert state.outcome().ranks == (2, 3, 4, 1)


# -- piles and overflow -----------------------------------------------------------------------


def test_a_pile_at_exactly_13_does_not_overflow() -> None:
    game = friday(4)
    state = arrange(game, ["mirror:2 cat:1", "cat:2", "cat:4", "cat:5"], piles=["", "mirror:7 friday:4", ""])
    state.apply(game.action_from_text("mirror:2"))
    assert state.totals[1] == 13
    assert state.collected[0] == []
    assert text_of(game, state.piles[1]) == ["mirror:7", "friday:4", "mirror:2"]


def test_friday13_overflow_example_the_4_takes_the_pile_and_starts_it_anew() -> None:
    # Jules's Friday card brought the pile to 13; Marielle's 4 exceeds 13 and she takes it.
    game = friday(4)
    state = arrange(game, ["cat:1", "mirror:4", "cat:2", "cat:4"], piles=["", "mirror:7 mirror:2 friday:4", ""], turn=1)
    state.apply(game.action_from_text("mirror:4"))
    assert text_of(game, state.collected[1]) == ["mirror:7", "mirror:2", "friday:4"]
    assert text_of(game, state.piles[1]) == ["mirror:4"]
    assert state.totals[1] == 4
    assert state.current_player() == 2


def test_amigo13_overflow_example_1_the_4_over_13_takes_three_cards() -> None:
    game = amigo(4)
    state = arrange(game, ["blue:2 green:1", "blue:4", "green:2", "green:4"], piles=["blue:7 blue:4", "", ""])
    state.apply(game.action_from_text("blue:2"))  # Ben: 13
    assert state.totals[0] == 13
    state.apply(game.action_from_text("blue:4"))  # Marina: 17, takes the three cards
    assert text_of(game, state.collected[1]) == ["blue:7", "blue:4", "blue:2"]
    assert text_of(game, state.piles[0]) == ["blue:4"]


def test_amigo13_overflow_example_2_the_taker_gets_the_red_four_too() -> None:
    game = amigo(4)
    state = arrange(game, ["red:4 blue:1", "blue:5", "green:2", "green:4"], piles=["blue:7", "", ""])
    state.apply(game.action_from_text("red:4>blue"))  # Georg: 11
    assert state.totals[0] == 11
    state.apply(game.action_from_text("blue:5"))  # Nils: 16
    assert text_of(game, state.collected[1]) == ["blue:7", "red:4"]
    assert text_of(game, state.piles[0]) == ["blue:5"]
    assert state.totals[0] == 5


def test_a_friday_card_may_start_an_empty_pile_which_keeps_its_type() -> None:
    game = friday(4)
    state = arrange(game, ["friday:4 cat:1", "cat:2 mirror:1", "cat:4", "cat:5"])
    assert [game.action_text(a) for a in state.legal_actions()] == [
        "cat:1",
        "friday:4>cat",
        "friday:4>mirror",
        "friday:4>ladder",
    ]
    state.apply(game.action_from_text("friday:4>mirror"))
    assert text_of(game, state.piles[1]) == ["friday:4"]
    with pytest.raises(IllegalAction, match="cat card goes only on the cat pile"):
        state.apply(game.card_from_text("cat:2") * 3 + 1)  # cat:2 aimed at the mirror pile
    state.apply(game.action_from_text("mirror:1"))
    assert state.totals[1] == 5


def test_illegal_actions_say_why() -> None:
    game = friday(4)
    state = arrange(game, ["cat:1", "cat:2", "cat:4", "cat:5"])
    with pytest.raises(IllegalAction, match="seat 0 holds no mirror:7"):
        state.apply(game.action_from_text("mirror:7"))
    with pytest.raises(IllegalAction, match="not an action id"):
        state.apply(999)


def test_no_action_is_accepted_after_the_match() -> None:
    game = friday(3)
    state = game.new_match(b"end")
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert state.legal_actions() == []
    with pytest.raises(IllegalAction, match="match is over"):
        state.apply(0)


# -- deals --------------------------------------------------------------------------------------


def hand_sizes_from_first(game: CardGame, seed: bytes) -> tuple[list[int], int]:
    state = game.new_match(seed)
    n = game.players
    return [len(state.hands[(state.first_player + k) % n]) for k in range(n)], len(state.dummy)


@pytest.mark.parametrize(
    ("players", "edition", "sizes", "dummy"),
    [
        (3, "en", [13, 13, 12], 12),
        (3, "de", [14, 13, 13], 13),
        (4, "en", [13, 13, 12, 12], 0),
        (4, "de", [14, 13, 13, 13], 0),
        (5, "en", [10, 10, 10, 10, 10], 0),
        (6, "en", [9, 9, 8, 8, 8, 8], 0),
        (6, "de", [9, 9, 9, 9, 9, 8], 0),
    ],
)
def test_friday13_deals_every_card_from_the_first_player_on(
    players: int, edition: str, sizes: list[int], dummy: int
) -> None:
    game = friday(players, edition)
    for seed in (b"a", b"b", b"c", b"d", b"e", b"f"):
        assert hand_sizes_from_first(game, seed) == (sizes, dummy)


def test_the_three_player_dummy_is_never_played() -> None:
    for edition, moves in (("en", 38), ("de", 40)):
        game = friday(3, edition)
        state = game.new_match(b"dummy")
        dummy = sorted(state.dummy)
        played = 0
        while state.round == 0:
            state.apply(state.legal_actions()[-1])
            played += 1
        assert played == moves
        assert state.record(["a", "b", "c"])["rounds"][0]["dummy"] == text_of(game, dummy)


def test_friday13_first_player_moves_clockwise_each_round() -> None:
    game = friday(4)
    state = game.new_match(b"rotation")
    firsts = []
    while not state.is_terminal():
        if not state.moves:
            firsts.append(state.first_player)
        state.apply(state.legal_actions()[0])
    assert firsts == [(firsts[0] + k) % 4 for k in range(4)]


def test_the_seed_draws_every_seat_as_first_player() -> None:
    game = friday(5)
    firsts = {game.new_match(bytes([i])).first_player for i in range(60)}
    assert firsts == set(range(5))


def test_amigo13_deals_five_each_and_refills_from_the_top_of_the_draw_pile() -> None:
    game = amigo(4)
    state = game.new_match(b"refill")
    record_draw = state.record(["a", "b", "c", "d"])["rounds"][0]["draw_pile"]
    assert [len(hand) for hand in state.hands] == [5, 5, 5, 5]
    assert len(record_draw) == 30
    for expected_draw in record_draw:
        seat = state.current_player()
        state.apply(state.legal_actions()[0])
        assert len(state.hands[seat]) == 5
        assert game.card_text(state.hands[seat][-1]) == expected_draw
    sizes = []
    while state.round == 0:
        state.apply(state.legal_actions()[0])
        sizes.append(sum(len(hand) for hand in state.hands))
    assert sizes[:-1] == list(range(19, 0, -1)), "after the draw pile, hands only shrink"


def test_amigo13_player_left_of_the_dealer_starts_and_the_dealer_rotates() -> None:
    game = amigo(5)
    state = game.new_match(b"dealer")
    seen = []
    while not state.is_terminal():
        if not state.moves:
            seen.append((state.dealer, state.first_player))
        state.apply(state.legal_actions()[0])
    dealers = [dealer for dealer, _ in seen]
    assert len(seen) == 5, "every player deals once"
    assert sorted(dealers) == list(range(5))
    assert all(first == (dealer + 1) % 5 for dealer, first in seen)


@pytest.mark.parametrize(("players", "rounds"), [(3, 6), (4, 4), (5, 5), (6, 6)])
def test_amigo13_round_count(players: int, rounds: int) -> None:
    game = amigo(players)
    state = game.new_match(b"rounds")
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert len(state.penalties) == rounds
    assert len(state.record(["x"] * players)["rounds"]) == rounds


def test_friday13_plays_four_rounds() -> None:
    game = friday(6)
    state = game.new_match(b"rounds")
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    assert len(state.penalties) == 4
