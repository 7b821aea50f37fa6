"""The built-in bots' pool (arena.node.builtin_pool) at its own level: seats spread over the workers, a full
pool's refusal, and seats given back however their match ends. No worker process starts here: a seat
is only a place in a worker until its bot is asked a move (tests/server/test_builtin_pool.py asks them)."""

from __future__ import annotations

import gc

import pytest
from prometheus_client import REGISTRY

from arena.games import make_game
from arena.node.builtin_pool import BuiltinPool, PoolBusy, PoolConfig, PooledBotSeat
from tests.node.conftest import SLACK
from tests.waiting import until

pytestmark = pytest.mark.asyncio

GAME = make_game("friday13", players=3)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_seats_go_to_the_least_busy_worker_and_a_full_pool_refuses_one_more_in_one_line() -> None:
    pool = BuiltinPool(PoolConfig(workers=2, seats_per_worker=2))
    held, refused = sample("arena_builtin_seats"), sample("arena_limit_refusals_total", limit="builtin_busy")
    seats = [pool.claim("random", GAME, seat, seed=seat) for seat in range(4)]
    assert [len(worker.seats) for worker in pool.workers] == [2, 2] and pool.held() == pool.capacity == 4
    assert sample("arena_builtin_seats") == held + 4
    with pytest.raises(PoolBusy) as busy:
        pool.claim("random", GAME, 0, seed=0)
    assert str(busy.value) == (
        "the built-in bots' 2 worker processes hold their maximum of 4 seats; the match waits for built-in "
        "bots' matches to end"
    )
    assert sample("arena_limit_refusals_total", limit="builtin_busy") == refused + 1

    pool.release(seats[0])
    pool.release(seats[0])  # a match that ends twice (stopped, then dropped) gives its seat back once
    assert pool.held() == 3 and sample("arena_builtin_seats") == held + 3
    again = pool.claim("mc", GAME, 1, seed=1)
    assert again.worker is seats[0].worker, "the room made is taken"
    assert all(worker.process is None for worker in pool.workers), "no process until a bot is asked a move"
    await pool.close()
    assert pool.held() == 0 and sample("arena_builtin_seats") == held


async def test_a_seat_whose_match_is_dropped_unplayed_is_given_back_by_its_finalizer() -> None:
    pool = BuiltinPool(PoolConfig(workers=1, seats_per_worker=1))
    seat = PooledBotSeat("builtin:random", pool, pool.claim("random", GAME, 0, seed=0))
    with pytest.raises(PoolBusy):
        pool.claim("random", GAME, 1, seed=1)
    del seat  # a match seated and dropped before it ran: nothing calls end() or release()
    gc.collect()

    async def given_back() -> bool:
        return pool.held() == 0

    await until(given_back, "the finalizer gives the seat back in the loop's own time", timeout=SLACK)
    kept = PooledBotSeat("builtin:random", pool, pool.claim("random", GAME, 1, seed=1))
    kept.release()
    kept.release()
    assert pool.held() == 0
    await pool.close()
