"""Friday the 13th (Knizia; Le Scorpion Masqué, German edition Heidelberger)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.games.base import InvalidParameters, register
from arena.games.cards import CardGame, CardRules, build_deck, check_players
from arena.games.cards_kit import CardKit
from arena.games.kit import Parameter

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


class Friday13Kit(CardKit):
    parameters = (
        Parameter("edition", "en", "en: 50 cards (English, French); de: 53, with a 0 of each omen", EDITIONS),
    )
    drawing: ClassVar[Mapping[str, Any]] = {
        "kind": "cards",
        "score_table": "rounds",
        "suits": {
            "cat": {"colour": "#2f6f3e", "shape": "circle", "wild": False},
            "mirror": {"colour": "#8a3fb0", "shape": "triangle", "wild": False},
            "ladder": {"colour": "#b5541b", "shape": "square", "wild": False},
            "friday": {"colour": "#b3123a", "shape": "star", "wild": True},
        },
    }


register(NAME, Friday13, Friday13Kit())
