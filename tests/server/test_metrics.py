"""The Prometheus endpoint of a node, scraped over HTTP while real bots play over real gRPC."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from redis.asyncio import Redis

from arena.match import MAX_STRIKES
from arena.node.work import submit_match
from arena.sdk import Client
from arena.store import Store
from arena.store.work import WorkQueue
from tests.conftest import free_port
from tests.server.conftest import RandomBot, RawBot, start_arena
from tests.server.test_workers import presence, register, serving, until

pytestmark = pytest.mark.asyncio

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int) -> Samples:
    """Every sample /metrics shows, by name and labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def scraped(port: int) -> Samples:
    return await asyncio.to_thread(scrape, port)


async def test_a_node_counts_matches_moves_strikes_sessions_queues_and_redis(redis_url: str) -> None:
    async with start_arena(redis_url, metrics_port=0) as arena:
        port = arena.server.metrics_port
        assert port
        # The counters live in this test process, which other tests share: compare before and after.
        before = await scraped(port)
        tokens = await arena.bots("steady", "raw")
        await arena.connect(RandomBot, tokens["steady"], ladder=True, games=("friday13",))
        match_id = await arena.create_match("friday13", ["steady", "builtin:random", "builtin:heuristic"])
        _, record = await arena.finished(match_id)
        moves = [move for entry in record["rounds"] for move in entry["moves"]]

        bot = RawBot(arena, tokens["raw"])
        await bot.connect()
        forfeited = await arena.create_match("amigo13", ["raw", "builtin:random", "builtin:random"])
        for strike in range(MAX_STRIKES):
            request = (await bot.expect("action_request")).action_request
            await bot.act(forfeited, request.request_id, 1000 + strike)
            await bot.expect("error")
        await arena.finished(forfeited)

        async def sampled() -> bool:
            now = await scraped(port)
            return value(now, "arena_sessions_connected") == 2 and value(
                now, "arena_ladder_waiting", game="friday13"
            ) > value(before, "arena_ladder_waiting", game="friday13")

        await until(sampled, "sessions and the ladder queue sampled", timeout=15)
        after = await scraped(port)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("arena_matches_finished_total", game="friday13", termination="normal") == 1
    assert grew("arena_matches_finished_total", game="amigo13", termination="forfeit") == 1
    assert grew("arena_forfeits_total", game="amigo13") == 1
    assert grew("arena_strikes_total", game="amigo13", reason="illegal") == MAX_STRIKES
    assert grew("arena_strikes_total", game="friday13", reason="late") == 0
    # Every move of the friday13 match is counted; the timed seat's (the connected bot's) are timed.
    timed = sum(move["seat"] == 0 for move in moves)
    assert grew("arena_moves_total", game="friday13") == len(moves)
    assert grew("arena_move_seconds_count", game="friday13") == timed > 0
    assert grew("arena_move_seconds_bucket", game="friday13", le="+Inf") == timed
    assert grew("arena_redis_seconds_count") > 0
    assert value(after, "arena_matches_running", game="friday13") == 0
    for gauge in ("arena_work_pending", "arena_work_waiting", "arena_work_oldest_pending_seconds"):
        assert (gauge, ()) in after


IDLE_ROUND_TRIPS = 15
"""Redis round trips a second an idle node may make (about 10; 27 when each ladder pass took ten): four
ladder passes of one each, the work stream's pending check, its heartbeat, the health ping and the
metrics' sampling. A fleet of idle nodes is a load on Redis."""


async def test_an_idle_node_makes_few_redis_round_trips(redis_url: str) -> None:
    async with start_arena(redis_url, metrics_port=0) as arena:
        assert arena.server.ladder is not None, "the ladder runs, as in `arena serve`"
        port = arena.server.metrics_port
        assert port
        await asyncio.sleep(1.0)  # past the start's own reads
        before, started = await scraped(port), asyncio.get_running_loop().time()
        await asyncio.sleep(3.0)
        after, ended = await scraped(port), asyncio.get_running_loop().time()
    trips = value(after, "arena_redis_seconds_count") - value(before, "arena_redis_seconds_count")
    assert trips > 0, "the idle node's loops use the metered client"
    assert trips / (ended - started) <= IDLE_ROUND_TRIPS, f"{trips:.0f} round trips in {ended - started:.1f} s"


