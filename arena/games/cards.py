"""What Friday the 13th and "13" share: three piles, the 13 overflow, majority scoring.

The two games differ only in their deck names, how a round is dealt (all cards, with a dummy
hand for three players, versus five cards each and a draw pile), who starts, and how many
rounds make a match. Those differences are data in `CardRules`; every rule is written once here.

Cards are small integers, `suit * 8 + value`, with suits 0-2 the three pile types and suit 3 the
wild card (Friday the 13th, or the red "Fiese Vier"). An action is `card * 3 + pile`, so a wild
card has three actions and any other card one.

The state is lists of integers, typed precisely, so that mypyc compiles this module (with
`arena.games.base` and the bots' search) into C where the build can (setup.py); the same source
runs as plain Python where it cannot, move for move alike (tests/games/test_pinned_records.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from mypy_extensions import mypyc_attr

from arena.games.base import (
    REPLAY_FORMAT,
    Action,
    Game,
    GameError,
    InvalidActionText,
    InvalidParameters,
    Outcome,
    SeedStream,
    State,
    Termination,
    ranks_from_scores,
    rebuilt,
    seed_commitment,
)

WILD: Final = 3
"""The suit index of the wild cards, which may go on any pile."""
LIMIT: Final = 13
"""A pile whose total exceeds this overflows."""
OMEN_VALUES: Final = (1, 1, 1, 2, 2, 2, 4, 4, 5, 5, 5, 7, 7, 7)
WILD_VALUE: Final = 4
WILD_COUNT: Final = 8
WILD_CODE: Final = WILD * 8 + WILD_VALUE
VALUE_OF: Final = [code & 7 for code in range(32)]
SUIT_OF: Final = [code >> 3 for code in range(32)]
ACTIONS_OF: Final = [
    (code * 3, code * 3 + 1, code * 3 + 2) if code >> 3 == WILD else (code * 3 + (code >> 3),) for code in range(32)
]
"""The actions of each card: ids ascend with the card code, so a sorted hand gives sorted actions."""


def card_code(suit: int, value: int) -> int:
    return suit * 8 + value


def build_deck(extra_zeros: bool) -> bytes:
    """The 50 cards (53 with one 0 per pile type), in suit and value order."""
    values = ((0,) if extra_zeros else ()) + OMEN_VALUES
    deck = [card_code(suit, value) for suit in range(3) for value in values]
    return bytes(deck + [WILD_CODE] * WILD_COUNT)


@dataclass(frozen=True)
class CardRules:
    """Everything in which one card game differs from the other."""

    name: str
    suits: tuple[str, str, str, str]
    deck: bytes
    """Every card code once per copy, in suit and value order."""
    players: int
    rounds: int
    hand_size: int | None
    """Cards dealt to each player; None deals the whole deck."""
    dummy: bool
    """Deal a fourth, unused hand (Friday the 13th with three players)."""
    seed_picks_dealer: bool
    """Round 1's seed draw picks the dealer (13) rather than the first player (Friday)."""

    def __reduce__(self) -> tuple[type[CardRules], tuple[object, ...]]:
        return rebuilt(self)


