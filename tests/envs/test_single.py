"""The Gymnasium environment seats built-in bots as the learner's opponents and passes Gymnasium's checker."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from arena.bots import UnknownBot
from arena.envs.single import SingleAgentEnv
from arena.games import InvalidParameters


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("friday13", {"opponents": ["heuristic", "random", "random"], "players": 4}),
        ("friday13", {"opponents": "heuristic", "players": 3, "edition": "de", "seat": 2}),
        ("amigo13", {"opponents": "random", "players": 5}),
        ("board13", {"opponents": "heuristic", "scenario": "gardens"}),
    ],
)
def test_gymnasiums_env_checker_passes(game: str, options: dict[str, Any]) -> None:
    check_env(SingleAgentEnv(game, **options), skip_render_check=True)


def _play(env: SingleAgentEnv, seed: int) -> tuple[float, int]:
    """One match with the lowest legal action each turn; the learner's total reward and its moves."""
    observation, info = env.reset(seed=seed)
    total, moves, done = float(info["reward_before_first_move"]), 0, False
    while not done:
        mask = observation["action_mask"]
        assert mask.any(), "the learner is asked only when it is to move"
        observation, reward, done, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
        assert not truncated
        total += float(reward)
        moves += 1
    return total, moves


def test_the_opponents_move_between_the_learners_turns_and_the_rewards_add_up_to_its_score() -> None:
    env = SingleAgentEnv("friday13", opponents=["heuristic", "random", "random"], players=4)
    for seed in range(3):
        total, moves = _play(env, seed)
        assert env.state is not None and env.state.is_terminal()
        assert total == -env.state.outcome().scores[env.seat]
        record = env.state.record(["learner"] * 4)
        assert moves == sum(1 for round_ in record["rounds"] for move in round_["moves"] if move["seat"] == env.seat)
        assert moves < sum(len(round_["moves"]) for round_ in record["rounds"]) / 3, "the bots made the other moves"


def test_board13_pays_plus_one_minus_one_or_zero() -> None:
    env = SingleAgentEnv("board13", opponents="heuristic", scenario="duel", seat=1)
    total, _ = _play(env, 0)
    assert env.state is not None
    assert total == env.state.outcome().scores[1] - 1


def test_a_random_seat_each_match_unless_one_is_given() -> None:
    env = SingleAgentEnv("amigo13", opponents="random", players=4)
    seats = {env.reset(seed=seed)[1]["seat"] for seed in range(20)}
    assert seats == {0, 1, 2, 3}
    fixed = SingleAgentEnv("amigo13", opponents="random", players=4, seat=3)
    assert {fixed.reset(seed=seed)[1]["seat"] for seed in range(5)} == {3}


def test_an_illegal_action_ends_the_match_with_the_worst_return() -> None:
    env = SingleAgentEnv("friday13", opponents="random", players=4, seat=0)
    observation, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == env.encoding.worst_return
    assert "holds no" in info["illegal"] or "not an action" in info["illegal"]
    with pytest.raises(RuntimeError, match="the match is over: call reset"):
        env.step(0)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"opponents": ["random"], "players": 4}, ValueError, "friday13 for 4 players needs 3 opponents, not 1"),
        ({"opponents": "nobody", "players": 4}, UnknownBot, "unknown bot 'nobody'"),
        ({"opponents": "random", "players": 4, "seat": 4}, ValueError, "seat is a number from 0 to 3"),
        ({"opponents": "random", "players": 9}, InvalidParameters, "friday13 is for 3 to 6 players, not 9"),
    ],
)
def test_bad_parameters_give_one_clear_line(options: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        SingleAgentEnv("friday13", **options)
    assert message in str(raised.value) and "\n" not in str(raised.value)
