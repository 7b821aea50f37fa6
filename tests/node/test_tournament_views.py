"""A watched tournament's view is built once for all of its watchers, and within its share of the node's time."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from arena.node.tournament_views import TournamentViews
from arena.node.tournaments import TournamentView
from arena.store import Store
from arena.store.tournaments import TournamentState
from arena.tournaments import TournamentSpec

BUILD = 0.05
"""Seconds each build below takes (a tournament's view reads every result it has)."""


class Builds:
    """Counts the views built; each takes BUILD seconds, as reading many results would."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, store: Store, state: TournamentState) -> TournamentView:
        self.count += 1
        await asyncio.sleep(BUILD)
        return TournamentView(state, None, ())  # type: ignore[arg-type]  # what the view holds is not looked at here


def state(finished_ms: int = 0) -> TournamentState:
    spec = TournamentSpec("cup", "friday13", ("a", "b", "c"), table_size=3, seed="s")
    return TournamentState(spec, "admin", 1, 1, finished_ms=finished_ms)


@pytest.mark.asyncio
async def test_watchers_share_one_build_and_a_busy_tournament_is_rebuilt_within_its_share(redis: Redis) -> None:
    builds = Builds()
    views = TournamentViews(Store(redis), share=0.02, build=builds)  # after a 0.05 s build, none for 2.45 s
    with views.watching("cup"):
        # Eight watchers ask at once: one build serves them all.
        kept = await asyncio.gather(*(views.view(state(), (1,), refresh=10.0) for _ in range(8)))
        assert builds.count == 1 and all(view is kept[0] for view in kept)
        # A result every 10 ms for 0.3 s (longer on a busy machine, whose build takes longer too): the kept view is given meanwhile (its marks tell how old it is)...
        for results in range(2, 32):
            assert (await views.view(state(), (results,), refresh=10.0)).marks == (1,)
            await asyncio.sleep(0.01)
        assert builds.count == 1
        # ...and once the tournament's share of time is spent on resting, the next look builds the latest.
        await asyncio.sleep(kept[0].rest_until - asyncio.get_running_loop().time())
        assert (await views.view(state(), (32,), refresh=10.0)).marks == (32,)
        assert builds.count == 2
        # The end is built at once, resting or not; after it, the same final view is kept.
        final = await views.view(state(finished_ms=5), (33, 5), refresh=10.0)
        assert (final.marks, builds.count) == ((33, 5), 3)
        assert await views.view(state(finished_ms=5), (33, 5), refresh=10.0) is final
    # Once nobody watches, nothing is kept: the next watcher's view is built anew.
    with views.watching("cup"):
        await views.view(state(finished_ms=5), (33, 5), refresh=10.0)
    assert builds.count == 4
    # Nor is anything kept for a look from outside `watching`.
    await views.view(state(), (1,), refresh=10.0)
    assert (views._kept, views._locks, views._watchers) == ({}, {}, {})


@pytest.mark.asyncio
async def test_an_unchanged_tournament_is_looked_at_again_after_the_refresh(redis: Redis) -> None:
    builds = Builds()
    views = TournamentViews(Store(redis), share=1.0, build=builds)  # no rest beyond the build itself
    with views.watching("cup"):
        first = await views.view(state(), (1,), refresh=1.0)
        assert await views.view(state(), (1,), refresh=1.0) is first
        await asyncio.sleep(1.05)
        # Whom it waits for may have changed without a result: the view is built again.
        again = await views.view(state(), (1,), refresh=1.0)
        assert again is not first and builds.count == 2
