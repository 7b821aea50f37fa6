"""A tournament's hands stay secret until its matches end: no surface shows its seed, or a match's, in time.

Every surface anyone can read is read before play, during a match, and between matches: the
tournament RPCs, the match RPCs (without a token, with the creator's and with the playing bot's),
the web API with its SSE streams, and every message the playing bot received. Nothing read may be
the tournament's seed or an unfinished match's, nor re-deal an unfinished match's hands, whether
taken as a match seed (hex) or as the tournament's seed text. Once the tournament has ended, its
seed is shown to everyone and re-deals every stored replay.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import urllib.error
import urllib.request
from typing import Any

import grpc
import pytest

from arena.games import Game, make_game
from arena.games.base import Termination
from arena.match import Clock
from arena.match.local import match_seed
from arena.store.tournaments import TournamentStore
from arena.tournaments import seed_commitment
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.server.conftest import ADMIN, Arena, RandomBot, RawBot, bearer, start_arena
from tests.waiting import until

pytestmark = pytest.mark.asyncio

NAME = "secret"
ENTRANTS = ["spy", "builtin:random", "builtin:heuristic"]
MATCHES = 3
"""Three rounds of one table: three deals, one match each."""
HEX = re.compile(r"[0-9a-fA-F]{2,128}")
WORD = re.compile(r"[^\s\"'\\,:;{}\[\]()=<>]+")


def spec(name: str, **fields: Any) -> api_pb.TournamentSpec:
    return api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=ENTRANTS,
        table_size=3,
        rounds=MATCHES,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        **fields,
    )


def first_hands(game: Game, seed: bytes) -> Any:
    """What a seed deals: the hands and dummy of the first round."""
    record = game.new_match(seed).record(["a", "b", "c"], Termination.RUNNING)
    return {key: record["rounds"][0][key] for key in ("hands", "dummy")}


async def web_text(arena: Arena, path: str) -> str:
    """The body of a web API answer (404s too); for an SSE stream, its first event."""
    assert arena.server.web is not None
    url = arena.server.web.url + path.lstrip("/")

    def get() -> str:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                if not path.endswith("/stream"):
                    return str(response.read().decode())
                lines = [response.readline()]
                while lines[-1] not in (b"\n", b""):
                    lines.append(response.readline())
                return b"".join(lines).decode()
        except urllib.error.HTTPError as error:
            return str(error.read().decode())

    return await asyncio.to_thread(get)


async def first_of(call: Any) -> str:
    """The first message of a server stream (or its error), then the call cancelled."""
    try:
        return str(await asyncio.wait_for(call.read(), 10))
    except grpc.aio.AioRpcError as error:
        return str(error.details())
    finally:
        call.cancel()


async def rpc_text(call: Any) -> str:
    try:
        return str(await call)
    except grpc.aio.AioRpcError as error:
        return str(error.details())


async def surfaces(arena: Arena, tokens: list[str], spy: list[Any], match_ids: list[str]) -> str:
    """Everything a spectator, the tournament's creator or its playing bot can read now, as text."""
    api, shown = arena.api, []
    for token in ["", *tokens]:
        metadata = bearer(token) if token else ()
        shown += [
            await rpc_text(api.GetTournament(api_pb.GetTournamentRequest(name=NAME), metadata=metadata)),
            await rpc_text(api.ListTournaments(api_pb.ListTournamentsRequest(), metadata=metadata)),
            await first_of(api.WatchTournament(api_pb.WatchTournamentRequest(name=NAME), metadata=metadata)),
            await rpc_text(api.ListMatches(api_pb.ListMatchesRequest(tournament_id=NAME), metadata=metadata)),
            await rpc_text(api.ListMatches(api_pb.ListMatchesRequest(), metadata=metadata)),
        ]
        for match_id in match_ids:
            shown.append(await rpc_text(api.GetMatch(api_pb.GetMatchRequest(match_id=match_id), metadata=metadata)))
            watch = api.WatchMatch(api_pb.WatchMatchRequest(match_id=match_id), metadata=metadata)
            shown.append(await first_of(watch))
    for path in ("/api/tournaments", f"/api/tournaments/{NAME}", f"/api/matches?tournament={NAME}", "/api/matches"):
        shown.append(await web_text(arena, path))
    shown += [await web_text(arena, "/api/bots/spy"), await web_text(arena, f"/api/tournaments/{NAME}/stream")]
    for match_id in match_ids:
        shown.append(await web_text(arena, f"/api/matches/{match_id}"))
        shown.append(await web_text(arena, f"/api/matches/{match_id}/stream"))
        shown.append(await web_text(arena, f"/api/matches/{match_id}/replay"))
    shown += [str(message) for message in spy]
    return "\n".join(shown)


