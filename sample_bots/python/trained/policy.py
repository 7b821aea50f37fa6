"""A linear softmax policy over the action ids, on arena.envs' numeric observation (numpy only).

The logit of action a is W[a] . x + b[a] for the observation vector x; illegal actions are
masked out. The card games' vector holds each pile's total one-hot, so a linear policy can learn
which card overflows which pile. `train.py` fits W and b; `bot.py` plays with them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from arena.envs.encoding import action_mask, encoding_for
from arena.games.base import Game

WEIGHTS = Path(__file__).with_name("weights.npz")
"""The committed weights, trained by `python train.py`."""


class LinearPolicy:
    """Masked softmax over W x + b."""

    def __init__(self, weights: np.ndarray, bias: np.ndarray, family: str = "cards") -> None:
        if weights.ndim != 2 or bias.shape != (weights.shape[0],):
            raise ValueError(f"weights of shape {weights.shape} do not fit a bias of shape {bias.shape}")
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)
        self.family = family

    @classmethod
    def zeros(cls, size: int, actions: int, family: str = "cards") -> LinearPolicy:
        """The uniform policy: every legal action equally likely."""
        return cls(np.zeros((actions, size), np.float32), np.zeros(actions, np.float32), family)

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> LinearPolicy:
        with np.load(path, allow_pickle=False) as data:
            return cls(data["weights"], data["bias"], str(data["family"]))

    def save(self, path: Path, **meta: Any) -> None:
        """Compressed float16 arrays: plenty for a policy's logits, and a small file to commit."""
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float16),
            bias=self.bias.astype(np.float16),
            family=np.array(self.family),
            **{key: np.array(value) for key, value in meta.items()},
        )

    def logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Masked logits of one observation (or a batch of them): -inf where the action is illegal."""
        raw = x @ self.weights.T + self.bias
        return np.where(mask.astype(bool), raw, -np.inf)

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.logits(x, mask)
        logits = logits - logits.max(axis=-1, keepdims=True)
        weights = np.exp(logits)
        return weights / weights.sum(axis=-1, keepdims=True)

    def best(self, x: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action: how the bot plays."""
        return int(np.argmax(self.logits(x, mask)))

    def sample(self, x: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        """A legal action drawn from the policy: how training explores."""
        p = self.probabilities(x, mask)
        return int(rng.choice(p.shape[-1], p=p))


class Player:
    """The policy seated in one game: engine observation and legal actions in, action id out."""

    def __init__(self, policy: LinearPolicy, game: Game) -> None:
        self.policy = policy
        self.encoding = encoding_for(game)
        if policy.weights.shape != (self.encoding.actions, self.encoding.size):
            raise ValueError(
                f"the weights are for vectors of {policy.weights.shape[1]} and {policy.weights.shape[0]} actions; "
                f"{game.name} has {self.encoding.size} and {self.encoding.actions}"
            )

    def act(self, observation: Any, legal: Any) -> int:
        x = self.encoding.encode(observation)
        return self.policy.best(x, action_mask(legal, self.encoding.actions))
