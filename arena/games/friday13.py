"""Friday the 13th (Knizia; Le Scorpion Masqué, German edition Heidelberger)."""

from __future__ import annotations

from typing import Any

from arena.games.base import InvalidParameters, register
from arena.games.cards import CardGame, CardRules, build_deck, check_players

NAME = "friday13"
SUITS = ("cat", "mirror", "ladder", "friday")
EDITIONS = ("en", "de")
"""`en` (English and French): 50 cards. `de` (German): 53, with a 0 of each omen type."""
ROUNDS = 4


class Friday13(CardGame):
    name = NAME

    def __init__(self, players: int = 4, edition: str = "en") -> None:
        if edition not in EDITIONS:
            raise InvalidParameters(f"{NAME} has editions {' and '.join(EDITIONS)}, not {edition!r}")
        self.edition = edition
        super().__init__(
            CardRules(
                name=NAME,
                suits=SUITS,
                deck=build_deck(extra_zeros=edition == "de"),
                players=check_players(NAME, players),
                rounds=ROUNDS,
                hand_size=None,
                dummy=players == 3,
                seed_picks_dealer=False,
            )
        )

    def params(self) -> dict[str, Any]:
        return {"players": self.players, "edition": self.edition}


register(NAME, Friday13)
