"""Tournaments on the server: matches queued on the work stream, Swiss rounds planned as rounds end,
aborted matches re-run, cancels, live tables.

Round-robin and gauntlet schedules do not depend on results, so every round is queued when the
tournament is created; a Swiss round is queued by whichever node stores the last result of the
round before it (the store lets only one do so), once every match of the planned rounds is done
or aborted for good. A match aborted by a fault is queued again with the same seed and seats
under a new id (`NAME-n-try2`) until `MAX_MATCH_ATTEMPTS` attempts were aborted; every aborted
attempt keeps its reason.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from arena.bots import BOTS
from arena.games.base import Termination
from arena.match.local import match_seed
from arena.node.matches import BUILTIN_PREFIX
from arena.ratings import Rating, ResultRecord
from arena.store import Store
from arena.store.ratings import RatingStore
from arena.store.store import now_ms
from arena.store.tournaments import (
    CANCELLED_BEFORE,
    CHANGED,
    RECORD_TRIES,
    CancelOutcome,
    TournamentState,
    TournamentStore,
)
from arena.store.work import MatchOrder, WorkQueue
from arena.tournaments import (
    MAX_MATCH_ATTEMPTS,
    Progress,
    TournamentError,
    TournamentFormat,
    TournamentSpec,
    TournamentStatus,
    TournamentTable,
    plan_round,
    seats_due,
    seats_of,
    tournament_table,
)

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
    rounds = 1 if spec.format == TournamentFormat.SWISS else spec.rounds
    orders = [order for number in range(rounds) for order in round_orders(spec, number)]
    await TournamentStore(store.redis).create(spec, created_by, orders, rounds)


class TournamentProgress:
    """The work host's hook for tournament matches: re-runs aborted ones, plans Swiss rounds, marks the end.

    Idempotent, as result hooks must be: a result delivered again finds its abort noted (and its
    re-run queued) already, and its round planned.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.tournaments = TournamentStore(store.redis)

    async def __call__(self, order: MatchOrder, result: ResultRecord) -> None:
        if not order.tournament:
            return
        state = await self.tournaments.get(order.tournament)
        if state is None:
            return
        spec = state.spec
        attempt = spec.attempt_of(order.match_id)
        if attempt is None:
            return
        if result.termination == Termination.ABORTED:
            await self._aborted(state, order, *attempt)
        progress, results = await self.tournaments.progress(state)
        if not progress.unsettled:
            await self.tournaments.mark_finished(spec.name)
            return
        planned = state.rounds_planned
        if spec.format != TournamentFormat.SWISS or planned >= spec.rounds or state.cancelled_ms or progress.current:
            return  # a Swiss round is planned once every match of the rounds before it is done or aborted for good
        if await self.tournaments.plan(spec.name, planned, round_orders(spec, planned, results)):
            log.info("tournament %s: round %d queued", spec.name, planned + 1)

    async def _aborted(self, state: TournamentState, order: MatchOrder, number: int, attempt: int) -> None:
        spec = state.spec
        if await self.tournaments.marked_cancelled(spec.name, order.match_id):
            return  # cancelled with its tournament before it started: no fault, no re-run
        reason = await self.tournaments.noted_reason(spec.name, order.match_id) or await self.guess_reason(order)
        rerun = None
        if attempt < MAX_MATCH_ATTEMPTS:
            rerun = dataclasses.replace(
                order, match_id=spec.attempt_id(number, attempt + 1), attempts=0, created_ms=now_ms()
            )
        note = await self.tournaments.record_abort(spec.name, order.match_id, reason, rerun)
        if note.rerun:
            log.warning(
                "tournament %s: match %s aborted (%s); re-running it as %s",
                spec.name,
                order.match_id,
                note.reason,
                note.rerun,
            )
        else:
            log.warning(
                "tournament %s: match %s aborted for good after %d attempts (%s)",
                spec.name,
                order.match_id,
                attempt,
                note.reason,
            )

    async def guess_reason(self, order: MatchOrder) -> str:
        """Why an attempt was aborted, when the node that aborted it noted no reason: from what it left."""
        events = await WorkQueue(self.store.redis).events(order.match_id)
        if events.seed:
            return f"stopped by an error on the node after {len(events.actions)} moves (the node's log says which)"
        away = [name for name in order.seats if not name.startswith(BUILTIN_PREFIX)]
        connected = await self.tournaments.connected(away, order.game)
        offline = sorted(set(away) - connected)
        if offline:
            return f"never started: {', '.join(offline)} not connected to any node"
        return "never started: the node could not start it (its log says why)"


