"""Every Redis key the arena uses, in one place. All start with `arena:`.

| key                              | type   | holds                                                |
| -------------------------------- | ------ | ---------------------------------------------------- |
| arena:admin                      | hash   | token_hash of the admin token                        |
| arena:owners                     | set    | owner names                                          |
| arena:owner:{name}               | hash   | name, token_hash, created_ms                         |
| arena:owner:{name}:bots          | set    | the owner's bot names                                |
| arena:bots                       | set    | bot names                                            |
| arena:bot:{name}                 | hash   | name, owner, kind, language, games, description,     |
|                                  |        | created_ms, token_hash, accepts_invitations (1: its  |
|                                  |        | owner lets other owners enter it in tournaments)     |
| arena:token:{sha256}             | string | "owner:{name}" or "bot:{name}": whose token it is    |
| arena:match:seq                  | string | counter for match ids                                |
| arena:match:{id}                 | hash   | summary (JSON), replay (arena-replay/1, at end;      |
|                                  |        | zlib with a preset dictionary: store/replays.py)     |
| arena:matches                    | zset   | match ids by start time (ms)                         |
| arena:matches:game:{game}        | zset   | the same, per game                                   |
| arena:matches:bot:{bot}          | zset   | the same, per bot                                    |
| arena:matches:tournament:{name}  | zset   | the same, per tournament (every attempt of a match)  |
| arena:matches:tournament-indexed | string | set once the matches stored before the tournament    |
|                                  |        | index existed were added to it (Store.list_matches)  |
| arena:matches:running            | set    | ids of matches started and not yet ended             |
| arena:archive:index:{bucket}     | hash   | match id -> "FILE:OFFSET:LENGTH", where an archived  |
|                                  |        | match lies on disk (store/archive.py); 4,096 buckets |
|                                  |        | by CRC-32 of the id, small enough for listpacks      |
| arena:archive:pending            | string | archive files' sizes (JSON) before the move under    |
|                                  |        | way: a crashed move is cut off the files at the next |
| arena:archive:lock               | string | the node that archives now (PX expiry)               |
| arena:archive:horizon            | string | ms: finished matches started before it are archived  |
| arena:rating:{game}:{bot}        | hash   | mu, sigma, games, last_ms: the bot's rating          |
| arena:leaderboard:{game}         | zset   | bot names by mu - 3 sigma                            |
| arena:history:{game}:{bot}       | stream | match_id, mu, sigma, games, at: after each rated one |
|                                  |        | match; the latest 1,000 (ratings.HISTORY_KEPT)       |
| arena:results:{game}             | list   | result records (JSON) in finishing order, for        |
|                                  |        | `arena ratings recompute`; aborted ones included;    |
|                                  |        | the oldest move to the archive with their matches    |
| arena:results:{game}:applied     | set    | match ids whose result was applied (exactly once)    |
| arena:results:{game}:archived    | string | how many of the oldest results moved to the archive  |
|                                  |        | (store/archive.py), read first by a recompute        |
| arena:rating-model:{game}        | hash   | TrueSkill parameters of the game, if not defaults    |
| arena:ladder:{game}:queue        | hash   | ticket -> waiting entry (JSON: bot, session, since)  |
| arena:ladder:{game}:lock         | string | the node whose matchmaker acts now (PX expiry)       |
| arena:ladder:{game}:{size}:seats | hash   | "{bot}:{seat}" -> ladder matches in that seat        |
| arena:ladder:{game}:{size}:after | hash   | "{a}>{b}" -> ladder matches in which bot b sat       |
|                                  |        | directly after bot a (seat 0 after the last seat)    |
| arena:ladder:node:{node}         | string | a node's ladder heartbeat (PX expiry): its queue     |
|                                  |        | entries count only while it lives                    |
| arena:work                       | stream | match orders (JSON) for every node's match host,     |
|                                  |        | read through the consumer group "arena-nodes"        |
| arena:work:results               | hash   | match id -> result (JSON) of every work match: a     |
|                                  |        | match is counted once                                |
| arena:match:{id}:events          | stream | the seed, then the actions as applied (a: ids,       |
|                                  |        | comma-separated, in order)                           |
| arena:match:{id}:debug:{seat}    | list   | a running match's debug texts of one seat (JSON      |
|                                  |        | [move, text]), for its owner's live view; expires 10 |
|                                  |        | min after the last one (store/debug.py)              |
| arena:tournaments                | zset   | tournament names by creation time (ms)               |
| arena:tournament:{name}          | hash   | spec (JSON, with the secret seed), created_by,       |
|                                  |        | created_ms, rounds_planned, finished_ms,             |
|                                  |        | cancelled_ms, cancelled_by, account ("admin" or      |
|                                  |        | "owner:{name}"), fed (matches put on the stream)     |
| arena:tournaments:open:{account} | zset   | the account's tournaments not ended, by creation     |
|                                  |        | time: whose matches count in its window and limit    |
| arena:tournament:{name}:results  | hash   | match id -> result (JSON) of the tournament, every   |
|                                  |        | attempt (re-runs are NAME-n-try2, ...)               |
| arena:tournament:{name}:aborts   | hash   | aborted match id -> {reason, rerun} (JSON): why, and |
|                                  |        | the re-run's id ("" when aborted for good)           |
| arena:tournament:{name}:reasons  | hash   | match id -> why the node that aborted it did so      |
| arena:tournament:{name}:starts   | hash   | match id -> "started" (a node began playing it) or   |
|                                  |        | "cancelled" (with the tournament, before it started) |
| arena:presence:{bot}             | hash   | session id -> {node, games} (JSON) of the bot's      |
|                                  |        | sessions on every node (expires unless refreshed)    |
| arena:node:{name}:alive          | string | a node's heartbeat, 15 s unless refreshed: once it   |
|                                  |        | lapses, seats follow their bots off the node         |
| arena:session:{id}:inbox         | stream | messages for a session from hosts on other nodes     |
| arena:match:{id}:replies:{seat}  | stream | a relayed seat's answers, for the hosting node       |
| arena:hosted:{bot}               | hash   | version (latest uploaded), active (the version that  |
|                                  |        | plays, 0 for none)                                   |
| arena:hosted:{bot}:v{n}          | hash   | version, sha256, size, run, status, reason,          |
|                                  |        | created_ms, match_id, package (the .tar.gz bytes)    |
| arena:hosted:{bot}:runs          | list   | runs of the bot's processes (JSON: version, matches, |
|                                  |        | ending, stderr tail), newest first, capped           |
| arena:hosted-token:{sha256}      | string | "{bot}:{launch}": a token minted for one hosted      |
|                                  |        | process (PX expiry; deleted when it is stopped)      |
| arena:replication:mark           | string | written before each WAIT that confirms a result on   |
|                                  |        | the replicas (store/sentinel.py)                     |
| arena:challenges:{owner}:running | zset   | the owner's challenges not known to have ended:      |
|                                  |        | match id -> ms it was asked for; one leaves once its |
|                                  |        | result is in arena:work:results                      |
| arena:challenges:{owner}:hour    | zset   | the owner's challenges of the last hour: match id -> |
|                                  |        | ms it was asked for (expires an hour after the last) |
| arena:web-session:{sha256}       | hash   | a web UI sign-in, by the SHA-256 of its session id:  |
|                                  |        | owner, sealed (the owner token, AES-GCM under a key  |
|                                  |        | derived from the session id), created_ms; expires    |
|                                  |        | (store/web_sessions.py)                              |
"""

