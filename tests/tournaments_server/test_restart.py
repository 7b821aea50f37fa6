"""A tournament survives a restart of the arena and of its embedded Redis: it resumes and counts each match once."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.app import ServerConfig, running
from arena.games import make_game
from arena.node.tournaments import create_tournament
from arena.node.work import WorkConfig
from arena.store import Store, open_redis
from arena.store.ratings import RatingStore
from arena.store.tournaments import TournamentStore
from arena.store.work import WorkQueue
from arena.tournaments import TournamentSpec
from tests.waiting import until

ENTRANTS = ("builtin:mc", "builtin:heuristic", "builtin:random")


def config(data: Path) -> ServerConfig:
    return ServerConfig(port=0, data_dir=data, admin_token="ata_restart", work=WorkConfig(claim_idle=0.5, slots=2))


@pytest.mark.slow  # a restart drill: a node stopped and started again over real Redis (the slow tier)
@pytest.mark.asyncio
async def test_a_tournament_stopped_midway_finishes_after_a_restart_with_each_match_once(tmp_path: Path) -> None:
    spec = TournamentSpec("restart", "friday13", ENTRANTS, table_size=3, rounds=1, duplicate=True, rated=True, seed="r")
    async with open_redis(None, tmp_path) as redis, running(config(tmp_path), redis) as arena:
        await create_tournament(arena.store, spec, "admin", admin=True)
        tournaments = TournamentStore(redis)

        async def one_stored() -> bool:
            return len(await tournaments.results("restart")) >= 1

        await until(one_stored, "a first match stored before the restart")
    async with open_redis(None, tmp_path) as redis:
        before = len(await TournamentStore(redis).results("restart"))
    assert before < spec.total_matches, "the tournament should be under way when the arena stops"
    async with open_redis(None, tmp_path) as redis, running(config(tmp_path), redis):
        tournaments = TournamentStore(redis)
        queue = WorkQueue(redis)

        async def finished() -> bool:
            state = await tournaments.get("restart")
            return state is not None and bool(state.finished_ms)

        async def all_acknowledged() -> bool:  # ratings are written before an order's acknowledgement
            return not await queue.backlog()

        async def stored() -> int:
            return len(await tournaments.results("restart"))

        # builtin:mc searches for its moves: on a loaded machine a match takes long, but matches keep coming
        await until(finished, "the tournament finished after the restart", progress=stored)
        await until(all_acknowledged, "every work order acknowledged after the restart")
        results = await tournaments.results("restart")
        assert [r.match_id for r in results] == [spec.match_id(n) for n in range(spec.total_matches)]
        game = make_game("friday13", players=3)
        for result in results:
            found = await Store(redis).get_match(result.match_id)
            assert found is not None and found[1] is not None
            assert tuple(game.replay(found[1]).outcome().scores) == result.scores
        ratings = await RatingStore(redis).ratings("friday13", ENTRANTS)
        assert {bot: row.games for bot, row in ratings.items()} == dict.fromkeys(ENTRANTS, spec.total_matches)
