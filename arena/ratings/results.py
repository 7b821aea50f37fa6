"""Results applied to ratings: a pure function from (current ratings, result) to what the store writes.

A game's rating log holds two kinds of entries, in the order they were applied: match results
(`ResultRecord`) and new versions of bots (`NewVersion`, which widen a bot's sigma once). Both
carry an id that the store marks as applied; `recompute` replays the log, so ratings rebuilt from
it equal the ratings applied one entry at a time, bit for bit.

Exactly once is the store's job, with this module's help: `apply_result` is deterministic and
has no side effects, so a node that dies between computing and writing loses nothing (the next
delivery computes the same update), and the store writes the match id in the same transaction
(MULTI/EXEC or a Lua script) as the `RatingUpdate`, skipping results whose id is already there.
`RatingBook` is that contract in memory: `recompute` and the tests use it, the store mirrors it.

Policy, as the protocol states it: a match aborted through the server's fault is not rated; a
forfeited match is rated, the runner having already ranked every forfeiting seat last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from arena.games.base import Termination
from arena.ratings.model import Rating, RatingError, RatingModel

RESULT_TERMINATIONS = (Termination.NORMAL, Termination.FORFEIT, Termination.ABORTED)
"""How a stored result may have ended: an unfinished match has no result."""
VERSION_KIND = "version"
"""The `kind` of a new version's stored form; a match result's stored form has no kind."""
VERSION_PREFIX = f"{VERSION_KIND}:"
"""How the ids of new versions in the log begin; no match id may."""


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
        if self.match_id.startswith(VERSION_PREFIX):
            return f"match ids beginning {VERSION_PREFIX!r} are kept for new versions of bots"
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


@dataclass(frozen=True)
class NewVersion:
    """A bot's new version entered the ratings: from here on it starts from its predecessor's mu with
    a widened sigma (`RatingModel.widened`), so that the new program is ranked on its own evidence.

    Kept in the rating log beside the results, so that a recompute widens at the same point.
    """

    bot: str
    label: str
    """Which version: a hosted version number, or any label unique for the bot; a label counts once."""
    finished_at: float = 0.0
    """When the version entered, in seconds since the Unix epoch (named as results name theirs)."""

    def __post_init__(self) -> None:
        if not isinstance(self.bot, str) or not self.bot:
            raise RatingError("a new version needs the bot's name")
        if not isinstance(self.label, str) or not self.label:
            raise RatingError(f"the new version of {self.bot!r} needs a label")

    @property
    def match_id(self) -> str:
        """The entry's id in the log (the applied ids are match ids and these)."""
        return f"{VERSION_PREFIX}{self.bot}:{self.label}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": VERSION_KIND,
            "match_id": self.match_id,
            "bot": self.bot,
            "label": self.label,
            "finished_at": self.finished_at,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NewVersion:
        try:
            return cls(str(data["bot"]), str(data["label"]), float(data.get("finished_at", 0.0)))
        except KeyError as missing:
            raise RatingError(f"stored new version lacks {missing.args[0]!r}") from None
        except (TypeError, ValueError) as wrong:
            raise RatingError(f"stored new version {data.get('match_id')!r} is malformed: {wrong}") from None


LogEntry: TypeAlias = ResultRecord | NewVersion
"""One entry of a game's rating log."""


def entry_from_dict(data: Mapping[str, Any]) -> LogEntry:
    """A log entry from its stored JSON form: a new version when it says so, else a match result."""
    kind = data.get("kind")
    if kind == VERSION_KIND:
        return NewVersion.from_dict(data)
    if kind is not None:
        raise RatingError(f"stored rating entry {data.get('match_id')!r} has unknown kind {kind!r}")
    return ResultRecord.from_dict(data)


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

    @property
    def played(self) -> bool:
        """Whether the point follows a match (else it is a new version's widening)."""
        return not self.match_id.startswith(VERSION_PREFIX)

    @property
    def version(self) -> str:
        """The label of the new version a widening point enters ('' for a match's point)."""
        if self.played:
            return ""
        return self.match_id.removeprefix(f"{VERSION_PREFIX}{self.bot}:")

    def to_dict(self) -> dict[str, str | float | int]:
        """The fields of the history stream entry (the bot is the stream's key)."""
        return {"match_id": self.match_id, "mu": self.mu, "sigma": self.sigma, "games": self.games, "at": self.at}


@dataclass(frozen=True, slots=True)
class VersionRating:
    """A bot's rating over one of its versions, read from its rating history."""

    version: str
    """The new version's label; '' for the points before the first new version read."""
    matches: int
    """Rated matches played under this version (in the history read)."""
    start: HistoryEntry
    """The first point: the widening that entered the version, or its first match's point."""
    end: HistoryEntry
    """The last point: the version's rating when the next one entered, or now."""


def version_ratings(history: Sequence[HistoryEntry]) -> list[VersionRating]:
    """A bot's history (oldest first) split at each new version, oldest version first: so that its
    owner sees what every earlier version reached, not only the rating of the active one."""
    spans: list[VersionRating] = []
    for point in history:
        if not spans or not point.played:
            spans.append(VersionRating(point.version, int(point.played), point, point))
        else:
            last = spans[-1]
            spans[-1] = VersionRating(last.version, last.matches + 1, last.start, point)
    return spans


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


def apply_version(current: Mapping[str, BotRating], entry: NewVersion, model: RatingModel) -> RatingUpdate:
    """The widened rating of a bot's new version: same mu and games, sigma grown, and a history point
    (whose id is the entry's, not a match's) so that the plot shows the step and the next match's
    change is measured from it. A bot without a rating has nothing to widen: its first match
    starts from the initial rating anyway."""
    old = current.get(entry.bot)
    if old is None:
        return RatingUpdate(entry.match_id, f"{entry.bot} has no rating to widen")
    widened = model.widened(old.rating)
    row = BotRating(entry.bot, widened.mu, widened.sigma, old.games)
    point = HistoryEntry(row.bot, entry.match_id, row.mu, row.sigma, row.games, entry.finished_at)
    return RatingUpdate(entry.match_id, "", (row,), (point,))


def apply_entry(current: Mapping[str, BotRating], entry: LogEntry, model: RatingModel) -> RatingUpdate:
    """The update of either kind of log entry."""
    if isinstance(entry, NewVersion):
        return apply_version(current, entry, model)
    return apply_result(current, entry, model)


@dataclass
class RatingBook:
    """The ratings of one game in memory, with the exactly-once rule the store implements."""

    model: RatingModel
    ratings: dict[str, BotRating] = field(default_factory=dict)
    history: list[HistoryEntry] = field(default_factory=list)
    applied: set[str] = field(default_factory=set)

    def apply(self, entry: LogEntry) -> RatingUpdate | None:
        """Apply a log entry once; None when its id was applied before."""
        if entry.match_id in self.applied:
            return None
        update = apply_entry(self.ratings, entry, self.model)
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


def recompute(entries: Iterable[LogEntry], model: RatingModel) -> RatingBook:
    """Ratings and history rebuilt from a rating log (results and new versions) in the order given.

    The same entries and parameters always give the same book; a repeated id counts once.
    """
    book = RatingBook(model)
    for entry in entries:
        book.apply(entry)
    return book
