"""The match work stream: orders to run matches, read by every node through one consumer group.

A node reads orders with XREADGROUP under its own consumer name and acknowledges one only once
the match's result is stored. While a match runs, the node keeps its pending entry fresh (an
XCLAIM to itself); a node that dies stops doing so, and after `min_idle` a living node takes
the entry over with XAUTOCLAIM and resumes the match from its event stream: the seed, then every
action applied. Storing a result is one Lua script keyed by the match id, so a match delivered
twice is counted once: the second store finds the result and only acknowledges.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import redis
from redis.asyncio import Redis

from arena.ratings import ResultRecord
from arena.store import keys
from arena.store.codec import compact_json, text, text_fields
from arena.store.store import MatchRecord

EVENTS_KEPT_MS = 60_000
"""How long a finished match's event stream stays (for a reader that was following it); its replay record
holds every move for good."""

_HOLDS = """
-- Whether consumer ARGV[2] of group ARGV[1] still holds entry `entry` of stream KEYS[1] with the
-- delivery count `token` it got it with: a node that lost an order (declared dead and taken over,
-- then back) or gave it back holds it no more, and writes nothing for its match.
local function holds(entry, token)
  local pending = redis.call('XPENDING', KEYS[1], ARGV[1], entry, entry, 1)
  return #pending == 1 and pending[1][2] == ARGV[2] and tonumber(pending[1][4]) == tonumber(token)
end
"""

_STORE_RESULT = (
    _HOLDS
    + """
-- KEYS: work stream, results hash, match hash, tournament results hash (the results hash when none), events
-- ARGV: group, consumer, entry id, token, match id, result JSON, summary JSON,
--       stored replay (arena/store/replays.py; '' for none), how long the event stream stays (ms)
-- Returns 1 when stored now, 0 when stored before, -1 when this consumer no longer holds the order.
if redis.call('HEXISTS', KEYS[2], ARGV[5]) == 1 then return 0 end
if not holds(ARGV[3], ARGV[4]) then return -1 end
redis.call('HSET', KEYS[2], ARGV[5], ARGV[6])
redis.call('HSET', KEYS[3], 'summary', ARGV[7])
if ARGV[8] ~= '' then redis.call('HSET', KEYS[3], 'replay', ARGV[8]) end
if KEYS[4] ~= KEYS[2] then redis.call('HSET', KEYS[4], ARGV[5], ARGV[6]) end
redis.call('PEXPIRE', KEYS[5], ARGV[9])
return 1
"""
)

_STARTED = (
    _HOLDS
    + """
-- KEYS: work stream, results hash, match hash, events, then the indexes to list the match in
-- ARGV: group, consumer, entry id, token, match id, summary JSON, started ms, seed ('' to keep the events)
-- Returns 1, or -1 when this consumer no longer holds the order (nothing is written).
if not holds(ARGV[3], ARGV[4]) then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[5]) == 0 then redis.call('HSET', KEYS[3], 'summary', ARGV[6]) end
for i = 5, #KEYS do redis.call('ZADD', KEYS[i], ARGV[7], ARGV[5]) end
if ARGV[8] ~= '' then
  redis.call('DEL', KEYS[4])
  redis.call('XADD', KEYS[4], '*', 'seed', ARGV[8])
end
return 1
"""
)

_FORGET_CONSUMER = """
-- KEYS: work stream; ARGV: group, consumer, idle ms. Deletes the consumer only if it still holds nothing and
-- is still idle that long, checked in the same step.
for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local fields = {}
  for i = 1, #consumer, 2 do fields[consumer[i]] = consumer[i + 1] end
  if fields['name'] == ARGV[2] then
    if tonumber(fields['pending']) == 0 and tonumber(fields['idle']) > tonumber(ARGV[3]) then
      return redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
    end
    return -1
  end
end
return -1
"""

_APPEND_EVENTS = (
    _HOLDS
    + """
