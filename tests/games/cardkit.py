"""Helpers to write card positions in tests the way the rulebooks show them."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.cards import CardGame, CardState, count_taken


def cards(game: CardGame, text: str) -> list[int]:
    """Card codes from text such as "cat:5 friday:4"."""
    return [game.card_from_text(word) for word in text.split()]


def arrange(
    game: CardGame,
    hands: Sequence[str],
    piles: Sequence[str] = ("", "", ""),
    *,
    turn: int = 0,
    collected: Sequence[str] | None = None,
    draw: str = "",
) -> CardState:
    """A state in round 1 with the given hands, piles (oldest card first), collected cards and
    draw pile (top card first), seat `turn` to move."""
    state = game.new_match(b"arranged")
    state.hands = [cards(game, hand) for hand in hands]
    state.piles = [cards(game, pile) for pile in piles]
    state.totals = [sum(code & 7 for code in pile) for pile in state.piles]
    state.collected = [cards(game, taken) for taken in (collected or [""] * game.players)]
    state.taken = count_taken(state.collected)
    state.draw = cards(game, draw)[::-1]
    state.dummy = []
    state.moves = []
    state.turn = turn
    state.first_player = turn
    state.cards_left = sum(map(len, state.hands)) + len(state.draw)
    return state


def text_of(game: CardGame, codes: Sequence[int]) -> list[str]:
    return [game.card_text(code) for code in codes]
