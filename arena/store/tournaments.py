"""Tournaments in Redis: the spec (JSON), how far the schedule is planned, the results, the aborts.

Creating a tournament and queueing its first matches is one transaction, and so is planning a
later Swiss round: the round number is compared and set under WATCH, so when two nodes finish
the last matches of a round at once, only one of them plans the next.

Matches are fed to the work stream, not queued all at once: the tournaments of one account (an
owner, or the admin) have at most `window` matches on the stream together, and each stored
result lets `feed` put the next ones on (round-robin over the account's tournaments). So the
stream never holds more than a window of any one account's tournament matches, and orders of
everyone else (other owners' tournaments, the ladder, validations) are read within a window of
them; a cancel leaves at most a window of orders for the nodes to skip. How far a tournament is
fed is its `fed` field (matches 0 to fed - 1 went on the stream). An owner may have at most a
limited number of tournament matches pending (not settled: queued, on the stream or running);
`create` counts them under WATCH, so two creates at once cannot both pass the limit.

An aborted attempt of a match gets a note (why, and the re-run queued with it) in the same
transaction that queues the re-run, so a result delivered twice queues one re-run. Cancelling is
one script: it marks every match not started yet "cancelled" and stores an aborted result for it
(nodes that read its order find the result and skip it), while a node about to start a match
marks it "started" first (`may_start`): whichever comes first wins, so a match either runs to its
end or never starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from arena.ratings import ResultRecord
from arena.store import keys
from arena.store.codec import compact_json, text, text_fields, texts
from arena.store.store import NameTaken, now_ms
from arena.store.work import MatchOrder, WorkQueue
from arena.tournaments import AbortNote, Progress, TournamentError, TournamentSpec, tournament_progress

STARTED = "started"
CANCELLED = "cancelled"
"""The marks of `arena:tournament:{name}:starts`."""
RECORD_TRIES = 100
"""Tries of a transaction that other nodes' writes keep interrupting before giving up."""

_CANCEL = """
-- KEYS: tournament hash, starts hash, work results, tournament results, aborts hash, then the summary
--       hash of each candidate match
-- ARGV: now (ms), by, rounds planned and aborts noted when the candidates were chosen, then per
--       candidate its match id and the aborted result (JSON) to store if it has not started
-- Returns {status, cancelled, running}: status 0 done, 1 cancelled before, 2 finished before,
-- 3 the tournament changed since the candidates were chosen (choose again).
if redis.call('HEXISTS', KEYS[1], 'cancelled_ms') == 1 then return {1, 0, 0} end
if redis.call('HEXISTS', KEYS[1], 'finished_ms') == 1 then return {2, 0, 0} end
if tonumber(redis.call('HGET', KEYS[1], 'rounds_planned') or '0') ~= tonumber(ARGV[3])
   or redis.call('HLEN', KEYS[5]) ~= tonumber(ARGV[4]) then
  return {3, 0, 0}
end
redis.call('HSET', KEYS[1], 'cancelled_ms', ARGV[1], 'cancelled_by', ARGV[2])
local cancelled, running = 0, 0
for i = 1, #KEYS - 5 do
  local id, result = ARGV[3 + 2 * i], ARGV[4 + 2 * i]
  if redis.call('HEXISTS', KEYS[3], id) == 0 then
    local mark = redis.call('HGET', KEYS[2], id)
    if not mark and redis.call('EXISTS', KEYS[5 + i]) == 0 then
      redis.call('HSET', KEYS[2], id, 'cancelled')
      redis.call('HSET', KEYS[3], id, result)
      redis.call('HSET', KEYS[4], id, result)
      cancelled = cancelled + 1
    elseif mark ~= 'cancelled' then
      running = running + 1
    end
  end
end
if running == 0 then redis.call('HSET', KEYS[1], 'finished_ms', ARGV[1]) end
return {0, cancelled, running}
"""


ADMIN_ACCOUNT = "admin"


def owner_account(name: str) -> str:
    """The account of owner `name`, apart from the admin's even for an owner named "admin"."""
    return f"owner:{name}"


class PendingLimit(TournamentError):
    """An owner's tournament would take its pending tournament matches over the limit; the message says the numbers."""


