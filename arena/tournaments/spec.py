"""What a tournament is: `TournamentSpec`, checked when it is made, stored as JSON by the store."""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arena.games import Game, GameError, make_game
from arena.match.seating import check_seatings_per_deal, design_size


class TournamentFormat(StrEnum):
    ROUND_ROBIN = "round-robin"
    """Every combination of `table_size` entrants, each round."""
    GAUNTLET = "gauntlet"
    """The hero against every window of the field."""
    SWISS = "swiss"
    """Rounds paired by standing, each planned when the one before has ended."""


MAX_MATCHES = 100_000
"""More matches than this is almost surely a mistake (a round-robin of 40 bots at tables of 6)."""
MAX_MATCH_ATTEMPTS = 3
"""Attempts a tournament match gets: one aborted by a fault is re-run (same seed, same seats) under a
new id, `NAME-n-try2` and so on, until this many attempts were aborted; then it is aborted for good."""
NAME = re.compile(r"[A-Za-z0-9._-]{1,40}")
_ATTEMPT = re.compile(r"(\d+)(?:-try(\d+))?")


class TournamentError(ValueError):
    """A tournament that cannot be run as asked; the one-line message says why."""


def secret_seed() -> str:
    """A fresh random seed text (128 bits): nobody can guess the deals of a tournament made with it."""
    return secrets.token_hex(16)


