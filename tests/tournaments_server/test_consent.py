"""A bot enters another owner's tournament only if its owner opted in ("accepts invitations")."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import grpc
import pytest

from arena.node.tournaments import invitation_refusal
from arena.store import BotRecord, Principal
from arena.store.ratings import RatingStore
from arena.store.store import BotKind
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RandomBot, bearer, start_arena


def spec(name: str, entrants: list[str], rated: bool = True) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=entrants,
        table_size=3,
        rated=rated,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    )


async def create(arena: Arena, token: str, request_spec: api_pb.TournamentSpec) -> api_pb.TournamentInfo:
    reply = await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=request_spec), metadata=bearer(token))
    info: api_pb.TournamentInfo = reply.tournament
    return info


async def refused(arena: Arena, token: str, request_spec: api_pb.TournamentSpec) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await create(arena, token, request_spec)
    return caught.value


async def cli(arena: Arena, token: str, *args: str) -> tuple[int, str, str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}, "ARENA_TOKEN": token}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "arena.cli", *args, "--server", arena.address),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.asyncio
async def test_an_owner_cannot_enter_another_owners_bot_into_a_rated_tournament_without_its_consent(
    redis_url: str,
) -> None:
    async with start_arena(redis_url) as arena:
        alice, bob = await arena.owner("alice"), await arena.owner("bob")
        await arena.connect(RandomBot, await arena.bot(bob, "bobs-bot"))
        field = ["bobs-bot", "builtin:random", "builtin:heuristic"]
        for rated in (True, False):
            error = await refused(arena, alice, spec(f"grab-{rated}", field, rated=rated))
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
            assert error.details() == (
                "bot 'bobs-bot' belongs to bob, who has not let other owners enter it (its owner can: "
                "arena bot set bobs-bot --accept-invitations)"
            )
        listed = await arena.api.ListTournaments(api_pb.ListTournamentsRequest())
        assert list(listed.tournaments) == []
        ratings = await RatingStore(arena.server.store.redis).ratings("friday13", ["bobs-bot"])
        assert ratings == {}, "bob's bot was rated without bob's say"
        # Its owner and the admin enter it as they like.
        await create(arena, bob, spec("bobs-own", field))
        await create(arena, ADMIN, spec("admins", field))
        # Once bob opts in, alice may.
        with pytest.raises(grpc.aio.AioRpcError) as not_hers:
            await arena.api.UpdateBot(
                api_pb.UpdateBotRequest(name="bobs-bot", accepts_invitations=True), metadata=bearer(alice)
            )
        assert not_hers.value.code() == grpc.StatusCode.PERMISSION_DENIED
        updated = await arena.api.UpdateBot(
            api_pb.UpdateBotRequest(name="bobs-bot", accepts_invitations=True), metadata=bearer(bob)
        )
        assert updated.bot.accepts_invitations and updated.bot.owner == "bob"
        made = await create(arena, alice, spec("invited", field))
        assert made.created_by == "alice"
        bots = await arena.api.ListBots(api_pb.ListBotsRequest())
        assert [(bot.name, bot.accepts_invitations) for bot in bots.bots] == [("bobs-bot", True)]
        # An update without a field changes nothing; opting out again stops further invitations.
        same = await arena.api.UpdateBot(api_pb.UpdateBotRequest(name="bobs-bot"), metadata=bearer(bob))
        assert same.bot.accepts_invitations
        await arena.api.UpdateBot(
            api_pb.UpdateBotRequest(name="bobs-bot", accepts_invitations=False), metadata=bearer(bob)
        )
        error = await refused(arena, alice, spec("again", field))
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED and "'bobs-bot'" in str(error.details())


@pytest.mark.asyncio
async def test_bot_settings_from_the_command_line_and_their_bad_input(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        bob = await arena.owner("bob")
        code, out, err = await cli(
            arena, bob, "bot", "register", "open-bot", "--game", "friday13", "--accept-invitations"
        )
        assert code == 0, err
        code, out, err = await cli(arena, bob, "bot", "show", "open-bot", "--json")
        assert code == 0 and json.loads(out)["accepts_invitations"] is True, err
        code, out, err = await cli(arena, bob, "bot", "set", "open-bot", "--no-accept-invitations")
        assert (code, out) == (
            0,
            "bot open-bot: accepts no invitations: only its owner and the admin enter it into tournaments\n",
        )
        code, out, err = await cli(arena, bob, "bot", "set", "open-bot", "--accept-invitations", "--json")
        assert code == 0 and json.loads(out)["accepts_invitations"] is True, err
        code, out, err = await cli(arena, bob, "bot", "show", "open-bot")
        assert code == 0 and "accepts invitations: other owners may enter it into their tournaments" in out, err
        for args, token, message in [
            (("bot", "set", "open-bot"), bob, "say what to change: --accept-invitations or --no-accept-invitations"),
            (("bot", "set", "nobody", "--accept-invitations"), bob, "no bot named 'nobody'"),
            (("bot", "set", "open-bot", "--accept-invitations"), ADMIN, "a bot's settings are its owner's to change"),
        ]:
            code, out, err = await cli(arena, token, *args)
            assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_the_rule_a_challenge_will_call_too() -> None:
    bot = BotRecord("b", "bob", BotKind.REMOTE, "", ("friday13",), "", 0)
    assert invitation_refusal(Principal("owner", "bob"), bot) == ""
    assert invitation_refusal(Principal("admin", "admin"), bot) == ""
    assert "'b' belongs to bob" in invitation_refusal(Principal("owner", "alice"), bot)
    opted_in = BotRecord("b", "bob", BotKind.REMOTE, "", ("friday13",), "", 0, accepts_invitations=True)
    assert invitation_refusal(Principal("owner", "alice"), opted_in) == ""