@dataclass(frozen=True)
class TournamentState:
    """A stored tournament: its spec, who made it, when, and the rounds planned and matches fed so far."""

    spec: TournamentSpec
    created_by: str
    created_ms: int
    rounds_planned: int
    finished_ms: int = 0
    """When it ended: every match finished or aborted for good, or, once cancelled, its running ones ended."""
    cancelled_ms: int = 0
    cancelled_by: str = ""
    account: str = ""
    """Whose window and limit its matches count in (`owner_account`, ADMIN_ACCOUNT); "" for a tournament
    made before feeding, every planned match of which went on the stream when it was planned."""
    fed: int = -1
    """Matches 0 to fed - 1 went on the work stream (-1: every match of the planned rounds)."""

    @property
    def planned(self) -> int:
        """Matches of the planned rounds: the ones that may go on the stream now."""
        return self.rounds_planned * self.spec.matches_per_round

    @property
    def fed_matches(self) -> int:
        return self.planned if self.fed < 0 else min(self.fed, self.planned)


@dataclass(frozen=True)
class Load:
    """An account's tournament matches: `pending`, not settled yet (on the stream, running, or still
    to be fed or planned), and `queued`, those of them on the work stream (waiting or running)."""

    pending: int = 0
    queued: int = 0


OrderMaker = Callable[[TournamentState, int, int], Awaitable[list[MatchOrder]]]
"""The work orders of a tournament's match numbers `start` to `stop - 1` (of planned rounds)."""


@dataclass
class _Open:
    """One of an account's open tournaments as `feed` sees it."""

    state: TournamentState
    settled: int
    """Matches settled: done, aborted for good or cancelled (first attempts aborted and re-run are not)."""

    @property
    def load(self) -> Load:
        if self.state.finished_ms:
            return Load()
        if self.state.cancelled_ms:  # what still runs
            running = max(0, self.state.planned - self.settled)
            return Load(running, running)
        queued = max(0, self.state.fed_matches - self.settled)
        return Load(self.state.spec.total_matches - self.settled, queued)

    @property
    def feedable(self) -> int:
        if self.state.finished_ms or self.state.cancelled_ms:
            return 0
        return self.state.planned - self.state.fed_matches


@dataclass(frozen=True)
class CancelOutcome:
    """What `cancel` did: 0 done, or why not (CANCELLED_BEFORE, FINISHED_BEFORE, CHANGED)."""

    status: int
    cancelled: int = 0
    """Matches marked cancelled now (queued, not started)."""
    running: int = 0
    """Matches left to finish."""


CANCEL_DONE, CANCELLED_BEFORE, FINISHED_BEFORE, CHANGED = range(4)


class TournamentStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.queue = WorkQueue(redis)
        self._cancel = redis.register_script(_CANCEL)

    async def create(
        self,
        spec: TournamentSpec,
        created_by: str,
        account: str,
        rounds: int,
        make_orders: OrderMaker,
        *,
        window: int,
        limit: int | None,
    ) -> None:
        """Store the spec with `rounds` rounds planned and feed its first matches (within the account's
        `window`), at once. NameTaken if the name is used; PendingLimit when the account's pending
        matches and the new ones would be more than `limit` (None: no limit)."""
        key = keys.tournament(spec.name)
        created = now_ms()
        state = TournamentState(spec, created_by, created, rounds, account=account, fed=0)
        for _ in range(RECORD_TRIES):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key, keys.tournaments_open(account))
                    if await pipe.exists(key):
                        raise NameTaken(f"a tournament named {spec.name!r} exists already; choose another name")
                    tournaments = await self._open(pipe, account)
                    load = _sum(tournaments)
                    if limit is not None and load.pending + spec.total_matches > limit:
                        raise PendingLimit(
                            f"{created_by} has {load.pending:,} tournament matches pending and {spec.name!r} would "
                            f"add {spec.total_matches:,}: over the limit of {limit:,} per owner; wait for them to be "
                            "played, cancel a tournament, or make this one smaller"
                        )
                    tournaments.append(_Open(state, 0))
                    fed = await self._allocate(tournaments, window - load.queued, make_orders)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(
                        key,
                        mapping={
                            "spec": compact_json(spec.to_dict()),
                            "created_by": created_by,
                            "created_ms": created,
                            "rounds_planned": rounds,
                            "account": account,
                            "fed": 0,
                        },
                    )
                    pipe.zadd(keys.TOURNAMENTS, {spec.name: created})
                    pipe.zadd(keys.tournaments_open(account), {spec.name: created})
                    await self._write_feed(pipe, account, tournaments, fed)
                    await pipe.execute()
                    return
                except WatchError:
                    continue
        raise TournamentError(f"tournament {spec.name!r}: {created_by}'s tournaments kept changing; try again")

    async def feed(self, account: str, window: int, make_orders: OrderMaker) -> int:
        """Put the next matches of the account's tournaments on the work stream, until `window` of
        them are there (round-robin over its tournaments); returns how many went on. Idempotent:
        called after every stored result, by whichever node stored it."""
        if not account:
            return 0
        for _ in range(RECORD_TRIES):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(keys.tournaments_open(account))
                    tournaments = await self._open(pipe, account)
                    fed = await self._allocate(tournaments, window - _sum(tournaments).queued, make_orders)
                    ended = [open_.state.spec.name for open_ in tournaments if open_.state.finished_ms]
                    if not fed and not ended:
                        return 0
                    pipe.multi()  # type: ignore[no-untyped-call]
                    await self._write_feed(pipe, account, tournaments, fed)
                    await pipe.execute()
                    return sum(len(orders) for orders in fed.values())
                except WatchError:
                    continue
        raise RuntimeError(f"feeding the tournaments of {account}: they kept changing; the next result feeds them")

    async def _open(self, pipe: Any, account: str) -> list[_Open]:
        """The account's open tournaments, each of their hashes watched on `pipe` (which watches the index)."""
        names = texts(await pipe.zrange(keys.tournaments_open(account), 0, -1))
        if not names:
            return []
        await pipe.watch(keys.tournaments_open(account), *(keys.tournament(name) for name in names))
        reads = self.redis.pipeline(transaction=False)
        for name in names:
            reads.hgetall(keys.tournament(name))
            reads.hlen(keys.tournament_results(name))
            reads.hvals(keys.tournament_aborts(name))
        replies = await reads.execute()
        found = []
        for index, name in enumerate(names):
            data, results, aborts = replies[3 * index : 3 * index + 3]
            if not data:
                continue
            state = _state(text_fields(data))
            reruns = sum(1 for note in aborts if _note(text(note)).rerun)
            found.append(_Open(state, int(results) - reruns))
            assert state.spec.name == name
        return found

    async def _allocate(
        self, tournaments: Sequence[_Open], room: int, make_orders: OrderMaker
    ) -> dict[str, list[MatchOrder]]:
        """The orders that fill `room` places on the stream, one match per tournament in turn (oldest first)."""
        counts = dict.fromkeys((open_.state.spec.name for open_ in tournaments), 0)
        wanting = [open_ for open_ in tournaments if open_.feedable]
        while room > 0 and wanting:
            for open_ in list(wanting):
                if room <= 0:
                    break
                counts[open_.state.spec.name] += 1
                room -= 1
                if counts[open_.state.spec.name] >= open_.feedable:
                    wanting.remove(open_)
        fed = {}
        for open_ in tournaments:
            count = counts[open_.state.spec.name]
            if count:
                start = open_.state.fed_matches
                fed[open_.state.spec.name] = await make_orders(open_.state, start, start + count)
        return fed

    async def _write_feed(
        self, pipe: Any, account: str, tournaments: Sequence[_Open], fed: dict[str, list[MatchOrder]]
    ) -> None:
        """Queue on `pipe` the orders fed and each tournament's new `fed`; ended tournaments leave the index."""
        for open_ in tournaments:
            name = open_.state.spec.name
            orders = fed.get(name)
            if orders:
                pipe.hset(keys.tournament(name), "fed", open_.state.fed_matches + len(orders))
                await self.queue.submit(orders, pipe)
            if open_.state.finished_ms:
                pipe.zrem(keys.tournaments_open(account), name)

    async def sealed(self, name: str) -> bool:
        """Whether matches of tournament `name` keep their seed and hidden cards to themselves for now: in a
        duplicate tournament every deal is played at several tables, so one table's finished record would
        show the hands of another still to play; they are shown once the tournament has ended."""
        state = await self.get(name) if name else None
        return state is not None and state.spec.duplicate and not state.finished_ms

    async def get(self, name: str) -> TournamentState | None:
        data = text_fields(await self.redis.hgetall(keys.tournament(name)))
        return _state(data) if data else None

    async def names(self, limit: int = 100) -> list[str]:
        """Tournament names, newest first."""
        names: list[Any] = await self.redis.zrevrange(keys.TOURNAMENTS, 0, limit - 1)
        return texts(names)

    async def results(self, name: str) -> list[ResultRecord]:
        """The tournament's stored results, every attempt, in match number order (re-runs after their first)."""
        stored = await self.redis.hgetall(keys.tournament_results(name))
        return _sorted(ResultRecord.from_dict(json.loads(text)) for text in stored.values())

    async def results_stored(self, name: str) -> int:
        """How many results (of any attempt, aborted ones too) the tournament has stored: one HLEN."""
        return int(await self.redis.hlen(keys.tournament_results(name)))

    async def progress(self, state: TournamentState) -> tuple[Progress, list[ResultRecord]]:
        """What became of every match (see `arena.tournaments.progress`), and the results it is made of."""
        name = state.spec.name
        pipe = self.redis.pipeline(transaction=False)
        for key in (keys.tournament_results, keys.tournament_aborts, keys.tournament_reasons, keys.tournament_starts):
            pipe.hgetall(key(name))
        stored, aborts, reasons, starts = (text_fields(found) for found in await pipe.execute())
        results = {match_id: ResultRecord.from_dict(json.loads(text)) for match_id, text in stored.items()}
        progress = tournament_progress(
            state.spec,
            rounds_planned=state.rounds_planned,
            results=results,
            aborts={match_id: _note(text) for match_id, text in aborts.items()},
            reasons=reasons,
            cancelled_ids={match_id for match_id, mark in starts.items() if mark == CANCELLED},
            cancelled_ms=state.cancelled_ms,
            ended=bool(state.finished_ms),
        )
        return progress, _sorted(results.values())

    async def plan(self, state: TournamentState, planned: int, orders: Sequence[MatchOrder]) -> bool:
        """Plan round `planned` (0-based) if nobody did; False when another node was first or it was cancelled.

        A tournament that is fed (`state.account`) gets its orders from `feed` afterwards; an older one
        has `orders` (the whole round) queued here, as it always had.
        """
        key = keys.tournament(state.spec.name)
        async with self.redis.pipeline(transaction=True) as pipe:
            try:
                await pipe.watch(key)
                if int(await pipe.hget(key, "rounds_planned") or 0) != planned:
                    return False
                if await pipe.hexists(key, "cancelled_ms"):
                    return False
                pipe.multi()  # type: ignore[no-untyped-call]
                pipe.hset(key, "rounds_planned", planned + 1)
                if not state.account:
                    await self.queue.submit(orders, pipe)
                await pipe.execute()
            except WatchError:
                return False
        return True

    async def mark_finished(self, name: str) -> None:
        await self.redis.hsetnx(keys.tournament(name), "finished_ms", now_ms())

    # -- aborted matches ------------------------------------------------------------------------

    async def note_abort(self, order: MatchOrder, reason: str) -> None:
        """Why the node aborts `order` (call it before storing the aborted result); a no-op outside tournaments."""
        if order.tournament:
            await self.redis.hsetnx(keys.tournament_reasons(order.tournament), order.match_id, reason)

    async def noted_reason(self, name: str, match_id: str) -> str:
        found = await self.redis.hget(keys.tournament_reasons(name), match_id)
        return text(found) if found else ""

    async def record_abort(self, name: str, match_id: str, reason: str, rerun: MatchOrder | None) -> AbortNote:
        """Keep why attempt `match_id` was aborted and queue `rerun` with it (none once cancelled).

        The first call for an attempt decides; later ones (a result delivered again) return its note.
        """
        key, aborts = keys.tournament(name), keys.tournament_aborts(name)
        for _ in range(RECORD_TRIES):
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key, aborts)
                    found = await pipe.hget(aborts, match_id)
                    if found:
                        return _note(text(found))
                    cancelled = await pipe.hexists(key, "cancelled_ms")
                    note = AbortNote(reason, rerun.match_id if rerun is not None and not cancelled else "")
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.hset(aborts, match_id, compact_json({"reason": note.reason, "rerun": note.rerun}))
                    if rerun is not None and note.rerun:
                        await self.queue.submit([rerun], pipe)
                    await pipe.execute()
                    return note
                except WatchError:
                    continue
        raise RuntimeError(f"tournament {name}: could not record the abort of {match_id}; it kept changing")

    # -- cancelling -----------------------------------------------------------------------------

    async def may_start(self, order: MatchOrder) -> bool:
        """Whether a node may start `order` now; False when its tournament was cancelled before it started.

        A node calls it once the match's seats are ready, right before starting it: it marks the
        match started, so a cancel from then on leaves it to finish (a resumed match is let on too).
        """
        if not order.tournament:
            return True
        starts = keys.tournament_starts(order.tournament)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hsetnx(starts, order.match_id, STARTED)
        pipe.hget(starts, order.match_id)
        _, mark = await pipe.execute()
        return mark is None or text(mark) != CANCELLED

    async def cancel(
        self, state: TournamentState, by: str, candidates: Sequence[ResultRecord], aborts_seen: int
    ) -> CancelOutcome:
        """Cancel the tournament: `candidates` are the aborted results to store for its matches still
        to be played (their current attempts), chosen when `state` had `aborts_seen` abort notes.
        Those not started are marked cancelled; the others run on. CHANGED: choose again."""
        name = state.spec.name
        script_keys = [
            keys.tournament(name),
            keys.tournament_starts(name),
            keys.WORK_RESULTS,
            keys.tournament_results(name),
            keys.tournament_aborts(name),
        ]
        args: list[str | int] = [now_ms(), by, state.rounds_planned, aborts_seen]
        for result in candidates:
            script_keys.append(keys.match(result.match_id))
            args += [result.match_id, compact_json(result.to_dict())]
        status, cancelled, running = await self._cancel(keys=script_keys, args=args)
        return CancelOutcome(int(status), int(cancelled), int(running))

    async def marked_cancelled(self, name: str, match_id: str) -> bool:
        """Whether `match_id` was marked cancelled with its tournament before it started."""
        mark = await self.redis.hget(keys.tournament_starts(name), match_id)
        return mark is not None and text(mark) == CANCELLED

    async def aborts_noted(self, name: str) -> int:
        return int(await self.redis.hlen(keys.tournament_aborts(name)))

    # -- who is awaited -------------------------------------------------------------------------

    async def connected(self, bots: Iterable[str], game: str) -> set[str]:
        """Those of `bots` with a session playing `game` on any node (as the nodes state it in `arena:presence:{bot}`)."""
        names = sorted(set(bots))
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hvals(keys.presence(name))
        found = set()
        for name, entries in zip(names, await pipe.execute(), strict=True):
            for raw in entries:
                games = json.loads(raw).get("games") or []
                if not games or game in games:
                    found.add(name)
                    break
        return found


