"""Ratings in Redis: per game a hash per bot, the leaderboard, history streams and the rating log.

The rating log (`arena:results:{game}`) holds the game's results and its bots' new versions in
the order they were applied; a recompute replays it (`arena.ratings.recompute`), so it rebuilds
the stored ratings bit for bit.

Exactly once: `apply` reads the bots' ratings, computes the update with the pure
`arena.ratings.apply_entry`, and writes it with one Lua script that first checks the game's set
of applied ids and that the ratings it read are still the stored ones. The script writes
ratings, leaderboard, history, the log entry and its id together, or nothing. A second
delivery finds the id and changes nothing; a node that dies after computing wrote nothing, so
the next delivery computes the same update again; a concurrent change of the same bots makes
the script refuse, and `apply` reads and computes again. A new version (`widen`) goes the same
way, so a recompute widens the bot at the same point of its history.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError

from arena.ratings import (
    BotRating,
    HistoryEntry,
    LogEntry,
    NeighbourOrder,
    NewVersion,
    OrderJudge,
    RatingBook,
    RatingModel,
    RatingUpdate,
    ResultRecord,
    entry_from_dict,
    is_provisional,
    neighbour_orders,
)
from arena.ratings import apply_entry as compute_update
from arena.ratings import recompute as recompute_book
from arena.store import keys
from arena.store.archive import Archive, ArchiveUnreadable
from arena.store.codec import compact_json, text, text_fields, text_or_empty, texts

HISTORY_KEPT = 1000
"""Rating history entries kept per bot and game, the latest: what the web's rating plot shows.
The stream is trimmed as each entry is added, so it stays bounded however long the bot plays."""

FIRST_POINTS = 100
"""History points per bot that `certainty` reads for a pair it starts to follow: for a board of
100 established neighbours 10,000 points once (`benchmarks/leaderboard_certainty.py` times it),
then only the points added. An order established throughout them says it began at their first
or before (`NeighbourOrder.since_earlier`)."""

PAIRS_A_READ = 10
"""Pairs whose histories `certainty` reads in one round trip: at most 4,000 points, so that no
reply is big enough to reach the client's read timeout on a busy machine."""

MAX_ATTEMPTS = 50
"""Reads and computations of one result before `apply` gives up (only under heavy contention)."""

APPLIED, DUPLICATE, CONFLICT = 1, 0, -1

_APPLY = """
-- KEYS: applied set, rating log, leaderboard, then per bot: rating hash, history stream
-- ARGV: entry id, entry JSON, bot count, history entries kept, version label ('' for a match result),
--       then per bot 8 values:
--       name, expected "mu|sigma|games" ('' when unrated), mu, sigma, games, conservative, last_ms, at
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
local count = tonumber(ARGV[3])
for i = 0, count - 1 do
  local arg = 6 + i * 8
  local now = redis.call('HMGET', KEYS[4 + 2 * i], 'mu', 'sigma', 'games')
  local seen = ''
  if now[1] then seen = now[1] .. '|' .. (now[2] or '') .. '|' .. (now[3] or '') end
  if seen ~= ARGV[arg + 1] then return -1 end
end
for i = 0, count - 1 do
  local arg = 6 + i * 8
  redis.call('HSET', KEYS[4 + 2 * i], 'mu', ARGV[arg + 2], 'sigma', ARGV[arg + 3], 'games', ARGV[arg + 4],
             'last_ms', ARGV[arg + 6])
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[4 + 2 * i], 'version', ARGV[5]) end
  redis.call('ZADD', KEYS[3], ARGV[arg + 5], ARGV[arg])
  redis.call('XADD', KEYS[5 + 2 * i], 'MAXLEN', ARGV[4], '*', 'match_id', ARGV[1], 'mu', ARGV[arg + 2],
             'sigma', ARGV[arg + 3], 'games', ARGV[arg + 4], 'at', ARGV[arg + 7])
end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
return 1
"""


class RatingStoreError(RuntimeError):
    """A result that could not be written; the message says why."""


@dataclass(frozen=True)
class LeaderboardRow:
    """One line of a game's leaderboard."""

    rank: int
    bot: str
    mu: float
    sigma: float
    games: int
    last_ms: int
    version: str = ""
    """The version its rating belongs to since its last new version (`RatingStore.widen`'s label);
    empty for a bot that never entered one."""

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def rating(self) -> BotRating:
        return BotRating(self.bot, self.mu, self.sigma, self.games)

    @property
    def provisional(self) -> bool:
        """Too few matches, or too wide a sigma (a new version), for the place to mean much yet."""
        return is_provisional(self.rating)