async def test_a_taken_metrics_port_is_one_line_and_the_node_does_not_start(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        metrics_port = taken.getsockname()[1]
        for workers in ("1", "2"):
            done = await asyncio.to_thread(
                subprocess.run,
                [
                    sys.executable,
                    "-m",
                    "arena.cli",
                    "serve",
                    "--port",
                    str(free_port()),
                    "--http-port",
                    "0",
                    "--metrics-port",
                    str(metrics_port),
                    "--workers",
                    workers,
                    "--data-dir",
                    str(tmp_path_factory.mktemp("data")),
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 2, done.stderr
            assert done.stderr == (
                f"arena: error: cannot serve metrics on 127.0.0.1:{metrics_port}: Address already in use\n"
            ), workers


@pytest.mark.slow  # a drill of the supervisor with real `arena serve --workers` processes (the slow tier)
async def test_the_supervisor_adds_up_its_workers_and_forgets_a_dead_ones_sessions(redis_url: str) -> None:
    port, metrics_port = free_port(), free_port()
    bots = [f"m{i}" for i in range(4)]
    redis = Redis.from_url(redis_url)
    store = Store(redis)
    queue = WorkQueue(redis)
    clients: list[Client] = []
    tasks: list[asyncio.Task[None]] = []
    args = ("--workers", "2", "--port", str(port), "--redis-url", redis_url, "--metrics-port", str(metrics_port))
    try:
        with serving(*args, "--http-port", "0") as server:
            server.wait_for(rf"metrics on http://127\.0\.0\.1:{metrics_port}/metrics")
            workers = server.workers()
            address = f"127.0.0.1:{port}"
            tokens = await register(address, bots)
            clients = [Client(RandomBot, address, tokens[name], max_matches=2, backoff=0.05) for name in bots]
            tasks = [asyncio.create_task(client.run()) for client in clients]

            async def sessions(count: int) -> bool:
                return value(await scraped(metrics_port), "arena_sessions_connected") == count

            await until(lambda: sessions(4), "four sessions, added up over the workers")
            orders = [await submit_match(store, "friday13", bots[:3]), await submit_match(store, "friday13", bots[1:])]

            async def finished() -> bool:
                ended = all([await queue.result(order.match_id) for order in orders])
                return ended and value(
                    await scraped(metrics_port), "arena_matches_finished_total", game="friday13", termination="normal"
                ) == len(orders)

            await until(finished, "both matches counted")
            served = await presence(redis, bots)
            victim = max(workers, key=lambda name: sum(name in nodes for nodes in served.values()))
            moved = [bot for bot, nodes in served.items() if victim in nodes]
            assert moved, served
            mark = len(server.lines)
            os.kill(workers[victim], signal.SIGKILL)
            server.wait_for(r"serves again", after=mark)
            # The bots resume on the living workers; the dead one's sessions are not counted twice.

            async def resumed() -> bool:
                # The killed worker's bots have sessions on living workers again (its own entries linger).
                now = await presence(redis, moved)
                return all(nodes - {victim} for nodes in now.values())

            await until(resumed, "the killed worker's bots connected again")
            # The dead worker's last value would still count its sessions: 4 only once it is forgotten.
            await until(lambda: sessions(4), "four sessions again after a worker was killed")
            after = await scraped(metrics_port)
            assert value(after, "arena_matches_finished_total", game="friday13", termination="normal") == len(orders)
            assert server.stop() == 0
    finally:
        for client in clients:
            client.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        await redis.aclose()
