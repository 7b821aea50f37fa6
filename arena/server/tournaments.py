"""Tournaments on the server: matches queued on the work stream, Swiss rounds planned as rounds end, live tables.

Round-robin and gauntlet schedules do not depend on results, so every round is queued when the
tournament is created; a Swiss round is queued by whichever node stores the last result of the
round before it (the store lets only one do so).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from arena.bots import BOTS
from arena.match.local import match_seed
from arena.ratings import Rating, ResultRecord
from arena.server.matches import BUILTIN_PREFIX
from arena.store import Store
from arena.store.ratings import RatingStore
from arena.store.store import now_ms
from arena.store.tournaments import TournamentState, TournamentStore
from arena.store.work import MatchOrder
from arena.tournaments import TournamentError, TournamentSpec, TournamentTable, plan_round, tournament_table

log = logging.getLogger(__name__)


def round_orders(spec: TournamentSpec, round_number: int, results: Sequence[ResultRecord] = ()) -> list[MatchOrder]:
    """The work orders of one round: ids `spec.match_id(n)`, seeds from the tournament seed and the deal."""
    params = {**spec.params, "players": spec.table_size}
    created = now_ms()
    return [
        MatchOrder(
            match_id=spec.match_id(pairing.number),
            game=spec.game,
            params=params,
            seats=pairing.seats,
            seed=match_seed(spec.seed, pairing.deal).hex(),
            tournament=spec.name,
            rated=spec.rated,
            created_ms=created,
        )
        for pairing in plan_round(spec, round_number, results)
    ]


async def check_entrants(store: Store, spec: TournamentSpec) -> None:
    """Every entrant is a registered bot that plays the game, or a built-in bot; TournamentError if not."""
    for name in spec.entrants:
        if name.startswith(BUILTIN_PREFIX):
            if name.removeprefix(BUILTIN_PREFIX) not in BOTS:
                raise TournamentError(f"no built-in bot {name!r}; choose builtin:{', builtin:'.join(BOTS)}")
            continue
        bot = await store.get_bot(name)
        if bot is None:
            raise TournamentError(f"no bot named {name!r} is registered")
        if bot.games and spec.game not in bot.games:
            raise TournamentError(f"bot {name!r} does not play {spec.game} (it plays {', '.join(bot.games)})")


async def create_tournament(store: Store, spec: TournamentSpec, created_by: str) -> None:
    """Store the tournament and queue its matches (every round, or a Swiss tournament's first)."""
    await check_entrants(store, spec)
    rounds = 1 if spec.format == "swiss" else spec.rounds
    orders = [order for number in range(rounds) for order in round_orders(spec, number)]
    await TournamentStore(store.redis).create(spec, created_by, orders, rounds)


class TournamentProgress:
    """The work host's hook for tournament matches: plans Swiss rounds and marks the end."""

    def __init__(self, store: Store) -> None:
        self.tournaments = TournamentStore(store.redis)

    async def __call__(self, order: MatchOrder, result: ResultRecord) -> None:
        if not order.tournament:
            return
        state = await self.tournaments.get(order.tournament)
        if state is None:
            return
        spec = state.spec
        results = await self.tournaments.results(spec.name)
        if len(results) >= spec.total_matches:
            await self.tournaments.mark_finished(spec.name)
            return
        planned = state.rounds_planned
        if spec.format != "swiss" or planned >= spec.rounds:
            return
        numbers = {spec.match_number(record.match_id) for record in results}
        first, last = (planned - 1) * spec.matches_per_round, planned * spec.matches_per_round
        if any(number not in numbers for number in range(first, last)):
            return
        if await self.tournaments.plan(spec.name, planned, round_orders(spec, planned, results)):
            log.info("tournament %s: round %d queued", spec.name, planned + 1)


async def live_table(store: Store, state: TournamentState) -> TournamentTable:
    """The standings now; a rated tournament shows the ladder's TrueSkill, an unrated one its own."""
    spec = state.spec
    results = await TournamentStore(store.redis).results(spec.name)
    ratings: dict[str, Rating] | None = None
    if spec.rated:
        rows = await RatingStore(store.redis).ratings(spec.game, spec.entrants)
        ratings = {bot: row.rating for bot, row in rows.items()}
    return tournament_table(spec, results, ratings=ratings)
