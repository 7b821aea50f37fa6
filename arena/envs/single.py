"""A Gymnasium environment for one learner seated against built-in bots.

`SingleAgentEnv("friday13", opponents=["heuristic", "random", "random"], players=4)`: the
learner takes one seat (a new random one each match unless `seat` is given), the other seats are
the named built-in bots of arena.bots, which move by themselves between the learner's turns.
Observations and rewards are those of the AEC environment (arena.envs.aec) for the learner's
seat. An action outside the mask ends the match at once with the worst total reward the game
allows (`info["illegal"]` says why), so that Gymnasium's checker and unmasked samplers work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from arena.bots import Bot, StaticTurn, make_bot
from arena.envs.aec import RENDER_MODES, Observation, _describe
from arena.envs.encoding import Encoding, action_mask, encoding_for
from arena.games.base import Game, State, make_game


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of an arena game for a learner; built-in bots play the others."""

    def __init__(
        self,
        game: str,
        opponents: str | Sequence[str] = "random",
        *,
        seat: int | None = None,
        render_mode: str | None = None,
        **params: Any,
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode is one of {', '.join(RENDER_MODES)} or None, not {render_mode!r}")
        self.game: Game = make_game(game, **params)
        players = self.game.players
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise ValueError(f"{game} for {players} players needs {players - 1} opponents, not {len(names)}")
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < players):
            raise ValueError(f"seat is a number from 0 to {players - 1}, or None for a random seat, not {seat!r}")
        for name in names:
            make_bot(name, self.game, 0)  # an unknown bot, or one that does not play this game, fails here
        self.opponents = names
        self.fixed_seat = seat
        self.render_mode = render_mode
        self.metadata = {"render_modes": list(RENDER_MODES)}
        self.encoding: Encoding = encoding_for(self.game)
        self.observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, 1.0, (self.encoding.size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (self.encoding.actions,), np.int8),
            }
        )
        self.action_space = gymnasium.spaces.Discrete(self.encoding.actions)
        self._sign = -1 if self.game.lower_is_better else 1
        self.state: State[Any] | None = None
        self.seat = 0
        self._bots: list[Bot | None] = []
        self._score = 0
        self._received = 0.0
        """The learner's rewards so far this match."""
        self._over = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        match_seed = (options or {}).get("match_seed")
        if match_seed is None:
            match_seed = rng.bytes(16)
        elif not isinstance(match_seed, bytes):
            raise ValueError(f"options['match_seed'] is bytes, not {type(match_seed).__name__}")
        players = self.game.players
        self.seat = int(rng.integers(players)) if self.fixed_seat is None else self.fixed_seat
        others = iter(self.opponents)
        self._bots = [
            None if seat == self.seat else make_bot(next(others), self.game, seat, int(rng.integers(1 << 30)))
            for seat in range(players)
        ]
        self.state = self.game.new_match(match_seed)
        self._score = self.state.outcome().scores[self.seat]
        self._received = 0.0
        reward = self._play_opponents()
        self._over = self.state.is_terminal()
        return self._observe(), {"seat": self.seat, "reward_before_first_move": reward}

    def _live(self) -> State[Any]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        return self.state

    def _play_opponents(self) -> float:
        """Let the bots move until it is the learner's turn or the match ends; the learner's reward meanwhile."""
        state = self._live()
        seat = state.current_player()
        while seat >= 0 and seat != self.seat:
            bot = self._bots[seat]
            assert bot is not None
            legal = state.legal_actions()
            state.apply(bot.act(StaticTurn(seat, legal, state.observation(seat))))
            seat = state.current_player()
        return self._collect()

    def _collect(self) -> float:
        score = self._live().outcome().scores[self.seat]
        change = float(self._sign * (score - self._score))
        self._score = score
        self._received += change
        return change

    def _observe(self) -> Observation:
        state = self._live()
        legal = state.legal_actions() if state.current_player() == self.seat else []
        return {
            "observation": self.encoding.encode(state.observation(self.seat)),
            "action_mask": action_mask(legal, self.encoding.actions),
        }

    def step(self, action: Any) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        state = self._live()
        if self._over:
            raise RuntimeError("the match is over: call reset()")
        reason = state.why_illegal(int(action))
        if reason is not None:
            self._over = True
            return self._observe(), self.encoding.worst_return - self._received, True, False, {"illegal": reason}
        state.apply(int(action))
        reward = self._collect() + self._play_opponents()
        self._over = state.is_terminal()
        if self.render_mode == "human":
            print(self.render())
        return self._observe(), reward, self._over, False, {}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: ansi or human")
            return None
        return _describe(self._live())
