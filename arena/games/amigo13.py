"""13 (Knizia; AMIGO 2009), with its red "Fiese Vieren" as the wild cards."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.games.base import register
from arena.games.cards import CardGame, CardRules, build_deck, check_players
from arena.games.cards_kit import CardKit

NAME = "amigo13"
SUITS = ("blue", "yellow", "green", "red")
HAND_SIZE = 5


class Amigo13(CardGame):
    name = NAME

    def __init__(self, players: int = 4) -> None:
        players = check_players(NAME, players)
        super().__init__(
            CardRules(
                name=NAME,
                suits=SUITS,
                deck=build_deck(extra_zeros=False),
                players=players,
                # Every player deals once; with three players, twice.
                rounds=6 if players == 3 else players,
                hand_size=HAND_SIZE,
                dummy=False,
                seed_picks_dealer=True,
            )
        )

    def params(self) -> dict[str, Any]:
        return {"players": self.players}


class Amigo13Kit(CardKit):
    drawing: ClassVar[Mapping[str, Any]] = {
        "kind": "cards",
        "score_table": "rounds",
        # Each suit in its own printed colour: the red "Fiese Vieren" are the wild cards.
        "suits": {
            "blue": {"colour": "#1d5fae", "shape": "circle", "wild": False},
            "yellow": {"colour": "#8a6a00", "shape": "triangle", "wild": False},
            "green": {"colour": "#2f6f3e", "shape": "square", "wild": False},
            "red": {"colour": "#b3123a", "shape": "star", "wild": True},
        },
    }


register(NAME, Amigo13, Amigo13Kit())
