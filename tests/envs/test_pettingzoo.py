"""The PettingZoo environments pass PettingZoo's own API and seed tests, mask exactly the engine's
legal actions, pay the game's scores as rewards and show each seat only what it may see."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.test.api_test import api_test
from pettingzoo.test.seed_test import seed_test

from arena.envs import amigo13, board13, friday13
from arena.envs.aec import ArenaEnv
from arena.envs.encoding import CARD_SIZE, encoding_for
from arena.games import IllegalAction, InvalidParameters, make_game
from arena.games.board13 import scenario_names
from arena.games.cards import CardGame
from tests.games.test_information import positions, rehide

CONFIGS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    *(("friday13", friday13.env, {"players": p, "edition": e}) for p in (3, 4, 5, 6) for e in ("en", "de")),
    *(("amigo13", amigo13.env, {"players": p}) for p in (3, 4, 5, 6)),
    *(("board13", board13.env, {"scenario": name}) for name in scenario_names()),
]
IDS = [f"{name}-" + "-".join(f"{value}" for value in params.values()) for name, _, params in CONFIGS]
DICT_OBSERVATION_WARNINGS = (
    # PettingZoo says these of every dict observation outside its own classic games, whose names
    # it lists as exceptions; the action mask has to travel in such a dict.
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


@pytest.mark.parametrize(("name", "make", "params"), CONFIGS, ids=IDS)
def test_pettingzoo_api_test_and_seed_test_pass(name: str, make: Callable[..., Any], params: dict[str, Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(**params), num_cycles=300)  # type: ignore[no-untyped-call]
        seed_test(lambda: make(**params), num_cycles=50)  # type: ignore[no-untyped-call]
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)]
    assert unexpected == []


def test_the_env_follows_pettingzoos_naming() -> None:
    env = friday13.env(players=5, edition="de")
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{seat}" for seat in range(5)]
    assert str(env.unwrapped) == "friday13_v0"
    assert env.unwrapped.game.params() == {"players": 5, "edition": "de"}
    assert str(board13.env(scenario="temple").unwrapped) == "board13_v0"


@pytest.mark.parametrize(
    ("make", "params", "size", "actions"),
    [
        (friday13.env, {"players": 3, "edition": "de"}, 169, 96),
        (friday13.env, {"players": 6}, 169, 96),
        (amigo13.env, {"players": 4}, 169, 96),
        (board13.env, {"scenario": "escort"}, 451, 2451),
    ],
)
def test_one_observation_length_per_family(
    make: Callable[..., Any], params: dict[str, Any], size: int, actions: int
) -> None:
    env = make(**params)
    env.reset(seed=0)
    agent = env.agent_selection
    assert env.observation_space(agent)["observation"].shape == (size,)
    assert env.observation_space(agent)["action_mask"].shape == (actions,)
    assert env.action_space(agent).n == actions


def _play_random(env: ArenaEnv, seed: int) -> tuple[dict[str, float], ArenaEnv]:
    """A whole match with random legal actions, checking the mask at every move; total rewards."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while not env.terminations[env.agent_selection]:
        agent = env.agent_selection
        state = env.match
        assert state is not None
        assert agent == f"player_{state.current_player()}"
        observed = env.observe(agent)
        assert np.flatnonzero(observed["action_mask"]).tolist() == state.legal_actions()
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any(), "only the seat to move has legal actions"
        env.step(rng.choice(state.legal_actions()))
        for other, reward in env.rewards.items():
            totals[other] += reward
    return totals, env


@pytest.mark.parametrize(("name", "params"), [(name, params) for name, _, params in CONFIGS], ids=IDS)
def test_masks_are_the_engines_legal_actions_and_rewards_add_up_to_the_score(name: str, params: dict[str, Any]) -> None:
    totals, env = _play_random(ArenaEnv(name, **params), seed=3)
    state = env.match
    assert state is not None and state.is_terminal()
    scores = state.outcome().scores
    sign = -1 if env.game.lower_is_better else 1
    offset = 0 if env.game.lower_is_better else 1  # board13: 2/1/0 points are +1/0/-1
    assert [totals[f"player_{seat}"] for seat in range(len(scores))] == [
        float(sign * score - offset * sign) for score in scores
    ]


def test_card_rewards_arrive_at_each_rounds_end() -> None:
    env = ArenaEnv("amigo13", players=3)
    env.reset(seed=5)
    paid_in_rounds = []
    while not env.terminations[env.agent_selection]:
        agent = env.agent_selection
        before = env.infos[agent]["round"]
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
        if any(env.rewards.values()):
            paid_in_rounds.append(before)
            assert env.terminations[env.agent_selection] or env.infos[agent]["round"] == before + 1
    assert paid_in_rounds == list(range(6)), "amigo13 with three players scores six rounds"


