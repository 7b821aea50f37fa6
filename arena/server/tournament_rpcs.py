"""The tournament RPCs of ArenaService and the conversions between specs and their messages."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Hashable

import grpc

from arena import metrics
from arena.games import GameError
from arena.node.tournament_views import TournamentViews
from arena.node.tournaments import (
    NotInvited,
    TournamentView,
    cancel_tournament,
    create_tournament,
    seed_refusal,
    seed_shown,
    tournament_view,
)
from arena.server.auth import abort, identify, require
from arena.store import NameTaken, Principal, Store, keys
from arena.store.tournaments import CANCELLED_BEFORE, PendingLimit, TournamentState, TournamentStore
from arena.tournaments import TournamentError, TournamentSpec, secret_seed, seed_commitment
from arena.v1 import arena_service_pb2 as api_pb
from arena.wire import convert

WATCH_INTERVAL = 0.25
"""Seconds between looks at a watched tournament's results."""
WATCH_REFRESH = 1.0
"""Seconds between full looks at a watched tournament (whom it waits for) while no result comes."""


def spec_from_pb(message: api_pb.TournamentSpec) -> TournamentSpec:
    """The spec a request asks for (a fresh secret seed when it gives none); TournamentError says what is wrong with it."""
    formats = {number: name for name, number in convert.TOURNAMENT_FORMATS.items()}
    if message.format not in formats:
        raise TournamentError(f"choose a format: {', '.join(convert.TOURNAMENT_FORMATS)}")
    try:
        params = convert.params_from_spec(message.game)
    except GameError as error:
        raise TournamentError(str(error)) from None
    return TournamentSpec(
        name=message.name,
        game=message.game.game,
        entrants=tuple(message.entrants),
        format=formats[message.format],
        table_size=message.table_size or 4,
        rounds=message.rounds or 1,
        duplicate=message.duplicate,
        seatings=message.seatings,
        rated=message.rated,
        seed=message.seed or secret_seed(),
        hero=message.hero,
        params=params,
    )


def spec_to_pb(spec: TournamentSpec, show_seed: bool) -> api_pb.TournamentSpec:
    """The spec as a message; its seed empty unless `show_seed` (see `seed_shown`)."""
    return api_pb.TournamentSpec(
        name=spec.name,
        game=convert.spec_from_params(spec.game, {**spec.params, "players": spec.table_size}),
        entrants=spec.entrants,
        format=convert.TOURNAMENT_FORMATS[spec.format],
        table_size=spec.table_size,
        rounds=spec.rounds,
        duplicate=spec.duplicate,
        seatings=spec.seatings,
        rated=spec.rated,
        seed=spec.seed if show_seed else "",
        hero=spec.hero,
    )


def info_to_pb(view: TournamentView, admin: bool = False) -> api_pb.TournamentInfo:
    """The view as a message; standings only when the view has its table, the seed only when `seed_shown`."""
    state, progress, table = view.state, view.progress, view.table
    info = api_pb.TournamentInfo(
        spec=spec_to_pb(state.spec, seed_shown(state, admin)),
        seed_commitment=seed_commitment(state.spec.seed),
        done=progress.done,
        total=state.spec.total_matches,
        finished_ms=state.finished_ms,
        created_ms=state.created_ms,
        created_by=state.created_by,
        score_name=state.spec.build_game().score_name,
        status=convert.TOURNAMENT_STATUSES[progress.status],
        due=progress.due,
        rerunning=progress.rerunning,
        aborted=progress.aborted,
        cancelled=progress.cancelled,
        waiting_for=view.waiting_for,
        cancelled_ms=state.cancelled_ms,
        cancelled_by=state.cancelled_by,
    )
    for attempt in progress.aborted_attempts:
        info.aborted_matches.add(
            number=attempt.number,
            match_id=attempt.match_id,
            attempt=attempt.attempt,
            reason=attempt.reason,
            rerun_match_id=attempt.rerun,
        )
    for row in table.rows if table is not None else ():
        rating = row.rating
        info.standings.add(
            bot=row.bot,
            games=row.games,
            mean_score=row.mean_score,
            ci95=row.ci95,
            wins=row.wins,
            mean_rank=row.mean_rank,
            mu=rating.mu if rating else math.nan,
            sigma=rating.sigma if rating else math.nan,
            deals=row.deals,
        )
    for pair in table.pairs if table is not None else ():
        info.head_to_head.add(
            first=pair.first,
            second=pair.second,
            deals=pair.deals,
            advantage=pair.advantage.mean,
            ci95=pair.advantage.half_width,
            established=pair.established,
        )
    return info