@dataclass(frozen=True)
class Prepared:
    """An update computed from the ratings as read: what `commit` writes if they are unchanged."""

    game: str
    result: LogEntry
    update: RatingUpdate
    seen: Mapping[str, str]
    """Per rated bot, the stored "mu|sigma|games" the update was computed from ('' if it had none)."""
    last_ms: Mapping[str, int]
    """Per rated bot, when it last played: the result's end, or as stored for a new version."""


def _number(value: float) -> str:
    return repr(float(value))


Stream = Sequence[tuple[bytes, Mapping[bytes, bytes]]]
"""Entries of a history stream as XRANGE returns them: (id, fields)."""


def _points(bot: str, entries: Stream) -> list[HistoryEntry]:
    """History entries from a history stream's entries, in the order given."""
    points = []
    for _, fields in entries:
        data = text_fields(fields)
        points.append(
            HistoryEntry(
                bot, data["match_id"], float(data["mu"]), float(data["sigma"]), int(data["games"]), float(data["at"])
            )
        )
    return points


@dataclass
class _Followed:
    """A neighbour pair whose established order a `RatingStore` follows: its judge, fed up to the
    stream entries `last` of the upper and the lower bot's histories, whose points were `seen`."""

    judge: OrderJudge
    last: tuple[bytes, bytes]
    seen: tuple[tuple[float, float, int] | tuple[()], tuple[float, float, int] | tuple[()]]
    """Per bot, (mu, sigma, games) of the last point fed: a leaderboard row equal to it has not moved."""

    def after(self, upper: Stream, lower: Stream) -> _Followed:
        """Itself once `upper` and `lower` (oldest first) were fed to its judge."""
        last = list(self.last)
        seen = list(self.seen)
        for side, stream in enumerate((upper, lower)):
            if stream:
                last[side] = stream[-1][0]
                point = text_fields(stream[-1][1])
                seen[side] = (float(point["mu"]), float(point["sigma"]), int(point["games"]))
        return _Followed(self.judge, (last[0], last[1]), (seen[0], seen[1]))


