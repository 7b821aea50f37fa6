"""Each owner's challenges in Redis, counted for the limits: how many run now, how many began this hour.

The counts live in Redis, not in a node, so that they hold across every node an owner's calls may
reach. Taking a place is one script: it forgets the challenges that ended (their result is in
`arena:work:results`, which the work stream writes for every match it ends) and those asked for
more than an hour ago, checks both limits and, if they allow, counts the new match, all at once:
two calls at the same moment on two nodes cannot both take the last place.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis

from arena.store import keys

HOUR_MS = 3_600_000
STALE_MS = 24 * HOUR_MS
"""A challenge still without a result after this long no longer counts as running. A work match always
gets a result (aborted, at worst), so this only bounds what a lost order could hold."""

_TAKE = """
-- KEYS: the owner's running zset, its hour zset, the work results hash
-- ARGV: match id, now (ms), most running, most an hour, an hour (ms), stale after (ms)
-- Returns {status, count, oldest}: status 0 taken (count: running now, this one included),
-- 1 too many running (count: running now), 2 too many this hour (count: this hour; oldest: when the
-- oldest of them was asked for, ms).
local now = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[5]))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[6]))
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if redis.call('HEXISTS', KEYS[3], id) == 1 then redis.call('ZREM', KEYS[1], id) end
end
local running = redis.call('ZCARD', KEYS[1])
if running >= tonumber(ARGV[3]) then return {1, running, 0} end
local hour = redis.call('ZCARD', KEYS[2])
if hour >= tonumber(ARGV[4]) then
  return {2, hour, tonumber(redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2])}
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {0, running + 1, 0}
"""


@dataclass(frozen=True)
class Taken:
    """What `ChallengeStore.take` found: `status` TAKEN, RUNNING_FULL or HOUR_FULL, with the count
    that decided it, and for HOUR_FULL when (ms) the oldest challenge of the hour was asked for."""

    status: int
    count: int
    oldest_ms: int = 0


TAKEN = 0
RUNNING_FULL = 1
HOUR_FULL = 2


class ChallengeStore:
    """The counts of each owner's challenges behind the limits (arena/node/challenges.py applies them)."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._take = redis.register_script(_TAKE)

    async def take(self, owner: str, match_id: str, running: int, hourly: int, now_ms: int) -> Taken:
        """Count challenge `match_id` of `owner` if fewer than `running` of theirs run and fewer than
        `hourly` began in the last hour; else count nothing and say which limit is reached."""
        status, count, oldest = await self._take(
            keys=[keys.challenges_running(owner), keys.challenges_hour(owner), keys.WORK_RESULTS],
            args=[match_id, now_ms, running, hourly, HOUR_MS, STALE_MS],
        )
        return Taken(int(status), int(count), int(oldest))

    async def give_back(self, owner: str, match_id: str) -> None:
        """Uncount a challenge that was never queued (its order could not be written)."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.zrem(keys.challenges_running(owner), match_id)
        pipe.zrem(keys.challenges_hour(owner), match_id)
        await pipe.execute()
