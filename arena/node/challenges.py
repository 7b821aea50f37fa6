"""Challenges: an owner starts an unrated match of their bot against opponents they choose, now.

A challenge is a work match like any other (`submit_match`): an order on the stream, played by the
first node with room, never rated. Who may sit at the table follows the consent rule of
tournaments (`invitation_refusal`): the challenger is one of the caller's own bots; opponents are
built-in bots, the caller's own bots, or other owners' bots whose owners let others invite them.
The admin may seat any bot. Each owner may have `ChallengeLimits.running` challenges running and
start `ChallengeLimits.hourly` an hour, counted in Redis (arena/store/challenges.py) so that the
limits hold across nodes.

`create_challenge` is the one entry point, for the gRPC API (CreateChallenge) and the web UI alike;
every refusal is a `ChallengeRefused` (a StoreError) whose class says what kind of refusal it is
and whose message says, in one line, what to do.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena import metrics
from arena.bots import BOTS
from arena.games import Game, GameError, game_names, make_game
from arena.match import Clock
from arena.node.matches import BUILTIN_PREFIX
from arena.node.relay import find_sessions
from arena.node.sessions import SessionRegistry
from arena.node.tournaments import invitation_refusal
from arena.node.work import START_WAIT, submit_match
from arena.store import BotRecord, NotFound, Principal, Store, StoreError, keys
from arena.store.challenges import HOUR_FULL, RUNNING_FULL, ChallengeStore
from arena.store.hosted import HostedStore
from arena.store.store import NAME_PATTERN, BotKind, now_ms
from arena.store.work import MatchOrder


@dataclass(frozen=True)
class ChallengeLimits:
    """What one owner may ask for: challenges running at once, and challenges started in any hour."""

    running: int = 4
    hourly: int = 60


class ChallengeRefused(StoreError):
    """A challenge that is not started; the message says why in one line. The subclasses tell the kind."""


class BadChallenge(ChallengeRefused):
    """The challenge cannot be played as asked: seats for another number of players, a bot twice, a game
    a bot does not play, a name that names nothing (INVALID_ARGUMENT, HTTP 400)."""


class UnknownBot(ChallengeRefused, NotFound):
    """A seat names a bot that is not registered (NOT_FOUND, HTTP 404)."""


class NotAllowed(ChallengeRefused):
    """The caller may not seat a bot: the challenger is not theirs, or an opponent's owner has not let
    others invite it (PERMISSION_DENIED, HTTP 403)."""


class SeatNotReady(ChallengeRefused):
    """A bot cannot take its seat: not connected, connected for other games only, or a hosted bot with no
    working version; it may be able to later (FAILED_PRECONDITION, HTTP 409)."""


class TooManyChallenges(ChallengeRefused):
    """The owner has as many challenges running, or started this hour, as allowed (RESOURCE_EXHAUSTED,
    HTTP 429)."""


def _refused(reason: str, error: ChallengeRefused) -> ChallengeRefused:
    """`error`, counted in `arena_challenge_refusals` under `reason`."""
    metrics.CHALLENGE_REFUSALS.labels(reason).inc()
    return error


async def create_challenge(
    store: Store,
    sessions: SessionRegistry,
    node: str,
    owner: Principal,
    game: Game,
    seats: Sequence[str],
    clock: Clock | None,
    *,
    limits: ChallengeLimits | None = None,
    start_wait: float = START_WAIT,
) -> MatchOrder:
    """Start challenge: an unrated match of `game` with `seats` in seat order, the first being the challenger.

    `owner` is the caller (an owner, or the admin); `node` this node's consumer name (`MatchHost.node`);
    `clock` the match's time control (None: untimed). Every check comes before anything is written:
    a refused challenge leaves nothing behind and counts against no limit. Returns the order once the
    first node with room has started the match, or after `start_wait` seconds (a busy bot).
    """
    limits = limits or ChallengeLimits()
    await check_seats(store, owner, game, seats)
    await check_ready(store, sessions, node, game.name, seats)
    match_id = await store.next_match_id()
    counts = ChallengeStore(store.redis)
    if owner.kind != "admin":
        taken = await counts.take(owner.name, match_id, limits.running, limits.hourly, now_ms())
        if taken.status == RUNNING_FULL:
            raise _refused(
                "running",
                TooManyChallenges(
                    f"you have {taken.count} challenges running, the most at once: start another when one has ended"
                ),
            )
        if taken.status == HOUR_FULL:
            wait = math.ceil(max(0, taken.oldest_ms + 3_600_000 - now_ms()) / 60_000)
            raise _refused(
                "hourly",
                TooManyChallenges(
                    f"you started {taken.count} challenges in the last hour, the most an hour: "
                    f"the next may start in {wait} min"
                ),
            )
    try:
        order = await submit_match(store, game.name, seats, game.params(), clock=clock, rated=False, match_id=match_id)
    except BaseException:
        if owner.kind != "admin":
            await counts.give_back(owner.name, match_id)
        raise
    loop = asyncio.get_running_loop()
    deadline = loop.time() + start_wait
    while loop.time() < deadline and not await store.redis.hexists(keys.match(order.match_id), "summary"):
        await asyncio.sleep(0.02)
    return order


async def check_seats(store: Store, owner: Principal, game: Game, seats: Sequence[str]) -> list[BotRecord]:
    """The registered bots of `seats`, once every seat is one the caller may fill for `game`; else the refusal."""
    if len(seats) != game.players:
        raise BadChallenge(
            f"{game.name} for {game.players} players needs {game.players} seats: your bot and "
            f"{game.players - 1} opponents, not {len(seats)} seats"
        )
    if not seats[0] or seats[0].startswith(BUILTIN_PREFIX):
        raise BadChallenge("a challenge is played by one of your bots: name it first, then its opponents")
    for name in seats:
        if name.startswith(BUILTIN_PREFIX):
            if name.removeprefix(BUILTIN_PREFIX) not in BOTS:
                raise BadChallenge(
                    f"no built-in bot {name!r}; choose {BUILTIN_PREFIX}{f', {BUILTIN_PREFIX}'.join(BOTS)}"
                )
        elif not NAME_PATTERN.fullmatch(name):
            raise BadChallenge(f"seat {name!r} names no bot: bot names are 1-40 letters, digits, '-', '_' or '.'")
    registered = [name for name in seats if not name.startswith(BUILTIN_PREFIX)]
    twice = sorted({name for name in registered if registered.count(name) > 1})
    if twice:
        raise BadChallenge(f"bot {twice[0]!r} is named twice: a bot takes one seat in a match")
    bots = []
    for name in registered:
        bot = await store.get_bot(name)
        if bot is None:
            raise UnknownBot(f"no bot named {name!r} is registered (arena bot list shows them)")
        bots.append(bot)
    challenger = bots[0]
    if owner.kind != "admin" and challenger.owner != owner.name:
        raise _refused(
            "not_yours",
            NotAllowed(
                f"bot {challenger.name!r} belongs to {challenger.owner}: a challenge is played by one of your bots"
            ),
        )
    for bot in bots:
        if bot.games and game.name not in bot.games:
            raise BadChallenge(f"bot {bot.name!r} does not play {game.name} (it plays {', '.join(bot.games)})")
        refusal = invitation_refusal(owner, bot)
        if refusal:
            raise _refused("invitation", NotAllowed(refusal))
    return bots


async def check_ready(store: Store, sessions: SessionRegistry, node: str, game: str, seats: Sequence[str]) -> None:
    """Every registered bot of `seats` can take its seat: a remote bot connected (to any node) with a
    session that plays `game`, a hosted bot with a working version the node hosting the match starts.

    A bot busy with its most matches is not refused: the match waits on the stream for a free slot, as
    every work match does (a bot on the ladder is seldom free at the moment it is asked).
    """
    registered = [name for name in seats if not name.startswith(BUILTIN_PREFIX)]
    here = {name: [s for s in sessions.of_bot(name) if s.attached and not s.exclusive] for name in registered}
    away = [name for name in registered if not here[name]]
    elsewhere = await find_sessions(store.redis, away, node, alive=True) if away else {}
    for name in registered:
        if here[name]:
            if not any(s.plays(game) for s in here[name]):
                played = ", ".join(sorted(here[name][0].games))
                raise SeatNotReady(f"bot {name!r} is connected for {played} only, not {game}")
        elif name in elsewhere:
            if not elsewhere[name].plays(game):
                played = ", ".join(elsewhere[name].games)
                raise SeatNotReady(f"bot {name!r} is connected for {played} only, not {game}")
        else:
            bot = await store.get_bot(name)
            if bot is not None and bot.kind == BotKind.HOSTED:
                if await HostedStore(store.redis).active(name) is None:
                    raise SeatNotReady(f"hosted bot {name!r} has no working version (arena bot logs {name} says why)")
                continue
            raise SeatNotReady(f"bot {name!r} is not connected: its program must be running, with its token")


async def default_game(store: Store, seats: Sequence[str]) -> str:
    """The game a challenge plays when none is named: the first game the challenger lists (every game, in the
    arena's order, for one that lists none) that seats this many players and that every registered seat plays."""
    registered = [name for name in seats if not name.startswith(BUILTIN_PREFIX)]
    bots = [await store.get_bot(name) for name in registered]
    listed = [bot.games for bot in bots if bot is not None and bot.games]
    first = list(bots[0].games) if bots and bots[0] is not None and bots[0].games else []
    for name in [*first, *(name for name in game_names() if name not in first)]:
        if not all(name in games for games in listed):
            continue
        try:
            make_game(name, players=len(seats))
        except GameError:
            continue
        return name
    raise BadChallenge(
        f"no game of the arena seats {len(seats)} players that every bot named plays: name one with --game"
    )
