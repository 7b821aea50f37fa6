"""Challenges: an owner's unrated match against opponents they choose, over gRPC and at the node, on a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio

from arena import metrics
from arena.games import make_game
from arena.match import Clock
from arena.node.challenges import (
    ChallengeLimits,
    NotAllowed,
    TooManyChallenges,
    UnknownBot,
    create_challenge,
)
from arena.node.relay import find_sessions
from arena.store import Principal, keys
from arena.store.ratings import RatingStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RandomBot, RawBot, bearer, start_arena
from tests.waiting import until

pytestmark = pytest.mark.asyncio

ALL_GAMES = ("friday13", "amigo13", "board13")


@pytest_asyncio.fixture
async def slow_arena(redis_url: str) -> AsyncIterator[Arena]:
    """An arena whose clock lets a silent bot hold its matches for a minute: they stay running."""
    async with start_arena(redis_url, clock=Clock(60.0, 60.0)) as started:
        yield started


async def challenge(
    arena: Arena, token: str, bot: str, *opponents: str, game: str = "", players: int = 0
) -> api_pb.CreateChallengeResponse:
    request = api_pb.CreateChallengeRequest(bot=bot, opponents=opponents, game=pb.GameSpec(game=game, players=players))
    reply: api_pb.CreateChallengeResponse = await arena.api.CreateChallenge(request, metadata=bearer(token))
    return reply


async def refused(arena: Arena, token: str, bot: str, *opponents: str, game: str = "") -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await challenge(arena, token, bot, *opponents, game=game)
    return caught.value


def refusals(reason: str) -> float:
    value: float = metrics.CHALLENGE_REFUSALS.labels(reason)._value.get()
    return value


async def test_an_owner_challenges_built_in_bots_and_their_own_bots_and_nothing_is_rated(arena: Arena) -> None:
    alice = await arena.owner("alice")
    for name in ("a1", "a2"):
        await arena.connect(RandomBot, await arena.bot(alice, name, ALL_GAMES))
    started = await challenge(arena, alice, "a1", "a2", "builtin:heuristic", game="friday13")
    assert list(started.seats) == ["a1", "a2", "builtin:heuristic"] and started.game.game == "friday13"
    summary, replay = await arena.finished(started.match_id)
    assert list(summary.seats) == ["a1", "a2", "builtin:heuristic"] and summary.termination == pb.TERMINATION_NORMAL
    assert replay["seed"] and summary.tournament_id == ""
    ratings = RatingStore(arena.server.store.redis)
    assert await ratings.leaderboard("friday13") == [], "a challenge is never rated"
    assert await ratings.results("friday13") == []
    # No game named: the first the challenger lists that seats this many players; two seats make board13.
    two = await challenge(arena, alice, "a1", "builtin:random")
    assert two.game.game == "board13" and two.game.players == 2
    three = await challenge(arena, alice, "a2", "builtin:random", "builtin:mc")
    assert three.game.game == "friday13"
    for match_id in (two.match_id, three.match_id):
        summary, _ = await arena.finished(match_id)
        assert summary.termination == pb.TERMINATION_NORMAL


async def test_another_owners_bot_is_seated_only_once_its_owner_accepts_invitations(arena: Arena) -> None:
    alice, bob = await arena.owner("alice"), await arena.owner("bob")
    await arena.connect(RandomBot, await arena.bot(alice, "mine"))
    await arena.connect(RandomBot, await arena.bot(bob, "bobs"))
    before = refusals("invitation")
    error = await refused(arena, alice, "mine", "bobs", "builtin:random", game="friday13")
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error.details() == (
        "bot 'bobs' belongs to bob, who has not let other owners enter it (its owner can: arena bot set bobs "
        "--accept-invitations)"
    )
    assert refusals("invitation") == before + 1
    # Nor may alice challenge with bob's bot, whatever it accepts.
    error = await refused(arena, alice, "bobs", "builtin:random", "builtin:heuristic", game="friday13")
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error.details() == "bot 'bobs' belongs to bob: a challenge is played by one of your bots"
    assert await arena.server.store.redis.exists(keys.challenges_running("alice")) == 0, "a refusal counts nothing"

    await arena.api.UpdateBot(api_pb.UpdateBotRequest(name="bobs", accepts_invitations=True), metadata=bearer(bob))
    started = await challenge(arena, alice, "mine", "bobs", "builtin:random", game="friday13")
    summary, _ = await arena.finished(started.match_id)
    assert list(summary.seats) == ["mine", "bobs", "builtin:random"]
    assert summary.termination == pb.TERMINATION_NORMAL


async def test_unknown_disconnected_and_misfitting_seats_are_refused_in_one_line(arena: Arena) -> None:
    alice = await arena.owner("alice")
    await arena.connect(RandomBot, await arena.bot(alice, "here", ("friday13", "amigo13")))
    await arena.bot(alice, "away")
    cases = [
        (("here", "ghost", "builtin:random"), "friday13", grpc.StatusCode.NOT_FOUND, "no bot named 'ghost'"),
        (
            ("here", "away", "builtin:random"),
            "friday13",
            grpc.StatusCode.FAILED_PRECONDITION,
            "bot 'away' is not connected",
        ),
        (
            ("here", "builtin:chess", "builtin:mc"),
            "friday13",
            grpc.StatusCode.INVALID_ARGUMENT,
            "no built-in bot 'builtin:chess'",
        ),
        (("here", "builtin:mc"), "friday13", grpc.StatusCode.INVALID_ARGUMENT, "friday13 is for 3 to 6 players"),
        (("here", "builtin:mc"), "board13", grpc.StatusCode.INVALID_ARGUMENT, "bot 'here' does not play board13"),
        (("here", "here", "builtin:mc"), "friday13", grpc.StatusCode.INVALID_ARGUMENT, "bot 'here' is named twice"),
        (("builtin:mc", "here", "builtin:random"), "friday13", grpc.StatusCode.INVALID_ARGUMENT, "one of your bots"),
        (("here", "bad name!", "builtin:mc"), "friday13", grpc.StatusCode.INVALID_ARGUMENT, "names no bot"),
        (("here", "builtin:mc", "builtin:random"), "chess", grpc.StatusCode.INVALID_ARGUMENT, "unknown game 'chess'"),
    ]
    for seats, game, code, text in cases:
        error = await refused(arena, alice, *seats, game=game)
        assert (error.code(), text in error.details(), "\n" in error.details()) == (code, True, False), (
            seats,
            error.details(),
        )
    bot_token = await arena.bot(alice, "b3")
    error = await refused(arena, bot_token, "here", "builtin:mc", "builtin:random", game="friday13")
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert await arena.server.store.redis.exists(keys.challenges_running("alice")) == 0


async def test_the_admin_seats_any_bot_and_has_no_limit(slow_arena: Arena) -> None:
    arena = slow_arena
    bob = await arena.owner("bob")
    silent = RawBot(arena, await arena.bot(bob, "bobs"))
    await silent.connect(max_matches=8)
    ids = [
        (await challenge(arena, ADMIN, "bobs", "builtin:random", "builtin:heuristic", game="friday13")).match_id
        for _ in range(5)
    ]
    assert len(set(ids)) == 5
    assert len(arena.server.host.live) == 5, "the admin's five challenges run at once"


async def test_an_owner_has_four_challenges_running_at_most_and_another_once_one_ended(slow_arena: Arena) -> None:
    arena = slow_arena
    alice = await arena.owner("alice")
    silent = RawBot(arena, await arena.bot(alice, "quiet"))
    await silent.connect(max_matches=8)
    first = await challenge(arena, alice, "quiet", "builtin:random", "builtin:heuristic", game="friday13")
    for _ in range(3):
        await challenge(arena, alice, "quiet", "builtin:random", "builtin:heuristic", game="friday13")
    before = refusals("running")
    error = await refused(arena, alice, "quiet", "builtin:random", "builtin:heuristic", game="friday13")
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.details() == "you have 4 challenges running, the most at once: start another when one has ended"
    assert refusals("running") == before + 1
    # The bot plays its matches (answering every request) until the first one ends: a place is free again.
    await silent.play_on(first.match_id)
    await arena.finished(first.match_id)
    again = await challenge(arena, alice, "quiet", "builtin:random", "builtin:heuristic", game="friday13")
    assert again.match_id


async def test_the_limits_hold_across_nodes_on_one_redis(redis_url: str) -> None:
    async with (
        start_arena(redis_url, clock=Clock(60.0, 60.0)) as one,
        start_arena(redis_url, clock=Clock(60.0, 60.0)) as two,
    ):
        alice = await one.owner("alice")
        silent = RawBot(one, await one.bot(alice, "quiet"))
        await silent.connect(max_matches=8)

        async def seen_by_two() -> bool:
            return "quiet" in await find_sessions(two.server.store.redis, ["quiet"], two.server.host.node, alive=True)

        await until(seen_by_two, "the second node sees the bot connected to the first")
        for node in (one, two, one, two):
            await challenge(node, alice, "quiet", "builtin:random", "builtin:heuristic", game="friday13")
        for node in (one, two):
            error = await refused(node, alice, "quiet", "builtin:random", "builtin:heuristic", game="friday13")
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_challenges_an_hour_are_limited_and_free_again_an_hour_after(arena: Arena) -> None:
    alice = await arena.owner("alice")
    await arena.connect(RandomBot, await arena.bot(alice, "quick"))
    server = arena.server
    owner = Principal("owner", "alice")
    game = make_game("friday13", players=3)
    seats = ["quick", "builtin:random", "builtin:heuristic"]
    limits = ChallengeLimits(running=10, hourly=3)

    async def start() -> str:
        order = await create_challenge(
            server.store, server.sessions, server.host.node, owner, game, seats, None, limits=limits
        )
        return order.match_id

    started = [await start() for _ in range(3)]
    for match_id in started:
        await arena.finished(match_id)
    before = refusals("hourly")
    with pytest.raises(TooManyChallenges) as caught:
        await start()
    assert str(caught.value) == (
        "you started 3 challenges in the last hour, the most an hour: the next may start in 60 min"
    )
    assert refusals("hourly") == before + 1
    # An hour later (the stored times moved back by an hour) the oldest no longer counts.
    redis = server.store.redis
    hour = keys.challenges_hour("alice")
    for match_id in started:
        await redis.zincrby(hour, -3_600_001, match_id)
    assert await start()


async def test_the_node_function_refuses_with_store_errors_the_web_can_show(arena: Arena) -> None:
    alice = await arena.owner("alice")
    bob = await arena.owner("bob")
    await arena.connect(RandomBot, await arena.bot(alice, "mine"))
    await arena.connect(RandomBot, await arena.bot(bob, "bobs"))
    server = arena.server
    game = make_game("friday13", players=3)
    owner = Principal("owner", "alice")
    with pytest.raises(NotAllowed):
        await create_challenge(
            server.store, server.sessions, server.host.node, owner, game, ["mine", "bobs", "builtin:mc"], None
        )
    with pytest.raises(UnknownBot):
        await create_challenge(
            server.store, server.sessions, server.host.node, owner, game, ["mine", "nobody", "builtin:mc"], None
        )


async def test_a_challenge_of_a_busy_bot_waits_for_its_free_slot(slow_arena: Arena) -> None:
    arena = slow_arena
    alice = await arena.owner("alice")
    busy = RawBot(arena, await arena.bot(alice, "busy"))
    await busy.connect(max_matches=1)
    server = arena.server
    owner = Principal("owner", "alice")
    game = make_game("friday13", players=3)
    seats = ["busy", "builtin:random", "builtin:heuristic"]

    async def start() -> str:
        order = await create_challenge(
            server.store, server.sessions, server.host.node, owner, game, seats, None, start_wait=0.5
        )
        return order.match_id

    first = await start()
    second = await start()  # queued: the bot plays its one match at a time
    assert first in server.host.live and second not in server.host.live
    await busy.play_on(first)
    await busy.play_on(second)
    summary, _ = await arena.finished(second)
    assert summary.termination == pb.TERMINATION_NORMAL