@mypyc_attr(allow_interpreted_subclasses=True)
class CardGame(Game):
    """A card game of this family; `rules` holds what is particular to it."""

    min_players = 3
    max_players = 6

    def __init__(self, rules: CardRules) -> None:
        self.rules = rules
        self.players = rules.players
        self.one_round_rules = replace(rules, rounds=1)
        """These rules with a single round: search bots play out only the current round."""
        self._suit_index = {suit: index for index, suit in enumerate(rules.suits)}

    def new_match(self, seed: bytes) -> CardState:
        return CardState.deal(self, seed)

    def card_text(self, code: int) -> str:
        return f"{self.rules.suits[code >> 3]}:{code & 7}"

    def card_from_text(self, text: str) -> int:
        suit_name, _, value_text = text.strip().partition(":")
        suit = self._suit_index.get(suit_name)
        if suit is None or not value_text.isdigit():
            suits = "|".join(self.rules.suits)
            raise InvalidActionText(f"{text!r} is not a card: write SUIT:VALUE with SUIT {suits}")
        code = card_code(suit, int(value_text))
        if int(value_text) > 7 or code not in self.rules.deck:
            raise InvalidActionText(f"{text!r} is not a card of {self.name}")
        return code

    def action_text(self, action: Action) -> str:
        code, pile = divmod(action, 3)
        if code >> 3 == WILD:
            return f"{self.card_text(code)}>{self.rules.suits[pile]}"
        return self.card_text(code)

    def action_from_text(self, text: str) -> Action:
        card_part, arrow, pile_part = text.strip().partition(">")
        code = self.card_from_text(card_part)
        suit = code >> 3
        if suit != WILD:
            if arrow and pile_part.strip() != self.rules.suits[suit]:
                raise InvalidActionText(f"{text!r}: a {self.rules.suits[suit]} card goes only on its own pile")
            return code * 3 + suit
        pile = self._suit_index.get(pile_part.strip())
        if pile is None or pile == WILD:
            piles = "|".join(self.rules.suits[:3])
            raise InvalidActionText(
                f"{text!r}: name the pile for a {self.rules.suits[WILD]} card, e.g. {card_part.strip()}>{piles}"
            )
        return code * 3 + pile

    def all_actions(self) -> list[Action]:
        """Every action id of the game, in ascending order."""
        codes = sorted(set(self.rules.deck))
        return sorted(code * 3 + pile for code in codes for pile in _piles_for(code))

    def replay(self, record: Mapping[str, Any]) -> CardState:
        """Re-deal from the record's seed and re-apply its moves; raise GameError on any mismatch."""
        if record.get("game") != self.name:
            raise GameError(f"the record is of {record.get('game')!r}, not {self.name!r}")
        seed = bytes.fromhex(record["seed"])
        if seed_commitment(seed) != record["seed_commitment"]:
            raise GameError("the seed does not match its commitment")
        state = self.new_match(seed)
        for number, round_record in enumerate(record["rounds"], start=1):
            for move in round_record["moves"]:
                if move["seat"] != state.current_player():
                    raise GameError(f"round {number}: seat {move['seat']} moved out of turn")
                code = self.card_from_text(move["card"])
                pile = self._suit_index.get(move["pile"], -1)
                try:
                    state.apply(code * 3 + pile)
                except GameError as error:
                    raise GameError(f"round {number}: {error}") from None
        rebuilt = state.record(record["seats"], Termination(record["termination"]))
        for key in ("rounds", "scores"):
            if rebuilt[key] != record[key]:
                raise GameError(f"the record's {key} differ from what the rules give")
        return state


def _piles_for(code: int) -> tuple[int, ...]:
    suit = code >> 3
    return (0, 1, 2) if suit == WILD else (suit,)


def penalties_of(taken: Sequence[int], players: int) -> list[int]:
    """Penalty points of a round from the cards each seat collected, counted by type (`count_taken`).

    The one seat with strictly the most cards of a pile type discards them; every other
    collected card of the three types is 1 point and every wild card 2, whatever its value.
    """
    penalties = []
    for row in range(0, 4 * players, 4):
        penalties.append(taken[row] + taken[row + 1] + taken[row + 2] + 2 * taken[row + WILD])
    for suit in range(3):
        most = 0
        holder = -1
        for seat in range(players):
            count = taken[4 * seat + suit]
            if count > most:
                most, holder = count, seat
            elif count == most:
                holder = -1
        if holder >= 0:
            penalties[holder] -= most
    return penalties


