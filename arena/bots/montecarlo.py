"""Determinized Monte Carlo search: sample the hidden cards, play each move out, keep the best.

For every sample of the hidden hands (consistent with everything the seat has seen), every
legal action is tried on the same sample and the round is played out with the engine itself;
the action with the lowest total penalty for this seat wins. Trying all actions on the same
samples compares them under equal luck, which needs far fewer playouts.

Playouts follow a cheap greedy policy (the highest card that stays under the limit, else the
smallest pile) with some random moves: futures in which everybody plays uniformly at random
are too unlike real games to rank moves well.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from arena.bots.base import Bot, Turn
from arena.games.base import Action, Game
from arena.games.cards import LIMIT, WILD, CardGame, CardObservation, CardState

DEFAULT_TIME_LIMIT = 0.05
"""Seconds of search per move at most."""
DEFAULT_SAMPLES = 120
"""Samples of the hidden cards per move at most; with this cap reached first, play is repeatable."""
EXPLORATION = 0.2
"""The share of playout moves chosen uniformly at random instead of greedily."""


class MonteCarloBot(Bot):
    name = "mc"
    description = "determinized Monte Carlo: samples hidden hands, plays every move out with the engine"

    def __init__(
        self,
        game: Game,
        seat: int,
        seed: int = 0,
        *,
        time_limit: float = DEFAULT_TIME_LIMIT,
        samples: int = DEFAULT_SAMPLES,
    ) -> None:
        super().__init__(game, seat, seed)
        if not isinstance(game, CardGame):
            raise ValueError(f"the mc bot does not play {game.name}")
        self.card_game: CardGame = game
        self.time_limit = time_limit
        self.samples = samples
        self._deck = Counter(game.rules.deck)

    def act(self, turn: Turn) -> Action:
        legal = list(turn.legal_actions)
        if len(legal) == 1:
            return legal[0]
        obs: CardObservation = turn.observation
        deadline = time.perf_counter() + self.time_limit
        totals = dict.fromkeys(legal, 0)
        rng = self.rng
        seat = self.seat
        samples = 0
        while samples < self.samples and (samples == 0 or time.perf_counter() < deadline):
            sample = self.determinize(obs)
            for action in legal:
                trial = sample.clone()
                trial.apply(action)
                greedy_playout(trial, rng.random)
                totals[action] += trial.penalties[-1][seat]
            samples += 1
        return min(legal, key=lambda action: (totals[action], action))

    def determinize(self, obs: CardObservation) -> CardState:
        """A state of this round only, with the unseen cards dealt at random to where they hide."""
        unseen = self._deck.copy()
        unseen.subtract(obs.hand)
        for pile in obs.piles:
            unseen.subtract(pile)
        for taken in obs.collected:
            unseen.subtract(taken)
        hidden: list[int] = list(unseen.elements())
        self.rng.shuffle(hidden)
        hands: list[Any] = []
        position = 0
        for seat, size in enumerate(obs.hand_sizes):
            if seat == obs.seat:
                hands.append(list(obs.hand))
            else:
                hands.append(hidden[position : position + size])
                position += size
        dummy = hidden[position : position + obs.dummy_size]
        draw = hidden[position + obs.dummy_size :]
        return CardState.from_observation(self.card_game, obs, hands, dummy, draw, this_round_only=True)


def greedy_playout(state: CardState, rand: Callable[[], float]) -> None:
    """Play `state` to its end: mostly the greedy move, sometimes a random one."""
    while state.turn >= 0:
        hand = state.hands[state.turn]
        totals = state.totals
        if rand() < EXPLORATION:
            spin = rand() * len(hand)
            code = hand[int(spin)]
            pile = code >> 3
            if pile == WILD:
                pile = int((spin % 1.0) * 3)
        else:
            lowest = totals.index(min(totals))
            best = 1 << 30
            for card in hand:
                value = card & 7
                target = card >> 3
                if target == WILD:
                    target = lowest
                if totals[target] + value <= LIMIT:
                    key = -value
                else:
                    key = 100 + 8 * len(state.piles[target]) + value
                if key < best:
                    best, code, pile = key, card, target
        state.apply(code * 3 + pile)
