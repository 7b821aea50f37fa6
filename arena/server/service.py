"""The gRPC servicers: they check the caller, convert messages and call the plain modules."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Sequence
from importlib import metadata
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena.bots import BOTS
from arena.games import GameError, game_names
from arena.games.base import seed_commitment
from arena.node import submissions as hosted_api
from arena.node import watch
from arena.node.challenges import (
    BadChallenge,
    ChallengeLimits,
    ChallengeRefused,
    NotAllowed,
    SeatNotReady,
    TooManyChallenges,
    UnknownBot,
    create_challenge,
    default_game,
)
from arena.node.hosted import HostedManager
from arena.node.ladder import Ladder
from arena.node.matches import (
    BUILTIN_PREFIX,
    WATCH_BUFFER,
    MatchError,
    MatchHost,
    Update,
    parse_seed,
    public_record,
    summary_to_pb,
    watch_message,
)
from arena.node.sessions import Hangup, Session, SessionRegistry, SessionsFull
from arena.node.siblings import RESUME_ONLY, Siblings
from arena.node.tournament_views import TournamentViews
from arena.node.work import create_match
from arena.ratings import RatingError, RatingModel
from arena.server import ladder_pb
from arena.server.auth import Refusal, abort, bearer_token, failure, guard_rpcs, identify, require, with_article
from arena.server.tournament_rpcs import TournamentRpcs
from arena.store import CorruptReplay, MatchRecord, NameTaken, NotFound, Principal, Store, StoreError
from arena.store.hosted import NotYourBot
from arena.store.ratings import RatingStore, RatingStoreError
from arena.store.store import NAME_PATTERN, BotKind, BotRecord, NotYours
from arena.store.tournaments import TournamentStore
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb
from arena.wire import convert

log = logging.getLogger(__name__)

BOT_KINDS = {BotKind.REMOTE: api_pb.BOT_KIND_REMOTE, BotKind.HOSTED: api_pb.BOT_KIND_HOSTED}
HELLO_TIMEOUT = 10.0
"""Seconds a new stream has to send its Hello."""
MAX_LIST = 500
REFUSAL_WAIT = 1.0
"""Seconds a refused stream is given to deliver its first message before its status ends it."""
UNREADABLE = "a message could not be parsed as arena.v1.ConnectRequest: the stream is closed"
NO_HELLO = "the stream ended before its Hello (or its first message was cut short): a stream starts with a Hello"


def server_version() -> str:
    try:
        return metadata.version("thirteen-arena")
    except metadata.PackageNotFoundError:
        return "unknown"


def add_bot_service(servicer: BotServicer, server: grpc.aio.Server) -> None:
    """Serve BotService; a response given as bytes is already encoded (an ActionRequest, see Session.request)."""
    handlers = {
        "Connect": grpc.stream_stream_rpc_method_handler(
            servicer.Connect,
            request_deserializer=bot_pb.ConnectRequest.FromString,
            response_serializer=_response_bytes,
        )
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("arena.v1.BotService", handlers),))
    server.add_registered_method_handlers("arena.v1.BotService", handlers)


def _response_bytes(message: bot_pb.ConnectResponse | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


def actions_in(message: bot_pb.ConnectRequest) -> Sequence[bot_pb.Action]:
    """The Actions a bot's message carries: one, several (`Actions`), or none (a Hello, an empty message)."""
    kind = message.WhichOneof("message")
    if kind == "action":
        return [message.action]
    return message.actions.actions if kind == "actions" else []


