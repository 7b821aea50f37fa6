"""The mc bot at the card games: legal, repeatable under its cap, on time, and stronger than the heuristic."""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter

import pytest

from arena.bots import make_bot
from arena.bots.base import Bot, StaticTurn
from arena.bots.heuristic import card_policy
from arena.bots.montecarlo import (
    CommonNumbers,
    MonteCarloBot,
    Opponents,
    greedy_playout,
    move_likelihoods,
    shuffle,
)
from arena.games import make_game
from arena.games.cards import CardGame, CardState
from tests.games.cardkit import arrange, cards

CONFIGS = [
    ("friday13", 3, {"edition": "de"}),
    ("friday13", 4, {}),
    ("friday13", 6, {}),
    ("amigo13", 3, {}),
    ("amigo13", 5, {}),
]


def card_game(name: str, players: int, **params: str) -> CardGame:
    game = make_game(name, players=players, **params)
    assert isinstance(game, CardGame)
    return game


def turn_of(state: CardState) -> StaticTurn:
    seat = state.current_player()
    return StaticTurn(seat, state.legal_actions(), state.observation(seat))


def play(game: CardGame, bots: list[Bot], seed: bytes) -> tuple[list[int], CardState]:
    """A whole match between `bots`; returns every action taken and the final state."""
    state = game.new_match(seed)
    actions = []
    while not state.is_terminal():
        turn = turn_of(state)
        action = bots[turn.seat].act(turn)
        assert action in turn.legal_actions
        state.apply(action)
        actions.append(action)
    return actions, state


@pytest.mark.parametrize(("name", "players", "params"), CONFIGS)
def test_mc_plays_a_legal_move_in_random_positions(name: str, players: int, params: dict[str, str]) -> None:
    game = card_game(name, players, **params)
    rng = random.Random(players)
    for deal in range(3):
        state = game.new_match(bytes([deal, players]))
        # One mc bot per seat, as in a match, so each learns about the others as play goes on.
        bots = [MonteCarloBot(game, seat, seed=deal, samples=20) for seat in range(players)]
        while not state.is_terminal():
            turn = turn_of(state)
            if rng.random() < 0.2:
                assert bots[turn.seat].act(turn) in turn.legal_actions
            state.apply(rng.choice(turn.legal_actions))