def seed_commitment(seed: str) -> str:
    """SHA-256 (hex) of a tournament's seed text: shown from the start, so that the seed, shown once
    the tournament has ended, can be checked to be the one its deals came from all along."""
    return hashlib.sha256(seed.encode()).hexdigest()


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament: who plays which game, in which format, how often.

    Formats: `round-robin` plays every combination of `table_size` entrants; `gauntlet` seats the
    `hero` with `table_size - 1` others, sliding through the rest of the field; `swiss` seats
    entrants by their current standing, neighbours together. `rounds` is the number of
    repetitions of the whole schedule for round-robin and gauntlet, and the number of rounds for
    Swiss. With `duplicate` every deal is played under the seat-fair design of its table
    (`arena.match.seating`): each bot in every seat and after every other bot equally often;
    `seatings` (0: the whole design) plays each deal fewer times, consecutive deals taking
    consecutive slices of the design. `rated` results also change the game's ladder ratings.
    `seed` decides every deal (`arena.match.local.match_seed`): left out, it is a fresh secret one,
    for whoever knows it knows every hand of every match.
    """

    name: str
    game: str
    entrants: tuple[str, ...]
    format: TournamentFormat = TournamentFormat.ROUND_ROBIN
    table_size: int = 4
    rounds: int = 1
    duplicate: bool = False
    seatings: int = 0
    rated: bool = False
    seed: str = field(default_factory=secret_seed)
    hero: str = ""
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """Game parameters besides the number of players, which is `table_size`, e.g. {"edition": "de"}."""
    _game: Game = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "entrants", tuple(self.entrants))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "_game", self._check())

    def _check(self) -> Game:
        if not isinstance(self.name, str) or not NAME.fullmatch(self.name):
            raise TournamentError(f"tournament name {self.name!r} must be 1-40 letters, digits, '-', '_' or '.'")
        if self.format not in tuple(TournamentFormat):
            choices = ", ".join(TournamentFormat)
            raise TournamentError(f"unknown format {self.format!r}; choose one of: {choices}")
        object.__setattr__(self, "format", TournamentFormat(self.format))
        for flag in ("duplicate", "rated"):
            if not isinstance(getattr(self, flag), bool):
                raise TournamentError(f"{flag} must be true or false, not {getattr(self, flag)!r}")
        for number in ("table_size", "rounds"):
            value = getattr(self, number)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise TournamentError(f"{number.replace('_', ' ')} must be a whole number of at least 1, not {value!r}")
        if not isinstance(self.seatings, int) or isinstance(self.seatings, bool) or self.seatings < 0:
            raise TournamentError(f"seatings must be a whole number (0: the whole design), not {self.seatings!r}")
        if self.seatings and not self.duplicate:
            raise TournamentError("seatings says how often a duplicate tournament plays each deal: set duplicate too")
        if self.seatings:
            try:
                check_seatings_per_deal(self.table_size, self.seatings)
            except ValueError as problem:
                raise TournamentError(str(problem)) from None
        if not isinstance(self.seed, str) or not self.seed:
            raise TournamentError("the seed must be non-empty text")
        if not isinstance(self.game, str):
            raise TournamentError(f"the game must be a game's name, not {self.game!r}")
        if "players" in self.params:
            raise TournamentError("give the number of players as the table size, not as a game parameter")
        game = self._make_game()
        if not all(isinstance(bot, str) and bot for bot in self.entrants):
            raise TournamentError("entrants must be non-empty bot names")
        repeated = sorted({bot for bot in self.entrants if self.entrants.count(bot) > 1})
        if repeated:
            raise TournamentError(f"{repeated[0]!r} is entered twice; every entrant plays under one name")
        if len(self.entrants) < self.table_size:
            raise TournamentError(f"{len(self.entrants)} entrants cannot fill a table of {self.table_size}")
        if self.format == TournamentFormat.GAUNTLET and self.hero not in self.entrants:
            raise TournamentError(f"the gauntlet's hero {self.hero!r} must be one of the entrants")
        if self.format != TournamentFormat.GAUNTLET and self.hero:
            raise TournamentError(f"only a gauntlet has a hero; {self.format} has none")
        total = self.total_matches
        if total > MAX_MATCHES:
            raise TournamentError(f"this {self.format} would play {total:,} matches; the limit is {MAX_MATCHES:,}")
        return game

    def _make_game(self) -> Game:
        try:
            kind = type(make_game(self.game, **self.params))
        except GameError as problem:
            raise TournamentError(str(problem)) from None
        if not kind.min_players <= self.table_size <= kind.max_players:
            span = (
                f"{kind.min_players} to {kind.max_players}" if kind.min_players < kind.max_players else kind.min_players
            )
            raise TournamentError(f"table size {self.table_size} does not fit {self.game}, which is for {span} players")
        try:
            return make_game(self.game, players=self.table_size, **self.params)
        except GameError as problem:
            raise TournamentError(str(problem)) from None

    def build_game(self) -> Game:
        """The game with its parameters, ready for `new_match`."""
        return self._game

    @property
    def tables_per_round(self) -> int:
        """Distinct tables (deals) in one round: every combination, every field window, or every block."""
        entrants, size = len(self.entrants), self.table_size
        if self.format == TournamentFormat.ROUND_ROBIN:
            return math.comb(entrants, size)
        if self.format == TournamentFormat.GAUNTLET:
            return entrants - 1
        return entrants // size

    @property
    def seatings_per_deal(self) -> int:
        """How many times each deal is played: 1, or with `duplicate` the design's seatings."""
        if not self.duplicate:
            return 1
        return self.seatings or design_size(self.table_size)

    @property
    def matches_per_round(self) -> int:
        return self.tables_per_round * self.seatings_per_deal

    @property
    def total_matches(self) -> int:
        return self.rounds * self.matches_per_round

    def round_of(self, number: int) -> int:
        """The round (0-based) that match `number` belongs to."""
        return number // self.matches_per_round

    def deal_of(self, number: int) -> int:
        """The deal match `number` plays: one per table of each round, shared by its seatings."""
        round_number, offset = divmod(number, self.matches_per_round)
        return round_number * self.tables_per_round + offset // self.seatings_per_deal

    def match_id(self, number: int) -> str:
        """The id of the tournament's match `number`; results name their round through it."""
        return f"{self.name}-{number}"

    def attempt_id(self, number: int, attempt: int = 1) -> str:
        """The id of attempt `attempt` (1 for the first) of match `number`: `NAME-n`, then `NAME-n-try2`..."""
        return self.match_id(number) if attempt <= 1 else f"{self.match_id(number)}-try{attempt}"

    def attempt_of(self, match_id: str) -> tuple[int, int] | None:
        """(number, attempt) of one of this tournament's match ids, first attempts and re-runs; None for others."""
        prefix = f"{self.name}-"
        found = _ATTEMPT.fullmatch(match_id[len(prefix) :]) if match_id.startswith(prefix) else None
        if found is None or int(found[1]) >= self.total_matches:
            return None
        attempt = int(found[2]) if found[2] else 1
        return (int(found[1]), attempt) if attempt >= (2 if found[2] else 1) else None

    def match_number(self, match_id: str) -> int | None:
        """The number of one of this tournament's matches from its id (a re-run's too); None for any other id."""
        found = self.attempt_of(match_id)
        return found[0] if found else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "params": dict(self.params),
            "entrants": list(self.entrants),
            "format": self.format,
            "table_size": self.table_size,
            "rounds": self.rounds,
            "duplicate": self.duplicate,
            "seatings": self.seatings,
            "rated": self.rated,
            "seed": self.seed,
            "hero": self.hero,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentSpec:
        """The spec from its JSON form; raises TournamentError for missing, unknown or mistyped fields."""
        if not isinstance(data, Mapping):
            raise TournamentError("a tournament is a JSON object")
        known = [name for name in cls.__dataclass_fields__ if not name.startswith("_")]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise TournamentError(f"unknown tournament field {unknown[0]!r} (known: {', '.join(known)})")
        for required in ("name", "game", "entrants"):
            if required not in data:
                raise TournamentError(f"a tournament needs {required!r}")
        if not isinstance(data["entrants"], list | tuple):
            raise TournamentError("entrants must be a list of bot names")
        if not isinstance(data.get("params", {}), Mapping):
            raise TournamentError("params must be an object of game parameters")
        return cls(**data)
