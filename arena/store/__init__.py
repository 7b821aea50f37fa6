"""The arena's state in Redis: every key name (`keys`) and every operation on it (`Store`)."""

from arena.store.embedded import RedisUnavailable, open_redis
from arena.store.replays import CorruptReplay
from arena.store.store import (
    BotRecord,
    MatchRecord,
    NameTaken,
    NotFound,
    Principal,
    Store,
    StoreError,
    check_name,
    token_hash,
)

__all__ = [
    "BotRecord",
    "CorruptReplay",
    "MatchRecord",
    "NameTaken",
    "NotFound",
    "Principal",
    "RedisUnavailable",
    "Store",
    "StoreError",
    "check_name",
    "open_redis",
    "token_hash",
]
