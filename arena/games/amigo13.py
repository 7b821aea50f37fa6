"""13 (Knizia; AMIGO 2009), with its red "Fiese Vieren" as the wild cards."""

from __future__ import annotations

from typing import Any

from arena.games.base import register
from arena.games.cards import CardGame, CardRules, build_deck, check_players

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


register(NAME, Amigo13)
