"""board13 for the built-in bots: a rule-based policy and the search model of the mc bot.

Importing this module registers both, keyed by the Board13 game class, in the heuristic bot's
POLICIES and the mc bot's MODELS.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from arena.bots.heuristic import POLICIES
from arena.bots.montecarlo import MODELS, CommonNumbers
from arena.games.base import Action
from arena.games.board13.board import (
    BLACK_STONE,
    FIELDS,
    MONUMENT,
    NEUTRAL_MONUMENT,
    OWNER,
    WHITE_STONE,
    distance,
)
from arena.games.board13.rules import MOVE_BASE, PASS, Board13, Board13Observation, Board13State
from arena.games.board13.scenario import Scenario

WIN_VALUE = 10_000.0
"""Worth of a won match, far above any material."""
MONUMENT_VALUE = 100.0
STONE_VALUE = 10.0
APPROACH_VALUE = 1.0
"""Worth of one step closer to the nearest monument the side has to topple."""


@cache
def game_for(scenario: Scenario) -> Board13:
    """A game for the observation's scenario (policies get observations, not games)."""
    return Board13(scenario=scenario)


def targets(board: Sequence[int], seat: int) -> list[int]:
    """The fields of the monuments `seat` may topple: the enemy's and the neutral ones."""
    enemy = 2 - seat
    return [
        spot
        for spot in range(FIELDS)
        if board[spot] == NEUTRAL_MONUMENT or (board[spot] & MONUMENT and board[spot] & OWNER == enemy)
    ]


def landing(action: Action) -> int:
    """The field a placement or move ends on (-1 for a pass)."""
    if action == PASS:
        return -1
    return action if action < MOVE_BASE else (action - MOVE_BASE) % FIELDS


def worst_reply(state: Board13State) -> float:
    """The most the side to move can win back with one action: its best capture, or the match."""
    seat = state.current_player()
    if seat < 0:
        return 0.0
    monuments, stones, _ = state.best_capture()
    if monuments and reaches_goal(state, seat, monuments):
        return WIN_VALUE
    return MONUMENT_VALUE * monuments + STONE_VALUE * stones


def reaches_goal(state: Board13State, seat: int, monuments: int) -> bool:
    """Whether toppling `monuments` more (of the kind the goal counts) would win for `seat`."""
    scenario = state.game.scenario
    if scenario.goal == "enemy_monuments":
        return state.monuments_left[1 - seat] <= monuments
    return 2 * (state.neutral_toppled[seat] + monuments) > scenario.neutral_monuments


def action_value(state: Board13State, action: Action, goals: Sequence[int]) -> float:
    """Immediate gain, minus what the reply can take, plus a little for closing in on a goal."""
    seat = state.current_player()
    monuments, stones = state.gain(action)
    trial = state.clone()
    trial._apply(action)
    if trial.is_terminal():
        if trial.winner == seat:
            return WIN_VALUE
        return -WIN_VALUE if trial.winner >= 0 else 0.0
    value = MONUMENT_VALUE * monuments + STONE_VALUE * stones - 0.9 * worst_reply(trial)
    end = landing(action)
    if end >= 0 and goals:
        value -= APPROACH_VALUE * min(distance(end, goal) for goal in goals)
    return value


def board13_policy(obs: Board13Observation, legal: Sequence[Action]) -> Action:
    """Win now if possible; otherwise the best capture that the reply cannot punish, heading for the goal."""
    state = Board13State.from_observation(game_for(obs.scenario), obs)
    goals = targets(obs.board, obs.current_player)
    return max(legal, key=lambda action: (action_value(state, action, goals), -action))


class Board13Search:
    """Full information: every sample is the observed position; playouts are short and greedy.

    A playout of `horizon` plies, each the biggest capture on offer (a random action when there
    is none, or with probability `exploration`), is then judged by `evaluate`: the match result
    if it ended, else monuments toppled, stones (on the board and in reserve) and closeness to
    goals. Greedy replies matter: uniformly random ones almost never punish a careless move.
    """

    playouts = 300
    horizon = 1
    exploration = 0.0

    def __init__(self, game: Board13) -> None:
        self.game = game
        self._last: tuple[Board13Observation, Board13State] | None = None

    def sample(self, observation: Board13Observation, rng: random.Random) -> Board13State:
        if self._last is None or self._last[0] is not observation:
            self._last = (observation, Board13State.from_observation(self.game, observation))
        return self._last[1].clone()

    def playout(self, state: Board13State, numbers: CommonNumbers) -> None:
        greedy_playout(state, numbers, self.horizon, self.exploration)

    def loss(self, state: Board13State, seat: int) -> float:
        return -evaluate(state, seat)


def greedy_playout(state: Board13State, numbers: CommonNumbers, horizon: int, exploration: float) -> None:
    """Play at most `horizon` plies: each the action that removes most, else a random one."""
    rand = numbers.random
    for _ in range(horizon):
        if state.is_terminal():
            return
        choice = state.best_capture()[2] if rand() >= exploration else -1
        if choice < 0:
            actions = state._actions()
            choice = actions[int(rand() * len(actions))]
        state._apply(choice)


def evaluate(state: Board13State, seat: int) -> float:
    """How good the position is for `seat`: positive is better."""
    if state.is_terminal():
        return 0.0 if state.winner < 0 else (WIN_VALUE if state.winner == seat else -WIN_VALUE)
    board = state.board
    other = 1 - seat
    stones = [board.count(BLACK_STONE) + state.reserves[0], board.count(WHITE_STONE) + state.reserves[1]]
    value = MONUMENT_VALUE * (state.toppled[seat] - state.toppled[other]) + STONE_VALUE * (stones[seat] - stones[other])
    return value + APPROACH_VALUE * (_closeness(board, seat) - _closeness(board, other))


def _closeness(board: Sequence[int], seat: int) -> float:
    """How many of the side's stones stand within two steps of a monument it may topple."""
    goals = targets(board, seat)
    if not goals:
        return 0.0
    stone = seat + 1
    near = 0
    for spot in range(FIELDS):
        if board[spot] == stone and min(distance(spot, goal) for goal in goals) <= 2:
            near += 1
    return float(near)


POLICIES[Board13] = board13_policy
MODELS[Board13] = Board13Search
