"""A hosted bot reads nothing of its tournament's seed through its own socket while it plays.

The bot's only way out of its sandbox is the node's socket, which serves the whole API: at the start
of every match of its tournament it reads every tournament and match RPC there, with the token its
launch was given and without one, and writes what it read to its stderr, which its owner then
reads (GetBotLogs). Nothing it read may be the tournament's seed or the seed of the match it plays,
nor re-deal that match's hands.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.store.tournaments import TournamentStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from tests.hosted.conftest import logs, submit
from tests.server.conftest import Arena, bearer
from tests.tournaments_server.test_secret_seeds import predicts_nothing
from tests.waiting import until

pytestmark = pytest.mark.asyncio

NAME = "hidden"
SPY = '''"""Plays random moves; at the start of each match of tournament "hidden" reads the API through its socket."""

import os
import sys

import grpc

from arena.sdk import BuiltinBot, Match, run
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc


def read(api, metadata, playing):
    shown = [
        api.GetTournament(api_pb.GetTournamentRequest(name="hidden"), metadata=metadata),
        api.ListTournaments(api_pb.ListTournamentsRequest(), metadata=metadata),
        api.ListMatches(api_pb.ListMatchesRequest(tournament_id="hidden"), metadata=metadata),
        api.GetMatch(api_pb.GetMatchRequest(match_id=playing), metadata=metadata),
    ]
    watch = api.WatchTournament(api_pb.WatchTournamentRequest(name="hidden"), metadata=metadata)
    shown.append(next(watch))
    watch.cancel()
    watch = api.WatchMatch(api_pb.WatchMatchRequest(match_id=playing), metadata=metadata)
    shown.append(next(watch))
    watch.cancel()
    return shown


class Spy(BuiltinBot):
    policy = "random"

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        if not match.match_id.startswith("hidden-"):
            return
        shown = [match]
        with grpc.insecure_channel(os.environ["ARENA_SERVER"]) as channel:
            api = api_grpc.ArenaServiceStub(channel)
            for metadata in ((), (("authorization", "Bearer " + os.environ["ARENA_TOKEN"]),)):
                shown += read(api, metadata, match.match_id)
        print("=== during " + match.match_id, file=sys.stderr)
        print("\\n".join(str(item) for item in shown), file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(Spy)
'''


async def test_a_hosted_bot_reads_no_seed_of_its_tournament_through_its_socket(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "spybot", games=("friday13",))
    folder = tmp_path / "spy"
    folder.mkdir()
    (folder / "bot.py").write_text(SPY)
    submitted = await submit(arena, owner, "spybot", folder)
    assert submitted.version.status == api_pb.HOSTED_VERSION_STATUS_OK, submitted.stderr_tail
    spec = api_pb.TournamentSpec(
        name=NAME,
        game=pb.GameSpec(game="friday13"),
        entrants=["spybot", "builtin:random", "builtin:heuristic"],
        table_size=3,
        rounds=2,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
    )
    await arena.api.CreateTournament(api_pb.CreateTournamentRequest(spec=spec), metadata=bearer(owner))
    tournaments = TournamentStore(arena.server.store.redis)

    async def ended() -> bool:
        state = await tournaments.get(NAME)
        return state is not None and bool(state.finished_ms)

    await until(ended, "the hosted bot's tournament ended", timeout=120)
    state = await tournaments.get(NAME)
    assert state is not None and state.spec.seed
    sections: dict[str, str] = {}

    async def both_logged() -> bool:  # a run's stderr is stored once its process is stopped
        stderr = "".join(run.stderr for run in (await logs(arena, owner, "spybot")).runs)
        for part in stderr.split("=== during ")[1:]:
            match_id, _, seen = part.partition("\n")
            sections[match_id] = seen
        return sorted(sections) == [f"{NAME}-0", f"{NAME}-1"]

    await until(both_logged, "what the bot read in both matches in its logs", timeout=60)
    for match_id, seen in sections.items():
        assert "spybot" in seen and f'match_id: "{match_id}"' in seen, "the bot read the API"
        number = state.spec.match_number(match_id)
        assert number is not None
        predicts_nothing(seen, state.spec.seed, {number: state.spec.deal_of(number)}, state.spec.build_game())
