"""Determinized Monte Carlo search: sample what is hidden, play each move out, keep the best.

For every sample of the hidden information (consistent with everything the seat has seen),
every legal action is tried on the same sample and played out with the engine itself; the
action with the lowest total loss wins. Trying all actions on the same samples compares them
under equal luck, which needs far fewer playouts.

What is particular to a game family (how to sample, how to play out, what counts as a loss)
is a `SearchModel`, found in `MODELS` by the game's class.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from arena.bots.base import Bot, Turn
from arena.bots.heuristic import policy_for
from arena.games.base import Action, Game, State
from arena.games.cards import LIMIT, WILD, CardGame, CardObservation, CardState

DEFAULT_TIME_LIMIT = 0.05
"""Seconds of search per move at most."""
DEFAULT_SAMPLES = 120
"""Samples per move at most; when this cap is reached before the time limit, play is repeatable."""
HALVING_PERIOD = 8
"""Every this many samples, the worse half of the moves still in the running is dropped."""


class SearchModel(Protocol):
    def sample(self, observation: Any, rng: random.Random) -> State[Any]:
        """A full state consistent with the observation, hidden parts drawn at random."""

    # The state parameters are Any: each model takes its own family's State subclass.
    def playout(self, state: Any, rng: random.Random) -> None:
        """Play `state` on to the end of the search horizon."""

    def loss(self, state: Any, seat: int) -> float:
        """How bad the played-out `state` is for `seat`; lower is better."""


class MonteCarloBot(Bot):
    name = "mc"
    description = "determinized Monte Carlo: samples the hidden cards, plays every move out with the engine"

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
        for family, make_model in MODELS.items():
            if isinstance(game, family):
                self.model = make_model(game)
                break
        else:
            raise ValueError(f"the mc bot does not play {game.name}")
        self.time_limit = time_limit
        self.samples = samples
        self.prior = policy_for(game)
        # A model may say by how much mean loss a searched move must beat the rule-based one.
        self.margin: float = getattr(self.model, "margin", 0.0)

    def act(self, turn: Turn) -> Action:
        legal = list(turn.legal_actions)
        if len(legal) == 1:
            return legal[0]
        observation = turn.observation
        model, rng, seat = self.model, self.rng, self.seat
        deadline = time.perf_counter() + self.time_limit
        prior = self.prior(observation, legal) if self.prior is not None else None
        totals = dict.fromkeys(legal, 0.0)
        candidates = legal
        samples = 0
        while samples < self.samples and (samples == 0 or time.perf_counter() < deadline):
            sample = model.sample(observation, rng)
            for action in candidates:
                trial = sample.clone()
                trial.apply(action)
                model.playout(trial, rng)
                totals[action] += model.loss(trial, seat)
            samples += 1
            if samples % HALVING_PERIOD == 0 and len(candidates) > 2:
                # Successive halving: spend the remaining samples on the better half. The
                # survivors have all seen the same samples, so their totals compare fairly.
                ranked = sorted(candidates, key=lambda action: (totals[action], action))
                candidates = ranked[: max(2, len(ranked) // 2)]
                if prior is not None and prior not in candidates:
                    candidates.append(prior)
        best = min(candidates, key=lambda action: (totals[action], action))
        if prior is not None and totals[best] > totals[prior] - self.margin * samples:
            # Sampling noise must not overrule a sound rule: leave the rule's move only when
            # the search finds a clearly better one.
            return prior
        return best


class CardSearch:
    """Friday the 13th and 13: deal the unseen cards at random, play out the current round.

    Playouts follow a cheap greedy policy (the highest card that stays under the limit, else
    the smallest pile) with some random moves: futures in which everybody plays uniformly at
    random are too unlike real games to rank moves well.
    """

    exploration = 0.2
    """The share of playout moves chosen uniformly at random instead of greedily."""
    margin = 0.25
    """Penalty points a round by which a move must beat the heuristic's move to replace it."""

    def __init__(self, game: CardGame) -> None:
        self.game = game
        self.deck = Counter(game.rules.deck)

    def sample(self, observation: CardObservation, rng: random.Random) -> CardState:
        """A state of this round only, the unseen cards dealt at random to where they hide."""
        obs = observation
        unseen = self.deck.copy()
        unseen.subtract(obs.hand)
        for pile in obs.piles:
            unseen.subtract(pile)
        for taken in obs.collected:
            unseen.subtract(taken)
        hidden: list[int] = list(unseen.elements())
        rng.shuffle(hidden)
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
        return CardState.from_observation(self.game, obs, hands, dummy, draw, this_round_only=True)

    def playout(self, state: CardState, rng: random.Random) -> None:
        greedy_playout(state, rng.random, self.exploration)

    def loss(self, state: CardState, seat: int) -> float:
        return state.penalties[-1][seat]


def greedy_playout(state: CardState, rand: Callable[[], float], exploration: float) -> None:
    """Play `state` to its end: mostly the greedy move, sometimes a random one."""
    while state.turn >= 0:
        hand = state.hands[state.turn]
        totals = state.totals
        if rand() < exploration:
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
                # Safe cards rank by value, highest first; then piles by size, smallest first.
                key = -value if totals[target] + value <= LIMIT else 100 + 8 * len(state.piles[target]) + value
                if key < best:
                    best, code, pile = key, card, target
        state.apply_trusted(code * 3 + pile)


MODELS: dict[type, Callable[[Any], SearchModel]] = {CardGame: CardSearch}
"""The search model of each game family, found by the game's class."""
