"""A sensible rule-based player: safe cards first, and the cheapest pile when it must take one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena.bots.base import Bot, Turn
from arena.games.base import Action, Game
from arena.games.cards import LIMIT, WILD, CardGame, CardObservation

Policy = Callable[[Any, Sequence[Action]], Action]


def card_policy(obs: CardObservation, legal: Sequence[Action]) -> Action:
    """Play the highest card that keeps its pile at 13 or less (omens before wild cards).

    When every card overflows a pile, take the pile that costs least: wild cards count 2,
    omen cards 1 unless taking them makes this seat the sole majority holder of that type, in
    which case they (and the seat's earlier cards of that type) become free. Restart the pile
    with the lowest card that does it.
    """
    seat = obs.seat
    counts = [[sum(1 for c in taken if c >> 3 == suit) for suit in range(3)] for taken in obs.collected]

    def suit_cost(suit: int, mine: int) -> int:
        best_other = max((counts[s][suit] for s in range(len(counts)) if s != seat), default=0)
        return 0 if mine > best_other else mine

    def key(action: Action) -> tuple[int, ...]:
        code, pile = divmod(action, 3)
        value = code & 7
        wild = code >> 3 == WILD
        if obs.totals[pile] + value <= LIMIT:
            return (0, 0, -value, wild, action)
        cards = obs.piles[pile]
        wilds = sum(1 for c in cards if c >> 3 == WILD)
        mine = counts[seat][pile]
        cost = 2 * wilds + suit_cost(pile, mine + len(cards) - wilds) - suit_cost(pile, mine)
        return (1, cost, value, wild, action)

    return min(legal, key=key)


POLICIES: dict[type, Policy] = {CardGame: card_policy}
"""The rule-based policy of each game family, found by the game's class."""


def policy_for(game: Game) -> Policy | None:
    """The rule-based policy of the game's family, if there is one."""
    for family, policy in POLICIES.items():
        if isinstance(game, family):
            return policy
    return None


class HeuristicBot(Bot):
    name = "heuristic"
    description = "a rule-based player: safe high cards first, then the cheapest pile to take"

    def __init__(self, game: Game, seat: int, seed: int = 0) -> None:
        super().__init__(game, seat, seed)
        policy = policy_for(game)
        if policy is None:
            raise ValueError(f"the heuristic bot does not play {game.name}")
        self._policy = policy

    def act(self, turn: Turn) -> Action:
        legal = turn.legal_actions
        if len(legal) == 1:
            return legal[0]
        return self._policy(turn.observation, legal)