@dataclass(frozen=True)
class TournamentView:
    """A tournament as the API and the web show it: stored state, what became of its matches, whom
    it waits for, and (when asked for) the standings."""

    state: TournamentState
    progress: Progress
    waiting_for: tuple[str, ...]
    table: TournamentTable | None = None


async def tournament_view(store: Store, state: TournamentState, standings: bool = True) -> TournamentView:
    tournaments = TournamentStore(store.redis)
    progress, results = await tournaments.progress(state)
    away = {name for name in seats_due(state.spec, progress, results) if not name.startswith(BUILTIN_PREFIX)}
    connected = await tournaments.connected(away, state.spec.game) if away else set()
    table = await live_table(store, state, results) if standings else None
    return TournamentView(state, progress, tuple(sorted(away - connected)), table)


async def cancel_tournament(store: Store, name: str, by: str) -> CancelOutcome:
    """Cancel tournament `name` (TournamentError if there is none, or it has finished).

    Its matches not started are marked cancelled and get an aborted result (so that a node
    reading their orders skips them); those running play on.
    """
    tournaments = TournamentStore(store.redis)
    for _ in range(RECORD_TRIES):
        state = await tournaments.get(name)
        if state is None:
            raise TournamentError(f"no tournament named {name!r}")
        if state.cancelled_ms:
            return CancelOutcome(CANCELLED_BEFORE)
        seen = await tournaments.aborts_noted(name)
        progress, results = await tournaments.progress(state)
        if progress.status in (TournamentStatus.FINISHED, TournamentStatus.FINISHED_WITH_ABORTS):
            raise TournamentError(
                f"tournament {name!r} has finished ({progress.describe()}); there is nothing to cancel"
            )
        seats = seats_of(state.spec, progress.current, results)
        finished_at = now_ms() / 1000
        candidates = [
            ResultRecord(
                match_id,
                seats[number],
                (0,) * len(seats[number]),
                (1,) * len(seats[number]),
                Termination.ABORTED,
                finished_at=finished_at,
            )
            for number, match_id in sorted(progress.current.items())
        ]
        outcome = await tournaments.cancel(state, by, candidates, seen)
        if outcome.status == CHANGED:
            continue
        if outcome.status == CANCELLED_BEFORE:
            return outcome
        if outcome.status != 0:
            raise TournamentError(f"tournament {name!r} has finished; there is nothing to cancel")
        log.info(
            "tournament %s cancelled by %s: %d matches will not start, %d still running",
            name,
            by,
            outcome.cancelled,
            outcome.running,
        )
        return outcome
    raise TournamentError(f"tournament {name!r} kept changing while being cancelled; try again")


async def live_table(
    store: Store, state: TournamentState, results: Sequence[ResultRecord] | None = None
) -> TournamentTable:
    """The standings now; a rated tournament shows the ladder's TrueSkill, an unrated one its own."""
    spec = state.spec
    if results is None:
        results = await TournamentStore(store.redis).results(spec.name)
    ratings: dict[str, Rating] | None = None
    if spec.rated:
        rows = await RatingStore(store.redis).ratings(spec.game, spec.entrants)
        ratings = {bot: row.rating for bot, row in rows.items()}
    return tournament_table(spec, results, ratings=ratings)
