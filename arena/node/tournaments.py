"""Tournaments on the server: matches queued on the work stream, Swiss rounds planned as rounds end,
aborted matches re-run, cancels, live tables.

Round-robin and gauntlet schedules do not depend on results, so every round is queued when the
tournament is created; a Swiss round is queued by whichever node stores the last result of the
round before it (the store lets only one do so), once every match of the planned rounds is done
or aborted for good. A match aborted by a fault is queued again with the same seed and seats
under a new id (`NAME-n-try2`) until `MAX_MATCH_ATTEMPTS` attempts were aborted; every aborted
attempt keeps its reason.

Matches go on the stream a window at a time per account (`FEED_WINDOW`, see arena/store/tournaments.py):
every stored result feeds the next. An owner may have `PENDING_LIMIT` tournament matches pending at
once and may enter another owner's bot only with that owner's consent (`invitation_refusal`); only
the admin chooses a seed. The seed stays secret (`seed_shown`) until the tournament has ended.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from arena.bots import BOTS
from arena.games.base import Termination
from arena.match.local import Pairing, match_seed
from arena.node.matches import BUILTIN_PREFIX
from arena.ratings import Rating, ResultRecord
from arena.store import BotRecord, Principal, Store
from arena.store.ratings import RatingStore
from arena.store.store import now_ms
from arena.store.tournaments import (
    ADMIN_ACCOUNT,
    CANCELLED_BEFORE,
    CHANGED,
    RECORD_TRIES,
    CancelOutcome,
    TournamentState,
    TournamentStore,
    owner_account,
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

PENDING_LIMIT = 2_000
"""Tournament matches an owner may have pending (not yet played, queued or not) at once; the admin has
no limit beyond a tournament's own (`MAX_MATCHES`). A tournament that would go over it is refused."""
FEED_WINDOW = 64
"""Matches of one account's tournaments on the work stream at once (a node's default match slots): the
orders of every other account are read within this many of them."""
PLANS_KEPT = 16
"""Rounds whose plans a node keeps: feeding takes a few matches of the same round result after result."""


class NotInvited(TournamentError):
    """Another owner's bot entered without its owner's consent."""


def invitation_refusal(inviter: Principal, bot: BotRecord) -> str:
    """Why `inviter` may not enter `bot` into a tournament (rated or not) or a challenge; "" if it may.

    Its owner and the admin may always; another owner only when the bot accepts invitations (its
    owner opted in: `arena bot set NAME --accept-invitations`).
    """
    if inviter.kind == "admin" or (inviter.kind == "owner" and inviter.name == bot.owner):
        return ""
    if bot.accepts_invitations:
        return ""
    return (
        f"bot {bot.name!r} belongs to {bot.owner}, who has not let other owners enter it (its owner "
        f"can: arena bot set {bot.name} --accept-invitations)"
    )


def seed_refusal(inviter: Principal, seed: str) -> str:
    """Why `inviter` may not choose tournament seed `seed`; "" if it may (the admin, or no seed given)."""
    if not seed or inviter.kind == "admin":
        return ""
    return "only the admin may choose a tournament's seed (whoever knows it knows every hand): leave --seed out"


def seed_shown(state: TournamentState, admin: bool) -> bool:
    """Whether a tournament's seed may be shown: to the admin always, to everyone once it has ended (every
    match played, or cancelled and its running matches ended), so that anyone can re-deal and check."""
    return admin or bool(state.finished_ms)


def _order(spec: TournamentSpec, pairing: Pairing, params: dict[str, object], created: int) -> MatchOrder:
    return MatchOrder(
        match_id=spec.match_id(pairing.number),
        game=spec.game,
        params=params,
        seats=pairing.seats,
        seed=match_seed(spec.seed, pairing.deal).hex(),
        tournament=spec.name,
        rated=spec.rated,
        created_ms=created,
    )


def round_orders(spec: TournamentSpec, round_number: int, results: Sequence[ResultRecord] = ()) -> list[MatchOrder]:
    """The work orders of one round: ids `spec.match_id(n)`, seeds from the tournament seed and the deal."""
    params = {**spec.params, "players": spec.table_size}
    created = now_ms()
    return [_order(spec, pairing, params, created) for pairing in plan_round(spec, round_number, results)]