_ATTEMPT = re.compile(r"-(\d+)(?:-try(\d+))?$")


def _attempt(match_id: str) -> tuple[int, int]:
    found = _ATTEMPT.search(match_id)
    return (int(found[1]), int(found[2] or 1)) if found else (0, 0)


def _sorted(records: Iterable[ResultRecord]) -> list[ResultRecord]:
    return sorted(records, key=lambda record: _attempt(record.match_id))


def _note(text: str) -> AbortNote:
    data = json.loads(text)
    return AbortNote(str(data.get("reason", "")), str(data.get("rerun", "")))


def _state(data: dict[str, str]) -> TournamentState:
    return TournamentState(
        spec=TournamentSpec.from_dict(json.loads(data["spec"])),
        created_by=data.get("created_by", ""),
        created_ms=int(data.get("created_ms", "0")),
        rounds_planned=int(data.get("rounds_planned", "0")),
        finished_ms=int(data.get("finished_ms", "0")),
        cancelled_ms=int(data.get("cancelled_ms", "0")),
        cancelled_by=data.get("cancelled_by", ""),
        account=data.get("account", ""),
        fed=int(data.get("fed", "-1")),
    )


def _sum(tournaments: Iterable[_Open]) -> Load:
    loads = [open_.load for open_ in tournaments]
    return Load(sum(load.pending for load in loads), sum(load.queued for load in loads))