@guard_rpcs(bot_pb.DESCRIPTOR.services_by_name["BotService"])
class BotServicer(bot_grpc.BotServiceServicer):
    """BotService.Connect: one stream per bot process, resumable within the grace period."""

    def __init__(self, store: Store, sessions: SessionRegistry, siblings: Siblings | None = None) -> None:
        self.store = store
        self.sessions = sessions
        self.siblings = siblings
        """The other workers of this node's supervisor, which may hold a session a Hello resumes."""
        self.version = server_version()

    async def Connect(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        caller = await self._caller(context)
        if isinstance(caller, Refusal):
            # Ending a call before its first message arrived fails the client's write of it, and
            # grpc's Python client then reports INTERNAL ("Internal error from Core") instead of
            # this status: take the Hello (waiting briefly for it) first.
            with contextlib.suppress(TimeoutError, DecodeError):
                await asyncio.wait_for(context.read(), REFUSAL_WAIT)
            await abort(context, caller.code, caller.message)
        hello = await self._hello(context)
        held = self.sessions.resumable(caller.name, hello, caller.launch)
        if hello.resume_session_id and held is None and await self._resumed_elsewhere(caller, hello, context):
            return
        try:
            session, resumed = self.sessions.open(caller.name, hello, caller.launch)
        except SessionsFull as full:
            await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(full))
        welcome = bot_pb.Welcome(
            session_id=session.id,
            bot_name=session.bot,
            resumed=resumed,
            grace_ms=int(session.limits.grace * 1000),
            server_version=self.version,
            max_messages_per_second=int(session.limits.flood_rate),
        )
        stream = session.attach(welcome)
        reader = asyncio.create_task(self._read(session, stream, context))
        try:
            while True:
                message = await session.next_message(stream)
                if message is None:
                    ended = reader.result() if reader.done() and not reader.cancelled() else None
                    if ended is not None and not context.done():
                        await abort(context, ended.code, ended.message)
                    return
                if isinstance(message, Hangup):
                    await abort(context, message.status, message.reason)
                await context.write(message)
        finally:
            reader.cancel()
            session.detach(stream, self.sessions.grace_over)

    async def _resumed_elsewhere(
        self, caller: Principal, hello: bot_pb.Hello, context: grpc.aio.ServicerContext
    ) -> bool:
        """Whether the session `hello` resumes, which this node does not hold, was resumed by a sibling worker (the
        stream then passed through until it ended); a stream marked RESUME_ONLY is refused instead."""
        if any(key == RESUME_ONLY for key, _ in context.invocation_metadata() or ()):
            await abort(context, grpc.StatusCode.NOT_FOUND, f"this node holds no session {hello.resume_session_id!r}")
        if self.siblings is None or caller.launch:
            return False  # a hosted launch connects to the socket of the worker that started it
        forwarded = await self.siblings.forward(hello, context.invocation_metadata() or ())
        if forwarded is None:
            return False
        status = await forwarded.relay(context, UNREADABLE)
        if status is not None and not context.done():
            await abort(context, *status)
        return True

    async def _caller(self, context: grpc.aio.ServicerContext) -> Principal | Refusal:
        """The bot calling, or why its stream is refused."""
        try:
            caller = await identify(self.store, context.invocation_metadata())
        except Exception as error:  # the store failed: UNAVAILABLE
            return failure(error, "Connect")
        if not isinstance(caller, Refusal) and caller.kind != "bot":
            return Refusal(
                grpc.StatusCode.PERMISSION_DENIED,
                f"Connect needs a bot token, not {with_article(caller.kind)} token: use the token RegisterBot gave",
            )
        return caller

    async def _hello(self, context: grpc.aio.ServicerContext) -> bot_pb.Hello:
        """The stream's first message, which must be a Hello naming known games; else the stream ends."""
        try:
            first = await asyncio.wait_for(context.read(), HELLO_TIMEOUT)
        except TimeoutError:
            await abort(context, grpc.StatusCode.DEADLINE_EXCEEDED, f"no Hello within {HELLO_TIMEOUT:.0f} s")
        except DecodeError:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, UNREADABLE)
        if first is grpc.aio.EOF:
            # A half-close, or a frame cut short: grpc reads both as the end of the stream.
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, NO_HELLO)
        if first.WhichOneof("message") != "hello":
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, "the first message of a stream must be a Hello")
        hello: bot_pb.Hello = first.hello
        unknown = sorted(set(hello.games) - set(game_names()))
        if unknown:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"Hello.games names unknown games {', '.join(unknown)}; the arena plays {', '.join(game_names())}",
            )
        return hello

    async def _read(self, session: Session, stream: int, context: grpc.aio.ServicerContext) -> Refusal | None:
        """Take the bot's messages until its stream ends (then detach) or it floods (then the writer hangs up).

        Returns the status to end the call with when the bot's side of it ended (a half-close)."""
        ended: Refusal | None = None
        with contextlib.suppress(grpc.aio.AioRpcError, grpc.RpcError):
            while session.stream == stream:
                try:
                    message = await context.read()
                except DecodeError:
                    session.hang_up(stream, UNREADABLE, grpc.StatusCode.INVALID_ARGUMENT)
                    return None
                if message is grpc.aio.EOF:
                    # gRPC reads a last message cut short as the end of the stream too.
                    text = "the bot's side of the stream ended (a half-close, or a last message cut short): the "
                    text += f"session waits {session.limits.grace:.0f} s for a Hello that resumes it"
                    ended = Refusal(grpc.StatusCode.CANCELLED, text)
                    break
                kind = message.WhichOneof("message")
                actions = actions_in(message)
                # An answer to a pending request is never flooding; anything else is, each action of a batch alone.
                unasked = sum(not session.is_answer(action) for action in actions) if actions else 1
                if unasked and not all(session.bucket.take() for _ in range(unasked)):
                    text = session.limits.flood_text()
                    session.error(bot_pb.ERROR_CODE_FLOOD, text)
                    session.hang_up(stream, text)
                    return None
                if actions:
                    for action in actions:
                        session.answer(action)
                elif kind == "hello":
                    session.error(bot_pb.ERROR_CODE_BAD_MESSAGE, "a Hello comes only first on a stream; ignored")
                else:
                    session.error(bot_pb.ERROR_CODE_BAD_MESSAGE, "empty message: set hello, action or actions; ignored")
        session.detach(stream, self.sessions.grace_over)
        return ended