class RatingStore:
    """Ratings, leaderboards, history and results of every game."""

    def __init__(self, redis: Redis, history_kept: int = HISTORY_KEPT, archive: Archive | None = None) -> None:
        self.redis = redis
        self.history_kept = history_kept
        self.archive = archive
        """Where the oldest results went (`arena/store/archive.py`); a recompute needs them."""
        self._apply = redis.register_script(_APPLY)
        self._followed: dict[tuple[str, str, str], _Followed] = {}
        """Per (game, upper, lower), the established neighbours judged by the latest `certainty`."""
        self._following = asyncio.Lock()

    # -- the model ---------------------------------------------------------------------------------

    async def model(self, game: str) -> RatingModel:
        """The game's TrueSkill parameters: the stored ones, else the defaults."""
        return _model(await self.redis.hgetall(keys.rating_model(game)))

    def set_model(self, game: str, model: RatingModel, pipe: Pipeline) -> None:
        """Queue the replacement of the game's parameters on `pipe` (part of a recompute)."""
        pipe.delete(keys.rating_model(game))
        pipe.hset(keys.rating_model(game), mapping={name: _number(value) for name, value in model.to_dict().items()})

    async def widen(self, game: str, bot: str, label: str = "") -> BotRating | None:
        """Enter a new version of a rated bot: its sigma widened (`RatingModel.widened`) through the
        rating log, so that a recompute widens it at the same point; None if it has no rating here.

        `label` names the version (a hosted version number); a label counts once, so a repeated
        call changes nothing. Without one every call is a new version.
        """
        entry = NewVersion(bot, label or f"t{time.time_ns()}-{secrets.token_hex(3)}", time.time())
        for _ in range(MAX_ATTEMPTS):
            prepared = await self.prepare(game, entry)
            if prepared is None or not prepared.update.rated:
                return None
            outcome = await self.commit(prepared)
            if outcome == APPLIED:
                return prepared.update.ratings[0]
            if outcome == DUPLICATE:
                return None
        raise RatingStoreError(f"the rating of {bot} in {game} kept changing; widen it again")

    # -- applying results --------------------------------------------------------------------------

    async def apply(self, game: str, result: LogEntry) -> RatingUpdate | None:
        """Apply a result (or a new version) once: the update written, or None when its id was applied before."""
        for _ in range(MAX_ATTEMPTS):
            prepared = await self.prepare(game, result)
            if prepared is None:
                return None
            outcome = await self.commit(prepared)
            if outcome == APPLIED:
                return prepared.update
            if outcome == DUPLICATE:
                return None
        raise RatingStoreError(f"result {result.match_id} of {game}: the ratings kept changing; deliver it again")

    async def prepare(self, game: str, result: LogEntry) -> Prepared | None:
        """Read the bots' ratings and compute the update; None when the entry was applied before."""
        names = sorted(set(result.seats)) if isinstance(result, ResultRecord) else [result.bot]
        # One round trip for everything read: every rated match comes here.
        pipe = self.redis.pipeline(transaction=False)
        pipe.sismember(keys.results_applied(game), result.match_id)
        pipe.hgetall(keys.rating_model(game))
        for name in names:
            pipe.hmget(keys.rating(game, name), ["mu", "sigma", "games", "last_ms"])
        applied, model, *rows = await pipe.execute()
        if applied:
            return None
        current: dict[str, BotRating] = {}
        seen: dict[str, str] = {}
        played: dict[str, int] = {}
        for name, (mu, sigma, games, last_ms) in zip(names, rows, strict=True):
            if mu is None:
                seen[name] = ""
                continue
            seen[name] = f"{text(mu)}|{text_or_empty(sigma)}|{text_or_empty(games)}"
            played[name] = int(float(last_ms or 0))
            current[name] = BotRating.from_dict(
                name, {"mu": text(mu), "sigma": text_or_empty(sigma), "games": text_or_empty(games)}
            )
        update = compute_update(current, result, _model(model))
        ended = round(result.finished_at * 1000)
        return Prepared(
            game,
            result,
            update,
            {row.bot: seen[row.bot] for row in update.ratings},
            {row.bot: ended if isinstance(result, ResultRecord) else played.get(row.bot, 0) for row in update.ratings},
        )

    async def commit(self, prepared: Prepared) -> int:
        """Write a prepared update: APPLIED, DUPLICATE (applied before) or CONFLICT (ratings changed since)."""
        game, update = prepared.game, prepared.update
        script_keys = [keys.results_applied(game), keys.results(game), keys.leaderboard(game)]
        args: list[str | int] = [
            update.match_id,
            compact_json(prepared.result.to_dict()),
            len(update.ratings),
            self.history_kept,
            prepared.result.label if isinstance(prepared.result, NewVersion) else "",
        ]
        for row in update.ratings:
            script_keys += [keys.rating(game, row.bot), keys.history(game, row.bot)]
            args += [
                row.bot,
                prepared.seen[row.bot],
                _number(row.mu),
                _number(row.sigma),
                row.games,
                _number(row.conservative),
                prepared.last_ms[row.bot],
                _number(prepared.result.finished_at),
            ]
        return int(await self._apply(keys=script_keys, args=args))

    async def is_applied(self, game: str, match_id: str) -> bool:
        return bool(await self.redis.sismember(keys.results_applied(game), match_id))

    async def unapplied(self, game: str, match_ids: Sequence[str]) -> list[str]:
        """Those of `match_ids` whose results have not been applied (yet)."""
        if not match_ids:
            return []
        found = await self.redis.smismember(keys.results_applied(game), list(match_ids))
        return [match_id for match_id, applied in zip(match_ids, found, strict=True) if not applied]

    # -- reading -----------------------------------------------------------------------------------

    async def ratings(self, game: str, bots: Iterable[str]) -> dict[str, BotRating]:
        """The stored ratings of those of `bots` that have played `game`."""
        names = sorted(set(bots))
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hmget(keys.rating(game, name), ["mu", "sigma", "games"])
        found: dict[str, BotRating] = {}
        for name, (mu, sigma, games) in zip(names, await pipe.execute(), strict=True):
            if mu is not None:
                found[name] = BotRating.from_dict(
                    name, {"mu": text(mu), "sigma": text_or_empty(sigma), "games": text_or_empty(games)}
                )
        return found

    async def leaderboard(self, game: str, limit: int = 100) -> list[LeaderboardRow]:
        """Best first by mu - 3 sigma."""
        stored = await self.redis.zrevrange(keys.leaderboard(game), 0, max(1, limit) - 1)
        names = texts(stored)
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hmget(keys.rating(game, name), ["mu", "sigma", "games", "last_ms", "version"])
        rows = []
        for rank, (name, (mu, sigma, games, last_ms, version)) in enumerate(
            zip(names, await pipe.execute(), strict=True), 1
        ):
            if mu is not None:
                rows.append(
                    LeaderboardRow(
                        rank,
                        name,
                        float(mu),
                        float(sigma),
                        int(games or 0),
                        int(float(last_ms or 0)),
                        text_or_empty(version),
                    )
                )
        return rows

    async def history(self, game: str, bot: str, limit: int = HISTORY_KEPT) -> list[HistoryEntry]:
        """The bot's rating after each of its latest `limit` rated matches (and new versions), oldest first."""
        entries: Stream = cast(Any, await self.redis.xrevrange(keys.history(game, bot), count=limit))
        return _points(bot, entries[::-1])

    async def certainty(self, game: str, rows: Sequence[LeaderboardRow]) -> list[NeighbourOrder]:
        """How sure the order of each pair of neighbours in `rows` (a leaderboard, best first) is, and
        after how many matches an established order became so; `LeaderboardRow.provisional` says
        which bots are provisional.

        Only established pairs need the bots' histories, and this store follows them from call to
        call: a pair whose bots have not moved since reads nothing, one judged before reads the
        points added since, a new one its bots' latest `FIRST_POINTS` points (so its order may
        have been established before them: `since_earlier`). A history rewritten meanwhile (a
        recompute) is read afresh.
        """
        orders = neighbour_orders([row.rating for row in rows], {})
        now = {row.bot: (row.mu, row.sigma, row.games) for row in rows}
        async with self._following:
            established = [(game, order.upper, order.lower) for order in orders if order.established]
            followed = {key: value for key, value in self._followed.items() if key[0] != game}
            stale = []
            for key in established:
                known = self._followed.get(key)
                if known is not None and known.seen == (now[key[1]], now[key[2]]):
                    followed[key] = known
                else:
                    stale.append(key)
            for key, known, upper, lower in await self._read_since(stale):
                known.judge.feed(_points(key[1], upper), _points(key[2], lower))
                followed[key] = known.after(upper, lower)
            self._followed = followed
        judged = []
        for order in orders:
            since = followed[(game, order.upper, order.lower)].judge.since if order.established else None
            judged.append(
                order if since is None else replace(order, since_games=since.games, since_earlier=since.earlier)
            )
        return judged

    async def _read_since(
        self, pairs: Sequence[tuple[str, str, str]]
    ) -> list[tuple[tuple[str, str, str], _Followed, Stream, Stream]]:
        """Per pair, whom to feed (the judge followed, or a new one) and the history points of its
        upper and lower bot to feed it, oldest first. Both bots of a pair are read in one
        transaction, so that no match shows in one history and not yet in the other;
        `PAIRS_A_READ` pairs a round trip, a bot's latest points once in it."""
        fed = []
        for start in range(0, len(pairs), PAIRS_A_READ):
            batch = pairs[start : start + PAIRS_A_READ]
            replies: list[Any] = []
            where: dict[tuple[str, str, bytes], int] = {}
            """(game, bot, last point followed or b"" for the latest points) -> the reply's index."""
            async with self.redis.pipeline(transaction=True) as pipe:
                for game, *names in batch:
                    known = self._followed.get((game, names[0], names[1]))
                    for name, last in zip(names, known.last if known else (b"", b""), strict=True):
                        if (game, name, last) in where:
                            continue
                        where[(game, name, last)] = len(where)
                        if last:
                            pipe.xrange(keys.history(game, name), min=last, max=last)
                            pipe.xrange(keys.history(game, name), min=b"(" + last)
                        else:
                            pipe.xrevrange(keys.history(game, name), count=FIRST_POINTS)
                replies = await pipe.execute()
            answers: list[Stream | None] = []
            flat = iter(replies)
            for _, _, last in where:
                if last:
                    still, after = next(flat), next(flat)
                    answers.append(after if still else None)
                else:
                    answers.append(next(flat)[::-1])
            for key in batch:
                game, upper, lower = key
                known = self._followed.get(key)
                lasts = known.last if known else (b"", b"")
                streams = [answers[where[(game, upper, lasts[0])]], answers[where[(game, lower, lasts[1])]]]
                if known is None or streams[0] is None or streams[1] is None:
                    # Not followed yet, or a history rewritten since (a recompute): judge afresh.
                    if known is not None:
                        streams = list(await self._latest(game, (upper, lower)))
                    known = _Followed(OrderJudge(), (b"", b""), ((), ()))
                assert streams[0] is not None and streams[1] is not None
                fed.append((key, known, streams[0], streams[1]))
        return fed

    async def _latest(self, game: str, names: Sequence[str]) -> tuple[Stream, Stream]:
        """The latest `FIRST_POINTS` points of both bots' histories, oldest first."""
        async with self.redis.pipeline(transaction=True) as pipe:
            for name in names:
                pipe.xrevrange(keys.history(game, name), count=FIRST_POINTS)
            upper, lower = await pipe.execute()
        return upper[::-1], lower[::-1]

    async def results(self, game: str) -> list[ResultRecord]:
        """Every stored result of the game in finishing order (aborted ones too), the archived ones first."""
        return [entry for entry in await self.entries(game) if isinstance(entry, ResultRecord)]

    async def entries(self, game: str) -> list[LogEntry]:
        """The game's rating log, results and new versions in the order applied, the archived ones first."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.get(keys.results_archived(game))
            pipe.lrange(keys.results(game), 0, -1)
            count, stored = await pipe.execute()
        archived = await self._archived(game, int(count or 0))
        return [*archived, *(entry_from_dict(json.loads(entry)) for entry in stored)]

    async def _archived(self, game: str, count: int) -> list[LogEntry]:
        """The game's `count` archived log entries; RatingStoreError when this node cannot read them."""
        if count == 0:
            return []
        if self.archive is None:
            raise RatingStoreError(
                f"the oldest {count} results of {game} are in the disk archive, which this node does not have: "
                "run this on a node started with the arena's --archive-dir"
            )
        try:
            lines = await asyncio.to_thread(self.archive.results, game, count)
        except ArchiveUnreadable as error:
            raise RatingStoreError(str(error)) from None
        return [entry_from_dict(json.loads(line)) for line in lines]

    # -- recomputing -------------------------------------------------------------------------------

    async def recompute(self, game: str, model: RatingModel | None = None) -> RatingBook:
        """Rebuild the game's ratings, leaderboard and history from its stored results.

        With `model`, its parameters replace the game's from now on. A result stored meanwhile
        makes the rewrite start again, so none is lost.
        """
        for _ in range(MAX_ATTEMPTS):
            async with self.redis.pipeline(transaction=True) as pipe:
                await pipe.watch(
                    keys.results(game), keys.results_archived(game), keys.leaderboard(game), keys.rating_model(game)
                )
                stored = [entry_from_dict(json.loads(entry)) for entry in await pipe.lrange(keys.results(game), 0, -1)]
                archived = await self._archived(game, int(await pipe.get(keys.results_archived(game)) or 0))
                old = texts(await pipe.zrange(keys.leaderboard(game), 0, -1))
                use = model or await self._model_on(pipe, game)
                book = recompute_book([*archived, *stored], use)
                pipe.multi()  # type: ignore[no-untyped-call]
                # Archived results left the applied set when they moved; it stays that small.
                self._rewrite(game, book, old, pipe, {entry.match_id for entry in stored})
                if model is not None:
                    self.set_model(game, model, pipe)
                try:
                    await pipe.execute()
                except WatchError:
                    continue
                return book
        raise RatingStoreError(f"results of {game} kept arriving during the recompute; run it again")

    async def _model_on(self, pipe: Pipeline, game: str) -> RatingModel:
        stored: Mapping[Any, Any] = await pipe.hgetall(keys.rating_model(game))
        return RatingModel.from_dict({name: float(value) for name, value in text_fields(stored).items()})

    def _rewrite(self, game: str, book: RatingBook, old: Sequence[str], pipe: Pipeline, in_redis: set[str]) -> None:
        last_ms: dict[str, int] = {}
        version: dict[str, str] = {}
        for entry in book.history:
            if entry.played:
                last_ms[entry.bot] = round(entry.at * 1000)
            else:
                version[entry.bot] = entry.version
        for name in set(old) | set(book.ratings):
            pipe.delete(keys.rating(game, name), keys.history(game, name))
        pipe.delete(keys.leaderboard(game), keys.results_applied(game))
        for row in book.ratings.values():
            pipe.hset(
                keys.rating(game, row.bot),
                mapping={
                    "mu": _number(row.mu),
                    "sigma": _number(row.sigma),
                    "games": row.games,
                    "last_ms": last_ms.get(row.bot, 0),
                    **({"version": version[row.bot]} if row.bot in version else {}),
                },
            )
            pipe.zadd(keys.leaderboard(game), {row.bot: row.conservative})
        kept: dict[str, int] = {}
        for entry in reversed(book.history):
            # The latest `history_kept` of each bot, added oldest first.
            kept[entry.bot] = kept.get(entry.bot, 0) + 1
        for entry in book.history:
            if kept[entry.bot] > self.history_kept:
                kept[entry.bot] -= 1
                continue
            pipe.xadd(keys.history(game, entry.bot), {name: str(value) for name, value in entry.to_dict().items()})
        applied = sorted(book.applied & in_redis)
        if applied:
            pipe.sadd(keys.results_applied(game), *applied)


def _model(stored: Mapping[Any, Any]) -> RatingModel:
    """A game's TrueSkill parameters from its stored hash (the defaults where it is empty)."""
    return RatingModel.from_dict({name: float(value) for name, value in text_fields(stored).items()})
