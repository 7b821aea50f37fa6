"""countdown13, registered by this package alone, plays over real gRPC with SDK bots and shows in the web API.

Nothing outside tests/fourth_game names the game: the server, the SDK, the node and the web reach
it through the kit it registers (arena.games.kit), and its observations travel as JSON in the
protocol's GenericObservation.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import grpc
import pytest

from arena.games import Termination, game_names, make_game
from arena.node.matches import public_record
from arena.sdk.client import BuiltinBot, Turn
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from arena.wire import convert
from tests.fourth_game.countdown import NAME, Countdown, CountdownObservation, registered
from tests.games import test_conformance, test_kits
from tests.server.conftest import ADMIN, bearer, start_arena

SEEN: list[tuple[int, CountdownObservation, list[int]]] = []
"""(seat, observation, legal actions) of every turn the SDK bot played, as the SDK decoded them."""


class WatchingBot(BuiltinBot):
    """The built-in random policy, noting what each turn showed it."""

    policy = "random"

    def act(self, turn: Turn) -> int:
        SEEN.append((turn.seat, turn.observation, list(turn.legal_actions)))
        return super().act(turn)


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_fourth_game_keeps_the_engine_and_kit_contracts() -> None:
    test_conformance.test_random_play_keeps_the_contract(make_game(NAME))
    test_conformance.test_random_play_keeps_the_contract(make_game(NAME, pile=2))
    test_kits.test_a_kit_declares_parameters_its_factory_takes_and_a_drawing_the_viewer_has(NAME)
    test_kits.test_a_played_match_crosses_the_wire_hides_what_it_should_and_replays_frame_by_frame(NAME)


def test_the_fourth_game_is_registered_only_while_a_test_asks_for_it() -> None:
    assert NAME in game_names()
    with registered():
        assert NAME in game_names()
    assert NAME in game_names(), "the outer registration still holds"


def test_its_parameters_travel_in_the_specs_params_and_come_back_typed() -> None:
    spec = convert.spec_from_game(make_game(NAME, pile=10))
    assert spec == pb.GameSpec(game=NAME, players=2, params={"pile": "10"})
    assert repr(convert.game_from_spec(spec)) == repr(make_game(NAME, pile=10))
    assert repr(convert.game_from_spec(pb.GameSpec(game=NAME), seats=2)) == repr(make_game(NAME))


def test_a_seats_observation_crosses_the_wire_as_json_and_no_other_form() -> None:
    game = Countdown()
    state = game.new_match(b"wire")
    state.apply(2)
    message = convert.observation_to_pb(game, state.observation(1))
    assert message.WhichOneof("game") == "generic"
    assert json.loads(message.generic.json)["lucky"] == state.observation(1).lucky
    assert convert.observation_from_pb(game, message, state.legal_actions()) == state.observation(1)
    cards = convert.observation_to_pb(make_game("amigo13"), make_game("amigo13").new_match(b"x").observation(0))
    with pytest.raises(convert.UnsupportedGame, match=f"cannot read a cards observation for {NAME}"):
        convert.observation_from_pb(game, cards, [])


def test_a_running_matchs_public_record_hides_the_lucky_numbers_its_kit_names() -> None:
    state = make_game(NAME).new_match(b"hidden")
    state.apply(1)
    shown = public_record(state.record(["a", "b"], Termination.RUNNING))
    assert "seed" not in shown
    assert shown["rounds"] == [{"moves": [{"seat": 0, "move": "take 1"}]}]


@pytest.mark.asyncio
async def test_a_match_plays_over_grpc_with_an_sdk_bot_and_its_replay_shows_in_the_web_api(redis_url: str) -> None:
    SEEN.clear()
    async with start_arena(redis_url, http_port=0) as arena:
        assert arena.server.web is not None
        owner = await arena.owner("nim")
        await arena.connect(WatchingBot, await arena.bot(owner, "counter", games=(NAME,)))
        request = api_pb.CreateMatchRequest(
            game=pb.GameSpec(game=NAME, params={"pile": "10"}), seats=["counter", "builtin:random"], seed="c0ffee"
        )
        match_id = (await arena.api.CreateMatch(request, metadata=bearer(ADMIN))).match_id
        summary, record = await arena.finished(match_id)

        game = make_game(NAME, pile=10)
        assert summary.game == pb.GameSpec(game=NAME, players=2, params={"pile": "10"})
        assert record["params"] == {"players": 2, "pile": 10}
        assert list(summary.scores) == list(game.replay(record).outcome().scores) == record["scores"]
        lucky = record["rounds"][0]["lucky"]
        assert SEEN, "the SDK bot was asked for moves"
        for seat, observation, legal in SEEN:
            assert isinstance(observation, CountdownObservation)
            assert seat == observation.seat == 0 and observation.lucky == lucky[0]
            assert list(observation.legal_actions) == legal == [take for take in (1, 2, 3) if take <= observation.pile]
        assert len(SEEN) == sum(move["seat"] == 0 for move in record["rounds"][0]["moves"])

        url = arena.server.web.url
        status, shown = await asyncio.to_thread(get, f"{url}api/matches/{match_id}")
        assert status == 200
        assert shown["replay"] == record
        assert shown["drawing"] == {"kind": "facts", "score_table": "final"}
        frames = shown["frames"]
        assert len(frames) == 1 + len(record["rounds"][0]["moves"])
        assert [frame["view"]["facts"][0] for frame in frames] == [
            ["Counters left", 10 - sum(int(move["move"].split()[1]) for move in record["rounds"][0]["moves"][:step])]
            for step in range(len(frames))
        ]
        assert frames[-1]["view"]["current_player"] == -1

        status, games = await asyncio.to_thread(get, f"{url}api/games")
        listed = {entry["name"]: entry for entry in games}
        assert listed[NAME]["parameters"] == [
            {"name": "pile", "default": 13, "help": "counters on the pile at the start", "choices": []}
        ]
        assert (listed[NAME]["score_name"], listed[NAME]["lower_is_better"]) == ("points", False)


@pytest.mark.asyncio
async def test_bad_parameters_of_the_fourth_game_are_refused_with_a_reason(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        for params, reason in [
            ({"pile": "many"}, "pile is a whole number, not 'many'"),
            ({"pile": "0"}, "countdown13 starts with 1 to 99 counters, not 0"),
            ({"colour": "red"}, "countdown13 has no parameter 'colour'"),
        ]:
            request = api_pb.CreateMatchRequest(
                game=pb.GameSpec(game=NAME, params=params), seats=["builtin:random", "builtin:random"]
            )
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await arena.api.CreateMatch(request, metadata=bearer(ADMIN))
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert reason in (raised.value.details() or "")


@pytest.mark.asyncio
async def test_a_tournament_of_the_fourth_game_keeps_its_parameters_and_refuses_bad_ones(redis_url: str) -> None:
    async with start_arena(redis_url) as arena:
        owner = await arena.owner("cup")
        await arena.connect(WatchingBot, await arena.bot(owner, "counter", games=(NAME,)))

        def spec(name: str, pile: str) -> api_pb.TournamentSpec:
            return api_pb.TournamentSpec(
                name=name,
                game=pb.GameSpec(game=NAME, params={"pile": pile}),
                entrants=["counter", "builtin:random"],
                table_size=2,
                rounds=1,
                format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
                seed="cup",
            )

        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await arena.api.CreateTournament(
                api_pb.CreateTournamentRequest(spec=spec("bad", "many")), metadata=bearer(ADMIN)
            )
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "pile is a whole number, not 'many'" in (raised.value.details() or "")

        await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec("cup", "7")), metadata=bearer(ADMIN))
        async for update in arena.api.WatchTournament(api_pb.WatchTournamentRequest(name="cup"), timeout=60):
            if update.tournament.finished_ms:
                break
        shown = (await arena.api.GetTournament(api_pb.GetTournamentRequest(name="cup"))).tournament
        assert shown.spec.game == pb.GameSpec(game=NAME, players=2, params={"pile": "7"})
        matches = (await arena.api.ListMatches(api_pb.ListMatchesRequest(tournament_id="cup"))).matches
        assert matches and all(match.game.params["pile"] == "7" for match in matches)