def test_a_seed_deals_the_same_match_and_match_seed_deals_the_arenas() -> None:
    env = ArenaEnv("friday13", players=4)
    env.reset(seed=11)
    first = env.observe("player_0")["observation"]
    env.reset()
    second = env.observe("player_0")["observation"]
    env.reset(seed=11)
    assert np.array_equal(env.observe("player_0")["observation"], first)
    assert not np.array_equal(first, second), "reset() without a seed deals the next match"
    env.reset(options={"match_seed": b"deal-7"})
    arena_match = make_game("friday13", players=4).new_match(b"deal-7")
    assert env.match is not None
    assert env.match.observation(2) == arena_match.observation(2)
    assert env.agent_selection == f"player_{arena_match.current_player()}"


def test_the_card_encoding_hides_every_card_the_seat_may_not_see() -> None:
    rng = random.Random(7)
    moved = 0
    for config in (("friday13", 3, {"edition": "de"}), ("friday13", 5, {"edition": "en"}), ("amigo13", 4, {})):
        for state in positions(config, b"hidden", choices=9, stride=6):
            encoding = encoding_for(state.game)
            for seat in range(state.game.players):
                twin = rehide(state, rng, keep=seat)
                moved += twin.hands != state.hands
                mine = encoding.encode(state.observation(seat))
                assert mine.shape == (CARD_SIZE,)
                assert np.array_equal(mine, encoding.encode(twin.observation(seat)))
    assert moved > 50, "the positions compared differ in the other seats' hands"


def test_the_card_encoding_changes_with_the_own_hand() -> None:
    game = make_game("friday13", players=4)
    assert isinstance(game, CardGame)
    state = game.new_match(b"own-hand")
    encoding = encoding_for(game)
    twin = state.clone()
    twin.hands[0], twin.hands[1] = twin.hands[1], twin.hands[0]
    assert not np.array_equal(encoding.encode(state.observation(0)), encoding.encode(twin.observation(0)))
    assert np.array_equal(encoding.encode(state.observation(2)), encoding.encode(twin.observation(2)))


def test_the_board_encoding_is_seen_from_the_observers_side() -> None:
    state = make_game("board13", scenario="duel").new_match(b"")
    encoding = encoding_for(state.game)
    black, white = encoding.encode(state.observation(0)), encoding.encode(state.observation(1))
    assert black.shape == white.shape == (encoding.size,)
    assert black.min() >= 0 and black.max() <= 1
    # The duel layout is symmetric up to colours, so its own monuments show in the observer's plane.
    assert black[49:98].sum() == white[49:98].sum() > 0


def test_an_illegal_action_raises_in_the_raw_env_and_ends_the_match_in_the_wrapped_one() -> None:
    raw = ArenaEnv("friday13", players=4)
    raw.reset(seed=2)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalAction, match="seat 0 holds no cat:0"):
        raw.step(illegal)
    env = friday13.env(players=4)
    env.reset(seed=2)
    agent = env.agent_selection
    env.last()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[agent] == env.unwrapped.encoding.worst_return == -4 * (42 + 16)


@pytest.mark.parametrize(
    ("make", "params", "message"),
    [
        (friday13.env, {"players": 7}, "friday13 is for 3 to 6 players, not 7"),
        (friday13.env, {"edition": "fr"}, "friday13 has editions en and de, not 'fr'"),
        (amigo13.env, {"players": 2}, "amigo13 is for 3 to 6 players, not 2"),
        (board13.env, {"players": 3}, "board13 is for exactly 2 players"),
        (board13.env, {"scenario": "nowhere"}, "nowhere"),
        (friday13.env, {"render_mode": "rgb_array"}, "render_mode is one of ansi, human or None"),
    ],
)
def test_bad_parameters_give_one_clear_line(make: Callable[..., Any], params: dict[str, Any], message: str) -> None:
    with pytest.raises((InvalidParameters, ValueError)) as error:
        make(**params)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_a_bad_match_seed_is_refused() -> None:
    env = ArenaEnv("amigo13", players=3)
    with pytest.raises(ValueError, match="options\\['match_seed'\\] is bytes, not str"):
        env.reset(options={"match_seed": "text"})


def test_render_shows_the_public_view() -> None:
    env = ArenaEnv("friday13", render_mode="ansi", players=3)
    env.reset(seed=0)
    text = env.render()
    assert text is not None and text.startswith("round 1/4, to move: seat ") and "cat 0" in text
    board = ArenaEnv("board13", render_mode="ansi")
    board.reset(seed=0)
    assert "to move: 0" in (board.render() or "")
