"""Results applied to ratings: a pure function from (current ratings, result) to what the store writes.

Exactly once is the store's job, with this module's help: `apply_result` is deterministic and
has no side effects, so a node that dies between computing and writing loses nothing (the next
delivery computes the same update), and the store writes the match id in the same transaction
(MULTI/EXEC or a Lua script) as the `RatingUpdate`, skipping results whose id is already there.
`RatingBook` is that contract in memory: `recompute` and the tests use it, the store mirrors it.

Policy, as the protocol states it: a match aborted through the server's fault is not rated; a
forfeited match is rated, the runner having already ranked every forfeiting seat last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.games.base import Termination
from arena.ratings.model import Rating, RatingError, RatingModel

RESULT_TERMINATIONS = (Termination.NORMAL, Termination.FORFEIT, Termination.ABORTED)
"""How a stored result may have ended: an unfinished match has no result."""


class MatchOutcome(Protocol):
    """What a finished match says about its seats; `arena.match.runner.MatchResult` is one."""

    @property
    def match_id(self) -> str: ...
    @property
    def seats(self) -> tuple[str, ...]: ...
    @property
    def scores(self) -> tuple[int, ...]: ...
    @property
    def ranks(self) -> tuple[int, ...]: ...
    @property
    def termination(self) -> Termination: ...
    @property
    def forfeited(self) -> tuple[int, ...]: ...


@dataclass(frozen=True)
class ResultRecord:
    """A finished match as the store keeps it for ratings, standings and `recompute`."""

    match_id: str
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: Termination = Termination.NORMAL
    forfeited: tuple[int, ...] = ()
    finished_at: float = 0.0
    """Seconds since the Unix epoch; history rows carry it for the rating plots."""

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise RatingError(f"result {self.match_id!r}: {problem}")

    def _problem(self) -> str:
        seats = len(self.seats)
        if not self.match_id:
            return "the match id is empty"
        if seats < 1 or not all(isinstance(name, str) and name for name in self.seats):
            return "seats must be one or more non-empty bot names"
        if len(self.scores) != seats or len(self.ranks) != seats:
            return f"{seats} seats need {seats} scores and {seats} ranks, not {len(self.scores)} and {len(self.ranks)}"
        if not all(isinstance(score, int) for score in self.scores):
            return f"scores must be whole numbers, not {list(self.scores)}"
        if not all(isinstance(rank, int) and 1 <= rank <= seats for rank in self.ranks):
            return f"ranks must be whole numbers from 1 to {seats}, not {list(self.ranks)}"
        if self.termination not in RESULT_TERMINATIONS:
            return f"unknown termination {self.termination!r} (one of: {', '.join(RESULT_TERMINATIONS)})"
        if not all(isinstance(seat, int) and 0 <= seat < seats for seat in self.forfeited):
            return f"forfeited seats must be seat numbers below {seats}, not {list(self.forfeited)}"
        if self.termination == Termination.FORFEIT and not self.forfeited:
            return "a forfeit must name its forfeited seats"
        if self.termination == Termination.NORMAL and self.forfeited:
            return "a match with forfeited seats ended by forfeit, not normally"
        if self.termination == Termination.ABORTED:
            return ""
        finishers = [rank for seat, rank in enumerate(self.ranks) if seat not in self.forfeited]
        if any(self.ranks[seat] <= rank for seat in self.forfeited for rank in finishers):
            return "every forfeited seat must be ranked below every seat that finished"
        return ""

    @classmethod
    def from_match(cls, result: MatchOutcome, finished_at: float = 0.0) -> ResultRecord:
        return cls(
            match_id=result.match_id,
            seats=tuple(result.seats),
            scores=tuple(result.scores),
            ranks=tuple(result.ranks),
            termination=result.termination,
            forfeited=tuple(result.forfeited),
            finished_at=finished_at,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "seats": list(self.seats),
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "termination": self.termination,
            "forfeited": list(self.forfeited),
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResultRecord:
        """The record from its JSON form; raises RatingError naming what is missing or wrong."""
        try:
            return cls(
                match_id=str(data["match_id"]),
                seats=tuple(data["seats"]),
                scores=tuple(data["scores"]),
                ranks=tuple(data["ranks"]),
                termination=_termination(data.get("termination", Termination.NORMAL)),
                forfeited=tuple(data.get("forfeited", ())),
                finished_at=float(data.get("finished_at", 0.0)),
            )
        except RatingError:
            raise
        except KeyError as missing:
            raise RatingError(f"stored result lacks {missing.args[0]!r}") from None
        except (TypeError, ValueError) as wrong:
            raise RatingError(f"stored result {data.get('match_id')!r} is malformed: {wrong}") from None


def _termination(value: object) -> Termination:
    for termination in RESULT_TERMINATIONS:
        if value == termination:
            return termination
    raise RatingError(f"unknown termination {value!r} (one of: {', '.join(RESULT_TERMINATIONS)})")


@dataclass(frozen=True, slots=True)
class BotRating:
    """One bot's row in a game's ratings: what the store keeps in the bot's rating hash."""

    bot: str
    mu: float
    sigma: float
    games: int = 0
    """Rated matches played; a bot in two seats of one match counts that match once."""

    @property
    def rating(self) -> Rating:
        return Rating(self.mu, self.sigma)

    @property
    def conservative(self) -> float:
        """The leaderboard score (sorted-set score): mu - 3 sigma."""
        return self.rating.conservative

    def to_dict(self) -> dict[str, float | int]:
        return {"mu": self.mu, "sigma": self.sigma, "games": self.games}

    @classmethod
    def from_dict(cls, bot: str, data: Mapping[str, Any]) -> BotRating:
        """The row from stored fields; numbers may come as text, as Redis hashes return them."""
        try:
            return cls(bot, float(data["mu"]), float(data["sigma"]), int(data.get("games", 0)))
        except KeyError as missing:
            raise RatingError(f"stored rating of {bot!r} lacks {missing.args[0]!r}") from None
        except (TypeError, ValueError):
            raise RatingError(f"stored rating of {bot!r} is malformed: {dict(data)!r}") from None


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One point of a bot's rating history: its rating after a rated match."""

    bot: str
    match_id: str
    mu: float
    sigma: float
    games: int
    at: float

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    def to_dict(self) -> dict[str, str | float | int]:
        """The fields of the history stream entry (the bot is the stream's key)."""
        return {"match_id": self.match_id, "mu": self.mu, "sigma": self.sigma, "games": self.games, "at": self.at}


