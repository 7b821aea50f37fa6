"""The web UI and its read-only JSON API (FastAPI); `arena.web.server` serves it with uvicorn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware

from arena.web import data
from arena.web.accounts import Accounts
from arena.web.assets import Assets
from arena.web.data import MAX_LIMIT, NotFoundError, WebData
from arena.web.feeds import LiveStreams
from arena.web.guard import WebLimits

STATIC = Path(__file__).parent / "static"
GZIP_MINIMUM = 1024
"""Bytes from which a response is sent gzip-compressed to a client that accepts it (a replay's JSON
is some 200 KB); the live streams (text/event-stream) never are, so each event leaves at once."""
GZIP_LEVEL = 6
"""zlib's default: level 9 costs more CPU for a few percent less."""

STREAM_INTERVAL = {"match": 0.25, "tournament": 1.0}
"""Seconds between reads of a streamed page's data (once for all its streams): a change is sent within that long."""

Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description=f"How many rows, 1 to {MAX_LIMIT}.")]


def create_app(source: WebData, streams: LiveStreams | None = None, accounts: Accounts | None = None) -> FastAPI:
    """The API under /api (described at /api/openapi.json) and the pages under /; signing in and an
    owner's own bots (`arena.web.accounts`) act through the node's gRPC API where `accounts` reaches it."""
    live = streams or LiveStreams(WebLimits())
    app = FastAPI(
        title="Thirteen Arena",
        summary="JSON API of the arena: leaderboards, bots, matches and replays, tournaments; a signed-in owner's bots.",
        openapi_url="/api/openapi.json",
        # The interactive docs pages load their scripts from a CDN; the arena runs offline.
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM, compresslevel=GZIP_LEVEL)
    app.add_exception_handler(NotFoundError, _not_found)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)

    assets = Assets(STATIC, GZIP_MINIMUM, GZIP_LEVEL)

    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> Response:
        return assets.response("index.html", request)

    @app.get("/static/{name}", include_in_schema=False)
    async def static(name: str, request: Request) -> Response:
        return assets.response(name, request)

    @app.get("/static/{version}/{name}", include_in_schema=False)
    async def versioned(version: str, name: str, request: Request) -> Response:
        return assets.response(name, request, version)

    @app.get("/api/games", tags=["games"])
    async def games() -> list[dict[str, Any]]:
        """The games the arena plays: name, what the score counts, whether lower is better."""
        return data.games()

    @app.get("/api/leaderboards", tags=["ratings"])
    async def leaderboards(limit: Limit = 100) -> dict[str, Any]:
        """Per game: `bots` rated, `rated_seats` (rated games summed over its bots) and `last_ms`; `game`:
        the one the home page opens on, the one with the most rated play (then the most recent); `board`:
        its leaderboard, as /api/leaderboards/{game} returns it."""
        return await source.leaderboards(limit)

    @app.get("/api/leaderboards/{game}", tags=["ratings"])
    async def leaderboard(game: str, limit: Limit = 100) -> dict[str, Any]:
        """The game's leaderboard, best first by the conservative rating mu - 3 sigma.

        Each row: rank, bot, conservative, mu, sigma, games (rated matches), last_ms (last played).
        """
        return await source.leaderboard(game, limit)

    @app.get("/api/bots", tags=["bots"])
    async def bots() -> dict[str, Any]:
        """Registered bots (`bots`: owner, kind, language, games, connected now) and built-in ones (`builtin`)."""
        return await source.bots()

    @app.get("/api/bots/{name}", tags=["bots"])
    async def bot(name: str) -> dict[str, Any]:
        """One bot (`builtin:random` etc. too): its details, per game its rating with the history
        after every rated match (mu, sigma, games, at in seconds), its latest matches (each with
        `rating_change`, how its mu - 3 sigma moved, null if unrated), `rivals`: per opponent the
        matches played together, wins and losses (ranked above or below it) and the mean rank
        difference (positive: this bot placed better), and for a hosted bot `hosted_versions`."""
        return await source.bot(name)

    @app.get("/api/matches", tags=["matches"])
    async def matches(
        game: Annotated[str, Query(description="Only matches of this game.")] = "",
        bot: Annotated[str, Query(description="Only matches this bot played.")] = "",
        tournament: Annotated[str, Query(description="Only matches of this tournament.")] = "",
        limit: Limit = 50,
        before: Annotated[str, Query(description="Only matches listed after this one: the page older than it.")] = "",
        after: Annotated[str, Query(description="Only matches listed before this one: the page newer than it.")] = "",
    ) -> dict[str, Any]:
        """Matches newest first: id, game, params, seats, scores, ranks, termination, times, tournament, running,
        `winners` (the seats ranked first). `older` and `newer`: the match ids to ask `before=` and `after=`
        for the next page either way, null where the list ends; the filters stay the same."""
        return await source.matches(game, bot, tournament, limit, before, after)

    @app.get("/api/matches/{match_id}", tags=["matches"])
    async def match(match_id: str) -> dict[str, Any]:
        """A match. While it runs: `live` with the public view (no hands, no seed) and the moves so far.
        Once it ended: `replay` (the arena-replay/1 record) and `frames`, the position after every move."""
        return await source.match(match_id)

    @app.get("/api/matches/{match_id}/replay", tags=["matches"])
    async def replay(match_id: str) -> JSONResponse:
        """An ended match's replay record (arena-replay/1 JSON, as `arena match export` writes it), to save:
        sent as an attachment named after the match. 404 while the match runs or if it was aborted."""
        record = await source.replay(match_id)
        name = quote(f"{match_id}.json")
        return JSONResponse(record, headers={"Content-Disposition": f"attachment; filename*=UTF-8''{name}"})

    @app.get("/api/matches/{match_id}/stream", tags=["matches"], response_class=StreamingResponse)
    async def match_stream(match_id: str) -> Response:
        """Server-Sent Events: an `update` with the match as `/api/matches/{id}` gives it while it runs
        (the public view only) each time it changes, then `end` with its summary once it has ended.
        An address may hold a few streams at once (429 past them, 503 when the node has no more)."""
        await source.match(match_id, replay=False)  # an unknown match is a 404, before the stream starts

        def ended(shown: dict[str, Any]) -> bool:
            return not shown["match"]["running"]

        async def read() -> dict[str, Any]:
            return await source.match(match_id, replay=False)

        return live.response(f"match {match_id}", read, ended, STREAM_INTERVAL["match"])

    @app.get("/api/tournaments", tags=["tournaments"])
    async def tournaments(limit: Limit = 50) -> dict[str, Any]:
        """Tournaments newest first, with their spec and progress: `status` (running, finished,
        finished-with-aborts, cancelled) and `status_text`, matches `done`, `due`, `rerunning`, `aborted`
        (for good) and `cancelled` of `total`, every aborted attempt with its reason (`aborted_matches`),
        and the registered bots it waits for (`waiting_for`: not connected to any node); a finished
        one's `winner` (first in its standings)."""
        return await source.tournaments_list(limit)

    @app.get("/api/tournaments/{name}", tags=["tournaments"])
    async def tournament(name: str) -> dict[str, Any]:
        """A tournament's spec, progress (as in the list) and live standings: mean score with its 95%
        interval over deals, deals, wins, mean rank and TrueSkill mu and sigma; `head_to_head`: every
        pair in standing order with the first's advantage per shared deal, its 95% interval and whether
        it is established; `unsettled`: neighbours in the standings whose order is not yet established;
        `paths`: per bot its ended matches in order, with round, table, seat, score and rank."""
        return await source.tournament(name)

    @app.get("/api/tournaments/{name}/stream", tags=["tournaments"], response_class=StreamingResponse)
    async def tournament_stream(name: str) -> Response:
        """Server-Sent Events: an `update` with the tournament as `/api/tournaments/{name}` gives it (with
        `playing`, the matches being played) each time it changes, then `end` once it has finished.
        An address may hold a few streams at once (429 past them, 503 when the node has no more)."""
        await source.tournament(name)

        def ended(shown: dict[str, Any]) -> bool:
            return bool(shown["finished_ms"] or shown["cancelled_ms"])

        async def read() -> dict[str, Any]:
            return await source.tournament(name)

        return live.response(f"tournament {name}", read, ended, STREAM_INTERVAL["tournament"])

    (accounts or Accounts(source, None)).install(app)
    return app


async def _not_found(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error)}, status_code=404)


async def _invalid(request: Request, error: Exception) -> JSONResponse:
    """One line per bad parameter instead of FastAPI's nested error objects."""
    assert isinstance(error, RequestValidationError)
    problems = []
    for problem in error.errors():
        where = " ".join(str(part) for part in problem["loc"])
        problems.append(f"{where}: {problem['msg']}")
    return JSONResponse({"detail": "; ".join(problems)}, status_code=422)


async def _http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, HTTPException)
    detail = error.detail
    if error.status_code == 404 and request.url.path.startswith("/api/"):
        detail = f"no API endpoint {request.url.path}; /api/openapi.json lists them"
    return JSONResponse({"detail": detail}, status_code=error.status_code, headers=error.headers)