from __future__ import annotations

import zlib

PREFIX = "arena:"

ADMIN = f"{PREFIX}admin"
OWNERS = f"{PREFIX}owners"
BOTS = f"{PREFIX}bots"
MATCH_SEQ = f"{PREFIX}match:seq"
MATCHES = f"{PREFIX}matches"
MATCHES_RUNNING = f"{PREFIX}matches:running"
MATCHES_TOURNAMENT_INDEXED = f"{PREFIX}matches:tournament-indexed"
ARCHIVE_PENDING = f"{PREFIX}archive:pending"
ARCHIVE_LOCK = f"{PREFIX}archive:lock"
ARCHIVE_HORIZON = f"{PREFIX}archive:horizon"
ARCHIVE_BUCKETS = 4096
"""Buckets of the archive index: 100,000 archived matches make about 25 per bucket's hash, so each
stays a listpack (Redis's compact encoding, up to 128 fields) and costs about 50 bytes a match."""


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


def matches_of_tournament(name: str) -> str:
    return f"{PREFIX}matches:tournament:{name}"


def archive_index(match_id: str) -> str:
    """The bucket of the archive index that holds `match_id`'s place on disk."""
    return f"{PREFIX}archive:index:{zlib.crc32(match_id.encode()) % ARCHIVE_BUCKETS}"


