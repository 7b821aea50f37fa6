"""An owner's self-service in the web UI: sign in with the owner token, then see and change one's bots.

Signing in exchanges the owner token for a session (`arena.store.web_sessions`): the browser gets
only a random session id, in a cookie that is HttpOnly (no page script reads it), SameSite=Strict
(no other site's page sends it) and Secure over TLS. Every change (a POST) must also:
- come from this arena's own pages: an Origin (or, without one, a Referer) of another site is refused;
- carry the session's CSRF token in the `X-CSRF-Token` header, which only this origin's scripts can
  read (`GET /api/session`) and only they can set: a plain form of another site can send neither.
Signing in itself needs a JSON body (which another site's page cannot send without the browser
asking this server first) and the same origin. A wrong owner token or a wrong CSRF token counts
against the client's address exactly as a wrong token on the gRPC API does (`WrongTokens`, the same
limits): past them, the address waits before its next try is even looked at.

What a signed-in owner changes goes through the node's gRPC API with the owner's token
(`arena.web.node_api`), so the node's rules apply as they do to `arena bot ...`.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import grpc
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect

from arena.games import game_names
from arena.hosted.package import megabytes
from arena.hosted.unpacker import MAX_BYTES
from arena.node.clients import PeerLimits, WrongTokens, client_address
from arena.store import Store
from arena.store.store import NAME_PATTERN, TOKEN_PREFIX, BotKind
from arena.store.web_sessions import WebSession, WebSessions, csrf_token
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import messages_pb2 as pb
from arena.web.data import WebData
from arena.web.node_api import CALL_TIMEOUT, SUBMIT_TIMEOUT, NodeAddress, NodeApi, http_status, one_line

COOKIE = "arena_session"
OWN_PATHS = ("/api/session", "/api/me/")
"""Where the answers are an owner's own."""
CSRF_HEADER = "x-csrf-token"
CHUNK = 256 * 1024
"""Bytes of an upload sent to the node per SubmitBot message (its messages may hold 1 MiB)."""
STDERR_SHOWN = 4000
"""Characters of the end of each run's stderr that the page shows (GetBotLogs keeps up to 64 KiB)."""
RUNS_SHOWN = 10
MAX_JSON = 64 * 1024
"""Bytes of a JSON request's body (a form's few fields): a longer one is refused as it comes."""
SAMPLE_BOT = "python sample_bots/python/heuristic_bot.py"
"""The bot the page tells a new token's owner to connect first (README's first steps use it too)."""
STATUS_WORDS = {
    api_pb.HOSTED_VERSION_STATUS_VALIDATING: "validating",
    api_pb.HOSTED_VERSION_STATUS_OK: "ok",
    api_pb.HOSTED_VERSION_STATUS_FAILED: "failed",
}


class Refused(Exception):
    """A refused request: its HTTP status and one line saying what to do, and the form field it is about."""

    def __init__(self, status: int, detail: str, field: str = "") -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.field = field