class TournamentRpcs:
    """The tournament RPCs of ArenaService (mixed into its servicer, which provides `store`)."""

    store: Store
    tournament_views: TournamentViews
    """What the tournament watchers of this node are shown, built once for all of them."""

    async def CreateTournament(
        self, request: api_pb.CreateTournamentRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.CreateTournamentResponse:
        caller = await require(self.store, context, "admin", "owner")
        admin = caller.kind == "admin"
        refusal = seed_refusal(caller, request.spec.seed)
        if refusal:
            metrics.TOURNAMENT_REFUSALS.labels("seed").inc()
            await abort(context, grpc.StatusCode.PERMISSION_DENIED, refusal)
        try:
            spec = spec_from_pb(request.spec)
            await create_tournament(self.store, spec, caller.name, admin=admin)
        except NotInvited as error:
            metrics.TOURNAMENT_REFUSALS.labels("invitation").inc()
            await abort(context, grpc.StatusCode.PERMISSION_DENIED, str(error))
        except PendingLimit as error:
            metrics.TOURNAMENT_REFUSALS.labels("pending").inc()
            await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
        except TournamentError as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        except NameTaken as error:
            await abort(context, grpc.StatusCode.ALREADY_EXISTS, str(error))
        state = await TournamentStore(self.store.redis).get(spec.name)
        assert state is not None
        view = await tournament_view(self.store, state)
        return api_pb.CreateTournamentResponse(tournament=info_to_pb(view, admin))

    async def GetTournament(
        self, request: api_pb.GetTournamentRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.GetTournamentResponse:
        state = await self._state(request.name, context)
        view = await tournament_view(self.store, state)
        return api_pb.GetTournamentResponse(tournament=info_to_pb(view, await self._admin(context)))

    async def ListTournaments(
        self, request: api_pb.ListTournamentsRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.ListTournamentsResponse:
        tournaments = TournamentStore(self.store.redis)
        admin = await self._admin(context)
        response = api_pb.ListTournamentsResponse()
        for name in await tournaments.names(min(request.limit or 50, 500)):
            state = await tournaments.get(name)
            if state is not None:
                view = await tournament_view(self.store, state, standings=False)
                response.tournaments.append(info_to_pb(view, admin))
        return response

    async def WatchTournament(
        self, request: api_pb.WatchTournamentRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[api_pb.WatchTournamentResponse]:
        state = await self._state(request.name, context)
        admin = await self._admin(context)
        tournaments = TournamentStore(self.store.redis)
        loop = asyncio.get_running_loop()
        seen: Hashable = None
        sent: api_pb.TournamentInfo | None = None
        shown: TournamentView | None = None
        looked = 0.0
        with self.tournament_views.watching(request.name):
            while True:
                # Cheap to compare: what changes when a result, an abort note, a round or a cancel is stored.
                pipe = self.store.redis.pipeline(transaction=False)
                pipe.hlen(keys.tournament_results(request.name))
                pipe.hlen(keys.tournament_aborts(request.name))
                marks = (*await pipe.execute(), state.rounds_planned, state.finished_ms, state.cancelled_ms)
                if marks != seen or state.finished_ms or loop.time() - looked >= WATCH_REFRESH:
                    # Shared with the tournament's other watchers, and maybe older than `marks` (then asked
                    # for again at the next look).
                    kept = await self.tournament_views.view(state, marks, WATCH_REFRESH)
                    seen, looked = kept.marks, loop.time()
                    if kept.view is not shown:
                        shown = kept.view
                        info = kept.converted.get(admin)
                        if info is None:
                            info = kept.converted[admin] = info_to_pb(kept.view, admin)
                        if info != sent or state.finished_ms:
                            sent = info
                            yield api_pb.WatchTournamentResponse(tournament=info)
                    if state.finished_ms:
                        return
                await asyncio.sleep(WATCH_INTERVAL)
                state = await tournaments.get(request.name) or state

    async def CancelTournament(
        self, request: api_pb.CancelTournamentRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.CancelTournamentResponse:
        caller = await require(self.store, context, "admin", "owner")
        state = await self._state(request.name, context)
        if caller.kind != "admin" and caller.name != state.created_by:
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"tournament {request.name!r} was created by {state.created_by!r}: only its creator or the admin may cancel it",
            )
        try:
            outcome = await cancel_tournament(self.store, request.name, caller.name)
        except TournamentError as error:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(error))
        state = await self._state(request.name, context)
        return api_pb.CancelTournamentResponse(
            tournament=info_to_pb(await tournament_view(self.store, state), caller.kind == "admin"),
            cancelled=outcome.cancelled,
            running=outcome.running,
            already_cancelled=outcome.status == CANCELLED_BEFORE,
        )

    async def _admin(self, context: grpc.aio.ServicerContext) -> bool:
        """Whether a public read comes with the admin token (which shows seeds); any other token, or
        none, reads as everyone does."""
        caller = await identify(self.store, context.invocation_metadata())
        return isinstance(caller, Principal) and caller.kind == "admin"

    async def _state(self, name: str, context: grpc.aio.ServicerContext) -> TournamentState:
        state = await TournamentStore(self.store.redis).get(name)
        if state is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no tournament named {name!r}")
        return state