# -- ratings (arena/store/ratings.py) -------------------------------------------------------------


def rating(game: str, bot_name: str) -> str:
    return f"{PREFIX}rating:{game}:{bot_name}"


def leaderboard(game: str) -> str:
    return f"{PREFIX}leaderboard:{game}"


def history(game: str, bot_name: str) -> str:
    return f"{PREFIX}history:{game}:{bot_name}"


def results(game: str) -> str:
    return f"{PREFIX}results:{game}"


def results_applied(game: str) -> str:
    return f"{PREFIX}results:{game}:applied"


def results_archived(game: str) -> str:
    return f"{PREFIX}results:{game}:archived"


def rating_model(game: str) -> str:
    return f"{PREFIX}rating-model:{game}"


# -- the ladder (arena/store/ladder.py) -----------------------------------------------------------


def ladder_queue(game: str) -> str:
    return f"{PREFIX}ladder:{game}:queue"


def ladder_lock(game: str) -> str:
    return f"{PREFIX}ladder:{game}:lock"


def ladder_seats(game: str, size: int) -> str:
    return f"{PREFIX}ladder:{game}:{size}:seats"


def ladder_after(game: str, size: int) -> str:
    return f"{PREFIX}ladder:{game}:{size}:after"


def ladder_node(node: str) -> str:
    return f"{PREFIX}ladder:node:{node}"


# -- the work stream and tournaments (arena/store/work.py, arena/store/tournaments.py) ------------

REPLICATION_MARK = f"{PREFIX}replication:mark"
WORK = f"{PREFIX}work"
WORK_GROUP = "arena-nodes"
"""The consumer group of the work stream; each node reads under its own consumer name."""
WORK_RESULTS = f"{PREFIX}work:results"
TOURNAMENTS = f"{PREFIX}tournaments"


def match_events(match_id: str) -> str:
    return f"{PREFIX}match:{match_id}:events"


def match_debug(match_id: str, seat: int) -> str:
    return f"{PREFIX}match:{match_id}:debug:{seat}"


def tournament(name: str) -> str:
    return f"{PREFIX}tournament:{name}"


def tournaments_open(account: str) -> str:
    """The open tournaments of an account (`arena.store.tournaments.owner_account`, or "admin")."""
    return f"{PREFIX}tournaments:open:{account}"


def tournament_results(name: str) -> str:
    return f"{PREFIX}tournament:{name}:results"


def tournament_aborts(name: str) -> str:
    return f"{PREFIX}tournament:{name}:aborts"


def tournament_reasons(name: str) -> str:
    return f"{PREFIX}tournament:{name}:reasons"


def tournament_starts(name: str) -> str:
    return f"{PREFIX}tournament:{name}:starts"


# -- seats across nodes (arena/store/relay.py) ----------------------------------------------


def presence(bot_name: str) -> str:
    return f"{PREFIX}presence:{bot_name}"


def node_alive(node: str) -> str:
    return f"{PREFIX}node:{node}:alive"


def session_inbox(session_id: str) -> str:
    return f"{PREFIX}session:{session_id}:inbox"


def match_replies(match_id: str, seat: int) -> str:
    return f"{PREFIX}match:{match_id}:replies:{seat}"


# -- hosted bots (arena/store/hosted.py) ----------------------------------------------------------


def hosted(bot_name: str) -> str:
    return f"{PREFIX}hosted:{bot_name}"


def hosted_version(bot_name: str, version: int) -> str:
    return f"{PREFIX}hosted:{bot_name}:v{version}"


def hosted_runs(bot_name: str) -> str:
    return f"{PREFIX}hosted:{bot_name}:runs"


def hosted_token(token_hash: str) -> str:
    return f"{PREFIX}hosted-token:{token_hash}"


# -- challenges (arena/store/challenges.py) -------------------------------------------------------


def challenges_running(owner_name: str) -> str:
    return f"{PREFIX}challenges:{owner_name}:running"


def challenges_hour(owner_name: str) -> str:
    return f"{PREFIX}challenges:{owner_name}:hour"


# -- web UI sign-ins (arena/store/web_sessions.py) ------------------------------------------------


def web_session(session_hash: str) -> str:
    return f"{PREFIX}web-session:{session_hash}"
