"""The ladder in Redis: per-game queues of free match slots, seat and neighbour counts, node
heartbeats, and the per-game matchmaker lock.

A queue entry is one free match slot of one bot session: its ticket is "{session id}/{slot}", so
re-stating a session's free slots is idempotent (`sync_session`). The lock is a plain
SET NX PX with the holder's node id as value; renewing and releasing compare that value first
(in a script), so a node whose lock expired can neither extend nor delete another's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from arena.store import keys
from arena.store.codec import compact_json, text

_HOLD = """
redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
local found = {}
for i = 2, #KEYS, 2 do
  local held = 0
  if redis.call('SET', KEYS[i], ARGV[1], 'NX', 'PX', ARGV[3]) then
    held = 1
  elseif redis.call('GET', KEYS[i]) == ARGV[1] then
    held = redis.call('PEXPIRE', KEYS[i], ARGV[3])
  end
  found[#found + 1] = held
  found[#found + 1] = redis.call('HLEN', KEYS[i + 1])
end
return found
"""
"""A matchmaker's pass in one round trip: KEYS[1] the node's heartbeat, then each game's lock and queue;
ARGV the node, the heartbeat's and the lock's lifetime (ms). Per game: 1 when the node holds its lock
(taken or renewed), and how many tickets wait."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_TAKE = """
for i = 1, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return 0 end
end
redis.call('HDEL', KEYS[1], unpack(ARGV))
return 1
"""


@dataclass(frozen=True)
class Ticket:
    """A free match slot of a bot session, waiting in a game's queue."""

    ticket: str
    bot: str
    session: str
    node: str
    since: float
    """When it joined the queue, in seconds since the Unix epoch."""

    def to_json(self) -> str:
        data = {"bot": self.bot, "session": self.session, "node": self.node, "since": self.since}
        return compact_json(data)

    @classmethod
    def from_json(cls, ticket: str, text: str | bytes) -> Ticket:
        data = json.loads(text)
        return cls(ticket, str(data["bot"]), str(data["session"]), str(data["node"]), float(data["since"]))


def ticket_id(session: str, slot: int) -> str:
    return f"{session}/{slot}"


def _after(before: str, after: str) -> str:
    """The field of `keys.ladder_after` for `after` sitting directly after `before`; bot names never hold ">"."""
    return f"{before}>{after}"


class LadderStore:
    """Queues, seat and neighbour counts, heartbeats and locks of the ladder."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._hold = redis.register_script(_HOLD)
        self._release = redis.register_script(_RELEASE)
        self._take = redis.register_script(_TAKE)

    # -- queues --------------------------------------------------------------------------------

    def sync_session(
        self, game: str, bot: str, session: str, node: str, free: int, slots: int, since: float, pipe: Pipeline
    ) -> None:
        """Queue on `pipe`: the session's first `free` slots wait in the game's queue (keeping their
        waiting time), its other slots up to `slots` do not."""
        queue = keys.ladder_queue(game)
        for slot in range(max(free, 0), slots):
            pipe.hdel(queue, ticket_id(session, slot))
        for slot in range(min(free, slots)):
            pipe.hsetnx(queue, ticket_id(session, slot), Ticket("", bot, session, node, since).to_json())

    async def tickets(self, game: str) -> list[Ticket]:
        """The game's queue, longest-waiting first."""
        stored = await self.redis.hgetall(keys.ladder_queue(game))
        found = [Ticket.from_json(text(name), value) for name, value in stored.items()]
        return sorted(found, key=lambda entry: (entry.since, entry.ticket))

    async def take(self, game: str, tickets: Sequence[str]) -> bool:
        """Remove the tickets of a table from the queue: all of them, or none when one is gone already."""
        return bool(await self._take(keys=[keys.ladder_queue(game)], args=list(tickets)))

    async def put_back(self, game: str, tickets: Iterable[Ticket]) -> None:
        """Return taken tickets to the queue with their waiting time (unless their slot was restated meanwhile)."""
        pipe = self.redis.pipeline(transaction=False)
        for ticket in tickets:
            pipe.hsetnx(keys.ladder_queue(game), ticket.ticket, ticket.to_json())
        await pipe.execute()

    async def drop(self, game: str, tickets: Iterable[str]) -> None:
        names = list(tickets)
        if names:
            await self.redis.hdel(keys.ladder_queue(game), *names)

    # -- seat and neighbour counts --------------------------------------------------------------

    async def seat_counts(self, game: str, size: int, bots: Iterable[str]) -> dict[str, tuple[int, ...]]:
        """Ladder matches each bot played in each seat at this table size."""
        names = sorted(set(bots))
        if not names:
            return {}
        fields = [f"{name}:{seat}" for name in names for seat in range(size)]
        values = await self.redis.hmget(keys.ladder_seats(game, size), fields)
        counts = [int(value or 0) for value in values]
        return {name: tuple(counts[index * size : (index + 1) * size]) for index, name in enumerate(names)}

    async def neighbour_counts(
        self, game: str, size: int, tables: Iterable[Iterable[str]]
    ) -> dict[tuple[str, str], int]:
        """Ladder matches at this table size in which bot b sat directly after bot a, as (a, b) -> count,
        for the ordered pairs of bots sharing one of `tables`; pairs that never did are left out."""
        pairs = sorted({(a, b) for bots in map(set, tables) for a in bots for b in bots if a != b})
        if not pairs:
            return {}
        values = await self.redis.hmget(keys.ladder_after(game, size), [_after(a, b) for a, b in pairs])
        return {pair: int(value) for pair, value in zip(pairs, values, strict=True) if value is not None}

    def count_table(self, game: str, bots: Sequence[str], pipe: Pipeline) -> None:
        """Queue on `pipe`: one more ladder match for each bot (bots in seat order) in its seat and
        after the bot seated before it, seat 0 after the last seat."""
        size = len(bots)
        for seat, name in enumerate(bots):
            pipe.hincrby(keys.ladder_seats(game, size), f"{name}:{seat}", 1)
            pipe.hincrby(keys.ladder_after(game, size), _after(bots[seat - 1], name), 1)

    # -- nodes and locks -----------------------------------------------------------------------

    async def living(self, nodes: Iterable[str]) -> set[str]:
        names = sorted(set(nodes))
        if not names:
            return set()
        alive = await self.redis.mget([keys.ladder_node(name) for name in names])
        return {name for name, value in zip(names, alive, strict=True) if value is not None}

    async def hold_locks(self, node: str, games: Iterable[str], lock_ms: int, heartbeat_ms: int) -> dict[str, int]:
        """Mark `node` alive, and take each game's matchmaker lock or extend it where `node` holds it: the
        games whose lock it holds, each with the number of tickets in its queue. One round trip, as an idle
        node makes it several times a second."""
        names = list(games)
        locks = [key for game in names for key in (keys.ladder_lock(game), keys.ladder_queue(game))]
        found = await self._hold(keys=[keys.ladder_node(node), *locks], args=[node, heartbeat_ms, lock_ms])
        return {game: int(found[2 * i + 1]) for i, game in enumerate(names) if int(found[2 * i])}

    async def release_lock(self, game: str, node: str) -> bool:
        """Let go of the lock if `node` still holds it."""
        return bool(await self._release(keys=[keys.ladder_lock(game)], args=[node]))

    async def lock_holder(self, game: str) -> str | None:
        holder = await self.redis.get(keys.ladder_lock(game))
        return text(cast(bytes, holder)) if holder is not None else None
