"""The PettingZoo AEC environment of any arena game, played by the game's own engine.

Agents are `player_0` ... `player_N-1`, seat by seat. An observation is a dict: `observation`, the
seat's numeric encoding (arena.envs.encoding), and `action_mask`, 1 for each legal action id
(all zeros for a seat not to move). Rewards follow the game's score: after every move each seat
gets the change of its score, negated where lower is better, so a match's rewards add up to
minus the penalty points in the card games (paid at each round's end) and to +1, 0 or -1 for a
win, draw or loss in board13.

`reset(seed=S)` deals the same match for the same S; `reset()` deals the next match of the
sequence; `reset(options={"match_seed": b"..."})` deals exactly the match the arena deals from
that seed. The raw environment raises `arena.games.IllegalAction` (saying why) for an action
outside the mask; `env()` wraps it the PettingZoo way, so that an illegal action ends the match
with the worst total reward the game allows for the seat that made it.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from arena.envs.encoding import Encoding, action_mask, encoding_for
from arena.games.base import Game, IllegalAction, State, make_game

RENDER_MODES = ("ansi", "human")
Observation = dict[str, Any]


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class ArenaEnv(AECEnv[str, Observation, Any]):
    """One arena game as a PettingZoo AEC environment (use `env()` for the wrapped one)."""

    def __init__(self, game: str, render_mode: str | None = None, **params: Any) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode is one of {', '.join(RENDER_MODES)} or None, not {render_mode!r}")
        self.game: Game = make_game(game, **params)
        self.encoding: Encoding = encoding_for(self.game)
        self.render_mode = render_mode
        self.metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "name": f"{game}_v0"}
        self.possible_agents = [agent_name(seat) for seat in range(self.game.players)]
        self.agents = self.possible_agents[:]
        observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, 1.0, (self.encoding.size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (self.encoding.actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation_space)
        self.action_spaces: dict[str, gymnasium.spaces.Space[Any]] = {
            agent: gymnasium.spaces.Discrete(self.encoding.actions) for agent in self.possible_agents
        }
        self._sign = -1 if self.game.lower_is_better else 1
        self._rng = np.random.default_rng()
        self.match: State[Any] | None = None
        self._scores: tuple[int, ...] = ()

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        match_seed = (options or {}).get("match_seed")
        if match_seed is None:
            match_seed = self._rng.bytes(16)
        elif not isinstance(match_seed, bytes):
            raise ValueError(f"options['match_seed'] is bytes, not {type(match_seed).__name__}")
        self.match = self.game.new_match(match_seed)
        self._scores = self.match.outcome().scores
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._update_infos()
        self.agent_selection = agent_name(self.match.current_player())

    def _live(self) -> State[Any]:
        if self.match is None:
            raise RuntimeError("call reset() before using the environment")
        return self.match

    def _update_infos(self) -> None:
        """Each seat's info: the round being played (rewards arrive at a round's end)."""
        state = self._live()
        round_number = int(getattr(state, "round", 0))
        for agent in self.agents:
            self.infos[agent] = {"round": round_number}

    def observe(self, agent: str) -> Observation:
        state = self._live()
        seat = self.possible_agents.index(agent)
        legal = state.legal_actions() if seat == state.current_player() else []
        return {
            "observation": self.encoding.encode(state.observation(seat)),
            "action_mask": action_mask(legal, self.encoding.actions),
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._live()
        if action is None:
            raise IllegalAction(f"{agent} is to move: give an action id, not None")
        state.apply(int(action))
        self._cumulative_rewards[agent] = 0.0
        scores = state.outcome().scores
        for seat, (before, after) in enumerate(zip(self._scores, scores, strict=True)):
            self.rewards[agent_name(seat)] = float(self._sign * (after - before))
        self._scores = scores
        self._update_infos()
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            # The dead agents then step once each with None, seat after seat.
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        else:
            self.agent_selection = agent_name(state.current_player())
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: ansi or human")
            return None
        state = self._live()
        return _describe(state)

    def close(self) -> None:
        """Nothing to release: the engine holds no resources."""

    def __str__(self) -> str:
        return str(self.metadata["name"])


def _describe(state: State[Any]) -> str:
    """The public view of the position, as text."""
    view = state.public_observation().to_dict()
    if "rows" in view:
        return "\n".join(view["rows"]) + f"\nto move: {view['current_player']}"
    piles = ", ".join(f"{pile['pile']} {pile['total']}" for pile in view["piles"])
    return f"round {view['round'] + 1}/{view['rounds']}, to move: seat {view['current_player']}, piles: {piles}, scores: {view['scores']}"


def wrap(raw: ArenaEnv) -> Any:
    """PettingZoo's usual wrappers: an illegal action ends the match with the worst total reward
    for its seat, an action outside the space is an error, and the call order is enforced."""
    wrapped: Any = wrappers.TerminateIllegalWrapper(raw, illegal_reward=raw.encoding.worst_return)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