def predicts_nothing(seen: str, secret: str, unfinished: dict[int, int], game: Game) -> None:
    """Neither the seed nor an unfinished match's seed is in `seen`, and nothing in it re-deals one of
    those matches (`unfinished`: match number -> its deal), as a match seed or as the tournament's seed."""
    truth = {number: first_hands(game, match_seed(secret, deal)) for number, deal in unfinished.items()}
    for found in set(HEX.findall(seen)):
        if len(found) % 2 == 0:
            hands = first_hands(game, bytes.fromhex(found))
            assert hands not in truth.values(), f"{found!r}, readable, re-deals an unfinished match"
    for word in set(WORD.findall(seen)):
        for number, deal in unfinished.items():
            hands = first_hands(game, match_seed(word, deal))
            assert hands != truth[number], f"{word!r}, readable, re-deals match {number} as the seed text"
    assert secret not in seen, "the tournament's seed is readable before the tournament ended"
    for number, deal in unfinished.items():
        assert match_seed(secret, deal).hex() not in seen, f"the seed of unfinished match {number} is readable"


async def test_no_surface_shows_a_seed_or_re_deals_a_hand_before_the_end_and_the_seed_is_published_after(
    redis_url: str,
) -> None:
    async with start_arena(redis_url, http_port=0, clock=Clock(60.0, 120.0)) as arena:
        owner = await arena.owner("olga")
        spy_token = await arena.bot(owner, "spy", games=("friday13",))
        created = await arena.api.CreateTournament(
            api_pb.CreateTournamentRequest(spec=spec(NAME)), metadata=bearer(owner)
        )
        commitment = created.tournament.seed_commitment
        state = await TournamentStore(arena.server.store.redis).get(NAME)
        assert state is not None
        secret, game = state.spec.seed, state.spec.build_game()
        deals = {number: state.spec.deal_of(number) for number in range(MATCHES)}
        as_admin = await arena.api.GetTournament(api_pb.GetTournamentRequest(name=NAME), metadata=bearer(ADMIN))
        assert as_admin.tournament.spec.seed == secret, "the admin reads the seed at any time"
        assert commitment == seed_commitment(secret)
        ids = [f"{NAME}-{number}" for number in range(MATCHES)]
        tokens = [owner, spy_token]
        received: list[Any] = []

        # Before play: the spy is not connected, every match waits for it.
        predicts_nothing(await surfaces(arena, tokens, received, ids), secret, deals, game)

        spy = RawBot(arena, spy_token)
        try:
            await spy.connect(games=("friday13",), max_matches=1)

            ended: list[int] = []

            async def hold() -> str:
                """Read until a match asks the spy for its first move (unanswered: the match runs on); its id."""
                while True:
                    message = await spy.read(30)
                    received.append(message)
                    kind = message.WhichOneof("message")
                    if kind == "action_request":
                        return str(message.action_request.match_id)
                    assert kind == "match_started", message

            async def finish(match_id: str) -> None:
                request = received[-1].action_request
                await spy.act(request.match_id, request.request_id, request.legal_actions[0].id)
                while True:
                    message = await spy.read(30)
                    received.append(message)
                    kind = message.WhichOneof("message")
                    if kind == "action_request":
                        request = message.action_request
                        await spy.act(request.match_id, request.request_id, request.legal_actions[0].id)
                    elif kind == "match_ended" and message.match_ended.match_id == match_id:
                        ended.append(ids.index(match_id))
                        return

            while len(ended) < MATCHES:
                playing = await hold()
                # A match runs (the spy holds its move), the ones before it have ended: only theirs may be known.
                unfinished = {number: deal for number, deal in deals.items() if number not in ended}
                seen = await surfaces(arena, tokens, received, ids)
                predicts_nothing(seen, secret, unfinished, game)
                for number in ended:  # the surfaces read are the ones that show a seed at the end
                    assert match_seed(secret, deals[number]).hex() in seen
                await finish(playing)
        finally:
            await spy.close()

        async def over() -> bool:
            return bool((await arena.api.GetTournament(api_pb.GetTournamentRequest(name=NAME))).tournament.finished_ms)

        await until(over, "the tournament ended")
        public = (await arena.api.GetTournament(api_pb.GetTournamentRequest(name=NAME))).tournament
        assert public.spec.seed == secret and public.seed_commitment == commitment
        page = json.loads(await web_text(arena, f"/api/tournaments/{NAME}"))
        assert (page["spec"]["seed"], page["seed_commitment"]) == (secret, commitment)
        for number, match_id in enumerate(ids):
            reply = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=match_id))
            replay = json.loads(reply.replay_json)
            seed = match_seed(public.spec.seed, deals[number])
            assert replay["seed"] == seed.hex(), "anyone re-deals every match from the published seed"
            assert {key: replay["rounds"][0][key] for key in ("hands", "dummy")} == first_hands(game, seed)
            assert list(game.replay(replay).outcome().scores) == list(reply.match.scores)


