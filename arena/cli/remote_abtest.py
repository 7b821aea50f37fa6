"""A/B tests played on an arena server: the deals of `arena.match.abtest` through CreateMatch."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc

from arena.client import ArenaClient, ArenaError
from arena.match.abtest import ABTest
from arena.match.local import Pairing, match_seed
from arena.standings import Played
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from arena.wire.convert import spec_from_params

SERVER_RETRY_SECONDS = 60.0
"""How long a match may wait for its bots' free slots on the server before the test gives up."""
RECONNECT_SECONDS = 5.0
"""How long a match waits for a bot that is not connected (it may be reconnecting) before the test gives up."""
POLL_SECONDS = 0.05


class ServerProblem(Exception):
    """The server refused or lost a match of the test; the message says which and why."""


async def play_deals_on_server(
    test: ABTest,
    max_deals: int,
    arena: ArenaClient,
    on_deal: Callable[[ABTest], None] | None = None,
    parallel: int = 4,
) -> ABTest:
    """Play deals on an arena server until the SPRT decides or `max_deals` were played.

    `arena` is a client holding the admin token that CreateMatch needs. The test's bot names are
    seat names on the server (`test.policy` maps the entries to them). Up to `parallel` matches of
    a deal run at once; a match refused for want of a free slot (FAILED_PRECONDITION) is asked for again until
    SERVER_RETRY_SECONDS pass, and an aborted one (the server's fault) is played again.
    """
    spec = spec_from_params(test.game.name, test.game.params())
    gate = asyncio.Semaphore(parallel)
    loop = asyncio.get_running_loop()

    async def one(pairing: Pairing) -> Played:
        seats = [test.policy(label) for label in pairing.seats]
        request = api_pb.CreateMatchRequest(game=spec, seats=seats, seed=match_seed(test.seed, pairing.deal).hex())
        async with gate:
            for _attempt in range(3):
                started = loop.time()
                while True:
                    try:
                        created = await arena.create_match(request)
                        break
                    except ArenaError as error:
                        # Busy bots free their slots as their matches end; an absent one may be reconnecting.
                        patience = SERVER_RETRY_SECONDS if "maximum" in str(error) else RECONNECT_SECONDS
                        if error.code != grpc.StatusCode.FAILED_PRECONDITION or loop.time() - started > patience:
                            raise ServerProblem(f"match {pairing.number} ({', '.join(seats)}): {error}") from None
                        await asyncio.sleep(0.2)
                while True:
                    got = await arena.get_match(api_pb.GetMatchRequest(match_id=created.match_id))
                    if got.match.ended_ms:
                        break
                    await asyncio.sleep(POLL_SECONDS)
                summary = got.match
                if summary.termination != pb.TERMINATION_ABORTED:
                    return Played(pairing.seats, tuple(summary.scores), tuple(summary.ranks), pairing.deal)
        raise ServerProblem(f"match {pairing.number} ({', '.join(seats)}) was aborted three times; see its log")

    for deal in range(max_deals):
        results = await asyncio.gather(*(one(pairing) for pairing in test.pairings(deal)))
        test.sprt.add(test.observe(results))
        if on_deal is not None:
            on_deal(test)
        if test.sprt.verdict is not None:
            break
    return test