@guard_rpcs(api_pb.DESCRIPTOR.services_by_name["ArenaService"])
class ArenaServicer(TournamentRpcs, api_grpc.ArenaServiceServicer):
    """ArenaService: accounts, bots and matches, for people and tools."""

    def __init__(
        self,
        store: Store,
        sessions: SessionRegistry,
        host: MatchHost,
        ratings: RatingStore | None = None,
        ladder: Ladder | None = None,
        hosted: HostedManager | None = None,
        challenge_limits: ChallengeLimits | None = None,
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.host = host
        self.ratings = ratings or RatingStore(store.redis)
        self.ladder = ladder
        self.hosted = hosted
        self.challenge_limits = challenge_limits or ChallengeLimits()
        self.tournament_views = TournamentViews(store)

    async def CreateOwner(
        self, request: api_pb.CreateOwnerRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.CreateOwnerResponse:
        await require(self.store, context, "admin")
        async with _store_errors(context):
            token = await self.store.create_owner(request.name)
        return api_pb.CreateOwnerResponse(name=request.name, token=token)

    async def RegisterBot(
        self, request: api_pb.RegisterBotRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.RegisterBotResponse:
        owner = await require(
            self.store, context, "owner", why="bots are registered by their owner: use an owner token (CreateOwner)"
        )
        unknown = sorted(set(request.games) - set(game_names()))
        if unknown:
            await abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"unknown games {', '.join(unknown)}; the arena plays {', '.join(game_names())}",
            )
        async with _store_errors(context):
            bot, token = await self.store.register_bot(
                owner.name,
                request.name,
                list(request.games),
                request.language,
                request.description,
                accepts_invitations=request.accepts_invitations,
            )
        return api_pb.RegisterBotResponse(bot=self._bot_info(bot), token=token)

    async def UpdateBot(
        self, request: api_pb.UpdateBotRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.UpdateBotResponse:
        owner = await require(
            self.store, context, "owner", why="a bot's settings are its owner's to change: use its owner's token"
        )
        accepts = request.accepts_invitations if request.HasField("accepts_invitations") else None
        try:
            bot = await self.store.update_bot(owner.name, request.name, accepts_invitations=accepts)
        except NotYours as error:
            await abort(context, grpc.StatusCode.PERMISSION_DENIED, str(error))
        except NotFound as error:
            await abort(context, grpc.StatusCode.NOT_FOUND, str(error))
        return api_pb.UpdateBotResponse(bot=self._bot_info(bot))

    async def RotateBotToken(
        self, request: api_pb.RotateBotTokenRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.RotateBotTokenResponse:
        caller = await require(self.store, context, "owner", "admin")
        bot = await self.store.get_bot(request.name)
        if bot is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no bot named {request.name!r}")
        if caller.kind == "owner" and bot.owner != caller.name:
            await abort(context, grpc.StatusCode.PERMISSION_DENIED, f"bot {bot.name!r} belongs to another owner")
        async with _store_errors(context):
            token = await self.store.rotate_bot_token(bot.name)
        return api_pb.RotateBotTokenResponse(token=token)

    async def ListBots(
        self, request: api_pb.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.ListBotsResponse:
        bots = await self.store.list_bots(request.owner)
        return api_pb.ListBotsResponse(bots=[self._bot_info(bot) for bot in bots])

    async def GetMatch(
        self, request: api_pb.GetMatchRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.GetMatchResponse:
        owner = await self._owner(context)
        live = self.host.live.get(request.match_id)
        if live is not None:
            shown = live.public_record()
            mine = await self._seats_of(owner, live.record.seats)
            if mine:  # the caller owns bots in it: what they said so far (their debug output), theirs alone
                shown["debug"] = [list(entry) for entry in live.runner.debug.entries if entry[1] in mine]
            return api_pb.GetMatchResponse(match=summary_to_pb(live.record), replay_json=json.dumps(shown))
        record, replay = await self._stored_match(request.match_id, context)
        if replay is not None and await TournamentStore(self.store.redis).sealed(record.tournament_id):
            replay = public_record(replay)  # its deal is still to be played at another table
        return api_pb.GetMatchResponse(match=summary_to_pb(record), replay_json=json.dumps(replay) if replay else "")

    async def _owner(self, context: grpc.aio.ServicerContext) -> str:
        """The calling owner's name, "" for a call without a token (a public one) or with another kind of
        token; a token that is not valid is refused rather than answered as if none was sent."""
        metadata = context.invocation_metadata()
        if not bearer_token(metadata):
            return ""
        caller = await identify(self.store, metadata)
        if isinstance(caller, Refusal):
            await abort(context, caller.code, caller.message)
        return caller.name if caller.kind == "owner" else ""

    async def _seats_of(self, owner: str, seats: list[str]) -> set[int]:
        """The seats whose bots belong to `owner` (none for "")."""
        owned = set()
        for seat, name in enumerate(seats if owner else ()):
            bot = None if name.startswith(BUILTIN_PREFIX) else await self.store.get_bot(name)
            if bot is not None and bot.owner == owner:
                owned.add(seat)
        return owned

    async def _stored_match(
        self, match_id: str, context: grpc.aio.ServicerContext
    ) -> tuple[MatchRecord, dict[str, Any] | None]:
        """A stored match and its replay; NOT_FOUND, or DATA_LOSS with the one-line reason for a damaged replay."""
        try:
            found = await self.store.get_match(match_id)
        except CorruptReplay as error:
            log.error("%s", error)
            await abort(context, grpc.StatusCode.DATA_LOSS, str(error))
        if found is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
        return found

    async def ListMatches(
        self, request: api_pb.ListMatchesRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.ListMatchesResponse:
        limit = min(request.limit or 50, MAX_LIST)
        async with _store_errors(context):
            page = await self.store.page_matches(
                request.game, request.bot, limit, request.tournament_id, request.before, request.after
            )
        return api_pb.ListMatchesResponse(
            matches=[summary_to_pb(record) for record in page.matches], older=page.older, newer=page.newer
        )

    async def WatchMatch(
        self, request: api_pb.WatchMatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[api_pb.WatchMatchResponse]:
        live = self.host.live.get(request.match_id)
        if live is None:
            record, replay = await self._stored_match(request.match_id, context)
            if replay is None and not record.ended_ms:
                # Running on another node: followed through its event stream.
                async for followed in watch.follow(self.store, record):
                    if followed.ended:
                        break
                    yield watch_message(record, followed)
                record, replay = await self._stored_match(request.match_id, context)
            view = _final_view(replay) if replay else None
            yield api_pb.WatchMatchResponse(match=summary_to_pb(record), public_view=view, ended=True)
            return
        queue: asyncio.Queue[Update | None] = asyncio.Queue(maxsize=WATCH_BUFFER)
        live.watchers.add(queue)
        try:
            yield watch_message(live.record, Update(live.public_view(), live.last_move))
            while True:
                update = await queue.get()
                if update is None:
                    await abort(
                        context,
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"the watcher fell more than {WATCH_BUFFER} updates behind: read faster, or watch again",
                    )
                yield watch_message(live.record, update)
                if update.ended:
                    return
        finally:
            live.watchers.discard(queue)

    async def CreateMatch(
        self, request: api_pb.CreateMatchRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.CreateMatchResponse:
        await require(self.store, context, "admin")
        problem = _match_problem(request)
        if problem:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, problem)
        clock = convert.clock_from_pb(request.clock) if request.HasField("clock") else self.host.default_clock
        game = convert.game_from_spec(request.game, len(request.seats))
        seed = parse_seed(request.seed) if request.seed else b""
        try:
            order = await create_match(self.store, self.sessions, self.host.node, game, request.seats, seed, clock)
        except MatchError as error:
            # The request is sound, the arena's state is not (yet): a bot not connected, not playing the game.
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(error))
        commitment = seed_commitment(bytes.fromhex(order.seed))
        return api_pb.CreateMatchResponse(match_id=order.match_id, seed_commitment=commitment)

    async def CreateChallenge(
        self, request: api_pb.CreateChallengeRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.CreateChallengeResponse:
        caller = await require(
            self.store, context, "owner", "admin", why="a challenge is started by its bot's owner: use an owner token"
        )
        seats = [request.bot.strip(), *(name.strip() for name in request.opponents)]
        spec = pb.GameSpec()
        spec.CopyFrom(request.game)
        try:
            if not spec.game:
                spec.game = await default_game(self.store, seats)
            game = convert.game_from_spec(spec, len(seats))
            order = await create_challenge(
                self.store,
                self.sessions,
                self.host.node,
                caller,
                game,
                seats,
                self.host.default_clock,
                limits=self.challenge_limits,
            )
        except GameError as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        except ChallengeRefused as error:
            await abort(context, _CHALLENGE_STATUS.get(type(error), grpc.StatusCode.INVALID_ARGUMENT), str(error))
        return api_pb.CreateChallengeResponse(
            match_id=order.match_id,
            seed_commitment=seed_commitment(bytes.fromhex(order.seed)),
            game=convert.spec_from_game(game),
            seats=order.seats,
        )

    async def GetLeaderboard(
        self, request: api_pb.GetLeaderboardRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.GetLeaderboardResponse:
        await _known_game(context, request.game)
        rows = await self.ratings.leaderboard(request.game, min(request.limit or 100, MAX_LIST))
        orders = await self.ratings.certainty(request.game, rows)
        return api_pb.GetLeaderboardResponse(
            game=request.game,
            rows=[ladder_pb.leaderboard_row(row) for row in rows],
            neighbours=[ladder_pb.neighbour_order(order) for order in orders],
        )

    async def GetRatingHistory(
        self, request: api_pb.GetRatingHistoryRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.GetRatingHistoryResponse:
        await _known_game(context, request.game)
        points = await self.ratings.history(request.game, request.bot, request.limit or 1000)
        if not points and await self.store.get_bot(request.bot) is None and not request.bot.startswith("builtin:"):
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no bot named {request.bot!r}")
        return api_pb.GetRatingHistoryResponse(
            bot=request.bot, game=request.game, points=[ladder_pb.rating_point(point) for point in points]
        )

    async def GetQueue(
        self, request: api_pb.GetQueueRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.GetQueueResponse:
        if request.game:
            await _known_game(context, request.game)
        if self.ladder is None:
            return api_pb.GetQueueResponse()
        if request.game and request.game not in self.ladder.config.sizes:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"{request.game} has no ladder on this arena")
        queues = await self.ladder.queues(request.game)
        return ladder_pb.queues_response(queues, self.ladder.config.sizes, time.time())

    async def RecomputeRatings(
        self, request: api_pb.RecomputeRatingsRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.RecomputeRatingsResponse:
        await require(self.store, context, "admin")
        await _known_game(context, request.game)
        model = None
        if request.parameters:
            current = await self.ratings.model(request.game)
            try:
                model = RatingModel.from_dict({**current.to_dict(), **dict(request.parameters)})
            except RatingError as error:
                await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        try:
            book = await self.ratings.recompute(request.game, model)
        except RatingStoreError as error:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(error))
        return api_pb.RecomputeRatingsResponse(
            game=request.game, results=len(book.applied), bots=len(book.ratings), parameters=book.model.to_dict()
        )

    async def SubmitBot(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> api_pb.SubmitBotResponse:
        owner = await require(
            self.store, context, "owner", why="a bot's code is submitted by its owner: use an owner token"
        )
        if self.hosted is None or self.hosted.refusal:
            refusal = self.hosted.refusal if self.hosted else "this arena runs no hosted bots"
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, refusal)
        async with _store_errors(context):
            done = await self.hosted.submit(owner.name, request_iterator)
        return api_pb.SubmitBotResponse(version=hosted_api.version_pb(done.version), stderr_tail=done.stderr_tail)

    async def GetBotLogs(
        self, request: api_pb.GetBotLogsRequest, context: grpc.aio.ServicerContext
    ) -> api_pb.GetBotLogsResponse:
        caller = await require(self.store, context, "owner", "admin")
        async with _store_errors(context):
            versions, runs = await hosted_api.bot_logs(self.store, caller, request.name, min(request.limit or 10, 50))
        return api_pb.GetBotLogsResponse(
            name=request.name,
            versions=[hosted_api.version_pb(version) for version in versions],
            runs=[hosted_api.run_pb(run) for run in runs],
        )

    def _bot_info(self, bot: BotRecord) -> api_pb.BotInfo:
        return api_pb.BotInfo(
            name=bot.name,
            owner=bot.owner,
            kind=BOT_KINDS[bot.kind],
            language=bot.language,
            games=bot.games,
            description=bot.description,
            created_ms=bot.created_ms,
            connected=bot.name in self.sessions.connected(),
            accepts_invitations=bot.accepts_invitations,
        )


_CHALLENGE_STATUS = {
    BadChallenge: grpc.StatusCode.INVALID_ARGUMENT,
    UnknownBot: grpc.StatusCode.NOT_FOUND,
    NotAllowed: grpc.StatusCode.PERMISSION_DENIED,
    SeatNotReady: grpc.StatusCode.FAILED_PRECONDITION,
    TooManyChallenges: grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""The status of each kind of refused challenge (arena/node/challenges.py)."""


def _final_view(replay: dict[str, Any]) -> Any:
    """The public view at the end of a stored match, re-played from its record."""
    game = convert.game_from_spec(convert.spec_from_params(replay["game"], replay["params"]))
    return convert.observation_to_pb(game, game.replay(replay).public_observation())


def _match_problem(request: api_pb.CreateMatchRequest) -> str:
    """What makes a CreateMatchRequest wrong in itself, whatever the arena's state (INVALID_ARGUMENT); "" if nothing."""
    seats = list(request.seats)
    try:
        game = convert.game_from_spec(request.game, len(seats))
        parse_seed(request.seed)
    except (GameError, MatchError) as error:
        return str(error)
    if len(seats) != game.players:
        return f"{game.name} for {game.players} players needs {game.players} seats, not {len(seats)}"
    if request.HasField("clock") and request.clock.per_move_ms == 0:
        return "the clock needs a per-move limit above 0 ms"
    for name in seats:
        if name.startswith(BUILTIN_PREFIX):
            if name.removeprefix(BUILTIN_PREFIX) not in BOTS:
                return f"no built-in bot {name!r}; choose {BUILTIN_PREFIX}{f', {BUILTIN_PREFIX}'.join(BOTS)}"
        elif not NAME_PATTERN.fullmatch(name):
            return f"seat {name!r} names no bot: bot names are 1-40 letters, digits, '-', '_' or '.'"
    bots = [name for name in seats if not name.startswith(BUILTIN_PREFIX)]
    if len(set(bots)) != len(bots):
        return "a bot may take only one seat in a match"
    return ""


async def _known_game(context: grpc.aio.ServicerContext, game: str) -> None:
    if game not in game_names():
        await abort(
            context,
            grpc.StatusCode.INVALID_ARGUMENT,
            f"unknown game {game!r}; the arena plays {', '.join(game_names())}",
        )


@contextlib.asynccontextmanager
async def _store_errors(context: grpc.aio.ServicerContext) -> AsyncIterator[None]:
    """Store errors as status codes with their one-line message."""
    try:
        yield
    except NameTaken as error:
        await abort(context, grpc.StatusCode.ALREADY_EXISTS, str(error))
    except NotFound as error:
        await abort(context, grpc.StatusCode.NOT_FOUND, str(error))
    except NotYourBot as error:
        await abort(context, grpc.StatusCode.PERMISSION_DENIED, str(error))
    except hosted_api.TooManyUploads as error:
        await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(error))
    except StoreError as error:
        await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