class OrderSource:
    """The work orders of any matches of a tournament's planned rounds (`arena.store.tournaments.OrderMaker`),
    each round planned once and kept for the next few feeds."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._plans: OrderedDict[tuple[str, int, int], list[Pairing]] = OrderedDict()

    async def __call__(self, state: TournamentState, start: int, stop: int) -> list[MatchOrder]:
        spec = state.spec
        params = {**spec.params, "players": spec.table_size}
        created = now_ms()
        orders: list[MatchOrder] = []
        results: list[ResultRecord] | None = None
        for round_number in range(spec.round_of(start), spec.round_of(stop - 1) + 1):
            key = (spec.name, state.created_ms, round_number)
            plan = self._plans.get(key)
            if plan is None:
                if spec.format == TournamentFormat.SWISS and round_number and results is None:
                    # A Swiss round comes from the rounds before it, settled when it was planned.
                    results = await TournamentStore(self.store.redis).results(spec.name)
                plan = self._plans[key] = plan_round(spec, round_number, results or ())
                if len(self._plans) > PLANS_KEPT:
                    self._plans.popitem(last=False)
            self._plans.move_to_end(key)
            first = round_number * spec.matches_per_round
            orders += [_order(spec, pairing, params, created) for pairing in plan[max(0, start - first) : stop - first]]
        return orders


async def check_entrants(store: Store, spec: TournamentSpec, inviter: Principal) -> None:
    """Every entrant is a registered bot that plays the game and that `inviter` may enter, or a built-in
    bot; TournamentError (NotInvited) if not."""
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
        refusal = invitation_refusal(inviter, bot)
        if refusal:
            raise NotInvited(refusal)


async def create_tournament(store: Store, spec: TournamentSpec, created_by: str, *, admin: bool = False) -> None:
    """Store the tournament made by owner `created_by` (or the admin) and feed its first matches to the stream.

    TournamentError when it cannot be played as asked or an entrant may not be entered (NotInvited);
    PendingLimit when an owner would have more than `PENDING_LIMIT` tournament matches pending.
    """
    inviter = Principal("admin", created_by) if admin else Principal("owner", created_by)
    await check_entrants(store, spec, inviter)
    rounds = 1 if spec.format == TournamentFormat.SWISS else spec.rounds
    account = ADMIN_ACCOUNT if admin else owner_account(created_by)
    await TournamentStore(store.redis).create(
        spec,
        created_by,
        account,
        rounds,
        OrderSource(store),
        window=FEED_WINDOW,
        limit=None if admin else PENDING_LIMIT,
    )


RATING_IN_FLIGHT_S = 600.0
"""How long after its end a stored result may still wait for its rating (its node retrying through a
Redis outage), and so keep its tournament from being marked finished."""


class TournamentProgress:
    """The work host's hook for tournament matches: re-runs aborted ones, plans Swiss rounds, marks the end.

    Idempotent, as result hooks must be: a result delivered again finds its abort noted (and its
    re-run queued) already, and its round planned.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.tournaments = TournamentStore(store.redis)
        self.orders = OrderSource(store)
        self.ratings = RatingStore(store.redis)

    async def __call__(self, order: MatchOrder, result: ResultRecord) -> None:
        if not order.tournament:
            return
        state = await self.tournaments.get(order.tournament)
        if state is None or state.finished_ms:
            return  # ended: nothing to re-run, plan or feed (a cancel's skipped orders end here, cheaply)
        spec = state.spec
        attempt = spec.attempt_of(order.match_id)
        if attempt is None:
            return
        if result.termination == Termination.ABORTED:
            await self._aborted(state, order, *attempt)
        if not await self._surely_unsettled(state):
            progress, results = await self.tournaments.progress(state)
            if progress.unsettled:
                await self._plan(state, progress, results)
            elif not await self._ratings_pending(order, result, results):
                await self.tournaments.mark_finished(spec.name)
        await self.tournaments.feed(state.account, FEED_WINDOW, self.orders)

    async def _surely_unsettled(self, state: TournamentState) -> bool:
        """Whether a match of a schedule that needs no planning surely has no final result yet, told by
        counting: every match needs a result of its own to be settled (unless the tournament was
        cancelled). Reading and parsing every result after every match would cost a tournament of n
        matches n^2 parsed results; this costs one HLEN until the last results come in."""
        spec = state.spec
        if spec.format == TournamentFormat.SWISS or state.cancelled_ms:
            return False
        return await self.tournaments.results_stored(spec.name) < spec.total_matches

    async def _ratings_pending(self, order: MatchOrder, result: ResultRecord, results: Sequence[ResultRecord]) -> bool:
        """Whether another match's rating is still on its way (its node stored the result, rates it next).

        Finished means the standings and ratings are final, so the last match's hook to run marks it:
        each runs after its own match's rating (its own counts as done even if rating it failed, so
        a result that cannot be rated never keeps its tournament open). Only recent results are
        asked about: an old one is rated long since, or archived, and out of the applied set.
        """
        if not order.rated:
            return False
        recent = now_ms() / 1000 - RATING_IN_FLIGHT_S
        others = [
            other.match_id for other in results if other.match_id != result.match_id and other.finished_at >= recent
        ]
        return bool(await self.ratings.unapplied(order.game, others))

    async def _plan(self, state: TournamentState, progress: Progress, results: Sequence[ResultRecord]) -> None:
        """Plan the next Swiss round once every match of the rounds before it is done or aborted for good."""
        spec, planned = state.spec, state.rounds_planned
        if spec.format != TournamentFormat.SWISS or planned >= spec.rounds or state.cancelled_ms or progress.current:
            return
        orders = [] if state.account else round_orders(spec, planned, results)
        if await self.tournaments.plan(state, planned, orders):
            log.info("tournament %s: round %d planned", spec.name, planned + 1)

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
