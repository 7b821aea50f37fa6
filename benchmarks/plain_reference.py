"""A plain, string-based Friday the 13th engine, kept only as the reference that
benchmarks/play_speed.py measures `arena play` against; nothing in the project plays with it.

It is written the way a first clear implementation would be, straight from the rulebook and
CLARIFICATIONS.md: cards are strings such as "cat:7" or "friday:4", hands, piles and collected
cards are lists of them, the legal moves are worked out from the hand on every turn, and each
round is scored by counting the collected cards. It has none of the project engine's speed-ups
(integer card codes, lookup tables, legal moves kept up to date between turns), and no waste
added on purpose either.

The one thing it takes from the project is the match seed's random stream (`SeedStream`), so
that it deals exactly the cards the project's engine deals from the same seed: the benchmark
then times both on the same deals, and the tests compare them move by move.
"""

from __future__ import annotations

from collections import Counter

from arena.games.base import SeedStream

OMENS = ("cat", "mirror", "ladder")
"""The three types of bad luck, one pile each."""
FRIDAY = "friday"
"""The Friday the 13th cards, which go on any pile and never have a pile of their own."""
OMEN_VALUES = (1, 1, 1, 2, 2, 2, 4, 4, 5, 5, 5, 7, 7, 7)
FRIDAY_VALUE = 4
FRIDAY_CARDS = 8
LIMIT = 13
ROUNDS = 4

Move = tuple[str, str]
"""A card and the pile it goes on, e.g. ("friday:4", "mirror")."""


def new_deck(edition: str = "en") -> list[str]:
    """The cards in type and value order (the order the seed's shuffle is defined on).

    Edition "en" has 50 cards; "de" adds a 0 of each omen type.
    """
    if edition not in ("en", "de"):
        raise ValueError(f"Friday the 13th has editions en and de, not {edition!r}")
    values = OMEN_VALUES if edition == "en" else (0, *OMEN_VALUES)
    deck = [f"{omen}:{value}" for omen in OMENS for value in values]
    return deck + [f"{FRIDAY}:{FRIDAY_VALUE}"] * FRIDAY_CARDS


def suit_of(card: str) -> str:
    return card.split(":")[0]


def value_of(card: str) -> int:
    return int(card.split(":")[1])


def score_round(collected: list[list[str]]) -> list[int]:
    """Each player's bad luck points for a round, from the cards each one collected."""
    counts = [Counter(suit_of(card) for card in cards) for cards in collected]
    points = [sum(count[omen] for omen in OMENS) + 2 * count[FRIDAY] for count in counts]
    for omen in OMENS:
        numbers = [count[omen] for count in counts]
        most = max(numbers)
        # Only a player with strictly more than everyone else discards; a tie saves nobody.
        if most > 0 and numbers.count(most) == 1:
            points[numbers.index(most)] -= most
    return points


class PlainFriday13:
    """One match: four rounds, each dealt from the seed; `scores` are the bad luck points."""

    def __init__(self, players: int, seed: bytes, edition: str = "en") -> None:
        if not 3 <= players <= 6:
            raise ValueError(f"Friday the 13th is for 3 to 6 players, not {players}")
        self.players = players
        self.deck = new_deck(edition)
        self.stream = SeedStream(seed, expected_words=1 + ROUNDS * len(self.deck))
        self.first_of_match = self.stream.below(players)
        self.round = 0
        self.scores = [0] * players
        self.round_scores: list[list[int]] = []
        self.over = False
        self.first_player = 0
        self.turn = 0
        self.hands: list[list[str]] = []
        self.dummy: list[str] = []
        self.piles: dict[str, list[str]] = {}
        self.totals: dict[str, int] = {}
        self.collected: list[list[str]] = []
        self.deal()

    def deal(self) -> None:
        """Shuffle and deal every card, one at a time, from this round's first player clockwise;
        with three players a fourth hand (the dummy) is dealt after the third and never played."""
        # The stream shuffles positions in the deck; the cards at those positions are the deal.
        order = self.stream.shuffled(bytes(range(len(self.deck))))
        shuffled = [self.deck[position] for position in order]
        self.first_player = (self.first_of_match + self.round) % self.players
        receivers = self.players + 1 if self.players == 3 else self.players
        self.hands = [[] for _ in range(self.players)]
        self.dummy = []
        for index, card in enumerate(shuffled):
            receiver = index % receivers
            if receiver == self.players:
                self.dummy.append(card)
            else:
                self.hands[(self.first_player + receiver) % self.players].append(card)
        self.piles = {omen: [] for omen in OMENS}
        self.totals = {omen: 0 for omen in OMENS}
        self.collected = [[] for _ in range(self.players)]
        self.turn = self.first_player

    def legal_moves(self) -> list[Move]:
        """Every different move of the player to move, in card order."""
        if self.over:
            return []
        moves: list[Move] = []
        # Sorted so that a seeded random choice picks the same move in every run.
        for card in sorted(set(self.hands[self.turn])):
            suit = suit_of(card)
            if suit == FRIDAY:
                moves.extend((card, pile) for pile in OMENS)
            else:
                moves.append((card, suit))
        return moves

    def play(self, move: Move) -> None:
        """Play a card of the player to move; raise ValueError when it is not theirs or its pile is wrong."""
        card, pile = move
        suit = suit_of(card)
        if pile not in OMENS or (suit != FRIDAY and pile != suit):
            raise ValueError(f"{card} cannot go on the {pile} pile")
        self.hands[self.turn].remove(card)
        value = value_of(card)
        total = self.totals[pile] + value
        if total > LIMIT:
            self.collected[self.turn].extend(self.piles[pile])
            self.piles[pile] = [card]
            self.totals[pile] = value
        else:
            self.piles[pile].append(card)
            self.totals[pile] = total
        if any(self.hands):
            self.turn = (self.turn + 1) % self.players
        else:
            self.end_round()

    def end_round(self) -> None:
        points = score_round(self.collected)
        self.round_scores.append(points)
        self.scores = [score + gained for score, gained in zip(self.scores, points, strict=True)]
        self.round += 1
        if self.round == ROUNDS:
            self.over = True
        else:
            self.deal()