async def test_two_tournaments_of_one_spec_made_without_a_seed_deal_different_first_hands(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        owner = await arena.owner("olga")
        await arena.bot(owner, "spy", games=("friday13",))  # never connected: nothing is played
        await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec("api-made")), metadata=bearer(owner))
        env = {**os.environ, "ARENA_SERVER": arena.address, "ARENA_TOKEN": owner}
        made = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "arena.cli", "tournament", "create", "cli-made", "--game", "friday13"),
            *("--entrants", ",".join(ENTRANTS), "--table-size", "3", "--rounds", str(MATCHES)),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(made.communicate(), 60)
        assert made.returncode == 0, err.decode()
        game = make_game("friday13", players=3)
        tournaments = TournamentStore(arena.server.store.redis)
        dealt = []
        for name in ("api-made", "cli-made"):
            state = await tournaments.get(name)
            assert state is not None
            dealt.append(first_hands(game, match_seed(state.spec.seed, state.spec.deal_of(0))))
        assert dealt[0] != dealt[1], "two tournaments made without a seed deal the same first hands"


async def test_only_the_admin_chooses_a_seed(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        owner = await arena.owner("olga")
        await arena.bot(owner, "spy", games=("friday13",))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.api.CreateTournament(
                api_pb.CreateTournamentRequest(spec=spec("chosen", seed="s1")), metadata=bearer(owner)
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert refused.value.details() == (
            "only the admin may choose a tournament's seed (whoever knows it knows every hand): leave --seed out"
        )
        assert await TournamentStore(arena.server.store.redis).get("chosen") is None
        env = {**os.environ, "ARENA_SERVER": arena.address, "ARENA_TOKEN": owner}
        command = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "arena.cli", "tournament", "create", "chosen", "--game", "friday13", "--seed", "s1"),
            *("--entrants", ",".join(ENTRANTS), "--table-size", "3"),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(command.communicate(), 60)
        assert (command.returncode, out) == (2, b"")
        assert err.decode() == f"arena: error: {refused.value.details()}\n"
        await arena.api.CreateTournament(
            api_pb.CreateTournamentRequest(spec=spec("chosen", seed="s1")), metadata=bearer(ADMIN)
        )
        public = (await arena.api.GetTournament(api_pb.GetTournamentRequest(name="chosen"))).tournament
        assert (public.spec.seed, public.seed_commitment) == ("", seed_commitment("s1"))
        for token in (owner, "ato_not-a-token"):
            seen = await arena.api.GetTournament(api_pb.GetTournamentRequest(name="chosen"), metadata=bearer(token))
            assert seen.tournament.spec.seed == ""
        admin = await arena.api.ListTournaments(api_pb.ListTournamentsRequest(), metadata=bearer(ADMIN))
        assert [t.spec.seed for t in admin.tournaments] == ["s1"]


async def test_a_duplicate_deals_finished_table_shows_no_hand_while_its_other_tables_play(redis_url: str) -> None:
    """Every deal of a duplicate tournament is played at several tables: the record of one that ended would
    deal the others' hands. Its seed and hidden cards are held back, from the bots too, until the end."""
    async with start_arena(redis_url, http_port=0) as arena:
        tokens = await arena.bots("dupe")
        # One match at a time, so that the deal's tables play one after another.
        client = await arena.connect(RandomBot, tokens["dupe"], max_matches=1)
        request = api_pb.CreateTournamentRequest(
            spec=api_pb.TournamentSpec(
                name="dupes", game=pb.GameSpec(game="friday13"), entrants=["dupe", "builtin:random", "builtin:heuristic"],
                table_size=3, rounds=1, duplicate=True, format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
            )
        )  # fmt: skip
        await arena.api.CreateTournament(request, metadata=bearer(ADMIN))
        store = TournamentStore(arena.server.store.redis)

        async def first_ended() -> bool:
            return bool(await store.results("dupes"))

        await until(first_ended, "the deal's first table ending")
        state = await store.get("dupes")
        assert state is not None and not state.finished_ms and state.spec.total_matches > 1
        ended = (await store.results("dupes"))[0].match_id
        reply = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=ended))
        shown = json.loads(reply.replay_json)
        assert "seed" not in shown and all("hands" not in entry for entry in shown["rounds"])
        assert shown["scores"] and shown["seed_commitment"], "the result and the commitment are there"
        page = json.loads(await web_text(arena, f"/api/matches/{ended}"))
        assert page["sealed"] and "seed" not in page["replay"] and "frames" not in page
        download = json.loads(await web_text(arena, f"/api/matches/{ended}/replay"))
        assert download == page["replay"], "the download is the public record too"
        assert all(not message.seed for message in client.ended), "no bot is told a seed before the end"

        async def tournament_over() -> bool:
            found = await store.get("dupes")
            return found is not None and bool(found.finished_ms)

        await until(tournament_over, "the tournament's end", timeout=120)
        reply = await arena.api.GetMatch(api_pb.GetMatchRequest(match_id=ended))
        record = json.loads(reply.replay_json)
        assert record["seed"] and record["rounds"][0]["hands"], "after the end, every record is whole"
        make_game("friday13", **record["params"]).replay(record)