class Accounts:
    """The routes of signing in and of a signed-in owner's bots."""

    def __init__(self, source: WebData, node: NodeAddress | None, peers: PeerLimits | None = None) -> None:
        self.source = source
        self.store: Store = source.store
        self.sessions = WebSessions(self.store.redis)
        self.node = NodeApi(node) if node is not None else None
        self.wrong = WrongTokens(peers or PeerLimits())

    async def close(self) -> None:
        if self.node is not None:
            await self.node.close()

    def install(self, app: FastAPI) -> None:
        app.add_exception_handler(Refused, _refused)
        app.include_router(self.router())

        @app.middleware("http")
        async def never_stored(request: Request, call_next: Any) -> Any:
            """An owner's answers (a token shown once, the CSRF token, logs) are kept by no cache."""
            response = await call_next(request)
            if request.url.path.startswith(OWN_PATHS):
                response.headers["cache-control"] = "no-store"
            return response

    def router(self) -> APIRouter:
        router = APIRouter(prefix="/api", tags=["your bots"])

        @router.get("/session")
        async def session(request: Request) -> dict[str, Any]:
            """Who is signed in here (`owner`, null for nobody) and the CSRF token every change must carry
            in the `X-CSRF-Token` header; `available` is false (with `why`) where signing in is off."""
            session_id = request.cookies.get(COOKIE, "")
            found = await self.sessions.find(session_id)
            return {
                "owner": found.owner if found else None,
                "csrf": csrf_token(session_id) if found else None,
                "available": self.node is not None,
                "why": "" if self.node else "this web UI has no way to its node's API: signing in is off",
            }

        @router.post("/session")
        async def sign_in(request: Request) -> JSONResponse:
            """Sign in: `{"token": "ato_..."}`, the owner token. Sets the session cookie (HttpOnly)."""
            self._same_origin(request)
            if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, 'send {"token": "ato_..."} as application/json')
            address = self._slowed(request)
            token = _text(await _json(request), "token")
            if not token:
                raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, "paste your owner token (it starts ato_)", "token")
            principal = await self.store.authenticate(token)
            if principal is None:
                self.wrong.failed(address)
                raise Refused(HTTPStatus.UNAUTHORIZED, "the token is not valid (rotated, or mistyped)", "token")
            if principal.kind != "owner":
                raise Refused(
                    HTTPStatus.FORBIDDEN,
                    f"sign in with an owner token ({TOKEN_PREFIX['owner']}...), not a {principal.kind} token",
                    "token",
                )
            if self.node is None:
                raise Refused(
                    HTTPStatus.SERVICE_UNAVAILABLE, "this web UI has no way to its node's API: signing in is off"
                )
            await self.sessions.close(request.cookies.get(COOKIE, ""))  # a sign-in over another ends that one
            session_id = await self.sessions.open(principal.name, token)
            response = JSONResponse({"owner": principal.name, "csrf": csrf_token(session_id)})
            response.set_cookie(
                COOKIE,
                session_id,
                max_age=self.sessions.seconds,
                path="/",
                secure=request.url.scheme == "https",
                httponly=True,
                samesite="strict",
            )
            return response

        @router.post("/session/end")
        async def sign_out(request: Request) -> JSONResponse:
            """Sign out: the session ends at once (its cookie is cleared too)."""
            session_id, _ = await self._signed_in(request, change=True)
            await self.sessions.close(session_id)
            response = JSONResponse({"owner": None})
            response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
            return response

        @router.get("/me/bots")
        async def my_bots(request: Request) -> dict[str, Any]:
            """The signed-in owner's bots: kind, games, connected, and for a hosted bot its versions (status,
            reason) and its latest runs with the matches each played and the end of its stderr (GetBotLogs)."""
            _, session = await self._signed_in(request, change=False)
            bots = await self.store.list_bots(session.owner)
            connected = await self.source.relay.connected(bot.name for bot in bots)
            shown = []
            for bot in bots:
                logs = await self._logs(session, bot.name) if bot.kind == BotKind.HOSTED else None
                shown.append(
                    {
                        "name": bot.name,
                        "kind": str(bot.kind),
                        "language": bot.language,
                        "games": list(bot.games),
                        "accepts_invitations": bot.accepts_invitations,
                        "connected": bot.name in connected,
                        "versions": logs["versions"] if logs else [],
                        "runs": logs["runs"] if logs else [],
                    }
                )
            return {"owner": session.owner, "bots": shown, "max_package_bytes": MAX_BYTES}

        @router.post("/me/bots")
        async def register(request: Request) -> dict[str, Any]:
            """Register a bot: `{"name", "games": [...], "language", "description", "accepts_invitations"}`;
            its token is in the answer, once, with the command that connects the sample bot with it."""
            _, session = await self._signed_in(request, change=True)
            body = await _json(request)
            name = _text(body, "name")
            if not NAME_PATTERN.fullmatch(name):
                raise Refused(
                    HTTPStatus.UNPROCESSABLE_ENTITY, "a bot name is 1-40 letters, digits, '-', '_' or '.'", "name"
                )
            games = body.get("games") or []
            if not isinstance(games, list) or not games or not all(isinstance(game, str) for game in games):
                raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, "choose at least one game it plays", "games")
            asked = api_pb.RegisterBotRequest(
                name=name,
                games=games,
                language=_text(body, "language"),
                description=_text(body, "description"),
                accepts_invitations=bool(body.get("accepts_invitations")),
            )
            reply = await self._call(lambda stub, meta: stub.RegisterBot(asked, metadata=meta), session, "name")
            return {"bot": reply.bot.name, "token": reply.token, "command": self._command(request, reply.token)}

        @router.post("/me/bots/{name}/token")
        async def rotate(name: str, request: Request) -> dict[str, Any]:
            """Give the bot a new token (the old one stops working at once); shown once, with the command."""
            _, session = await self._signed_in(request, change=True)
            asked = api_pb.RotateBotTokenRequest(name=name)
            reply = await self._call(lambda stub, meta: stub.RotateBotToken(asked, metadata=meta), session, "token")
            return {"bot": name, "token": reply.token, "command": self._command(request, reply.token)}

        @router.post("/me/bots/{name}/versions")
        async def upload(
            name: str,
            request: Request,
            run: str = Query("", description="The command that starts the bot in its folder, e.g. python bot.py."),
            game: str = Query("", description="The game its validation match is played in."),
        ) -> dict[str, Any]:
            """Upload a hosted version: the body is the .tar.gz of the bot's folder (at most 20 MB), streamed
            on to SubmitBot as `arena bot submit` does; answers once its validation match has ended."""
            _, session = await self._signed_in(request, change=True)
            if not run.strip():
                raise Refused(
                    HTTPStatus.UNPROCESSABLE_ENTITY, "give the command that starts the bot, e.g. python bot.py", "run"
                )
            if game not in game_names():
                raise Refused(
                    HTTPStatus.UNPROCESSABLE_ENTITY,
                    f"choose the game of its validation match: {', '.join(game_names())}",
                    "game",
                )
            bot = await self.store.get_bot(name)
            if bot is None:
                raise Refused(HTTPStatus.NOT_FOUND, f"no bot named {name!r}; register it first", "package")
            if bot.owner != session.owner:
                raise Refused(HTTPStatus.FORBIDDEN, f"bot {name!r} belongs to another owner", "package")
            _declared_size(request)
            return await self._submit(request, session, api_pb.SubmitBotRequest(name=name, game=game, run=run))

        @router.post("/me/challenges")
        async def challenge(request: Request) -> dict[str, Any]:
            """Challenge: `{"bot", "opponents": [...], "game"}` (game "" picks one all seats play); an unrated
            match is created as CreateChallenge does, within the owner's challenge limits."""
            _, session = await self._signed_in(request, change=True)
            body = await _json(request)
            bot = _text(body, "bot")
            if not bot:
                raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, "choose your bot", "bot")
            opponents = body.get("opponents") or []
            if not isinstance(opponents, list) or not all(isinstance(name, str) for name in opponents):
                raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, "opponents are a list of bot names", "opponents")
            opponents = [name.strip() for name in opponents if name.strip()]
            if not opponents:
                raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, "choose at least one opponent", "opponents")
            asked = api_pb.CreateChallengeRequest(
                bot=bot, opponents=opponents, game=pb.GameSpec(game=_text(body, "game"))
            )
            reply = await self._call(
                lambda stub, meta: stub.CreateChallenge(asked, metadata=meta), session, "challenge"
            )
            return {"match_id": reply.match_id, "game": reply.game.game, "seats": list(reply.seats)}

        return router

    # -- checks ---------------------------------------------------------------------------------

    def _same_origin(self, request: Request) -> None:
        """Refuse a change sent from another site's page (its Origin, or else its Referer, names that site)."""
        origin = request.headers.get("origin")
        if origin is None and request.headers.get("referer"):
            parts = urlsplit(request.headers["referer"])
            origin = f"{parts.scheme}://{parts.netloc}"
        if origin is None:
            return  # not a browser's cross-site request (they carry an Origin on every POST)
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin.lower() != own.lower():
            raise Refused(HTTPStatus.FORBIDDEN, f"a change sent from another site ({origin}) is refused: use {own}/")

    def _slowed(self, request: Request) -> str:
        """The client's address, unless it presented too many wrong tokens lately (then 429, as gRPC slows them)."""
        address = client_address(request.client.host) if request.client else ""
        wait = self.wrong.wait(address)
        if wait > 0:
            raise Refused(HTTPStatus.TOO_MANY_REQUESTS, self.wrong.refusal(wait), "token")
        return address

    async def _signed_in(self, request: Request, change: bool) -> tuple[str, WebSession]:
        """The session the request's cookie names; for a change also its origin and CSRF token checked."""
        if change:
            self._same_origin(request)
        session_id = request.cookies.get(COOKIE, "")
        session = await self.sessions.find(session_id)
        if session is None:
            raise Refused(HTTPStatus.UNAUTHORIZED, "sign in first (your session ended, or expired)")
        if change:
            address = self._slowed(request)
            sent = request.headers.get(CSRF_HEADER, "")
            if not sent:
                raise Refused(
                    HTTPStatus.FORBIDDEN, "the request carries no CSRF token (X-CSRF-Token): reload the page and retry"
                )
            if not hmac.compare_digest(sent.encode(), csrf_token(session_id).encode()):
                self.wrong.failed(address)
                raise Refused(HTTPStatus.FORBIDDEN, "the CSRF token is not this session's: reload the page and retry")
        principal = await self.store.authenticate(session.token)
        if principal is None or principal.kind != "owner" or principal.name != session.owner:
            await self.sessions.close(session_id)
            raise Refused(HTTPStatus.UNAUTHORIZED, "your owner token was changed: sign in again with the new one")
        return session_id, session

    # -- calls to the node ----------------------------------------------------------------------

    def _api(self) -> NodeApi:
        if self.node is None:
            raise Refused(HTTPStatus.SERVICE_UNAVAILABLE, "this web UI has no way to its node's API: signing in is off")
        return self.node

    async def _call(self, make: Any, session: WebSession, field: str) -> Any:
        """`make(stub, metadata)` awaited: a refused call is a `Refused` with the node's one line."""
        node = self._api()
        try:
            return await asyncio.wait_for(make(node.stub, _bearer(session)), CALL_TIMEOUT)
        except grpc.aio.AioRpcError as error:
            raise Refused(http_status(error), one_line(error), field) from None

    async def _logs(self, session: WebSession, name: str) -> dict[str, Any]:
        asked = api_pb.GetBotLogsRequest(name=name, limit=RUNS_SHOWN)
        reply = await self._call(lambda stub, meta: stub.GetBotLogs(asked, metadata=meta), session, "")
        return {
            "versions": [
                {
                    "version": v.version,
                    "status": STATUS_WORDS.get(v.status, "unknown"),
                    "reason": v.reason,
                    "run": v.run,
                    "size_bytes": v.size_bytes,
                    "created_ms": v.created_ms,
                    "validation_match_id": v.validation_match_id,
                }
                for v in reply.versions
            ],
            "runs": [
                {
                    "version": run.version,
                    "match_ids": list(run.match_ids),
                    "started_ms": run.started_ms,
                    "ended_ms": run.ended_ms,
                    "ending": run.ending,
                    "stderr_tail": run.stderr[-STDERR_SHOWN:],
                    "stderr_cut": len(run.stderr) > STDERR_SHOWN,
                }
                for run in reply.runs
            ],
        }

    async def _submit(self, request: Request, session: WebSession, first: api_pb.SubmitBotRequest) -> dict[str, Any]:
        """Stream the request's body on to SubmitBot, refusing it (413) as soon as it passes `MAX_BYTES`."""
        node = self._api()
        call = node.stub.SubmitBot(metadata=_bearer(session), timeout=SUBMIT_TIMEOUT)
        try:
            try:
                await call.write(first)
                async for chunk in _bounded(request, CHUNK):
                    await call.write(api_pb.SubmitBotRequest(chunk=chunk))
                await call.done_writing()
            except (asyncio.InvalidStateError, grpc.aio.UsageError):
                pass  # the node ended the call early (a refusal): its status says why, below
            reply = await call
        except grpc.aio.AioRpcError as error:
            raise Refused(http_status(error), one_line(error), "package") from None
        except BaseException:
            call.cancel()
            raise
        version = reply.version
        return {
            "version": {
                "version": version.version,
                "status": STATUS_WORDS.get(version.status, "unknown"),
                "reason": version.reason,
                "run": version.run,
                "validation_match_id": version.validation_match_id,
            },
            "stderr_tail": reply.stderr_tail[-STDERR_SHOWN:],
        }

    def _command(self, request: Request, token: str) -> str:
        """The command that connects the sample bot with `token` to this arena's node."""
        node = self._api().address
        host = request.url.hostname or "127.0.0.1"
        shown = f"[{host}]" if ":" in host else host
        tls = " --tls" if node.tls else ""
        return f"{SAMPLE_BOT} --server {shown}:{node.port}{tls} --token {token}"