@dataclass(frozen=True)
class RatingUpdate:
    """Everything the store writes, in one transaction, for one result.

    Written even when the result is not rated (`ratings` and `history` are then empty), so that
    the match id is marked as applied and a second delivery is recognised.
    """

    match_id: str
    skipped: str
    """Why the result changes no rating ("" when it is rated)."""
    ratings: tuple[BotRating, ...] = ()
    history: tuple[HistoryEntry, ...] = ()

    @property
    def rated(self) -> bool:
        return not self.skipped


def why_not_rated(result: ResultRecord) -> str:
    """The policy: why this result must not change ratings, or "" when it is rated."""
    if result.termination == Termination.ABORTED:
        return "aborted by the server: not rated"
    if len(set(result.seats)) < 2:
        return "a bot playing only itself: not rated"
    return ""


def apply_result(current: Mapping[str, BotRating], result: ResultRecord, model: RatingModel) -> RatingUpdate:
    """The new ratings of the bots at the table; `current` may lack bots that never played.

    Each seat is rated as its own one-player team. A bot in several seats of one match (possible
    in hand-made matches, never from the matchmaker or a tournament) gets the mean of its seats'
    changes of mu and the mean of their new sigmas, and one game, so one match never counts as
    several pieces of evidence about it.
    """
    skipped = why_not_rated(result)
    if skipped:
        return RatingUpdate(result.match_id, skipped)
    before = {name: current.get(name) or BotRating(name, model.mu, model.sigma) for name in result.seats}
    after = model.rate([before[name].rating for name in result.seats], result.ranks)
    changes: dict[str, list[Rating]] = {}
    for name, rating in zip(result.seats, after, strict=True):
        changes.setdefault(name, []).append(rating)
    rows = []
    for name, seat_ratings in changes.items():
        old = before[name]
        mu = old.mu + sum(rating.mu - old.mu for rating in seat_ratings) / len(seat_ratings)
        sigma = sum(rating.sigma for rating in seat_ratings) / len(seat_ratings)
        rows.append(BotRating(name, mu, sigma, old.games + 1))
    history = tuple(
        HistoryEntry(row.bot, result.match_id, row.mu, row.sigma, row.games, result.finished_at) for row in rows
    )
    return RatingUpdate(result.match_id, "", tuple(rows), history)


@dataclass
class RatingBook:
    """The ratings of one game in memory, with the exactly-once rule the store implements."""

    model: RatingModel
    ratings: dict[str, BotRating] = field(default_factory=dict)
    history: list[HistoryEntry] = field(default_factory=list)
    applied: set[str] = field(default_factory=set)

    def apply(self, result: ResultRecord) -> RatingUpdate | None:
        """Apply a result once; None when its match id was applied before."""
        if result.match_id in self.applied:
            return None
        update = apply_result(self.ratings, result, self.model)
        self.commit(update)
        return update

    def commit(self, update: RatingUpdate) -> None:
        """Write an update as the store's transaction does: match id, rows and history together."""
        self.applied.add(update.match_id)
        self.ratings.update((row.bot, row) for row in update.ratings)
        self.history.extend(update.history)

    def leaderboard(self) -> list[BotRating]:
        """Best first by mu - 3 sigma; ties by name, so the order is stable."""
        return sorted(self.ratings.values(), key=lambda row: (-row.conservative, row.bot))


def recompute(results: Iterable[ResultRecord], model: RatingModel) -> RatingBook:
    """Ratings and history rebuilt from stored results in the order given (finishing order).

    The same results and parameters always give the same book; a repeated match id counts once.
    """
    book = RatingBook(model)
    for result in results:
        book.apply(result)
    return book