def count_taken(collected: Sequence[Sequence[int]]) -> list[int]:
    """The collected cards counted by type: entry `4 * seat + suit` (suit 3 the wild cards)."""
    taken = [0] * (4 * len(collected))
    for seat, cards in enumerate(collected):
        for card in cards:
            taken[4 * seat + SUIT_OF[card]] += 1
    return taken


def round_penalties(collected: Sequence[Sequence[int]]) -> list[int]:
    """Penalty points of a round from each seat's collected cards (`penalties_of`)."""
    return penalties_of(count_taken(collected), len(collected))


@dataclass(frozen=True, slots=True, init=False)
class CardObservation:
    """What one seat sees. Cards and actions are integer codes; `to_dict` gives text."""

    game: str
    suits: tuple[str, ...]
    seat: int
    players: int
    round: int
    rounds: int
    first_player: int
    dealer: int
    current_player: int
    hand: tuple[int, ...]
    legal_actions: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    draw_pile_size: int
    dummy_size: int
    collected: tuple[tuple[int, ...], ...]
    moves: tuple[int, ...]
    """This round's actions so far; move i was made by seat (first_player + i) mod players."""
    scores: tuple[int, ...]
    round_penalties: tuple[tuple[int, ...], ...]

    def __init__(
        self,
        game: str,
        suits: tuple[str, ...],
        seat: int,
        players: int,
        round: int,
        rounds: int,
        first_player: int,
        dealer: int,
        current_player: int,
        hand: tuple[int, ...],
        legal_actions: tuple[int, ...],
        piles: tuple[tuple[int, ...], ...],
        totals: tuple[int, ...],
        hand_sizes: tuple[int, ...],
        draw_pile_size: int,
        dummy_size: int,
        collected: tuple[tuple[int, ...], ...],
        moves: tuple[int, ...],
        scores: tuple[int, ...],
        round_penalties: tuple[tuple[int, ...], ...],
    ) -> None:
        # Written out so that mypyc compiles it: the __init__ dataclasses generates for a frozen class is
        # interpreted even under mypyc, and a bot that reads its turn's observation has one made every move,
        # a built-in bot's by the engine, an SDK bot's from its request (6.4 against 4.3 µs an observation,
        # benchmarks/card_observation.py).
        put = object.__setattr__
        put(self, "game", game)
        put(self, "suits", suits)
        put(self, "seat", seat)
        put(self, "players", players)
        put(self, "round", round)
        put(self, "rounds", rounds)
        put(self, "first_player", first_player)
        put(self, "dealer", dealer)
        put(self, "current_player", current_player)
        put(self, "hand", hand)
        put(self, "legal_actions", legal_actions)
        put(self, "piles", piles)
        put(self, "totals", totals)
        put(self, "hand_sizes", hand_sizes)
        put(self, "draw_pile_size", draw_pile_size)
        put(self, "dummy_size", dummy_size)
        put(self, "collected", collected)
        put(self, "moves", moves)
        put(self, "scores", scores)
        put(self, "round_penalties", round_penalties)

    def __reduce__(self) -> tuple[type[CardObservation], tuple[object, ...]]:
        return rebuilt(self)

    def card_text(self, code: int) -> str:
        return f"{self.suits[code >> 3]}:{code & 7}"

    def to_dict(self) -> dict[str, Any]:
        cards = self.card_text
        return {
            "game": self.game,
            "seat": self.seat,
            "players": self.players,
            "round": self.round,
            "rounds": self.rounds,
            "first_player": self.first_player,
            "dealer": self.dealer,
            "current_player": self.current_player,
            "hand": [cards(c) for c in self.hand],
            "piles": [
                {"pile": self.suits[p], "cards": [cards(c) for c in self.piles[p]], "total": self.totals[p]}
                for p in range(3)
            ],
            "hand_sizes": list(self.hand_sizes),
            "draw_pile_size": self.draw_pile_size,
            "dummy_size": self.dummy_size,
            "collected": [[cards(c) for c in taken] for taken in self.collected],
            "moves": [
                {"seat": (self.first_player + i) % self.players, "card": cards(a // 3), "pile": self.suits[a % 3]}
                for i, a in enumerate(self.moves)
            ],
            "scores": list(self.scores),
            "round_penalties": [list(p) for p in self.round_penalties],
        }


class CardState(State[CardGame]):
    """A match of Friday the 13th or 13 in progress."""

    __slots__ = (
        "game",
        "rules",
        "players",
        "seed",
        "_stream",
        "round",
        "dealer",
        "first_player",
        "turn",
        "hands",
        "dummy",
        "draw",
        "piles",
        "totals",
        "collected",
        "taken",
        "moves",
        "cards_left",
        "scores",
        "penalties",
        "decks",
        "past_moves",
        "_legal",
    )

    def __init__(self, game: CardGame, seed: bytes, stream: SeedStream) -> None:
        rules = game.rules
        n = rules.players
        self.game = game
        self.rules = rules
        self.players = n
        self.seed = seed
        self._stream = stream
        self.round = -1
        self.dealer = 0
        self.first_player = 0
        self.turn = -1
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.dummy: list[int] = []
        self.draw: list[int] = []
        """The draw pile, top card last: pop() draws."""
        self.piles: list[list[int]] = [[], [], []]
        self.totals = [0, 0, 0]
        self.collected: list[list[int]] = [[] for _ in range(n)]
        self.taken = [0] * (4 * n)
        """This round's collected cards counted by type (`count_taken`), kept up as piles are taken:
        the round's scoring and the search's playouts read them."""
        self.moves: list[Action] = []
        """This round's actions; the seat of move i is (first_player + i) mod players."""
        self.cards_left = 0
        """Cards still to be played this round; the round ends at zero."""
        self.scores = [0] * n
        self.penalties: list[list[int]] = []
        self.decks: list[bytes] = []
        """Each round's shuffled deck, from which `split_deck` gives the deal."""
        self.past_moves: list[list[Action]] = []
        self._legal: list[list[Action] | None] = [None] * n
        """Each seat's legal actions, kept up to date by `_apply`; None until asked for, and again
        from each new round (a playout, which plays by other means, always ends its round)."""

    @classmethod
    def deal(cls, game: CardGame, seed: bytes) -> CardState:
        rules = game.rules
        stream = SeedStream(seed, expected_words=1 + rules.rounds * len(rules.deck))
        state = cls(game, seed, stream)
        n = game.rules.players
        start = stream.below(n)
        state.dealer = start if game.rules.seed_picks_dealer else (start - 1) % n
        state._start_round()
        return state

    # -- the round cycle ------------------------------------------------------------------

    def dealer_of(self, round_index: int) -> int:
        """The dealer of a round: the dealer rotates clockwise, one seat a round."""
        return (self.dealer - self.round + round_index) % self.players

    def split_deck(self, deck: Sequence[int], first_player: int) -> tuple[list[list[int]], list[int], list[int]]:
        """Hands, dummy and draw pile (top card first) dealt from a shuffled deck.

        Cards go one at a time from the first player clockwise, so the earliest seats may hold
        one card more; a dummy hand is dealt after the last player.
        """
        rules = self.rules
        n = self.players
        hands: list[list[int]] = [[] for _ in range(n)]
        if rules.hand_size is None:
            receivers = n + 1 if rules.dummy else n
            end = len(deck)
        else:
            receivers = n
            end = rules.hand_size * n
        for k in range(n):
            hands[(first_player + k) % n] = list(deck[k:end:receivers])
        dummy = list(deck[n:end:receivers]) if rules.dummy else []
        return hands, dummy, list(deck[end:])

    def _start_round(self) -> None:
        n = self.players
        if self.round >= 0:
            self.dealer = (self.dealer + 1) % n
        self.round += 1
        self.first_player = (self.dealer + 1) % n
        deck = self._stream.shuffled(self.rules.deck)
        self.decks.append(deck)
        self.hands, self.dummy, draw = self.split_deck(deck, self.first_player)
        draw.reverse()
        self.draw = draw
        self.piles = [[], [], []]
        self.totals = [0, 0, 0]
        self.collected = [[] for _ in range(n)]
        self.taken = [0] * (4 * n)
        self.moves = []
        self._legal = [None] * n
        self.cards_left = len(deck) - len(self.dummy)
        self.turn = self.first_player

    def _end_round(self) -> None:
        penalties = penalties_of(self.taken, self.players)
        self.penalties.append(penalties)
        self.scores = [total + p for total, p in zip(self.scores, penalties, strict=True)]
        self.past_moves.append(self.moves)
        if self.round + 1 < self.rules.rounds:
            self._start_round()
        else:
            self.turn = -1

    def _apply(self, action: Action) -> None:
        code = action // 3
        seat = self.turn
        hand = self.hands[seat]
        hand.remove(code)
        known = self._legal[seat]
        if known is not None:
            if self.draw:
                self._legal[seat] = None  # the seat draws a card after it plays
            elif code not in hand:
                actions = ACTIONS_OF[code]
                first = known.index(actions[0])
                del known[first : first + len(actions)]
        self._play(code, action - code * 3, None)

    def _play(self, code: int, pile: int, bits: Callable[[int], int] | None) -> None:
        """Lay `code`, already taken from the current player's hand, on `pile`.

        With `bits` (a source of random k-bit integers), go on playing uniformly random cards
        until the round is scored. This is the one place where a card is played: random
        playouts continue inside the loop rather than calling back in, which keeps them fast in
        plain Python. (A 32-bit number mod a hand size below 20 is uniform to 1e-8.)
        """
        hands, piles, totals, collected, taken = self.hands, self.piles, self.totals, self.collected, self.taken
        moves, draw = self.moves, self.draw
        seat, left, players = self.turn, self.cards_left, self.players
        while True:
            value = VALUE_OF[code]
            total = totals[pile] + value
            if total > LIMIT:
                took = piles[pile]
                collected[seat] += took
                row = 4 * seat
                for card in took:
                    taken[row + SUIT_OF[card]] += 1
                piles[pile] = [code]
                totals[pile] = value
            else:
                piles[pile].append(code)
                totals[pile] = total
            moves.append(code * 3 + pile)
            if draw:
                hands[seat].append(draw.pop())
            left -= 1
            if not left:
                self.cards_left = 0
                self._end_round()
                return
            seat += 1
            if seat == players:
                seat = 0
            if bits is None:
                self.turn, self.cards_left = seat, left
                return
            hand = hands[seat]
            code = hand.pop(bits(32) % len(hand))
            pile = SUIT_OF[code]
            if pile == WILD:
                pile = bits(32) % 3

    # -- the contract ---------------------------------------------------------------------

    def current_player(self) -> int:
        return self.turn

    def is_terminal(self) -> bool:
        return self.turn < 0

    def legal_actions(self) -> list[Action]:
        turn = self.turn
        if turn < 0:
            return []
        actions = self._legal[turn]
        if actions is None:
            # Rebuilt once a round per seat; `_apply` then takes out what a seat can no longer play.
            actions = []
            for code in sorted(set(self.hands[turn])):
                actions += ACTIONS_OF[code]
            self._legal[turn] = actions
        return actions.copy()

    def _illegal_reason(self, action: Action) -> str | None:
        if not 0 <= action < 96:
            return f"{action} is not an action id of {self.game.name}"
        code, pile = divmod(action, 3)
        suit = code >> 3
        if code not in self.hands[self.turn]:
            return f"seat {self.turn} holds no {self.game.card_text(code)}"
        if suit != WILD and pile != suit:
            return f"a {self.rules.suits[suit]} card goes only on the {self.rules.suits[suit]} pile"
        return None

    def default_action(self) -> Action:
        """The legal action that adds least to a pile without making it overflow, else the lowest."""
        actions = self.legal_actions()
        totals = self.totals

        def risk(action: int) -> tuple[bool, int, int]:
            code, pile = divmod(action, 3)
            overflows = totals[pile] + (code & 7) > LIMIT
            return overflows, code & 7, action

        return min(actions, key=risk)

    def outcome(self) -> Outcome:
        termination = Termination.NORMAL if self.turn < 0 else Termination.UNFINISHED
        return Outcome(tuple(self.scores), ranks_from_scores(self.scores), termination)

    def clone(self) -> CardState:
        twin = CardState(self.game, self.seed, self._stream.copy())
        twin.rules = self.rules
        twin.round = self.round
        twin.dealer = self.dealer
        twin.first_player = self.first_player
        twin.turn = self.turn
        twin.hands = [list(hand) for hand in self.hands]
        twin.dummy = list(self.dummy)
        twin.draw = list(self.draw)
        twin.piles = [list(pile) for pile in self.piles]
        twin.totals = list(self.totals)
        twin.collected = [list(taken) for taken in self.collected]
        twin.taken = list(self.taken)
        twin.moves = list(self.moves)
        twin.cards_left = self.cards_left
        twin.scores = list(self.scores)
        twin.penalties = [list(p) for p in self.penalties]
        # Finished rounds never change, so the twin may share their records.
        twin.decks = list(self.decks)
        twin.past_moves = list(self.past_moves)
        return twin

    def observation(self, seat: int) -> CardObservation:
        return self._observe(seat)

    def public_observation(self) -> CardObservation:
        """The spectator's view: like a seat's, with an empty hand and seat -1."""
        return self._observe(-1)

    def hand_of(self, seat: int) -> list[int]:
        """What `seat` sees of its own hand, sorted: nothing for a spectator (-1). The one place that
        reads a hand for a view: the observation and the request encoder's `encode_seat` both take it."""
        return sorted(self.hands[seat]) if seat >= 0 else []

    def _observe(self, seat: int) -> CardObservation:
        rules = self.rules
        own = seat >= 0 and seat == self.turn
        return CardObservation(
            game=self.game.name,
            suits=rules.suits,
            seat=seat,
            players=rules.players,
            round=self.round,
            rounds=rules.rounds,
            first_player=self.first_player,
            dealer=self.dealer,
            current_player=self.turn,
            hand=tuple(self.hand_of(seat)),
            legal_actions=tuple(self.legal_actions()) if own else (),
            piles=tuple(map(tuple, self.piles)),
            totals=tuple(self.totals),
            hand_sizes=tuple(map(len, self.hands)),
            draw_pile_size=len(self.draw),
            dummy_size=len(self.dummy),
            collected=tuple(map(tuple, self.collected)),
            moves=tuple(self.moves),
            scores=tuple(self.scores),
            round_penalties=tuple(map(tuple, self.penalties)),
        )

    def round_moves(self, number: int) -> list[Action]:
        """The moves of round `number` (0 is the first), so far for the round being played."""
        return self.past_moves[number] if number < len(self.past_moves) else self.moves

    def actions(self) -> bytes:
        """Every action of the match so far, in order, one byte each (a card game's ids are below 256)."""
        return b"".join([bytes(self.round_moves(number)) for number in range(len(self.decks))])

    def record(self, seats: Sequence[str], termination: Termination = Termination.NORMAL) -> dict[str, Any]:
        card = self.game.card_text
        suits = self.rules.suits
        # The state keeps only action ids (playouts stay fast); a replica re-dealt from the seed
        # re-plays them to learn each move's pile total and the cards it took.
        replica = CardState.deal(self.game, self.seed)
        rounds = []
        for number, deck in enumerate(self.decks):
            dealer = self.dealer_of(number)
            first = (dealer + 1) % self.rules.players
            hands, dummy, draw = self.split_deck(deck, first)
            entry: dict[str, Any] = {
                "first_player": first,
                "dealer": dealer,
                "hands": [[card(c) for c in sorted(hand)] for hand in hands],
            }
            if self.rules.dummy:
                entry["dummy"] = [card(c) for c in sorted(dummy)]
            if self.rules.hand_size is not None:
                entry["draw_pile"] = [card(c) for c in draw]
            moves = []
            for action in self.round_moves(number):
                seat, pile = replica.turn, action % 3
                # This round's pile objects stay readable even after the last move rolls over.
                piles, totals = replica.piles, replica.totals
                before = piles[pile]
                replica._apply(action)
                took = before if piles[pile] is not before else []
                moves.append(
                    {
                        "seat": seat,
                        "card": card(action // 3),
                        "pile": suits[pile],
                        "total": totals[pile],
                        "took": [card(c) for c in took],
                    }
                )
            entry["moves"] = moves
            if number < len(self.penalties):
                entry["penalties"] = list(self.penalties[number])
            rounds.append(entry)
        outcome = self.outcome()
        return {
            "format": REPLAY_FORMAT,
            "game": self.game.name,
            "params": self.game.params(),
            "seats": list(seats),
            "seed": self.seed.hex(),
            "seed_commitment": seed_commitment(self.seed),
            "rounds": rounds,
            "scores": list(outcome.scores),
            "ranks": list(outcome.ranks),
            "termination": termination,
        }

    # -- for search bots --------------------------------------------------------------------

    def playout(self, rng: random.Random, *, to_round_end: bool = False) -> None:
        """Play uniformly random cards (and piles for wild cards) to the end of the match.

        With `to_round_end`, stop as soon as the current round is scored.
        """
        bits = rng.getrandbits
        while self.turn >= 0:
            hand = self.hands[self.turn]
            code = hand.pop(bits(32) % len(hand))
            pile = code >> 3
            self._play(code, bits(32) % 3 if pile == WILD else pile, bits)
            if to_round_end:
                return

    @classmethod
    def from_observation(
        cls,
        game: CardGame,
        obs: CardObservation,
        hands: Sequence[Sequence[int]],
        dummy: Sequence[int] = (),
        draw: Sequence[int] = (),
        *,
        this_round_only: bool = False,
    ) -> CardState:
        """A state that matches `obs` with the hidden cards placed as given (a determinization).

        `hands` gives every seat's hand (the observer's own must equal `obs.hand`); `draw` lists
        the draw pile top first. With `this_round_only` the match ends when this round is
        scored (search needs no later deals); otherwise later rounds are dealt from a seed made
        of the observer's hand, which is as good as any for a sample.
        """
        seed = bytes(obs.hand)
        state = cls(game, seed, SeedStream(seed, expected_words=1))
        if this_round_only:
            state.rules = game.one_round_rules
            state.round = 0
        else:
            state.round = obs.round
        state.dealer = obs.dealer
        state.first_player = obs.first_player
        state.turn = obs.current_player
        state.hands = [list(hand) for hand in hands]
        state.dummy = list(dummy)
        state.draw = list(draw)[::-1]
        state.piles = [list(pile) for pile in obs.piles]
        state.totals = list(obs.totals)
        state.collected = [list(taken) for taken in obs.collected]
        state.taken = count_taken(obs.collected)
        state.moves = list(obs.moves)
        state.cards_left = sum(map(len, hands)) + len(draw)
        state.scores = list(obs.scores)
        state.penalties = [list(p) for p in obs.round_penalties]
        return state


def check_players(name: str, players: int) -> int:
    if not isinstance(players, int) or isinstance(players, bool) or not 3 <= players <= 6:
        raise InvalidParameters(f"{name} is for 3 to 6 players, not {players!r}")
    return players