def _bearer(session: WebSession) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {session.token}"),)


def _declared_size(request: Request) -> None:
    """Refuse an upload by its Content-Length before reading any of it."""
    declared = request.headers.get("content-length")
    if declared is None:
        return  # sent in chunks: counted as it comes (`_bounded`)
    try:
        size = int(declared)
    except ValueError:
        raise Refused(HTTPStatus.BAD_REQUEST, "the Content-Length header is not a number", "package") from None
    if size > MAX_BYTES:
        raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, _too_large(size), "package")
    if size == 0:
        raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, "choose the bot's package, a .tar.gz of its folder", "package")


def _too_large(size: int | None = None) -> str:
    what = f"{size:,} bytes, " if size is not None else ""
    return f"the package is {what}over the limit of {megabytes(MAX_BYTES)}: leave out what the bot does not need"


async def _bounded(request: Request, size: int) -> AsyncIterator[bytes]:
    """The request's body in pieces of `size` bytes, cut off (413) once it passes `MAX_BYTES`."""
    pending = bytearray()
    total = 0
    try:
        async for piece in request.stream():
            total += len(piece)
            if total > MAX_BYTES:
                raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, _too_large(), "package")
            pending += piece
            if len(pending) >= size:
                yield bytes(pending)
                pending.clear()
    except ClientDisconnect:
        raise Refused(HTTPStatus.BAD_REQUEST, "the upload was cut off before its end", "package") from None
    if pending:
        yield bytes(pending)


async def _json(request: Request) -> dict[str, Any]:
    """The request's JSON object, read up to `MAX_JSON` bytes."""
    read = bytearray()
    async for piece in request.stream():
        read += piece
        if len(read) > MAX_JSON:
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the request is over {MAX_JSON // 1024} KB: send less")
    try:
        body = json.loads(read)
    except (ValueError, UnicodeDecodeError):
        raise Refused(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise Refused(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
    return body


def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name, "")
    if not isinstance(value, str):
        raise Refused(HTTPStatus.UNPROCESSABLE_ENTITY, f"{name} must be text", name)
    return value.strip()


async def _refused(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, Refused)
    headers = {"retry-after": "5"} if error.status == HTTPStatus.TOO_MANY_REQUESTS else None
    return JSONResponse({"detail": error.detail, "field": error.field}, status_code=error.status, headers=headers)
