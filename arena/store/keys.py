"""Every Redis key the arena uses, in one place. All start with `arena:`.

| key                              | type   | holds                                                |
| -------------------------------- | ------ | ---------------------------------------------------- |
| arena:admin                      | hash   | token_hash of the admin token                        |
| arena:owners                     | set    | owner names                                          |
| arena:owner:{name}               | hash   | name, token_hash, created_ms                         |
| arena:owner:{name}:bots          | set    | the owner's bot names                                |
| arena:bots                       | set    | bot names                                            |
| arena:bot:{name}                 | hash   | name, owner, kind, language, games, description,     |
|                                  |        | created_ms, token_hash                               |
| arena:token:{sha256}             | string | "owner:{name}" or "bot:{name}": whose token it is    |
| arena:match:seq                  | string | counter for match ids                                |
| arena:match:{id}                 | hash   | summary (JSON), replay (arena-replay/1 JSON, at end) |
| arena:matches                    | zset   | match ids by start time (ms)                         |
| arena:matches:game:{game}        | zset   | the same, per game                                   |
| arena:matches:bot:{bot}          | zset   | the same, per bot                                    |
| arena:matches:running            | set    | ids of matches started and not yet ended             |
"""

from __future__ import annotations

PREFIX = "arena:"

ADMIN = f"{PREFIX}admin"
OWNERS = f"{PREFIX}owners"
BOTS = f"{PREFIX}bots"
MATCH_SEQ = f"{PREFIX}match:seq"
MATCHES = f"{PREFIX}matches"
MATCHES_RUNNING = f"{PREFIX}matches:running"


def owner(name: str) -> str:
    return f"{PREFIX}owner:{name}"


def owner_bots(name: str) -> str:
    return f"{PREFIX}owner:{name}:bots"


def bot(name: str) -> str:
    return f"{PREFIX}bot:{name}"


def token(token_hash: str) -> str:
    return f"{PREFIX}token:{token_hash}"


def match(match_id: str) -> str:
    return f"{PREFIX}match:{match_id}"


def matches_of_game(game: str) -> str:
    return f"{PREFIX}matches:game:{game}"


def matches_of_bot(bot_name: str) -> str:
    return f"{PREFIX}matches:bot:{bot_name}"
