"""Determinized Monte Carlo search: sample what is hidden, play the moves out, keep the best.

Each decision draws samples of the hidden information (full states consistent with everything
the seat has seen) and plays candidate moves out on them with the engine itself. Sequential
halving (Karnin, Koren and Somekh, "Almost optimal exploration in multi-armed bandits", 2013)
shares the playouts out: the budget is split evenly over ceil(log2 K) rounds for K moves; in a
round every sample is played out once from each move still in the running, and then the worse
half of those moves drops out. Moves compared on the same samples, with the same random numbers
in their playouts, are compared under equal luck, so few playouts tell them apart, and most
playouts go to the few moves that are close.

The budget is counted in playouts, not seconds, so play is repeatable: the same seed and the
same match give the same moves however busy the machine is. `time_limit` is only a safety net;
when it strikes, the moves still in the running are compared on the samples they all saw.

What is particular to a game family (how to sample, how to play out, what counts as a loss)
is a `SearchModel`, found in `MODELS` by the game's class. This module is compiled with mypyc
with the card engine where the build can (setup.py), so that the playouts run as C.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Final, Protocol

from arena.bots.base import Bot, Turn
from arena.bots.heuristic import policy_for
from arena.compiled import COMPILED
from arena.games.base import Action, Game, State
from arena.games.cards import (
    LIMIT,
    SUIT_OF,
    VALUE_OF,
    WILD,
    WILD_CODE,
    WILD_VALUE,
    CardGame,
    CardObservation,
    CardState,
)

DEFAULT_TIME_LIMIT = 0.25
"""Seconds of search per move at most: a safety net for a busy machine, which an idle one never reaches."""


class CommonNumbers:
    """The random numbers of the playouts of one sample, the same for every move compared on it.

    After `reseed(seed)`, the k-th `random()` since the last `rewind()` is the k-th number of
    `random.Random(seed)`: each number is drawn once and kept for the playouts after. Restoring
    the generator's state before each playout gives the same numbers, but copying its 2.5 kB
    state takes longer than a compiled playout.
    """

    __slots__ = ("_source", "_numbers", "_next")

    def __init__(self, seed: int = 0) -> None:
        self._source = random.Random(seed)
        self._numbers: list[float] = []
        self._next = 0

    def reseed(self, seed: int) -> None:
        self._source.seed(seed)
        self._numbers.clear()
        self._next = 0

    def rewind(self) -> None:
        self._next = 0

    def random(self) -> float:
        """The next number in [0, 1)."""
        index = self._next
        self._next = index + 1
        if index < len(self._numbers):
            return self._numbers[index]
        number = self._source.random()
        self._numbers.append(number)
        return number


def shuffle(items: list[int], rng: random.Random) -> None:
    """`rng.shuffle(items)`, draw for draw (CPython's Fisher-Yates with `_randbelow`), written out
    so that it compiles: the library's is a Python loop, slower than a compiled playout."""
    getrandbits = rng.getrandbits
    for last in range(len(items) - 1, 0, -1):
        span = last + 1
        bits = span.bit_length()
        pick = getrandbits(bits)
        while pick >= span:
            pick = getrandbits(bits)
        items[last], items[pick] = items[pick], items[last]


class SearchModel(Protocol):
    playouts: int
    """Playouts a move deserves (`MonteCarloBot`'s budget unless it is given one)."""

    def sample(self, observation: Any, rng: random.Random) -> State[Any]:
        """A full state consistent with the observation, hidden parts drawn at random."""

    # The state parameters are Any: each model takes its own family's State subclass.
    def playout(self, state: Any, numbers: CommonNumbers) -> None:
        """Play `state` on to the end of the search horizon, its random choices drawn from `numbers`."""

    def loss(self, state: Any, seat: int) -> float:
        """How bad the played-out `state` is for `seat`; lower is better."""


class MonteCarloBot(Bot):
    name = "mc"
    description = "determinized Monte Carlo: samples the hidden cards, plays moves out, drops the worse half in rounds"

    def __init__(
        self,
        game: Game,
        seat: int,
        seed: int = 0,
        *,
        samples: int | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT,
    ) -> None:
        super().__init__(game, seat, seed)
        for family, make_model in MODELS.items():
            if isinstance(game, family):
                self.model = make_model(game)
                break
        else:
            raise ValueError(f"the mc bot does not play {game.name}")
        self.samples = self.model.playouts if samples is None else samples
        """Playouts per move at most."""
        self.time_limit = time_limit
        self.prior = policy_for(game)
        self.numbers = CommonNumbers()

    def act(self, turn: Turn) -> Action:
        legal = list(turn.legal_actions)
        if len(legal) == 1:
            return legal[0]
        observation = turn.observation
        model, rng, seat = self.model, self.rng, self.seat
        deadline = time.perf_counter() + self.time_limit
        prior = self.prior(observation, legal) if self.prior is not None else None
        totals = dict.fromkeys(legal, 0.0)

        def rank(action: Action) -> tuple[float, bool, Action]:
            # On equal totals the rule-based move wins: deterministic playouts often tie.
            return totals[action], action != prior, action

        alive = legal
        rounds = math.ceil(math.log2(len(legal)))
        numbers = self.numbers
        drawn = 0
        for _ in range(rounds):
            for _ in range(max(1, self.samples // (rounds * len(alive)))):
                if drawn and time.perf_counter() > deadline:
                    return min(alive, key=rank)
                sample = model.sample(observation, rng)
                numbers.reseed(rng.getrandbits(64))
                for action in alive:
                    trial = sample.clone()
                    trial.apply_trusted(action)
                    numbers.rewind()
                    model.playout(trial, numbers)
                    totals[action] += model.loss(trial, seat)
                drawn += 1
            # Every move still in the running saw the same samples, so totals compare fairly.
            alive = sorted(alive, key=rank)[: (len(alive) + 1) // 2]
        return alive[0]


SAFE_RANK: Final = [2 * VALUE_OF[code] + (SUIT_OF[code] != WILD) for code in range(32)]
"""The greedy rule's preference among cards that stay under the limit: high first, omens before wild cards."""
TAKE_RANK: Final = [2 * VALUE_OF[code] + (SUIT_OF[code] == WILD) for code in range(32)]
"""Its preference among cards that take the chosen pile: low first (the new pile), omens before wild cards."""
RANDOM_SHARES: Final = tuple(step / 20 for step in range(21))
"""The shares of random moves among which `Opponents` weighs each seat's play."""
CARD_PLAYOUTS = 2000 if COMPILED else 700
"""The card games' playouts a move, as many as the engine affords in the same time: compiled
(setup.py), 2,000 take less CPU time than 700 in plain Python, a median of 74-77 ms a move against
91-104 ms on a shared 2-core EPYC (benchmarks/mc_moves.py), so the time limit stays as far away
as it was."""


def greedy_playout(state: CardState, numbers: CommonNumbers, exploration: list[float]) -> None:
    """Play `state` to its end: every seat the greedy rule, except a share `exploration[seat]` of random moves.

    The greedy rule is the heuristic bot's (`arena.bots.heuristic.card_policy`), restated over
    the engine's state because playouts are the search's hot path: the highest card that keeps
    its pile at the limit or below (omens before wild cards, a wild card on the first pile with
    room); when every card overflows, the pile that costs least, restarted with the lowest card.
    A pile costs 2 per wild card and 1 per omen card, except that omens of a type of which the
    taker then holds strictly the most are free, with those of that type it already had.
    """
    room = LIMIT - WILD_VALUE
    players = state.players
    seat = state.turn
    while seat >= 0:
        # Read afresh each move: a new round brings new lists. `taken` counts each seat's
        # collected cards by type (entry 4 * seat + suit), kept up by the engine.
        hand, totals, piles, taken = state.hands[seat], state.totals, state.piles, state.taken
        if numbers.random() < exploration[seat]:
            # A careless move: any legal action alike, as the random bot chooses; the wild
            # cards are all one code, with an action for each pile.
            codes = list(set(hand))
            if WILD_CODE in codes:
                pick = int(numbers.random() * (len(codes) + 2))
                if pick < 3:
                    action = WILD_CODE * 3 + pick
                else:
                    codes.remove(WILD_CODE)
                    action = codes[pick - 3] * 3 + SUIT_OF[codes[pick - 3]]
            else:
                code = codes[int(numbers.random() * len(codes))]
                action = code * 3 + SUIT_OF[code]
        else:
            best = -1
            code = pile = 0
            for card in hand:
                key = SAFE_RANK[card]
                if key > best:
                    suit = SUIT_OF[card]
                    if suit == WILD:
                        if totals[0] <= room or totals[1] <= room or totals[2] <= room:
                            best, code = key, card
                    elif totals[suit] + VALUE_OF[card] <= LIMIT:
                        best, code = key, card
            if best >= 0:
                pile = SUIT_OF[code]
                if pile == WILD:
                    pile = 0 if totals[0] <= room else (1 if totals[1] <= room else 2)
            else:
                costs = [0, 0, 0]
                for target in range(3):
                    cards = piles[target]
                    wilds = cards.count(WILD_CODE)
                    most = holders = 0
                    for other in range(players):
                        count = taken[4 * other + target]
                        if count > most:
                            most, holders = count, 1
                        elif count == most:
                            holders += 1
                    mine = taken[4 * seat + target]
                    if mine == most and holders == 1:
                        costs[target] = 2 * wilds
                    else:
                        after = mine + len(cards) - wilds
                        costs[target] = 2 * wilds + (0 if after > most else after) - mine
                # A wild card goes on the cheapest pile, the first of equals.
                cheapest = 0
                if costs[1] < costs[cheapest]:
                    cheapest = 1
                if costs[2] < costs[cheapest]:
                    cheapest = 2
                best = 1 << 30
                for card in hand:
                    target = SUIT_OF[card]
                    if target == WILD:
                        target = cheapest
                    key = costs[target] * 32 + TAKE_RANK[card]
                    if key < best:
                        best, code, pile = key, card, target
            action = code * 3 + pile
        state.apply_trusted(action)
        seat = state.turn


def move_likelihoods(
    code: int, pile: int, totals: Sequence[int], pool: Counter[int], hand_size: int
) -> tuple[float, float]:
    """How likely the greedy rule, and a uniformly random player, play `code` on `pile`.

    The mover's hand is taken as `hand_size` cards drawn at random from `pool`, the cards the
    observer had not seen then. A random player picks one of its legal actions alike: the chance
    that it holds the card over the number of actions it can expect to have. The greedy rule
    plays a card of rank r when its best rank is r; taking a pile, it is taken to play any
    unsafe card alike, which undersells it.
    """
    room = [LIMIT - total for total in totals]
    lowest = min(totals)
    ranks: Counter[int] = Counter()
    for card, count in pool.items():
        ranks[SAFE_RANK[card] if _fits(card, room, lowest) else -1] += count
    size = ranks.total()
    hand_size = max(1, min(hand_size, size))
    hands = math.comb(size, hand_size)
    copies = pool[code]
    wild = SUIT_OF[code] == WILD

    def held(count: int) -> float:
        return 1 - math.comb(size - count, hand_size) / hands

    # Sums of floats are loops here: mypyc takes sum() over a generator for a sum of ints.
    actions = 0.0
    for card, count in pool.items():
        actions += held(count) * (3 if SUIT_OF[card] == WILD else 1)
    random_play = held(copies) / actions
    if _fits(code, room, lowest):
        if VALUE_OF[code] > room[pile] or (wild and pile != next(p for p in range(3) if room[p] >= WILD_VALUE)):
            # A card that fits somewhere goes, by the greedy rule, on the first pile it fits.
            return 0.0, random_play
        rank = SAFE_RANK[code]
        below = sum(count for other, count in ranks.items() if other < rank)
        best_is_rank = (math.comb(below + ranks[rank], hand_size) - math.comb(below, hand_size)) / hands
        return best_is_rank * copies / ranks[rank], random_play
    no_fit = ranks[-1]
    return math.comb(no_fit, hand_size) / hands * copies / no_fit / (3 if wild else 1), random_play


def _fits(card: int, room: Sequence[int], lowest: int) -> bool:
    """Whether the card keeps some pile it may go on at the limit or below."""
    suit = SUIT_OF[card]
    return lowest <= LIMIT - VALUE_OF[card] if suit == WILD else VALUE_OF[card] <= room[suit]


class Opponents:
    """How randomly each other seat plays, learnt from its moves in this match.

    Each seat is taken to play the greedy rule of `greedy_playout` except for a share of
    uniformly random moves; every move seen multiplies the weight of each share in
    `RANDOM_SHARES` (uniform at first) by how likely that mixture makes the move. Playouts then
    let each seat play its expected share at random: a careful player is expected to be careful
    and a careless one careless, which matters more than anything else for what a move costs.
    """

    def __init__(self, game: CardGame) -> None:
        self.game = game
        self.deck = Counter(game.rules.deck)
        self.log_weights = [[0.0] * len(RANDOM_SHARES) for _ in range(game.rules.players)]
        self.round = -1
        self.seen = 0
        """This round's moves already weighed."""

    def observe(self, obs: CardObservation) -> None:
        """Weigh the moves made since the last observation (of this round; earlier ones are gone)."""
        if obs.round != self.round:
            self.round, self.seen = obs.round, 0
        moves = obs.moves
        if self.seen >= len(moves):
            return
        rules, players, me, first = self.game.rules, obs.players, obs.seat, obs.first_player
        # The engine replays the round, with each seat holding the cards it played, to give the
        # pile totals before every move.
        played: list[list[int]] = [[] for _ in range(players)]
        for number, action in enumerate(moves):
            played[(first + number) % players].append(action // 3)
        empty = ((), (), ())
        start = replace(obs, piles=empty, totals=(0, 0, 0), collected=((),) * players, moves=(), current_player=first)
        replay = CardState.from_observation(self.game, start, played, this_round_only=True)
        # Before a move the observer had not seen the cards still to be played then, except its own.
        unseen = self.deck.copy()
        unseen.subtract(obs.hand)
        unseen.subtract([action // 3 for action in moves])
        drawn = 0 if rules.hand_size is None else len(rules.deck) - players * rules.hand_size - obs.draw_pile_size
        plays_after = [0] * players
        draws_after = [0] * players
        views: list[tuple[Counter[int], int] | None] = [None] * len(moves)
        for number in range(len(moves) - 1, self.seen - 1, -1):
            seat = (first + number) % players
            plays_after[seat] += 1
            draws_after[seat] += number < drawn
            if seat != me:
                unseen[moves[number] // 3] += 1
                size = obs.hand_sizes[seat] + plays_after[seat] - draws_after[seat]
                views[number] = (+unseen, size)
        for number, action in enumerate(moves):
            view = views[number]
            if view is not None:
                self._weigh((first + number) % players, action, replay.totals, *view)
            replay.apply_trusted(action)
        self.seen = len(moves)

    def _weigh(self, seat: int, action: Action, totals: Sequence[int], pool: Counter[int], hand_size: int) -> None:
        greedy, uniform = move_likelihoods(action // 3, action % 3, totals, pool, hand_size)
        weights = self.log_weights[seat]
        for index, share in enumerate(RANDOM_SHARES):
            # The floor keeps a move the model calls impossible from ruling a share out for good.
            weights[index] += math.log((1 - share) * greedy + share * uniform + 1e-9)

    def random_shares(self) -> list[float]:
        """Each seat's expected share of random moves (the observer's own row is never weighed)."""
        shares = []
        for weights in self.log_weights:
            top = max(weights)
            odds = [math.exp(weight - top) for weight in weights]
            expected = total = 0.0
            for share, odd in zip(RANDOM_SHARES, odds, strict=True):
                expected += share * odd
                total += odd
            shares.append(expected / total)
        return shares


class CardSearch:
    """Friday the 13th and 13: deal the unseen cards at random, play out the current round.

    Playouts follow `greedy_playout`, each other seat with the share of random moves that
    `Opponents` has learnt for it, this seat with a few (`own_exploration`), which keeps a move
    from looking good only because the seat's own later play is taken to be exact. A move's loss
    is the seat's penalty for the round: rounds score separately, so later deals do not matter.
    """

    own_exploration = 0.05

    def __init__(self, game: CardGame) -> None:
        self.game = game
        self.playouts = CARD_PLAYOUTS
        self.deck = Counter(game.rules.deck)
        self.opponents = Opponents(game)
        self.exploration: list[float] = []
        self._observation: CardObservation | None = None
        self._unseen: list[int] = []

    def _prepare(self, obs: CardObservation) -> None:
        self.opponents.observe(obs)
        self.exploration = self.opponents.random_shares()
        self.exploration[obs.seat] = self.own_exploration
        unseen = self.deck.copy()
        unseen.subtract(obs.hand)
        for cards in (*obs.piles, *obs.collected):
            unseen.subtract(cards)
        self._unseen = list(unseen.elements())
        self._observation = obs

    def sample(self, observation: CardObservation, rng: random.Random) -> CardState:
        """A state of this round only, the unseen cards dealt at random to where they hide."""
        obs = observation
        if obs is not self._observation:
            self._prepare(obs)
        hidden = self._unseen[:]
        shuffle(hidden, rng)
        hands: list[Sequence[int]] = []
        position = 0
        for seat, size in enumerate(obs.hand_sizes):
            if seat == obs.seat:
                hands.append(obs.hand)
            else:
                hands.append(hidden[position : position + size])
                position += size
        dummy = hidden[position : position + obs.dummy_size]
        position += obs.dummy_size
        draw = hidden[position : position + obs.draw_pile_size]
        return CardState.from_observation(self.game, obs, hands, dummy, draw, this_round_only=True)

    def playout(self, state: CardState, numbers: CommonNumbers) -> None:
        greedy_playout(state, numbers, self.exploration)

    def loss(self, state: CardState, seat: int) -> float:
        return state.penalties[-1][seat]


MODELS: dict[type, Callable[[Any], SearchModel]] = {CardGame: CardSearch}
"""The search model of each game family, found by the game's class."""
