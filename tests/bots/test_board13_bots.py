"""The built-in bots at board13: legal play everywhere, sound choices, and mc and heuristic beating random."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from arena.bots import make_bot
from arena.bots.base import Bot, StaticTurn
from arena.bots.board13_policies import Board13Search, board13_policy, evaluate
from arena.bots.heuristic import POLICIES
from arena.bots.montecarlo import MODELS, MonteCarloBot
from arena.games import make_game
from arena.games.board13 import Board13, Board13State, scenario_names


def board13(scenario: str) -> Board13:
    game = make_game("board13", scenario=scenario)
    assert isinstance(game, Board13)
    return game


def quick(bot: Bot) -> Bot:
    """An mc bot cut down to one sample a move, so that tests stay fast."""
    if isinstance(bot, MonteCarloBot):
        bot.samples = 1
        bot.time_limit = 0.0
    return bot


def play_match(game: Board13, names: list[str], seed: int) -> Board13State:
    state = game.new_match(b"")
    bots = [quick(make_bot(name, game, seat, seed=seed * 2 + seat)) for seat, name in enumerate(names)]
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat].act(StaticTurn(seat, legal, state.observation(seat)))
        assert action in legal
        state.apply(action)
    return state


def choice(name: str, state: Board13State) -> str:
    seat = state.current_player()
    bot = make_bot(name, state.game, seat, seed=1)
    action = bot.act(StaticTurn(seat, state.legal_actions(), state.observation(seat)))
    return state.game.action_text(action)


def test_both_registries_know_board13() -> None:
    assert POLICIES[Board13] is board13_policy
    assert MODELS[Board13] is Board13Search


@pytest.mark.parametrize("scenario", scenario_names())
def test_every_bot_plays_whole_matches_of_legal_moves(scenario: str) -> None:
    game = board13(scenario)
    assert play_match(game, ["heuristic", "mc"], 1).is_terminal()
    assert play_match(game, ["random", "heuristic"], 2).is_terminal()


LOSING_GUARD = """
    b . . . . . W
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . w B b - w
"""
"""Black's e1 guards its only monument: once it leaves, white's g1-e1 (over the white-only f1,
where black may not stand) encloses d1 against c1 and wins."""


@pytest.mark.parametrize("name", ["heuristic", "mc"])
def test_the_guard_of_the_last_monument_stays(name: str) -> None:
    state = Board13State.from_diagram(LOSING_GUARD)
    assert choice(name, state).startswith("move a7-")


@pytest.mark.parametrize("name", ["heuristic", "mc"])
def test_a_winning_topple_is_taken(name: str) -> None:
    # White's only monument stands on d7 beside black's c7: g5-e7 encloses it and wins.
    state = Board13State.from_diagram(
        """
        . . b W . . .
        . . . . . . .
        . . . . . . b
        . w . . . . .
        . . . . . . .
        . . . . . . .
        . . . B . . w
        """
    )
    assert choice(name, state) == "move g5-e7"


@pytest.mark.parametrize("name", ["heuristic", "mc"])
def test_a_capture_is_preferred_to_a_quiet_move(name: str) -> None:
    state = Board13State.from_diagram(
        """
        . . . W . . .
        . . . . . . .
        . . . b . . .
        . . . w . . .
        . . . . . . b
        . . . . . . .
        . . . B . . w
        """
    )
    assert choice(name, state) == "move g3-d3"


def test_the_search_model_samples_the_observed_position_and_scores_results() -> None:
    game = board13("duel")
    state = game.new_match(b"")
    state.playout(random.Random(4), horizon=12)
    model = Board13Search(game)
    observation = state.observation(state.current_player())
    sample = model.sample(observation, random.Random(0))
    assert sample.board == state.board and sample.reserves == state.reserves
    assert sample is not model.sample(observation, random.Random(0)), "every sample is a fresh copy"
    state.playout(random.Random(5))
    if state.winner >= 0:
        assert model.loss(state, state.winner) < 0 < model.loss(state, 1 - state.winner)
    assert evaluate(game.new_match(b""), 0) == 0.0, "the start is even"


@pytest.mark.parametrize("name", ["heuristic", "mc"])
def test_the_bot_beats_random(name: str) -> None:
    game = board13("temple")
    points = 0
    for match in range(6):
        seats = [name, "random"] if match % 2 == 0 else ["random", name]
        state = play_match(game, seats, match)
        points += state.outcome().scores[seats.index(name)]
    assert points >= 2 * 5, f"{name} won fewer than 5 of 6 matches against random"


def test_arena_play_prints_standings_in_points() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "play",
            "board13",
            "--players",
            "2",
            "--scenario",
            "temple",
            "--bots",
            "heuristic,random",
            "--games",
            "4",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "mean points" in done.stdout
    first = next(line for line in done.stdout.splitlines() if line.startswith("1 "))
    assert "heuristic" in first, done.stdout


def test_arena_play_refuses_three_bots_for_board13() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", "board13", "--bots", "mc,random,random", "--games", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "exactly 2 players" in done.stderr