def test_mc_repeats_its_moves_when_its_sample_cap_comes_first() -> None:
    game = card_game("amigo13", 3)
    runs = [
        play(game, [MonteCarloBot(game, seat, seed=seat, samples=60, time_limit=60.0) for seat in range(3)], b"same")[0]
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_the_time_limit_cuts_the_search_short() -> None:
    game = card_game("friday13", 4)
    state = game.new_match(b"clock")
    turn = turn_of(state)
    bot = MonteCarloBot(game, turn.seat, samples=10**9, time_limit=0.05)
    started = time.perf_counter()
    action = bot.act(turn)
    elapsed = time.perf_counter() - started
    assert action in turn.legal_actions
    # A round's playouts of one sample take a few milliseconds; 10**9 samples would take hours. The bound is loose
    # because the clock is the wall's: a loaded machine may hold the process off a core for a while.
    assert 0.05 <= elapsed < 5.0
    assert MonteCarloBot(game, turn.seat, time_limit=0.0).act(turn) in turn.legal_actions


@pytest.mark.parametrize("name", ["friday13", "amigo13"])
def test_the_playout_rule_plays_as_the_heuristic_does(name: str) -> None:
    game = card_game(name, 4)
    rng = random.Random(5)
    for deal in range(20):
        state = game.new_match(bytes([deal]))
        while not state.is_terminal():
            turn = turn_of(state)
            expected = card_policy(turn.observation, turn.legal_actions)
            trial = CardState.from_observation(
                game, turn.observation, state.hands, state.dummy, state.draw[::-1], this_round_only=True
            )
            greedy_playout(trial, CommonNumbers(deal), [0.0] * 4)
            played = trial.moves[len(turn.observation.moves)]
            # Among cards of equal value and kind the two may pick different piles or types.
            assert (played // 3) & 7 == (expected // 3) & 7
            assert (played // 3 >= 24) == (expected // 3 >= 24)
            state.apply(rng.choice(turn.legal_actions) if rng.random() < 0.5 else expected)


def test_a_move_the_greedy_rule_would_never_make_is_put_down_to_chance() -> None:
    game = card_game("friday13", 3)
    counted = Counter(cards(game, "cat:1 cat:2 mirror:5 friday:4 friday:4"))
    # Playing the low cat:1 while a friday card fits: the greedy rule plays its highest safe card.
    greedy, uniform = move_likelihoods(cards(game, "cat:1")[0], 0, [0, 0, 0], counted, 5)
    assert greedy == 0.0 < uniform
    # A friday card on the third pile while the first has room: the greedy rule takes the first.
    greedy, uniform = move_likelihoods(cards(game, "friday:4")[0], 2, [0, 0, 0], counted, 2)
    assert greedy == 0.0 < uniform
    # The highest card of the pool, safely played from a full hand, is what the greedy rule plays.
    greedy, uniform = move_likelihoods(cards(game, "mirror:5")[0], 1, [0, 0, 0], counted, 5)
    assert greedy == 1.0 > uniform


def test_opponents_tell_a_careful_player_from_a_careless_one() -> None:
    game = card_game("friday13", 4)
    names = ["heuristic", "heuristic", "random", "heuristic"]
    bots = [make_bot(name, game, seat, seed=seat) for seat, name in enumerate(names)]
    opponents = Opponents(game)
    state = game.new_match(b"who")
    while not state.is_terminal():
        turn = turn_of(state)
        if turn.seat == 0:
            opponents.observe(turn.observation)
        state.apply(bots[turn.seat].act(turn))
    shares = opponents.random_shares()
    assert shares[1] < 0.3 and shares[3] < 0.3
    assert shares[2] > 0.7


def test_the_search_takes_a_small_pile_now_rather_than_a_bigger_one_later() -> None:
    game = card_game("friday13", 3)
    # Seat 2 holds every card not shown, the most cats among them, so nothing is hidden but
    # which opponent holds which ladder. cat:1 is safe now but leaves cat:7 to take three cats
    # next turn; cat:7 now takes two and lets cat:1 follow safely. The heuristic plays cat:1.
    shown = Counter(cards(game, "cat:1 cat:7 ladder:1 ladder:2 cat:5 cat:5 cat:2 cat:2 cat:2 cat:4"))
    rest = " ".join(game.card_text(code) for code in sorted((Counter(game.rules.deck) - shown).elements()))
    state = arrange(
        game,
        ["cat:1 cat:7", "ladder:1", "ladder:2"],
        piles=["cat:5 cat:5", "", ""],
        collected=["", "cat:2 cat:2 cat:2 cat:4", rest],
    )
    turn = turn_of(state)
    assert game.action_text(card_policy(turn.observation, turn.legal_actions)) == "cat:1"
    assert game.action_text(MonteCarloBot(game, 0, samples=50).act(turn)) == "cat:7"


def test_mc_beats_the_heuristic_over_seat_rotated_deals() -> None:
    """Each deal once with mc in every seat against three heuristic bots: mc must lose fewer points."""
    game = card_game("friday13", 4)
    advantage = []
    for deal in range(2):
        for shift in range(4):
            bots: list[Bot] = [make_bot("heuristic", game, seat) for seat in range(4)]
            bots[shift] = MonteCarloBot(game, shift, seed=deal, samples=150)
            scores = play(game, bots, bytes([deal, 13]))[1].outcome().scores
            others = [score for seat, score in enumerate(scores) if seat != shift]
            advantage.append(statistics.mean(others) - scores[shift])
    assert statistics.mean(advantage) > 0


def test_common_numbers_give_every_playout_of_a_sample_the_same_numbers_as_its_seed() -> None:
    numbers = CommonNumbers()
    for seed in (0, 1, 2**63 + 5):
        numbers.reseed(seed)
        expected = random.Random(seed)
        first = [numbers.random() for _ in range(30)]
        assert first == [expected.random() for _ in range(30)]
        numbers.rewind()
        # A later playout may draw fewer numbers than the first, or more.
        assert [numbers.random() for _ in range(10)] == first[:10]
        numbers.rewind()
        assert [numbers.random() for _ in range(40)] == [*first, *(expected.random() for _ in range(10))]


def test_the_search_shuffles_as_the_library_does_draw_for_draw() -> None:
    for seed in range(50):
        for size in (0, 1, 2, 5, 17, 40):
            mine, theirs = list(range(size)), list(range(size))
            mine_rng, their_rng = random.Random(seed), random.Random(seed)
            shuffle(mine, mine_rng)
            their_rng.shuffle(theirs)
            assert mine == theirs
            assert mine_rng.random() == their_rng.random()