-- KEYS: work stream, then each match's event stream
-- ARGV: group, consumer, then per match: entry id, token, actions before these, actions (comma-separated)
-- Returns per match 1 (appended) or 0 (this consumer no longer holds its order: nothing appended).
local written = {}
for i = 2, #KEYS do
  local at = 3 + (i - 2) * 4
  if holds(ARGV[at], ARGV[at + 1]) then
    redis.call('XADD', KEYS[i], '*', 'at', ARGV[at + 2], 'a', ARGV[at + 3])
    written[#written + 1] = 1
  else
    written[#written + 1] = 0
  end
end
return written
"""
)


@dataclass(frozen=True)
class MatchOrder:
    """A match to run: what every node needs to start it, or to resume it from its events."""

    match_id: str
    game: str
    params: dict[str, Any]
    """Game parameters, `players` included."""
    seats: tuple[str, ...]
    seed: str
    """The match seed in hex."""
    per_move: float = 0.0
    """Seconds per move; 0 for the node's default clock."""
    bank: float = 0.0
    tournament: str = ""
    rated: bool = False
    attempts: int = 0
    """How often a node gave the order back because it could not seat its bots."""
    created_ms: int = 0
    validating: int = 0
    """The hosted version of the bot in the first seat that this match validates (0: none): that seat
    takes a process of that version started for this match alone, never another session of the bot."""
    bounces: int = 0
    """How often a node handed the order back for a node where more of its bots are connected."""

    def to_json(self) -> str:
        return compact_json(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchOrder:
        data = json.loads(text)
        data["seats"] = tuple(data["seats"])
        return cls(**data)


@dataclass(frozen=True)
class Delivery:
    """An order as one node received it: the stream entry it must acknowledge, and its fencing token."""

    entry_id: str
    order: MatchOrder
    token: int = 1
    """How many times the entry had been delivered when this node got it (1 when read from the stream; each
    claim adds one). Every write for the match checks it: a node whose order was claimed since writes nothing."""


class LostOrder(Exception):
    """This node no longer holds the order (another node claimed it, or it was given back): it stops the match."""


@dataclass(frozen=True)
class EventBatch:
    """Actions of one match to append to its event stream, under the delivery that holds its order."""

    entry_id: str
    token: int
    at: int
    """The match's count of actions before these."""
    actions: Sequence[int]


@dataclass
class MatchEvents:
    """What the event stream of a match holds so far."""

    seed: str = ""
    actions: list[int] = field(default_factory=list)


def new_seed() -> str:
    return secrets.token_bytes(16).hex()


class WorkQueue:
    """One node's handle on the work stream; `consumer` names the node in the consumer group."""

    def __init__(self, redis: Redis, consumer: str = "") -> None:
        self.redis = redis
        self.consumer = consumer or "node-" + secrets.token_hex(4)
        self._store_result = redis.register_script(_STORE_RESULT)
        self._started = redis.register_script(_STARTED)
        self._append_events = redis.register_script(_APPEND_EVENTS)
        self._forget_consumer = redis.register_script(_FORGET_CONSUMER)

    async def ensure_group(self) -> None:
        """Create the consumer group (and the stream) unless they exist."""
        try:
            await self.redis.xgroup_create(keys.WORK, keys.WORK_GROUP, id="0", mkstream=True)
        except redis.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    # -- orders -----------------------------------------------------------------------------

    async def submit(self, orders: Iterable[MatchOrder], pipe: Any = None) -> None:
        """Append orders to the stream; with `pipe`, as part of the caller's transaction."""
        target = pipe if pipe is not None else self.redis.pipeline(transaction=True)
        for order in orders:
            target.xadd(keys.WORK, {"order": order.to_json()})
        if pipe is None:
            await target.execute()

    async def read(self, count: int, block_ms: int, via: Redis | None = None) -> list[Delivery]:
        """Up to `count` new orders for this node, waiting up to `block_ms` for the first; `via` a client
        of its own (whose read another client can end early with CLIENT UNBLOCK)."""
        reply: Any = await (via or self.redis).xreadgroup(
            keys.WORK_GROUP, self.consumer, {keys.WORK: ">"}, count=count, block=block_ms
        )
        return [delivery for _, entries in reply or [] for delivery in _deliveries(entries)]

    async def claim_stale(self, min_idle_ms: int, count: int = 100) -> list[Delivery]:
        """Orders pending at other (dead) nodes for `min_idle_ms` or more, now this node's."""
        claimed: list[Delivery] = []
        start = "0-0"
        while len(claimed) < count:
            reply: Any = await self.redis.xautoclaim(
                keys.WORK, keys.WORK_GROUP, self.consumer, min_idle_ms, start_id=start, count=count - len(claimed)
            )
            start = text(reply[0])
            claimed.extend(_deliveries(reply[1]))
            if start == "0-0":
                break
        if not claimed:
            return claimed
        # Each claim counted one more delivery: the count now is the claimer's fencing token.
        pending: Any = await self.redis.xpending_range(
            keys.WORK,
            keys.WORK_GROUP,
            min=min((d.entry_id for d in claimed), key=_entry_order),
            max=max((d.entry_id for d in claimed), key=_entry_order),
            count=len(claimed) + 1000,
            consumername=self.consumer,
        )
        tokens = {text(entry["message_id"]): int(entry["times_delivered"]) for entry in pending}
        return [replace(d, token=tokens[d.entry_id]) for d in claimed if d.entry_id in tokens]

    async def keep(self, entry_ids: Sequence[str]) -> set[str]:
        """Refresh this node's pending entries among `entry_ids`; returns those another node took over.

        An entry taken over was idle too long here (this node looked dead); one acknowledged
        meanwhile is neither kept nor lost.
        """
        if not entry_ids:
            return set()
        pending: Any = await self.redis.xpending_range(
            keys.WORK,
            keys.WORK_GROUP,
            min=min(entry_ids, key=_entry_order),
            max=max(entry_ids, key=_entry_order),
            count=len(entry_ids) + 1000,
            consumername=self.consumer,
        )
        held = {text(entry["message_id"]) for entry in pending} & set(entry_ids)
        if held:
            claimed: list[Any] = sorted(held)
            await self.redis.xclaim(keys.WORK, keys.WORK_GROUP, self.consumer, 0, claimed, justid=True)
        lost = set()
        for entry_id in set(entry_ids) - held:
            owner: Any = await self.redis.xpending_range(
                keys.WORK, keys.WORK_GROUP, min=entry_id, max=entry_id, count=1
            )
            if owner and text(owner[0]["consumer"]) != self.consumer:
                lost.add(entry_id)
        return lost

    async def forget_idle_consumers(self, idle_ms: int) -> list[str]:
        """Remove from the group the consumers that hold nothing and did nothing for `idle_ms`: dead
        incarnations, which would otherwise pile up (a node restarted 1,000 times is 1,000 consumers)."""
        consumers: Any = await self.redis.xinfo_consumers(keys.WORK, keys.WORK_GROUP)
        idle = [
            text(consumer["name"])
            for consumer in consumers
            if int(consumer["pending"]) == 0
            and int(consumer["idle"]) > idle_ms
            and text(consumer["name"]) != self.consumer
        ]
        for name in idle:
            # DELCONSUMER would drop pending entries with it: only consumers that hold none are named above,
            # and one that took an order since (its idle time reset) is skipped here.
            await self._forget_consumer(keys=[keys.WORK], args=[keys.WORK_GROUP, name, idle_ms])
        return idle

    async def give_back(self, delivery: Delivery, attempt: bool = True, bounced: bool = False) -> None:
        """Put the order at the end of the stream again and drop this delivery.

        With `attempt`, the order counts one more failed attempt to seat its bots; with `bounced`, one
        more hand-on for a node where its bots are; with neither, it is handed on untouched (a stopping
        node's, or one this node has no room to wait for).
        """
        order = delivery.order
        if attempt:
            order = replace(order, attempts=order.attempts + 1)
        if bounced:
            order = replace(order, bounces=order.bounces + 1)
        pipe = self.redis.pipeline(transaction=True)
        pipe.xadd(keys.WORK, {"order": order.to_json()})
        pipe.xack(keys.WORK, keys.WORK_GROUP, delivery.entry_id)
        pipe.xdel(keys.WORK, delivery.entry_id)
        await pipe.execute()

    async def backlog(self) -> int:
        """Orders not yet finished: waiting in the stream or pending at a node."""
        return int(await self.redis.xlen(keys.WORK))

    # -- events -----------------------------------------------------------------------------

    async def events(self, match_id: str) -> MatchEvents:
        return _events(await self.redis.xrange(keys.match_events(match_id)))

    async def found(self, match_id: str) -> tuple[ResultRecord | None, MatchEvents]:
        """What is stored of a match before a node plays it: its result, if it has one, and its event stream
        (a resumed match's seed and moves so far). One round trip: every match starts with it."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(keys.WORK_RESULTS, match_id)
        pipe.xrange(keys.match_events(match_id))
        stored, entries = await pipe.execute()
        return _result(stored), _events(entries)

    async def result(self, match_id: str) -> ResultRecord | None:
        return _result(await self.redis.hget(keys.WORK_RESULTS, match_id))

    async def started(self, delivery: Delivery, record: MatchRecord, seed: str, fresh: bool) -> None:
        """The match is listed (summary and indexes); a fresh one's event stream begins with its seed.

        LostOrder when this node no longer holds the order: then nothing is written."""
        indexes = [keys.MATCHES, keys.matches_of_game(record.game)]
        indexes += [keys.matches_of_bot(name) for name in sorted(set(record.seats))]
        if record.tournament_id:
            indexes.append(keys.matches_of_tournament(record.tournament_id))
        done = await self._started(
            keys=[keys.WORK, keys.WORK_RESULTS, keys.match(record.match_id), keys.match_events(record.match_id),
                  *indexes],
            args=[keys.WORK_GROUP, self.consumer, delivery.entry_id, delivery.token, record.match_id,
                  record.to_json(), record.started_ms, seed if fresh else ""],
        )  # fmt: skip
        if int(done) < 0:
            raise LostOrder(f"match {record.match_id}: this node no longer holds its order")

    async def append_events(self, batches: Mapping[str, EventBatch]) -> set[str]:
        """Append each match's actions, in the order applied, as one entry of its event stream; returns the
        matches whose orders this node no longer holds (nothing was appended for those).

        A batch carries the match's count of actions before it: a batch written twice (retried after a
        lost reply) then reads once (`events`), so a retry can never duplicate or reorder moves.
        """
        if not batches:
            return set()
        matches = list(batches)
        args: list[str | int] = [keys.WORK_GROUP, self.consumer]
        for match_id in matches:
            batch = batches[match_id]
            args += [batch.entry_id, batch.token, batch.at, ",".join(map(str, batch.actions))]
        written = await self._append_events(keys=[keys.WORK, *map(keys.match_events, matches)], args=args)
        return {match_id for match_id, done in zip(matches, written, strict=True) if not int(done)}

    # -- results ----------------------------------------------------------------------------

    async def store_result(
        self,
        delivery: Delivery,
        record: MatchRecord,
        replay: bytes | None,
        result: ResultRecord,
    ) -> bool:
        """Store the result, summary and replay record once; False when the result was stored before.

        `replay` is the record as stored (`arena.store.replays`), None for a match that has none (aborted).

        LostOrder when this node no longer holds the order and no result is stored: another node plays
        the match to its end. The caller acknowledges the delivery afterwards (`ack`), once what follows
        a result is done.
        """
        order = delivery.order
        tournament = keys.tournament_results(order.tournament) if order.tournament else keys.WORK_RESULTS
        stored = await self._store_result(
            keys=[keys.WORK, keys.WORK_RESULTS, keys.match(order.match_id), tournament,
                  keys.match_events(order.match_id)],
            args=[keys.WORK_GROUP, self.consumer, delivery.entry_id, delivery.token, order.match_id,
                  compact_json(result.to_dict()), record.to_json(),
                  replay if replay is not None else "", EVENTS_KEPT_MS],
        )  # fmt: skip
        if int(stored) < 0:
            raise LostOrder(f"match {order.match_id}: this node no longer holds its order; its result is not stored")
        return bool(stored)

    async def ack(self, delivery: Delivery) -> None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.xack(keys.WORK, keys.WORK_GROUP, delivery.entry_id)
        pipe.xdel(keys.WORK, delivery.entry_id)
        await pipe.execute()


def _result(stored: Any) -> ResultRecord | None:
    return ResultRecord.from_dict(json.loads(stored)) if stored else None


def _events(entries: Any) -> MatchEvents:
    """The event stream's entries read as its seed and actions."""
    found = MatchEvents()
    for _, fields in entries:
        data = text_fields(fields)
        if "seed" in data:
            found.seed = data["seed"]
        elif data.get("a"):
            batch = [int(action) for action in data["a"].split(",")]
            at = int(data.get("at", len(found.actions)))
            if at > len(found.actions):
                break  # a batch after a gap cannot be placed (never written so: batches go in order)
            # A batch written twice (its first write's reply was lost) overlaps what is there.
            found.actions.extend(batch[len(found.actions) - at :])
    return found


def _entry_order(entry_id: str) -> tuple[int, int]:
    milliseconds, _, sequence = entry_id.partition("-")
    return int(milliseconds), int(sequence or 0)


def _deliveries(entries: Iterable[Any]) -> list[Delivery]:
    found = []
    for entry_id, fields in entries:
        if not fields:
            continue  # deleted meanwhile (Redis 6.2 returns such entries with no fields)
        data = {text(key): value for key, value in fields.items()}
        found.append(Delivery(text(entry_id), MatchOrder.from_json(data["order"])))
    return found
