"""Stored data as the web API's JSON: leaderboards, bots, matches with their replay frames, tournaments.

Everything is read through the store classes the gRPC service uses, so the web UI and the API
show the same numbers. A running match shows only its public view (what a spectator may see);
hands and the seed appear once the match has ended and its replay record is stored.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Any

from starlette.exceptions import HTTPException

from arena.bots import BOTS
from arena.games import Game, Termination, game_names, kit_of, make_game
from arena.match.faults import describe, faults_of
from arena.node.matches import BUILTIN_PREFIX, public_record
from arena.node.tournaments import TournamentView, seed_shown, tournament_view
from arena.store import CorruptReplay, MatchRecord, Store
from arena.store.hosted import HostedStore
from arena.store.ratings import LeaderboardRow, RatingStore
from arena.store.relay import RelayStore
from arena.store.store import BotKind, NotFound, StoreError
from arena.store.tournaments import TournamentState, TournamentStore
from arena.store.work import WorkQueue
from arena.tournaments.spec import TournamentSpec, seed_commitment
from arena.wire import convert

MAX_LIMIT = 500
"""The most rows one request may ask for, as in the gRPC API."""
HISTORY_POINTS = 1000
RECENT_MATCHES = 20
RIVAL_MATCHES = MAX_LIMIT
"""How many of a bot's latest matches its head-to-head table counts."""
FRAME_CACHE = 32
"""Replays whose frames are kept: an ended match never changes, and viewers ask for the same ones."""
TABLE_KEYS = ("standings", "head_to_head", "unsettled")
"""What the tournament page takes from the live table (its progress comes from the stored matches)."""


class NotFoundError(LookupError):
    """A game, bot, match or tournament that does not exist; the message says what to do instead."""


def games() -> list[dict[str, Any]]:
    """The games the arena plays, with what their score means, their parameters and how the viewer draws them."""
    listed = []
    for name in game_names():
        game, kit = make_game(name), kit_of(name)
        listed.append(
            {
                "name": name,
                "score_name": game.score_name,
                "lower_is_better": game.lower_is_better,
                "parameters": [dataclasses.asdict(parameter) for parameter in kit.parameters],
                "drawing": kit.drawing,
            }
        )
    return listed


def check_game(name: str) -> str:
    if name not in game_names():
        raise NotFoundError(f"no game {name!r}; the arena plays {', '.join(game_names())}")
    return name


def leaderboard_row(row: LeaderboardRow) -> dict[str, Any]:
    return {
        "rank": row.rank,
        "bot": row.bot,
        "conservative": row.conservative,
        "mu": row.mu,
        "sigma": row.sigma,
        "games": row.games,
        "last_ms": row.last_ms,
        "provisional": row.provisional,
        "version": row.version,
    }


def match_summary(record: MatchRecord) -> dict[str, Any]:
    """A match as listed; `running` until its final summary is stored; `winners`: the seats ranked first."""
    winners = [seat for seat, rank in enumerate(record.ranks) if rank == 1] if record.ended_ms else []
    return {**record.to_dict(), "running": not record.ended_ms, "winners": winners}


def rivals(bot: str, records: list[MatchRecord]) -> list[dict[str, Any]]:
    """The bot against each opponent over the ended matches both played (aborted ones left out): how
    often, how often it ranked above (wins) and below (losses), and its mean rank difference (the
    opponent's rank minus its own: positive when it placed better). Most played first."""
    tally: dict[str, dict[str, Any]] = {}
    for record in records:
        if not record.ended_ms or record.termination == "aborted" or bot not in record.seats:
            continue
        mine = record.ranks[record.seats.index(bot)]
        for seat, other in enumerate(record.seats):
            if other == bot:
                continue
            row = tally.setdefault(other, {"opponent": other, "matches": 0, "wins": 0, "losses": 0, "rank_sum": 0})
            row["matches"] += 1
            row["wins"] += record.ranks[seat] > mine
            row["losses"] += record.ranks[seat] < mine
            row["rank_sum"] += record.ranks[seat] - mine
    rows = [
        {**{k: v for k, v in row.items() if k != "rank_sum"}, "mean_rank_difference": row["rank_sum"] / row["matches"]}
        for row in tally.values()
    ]
    return sorted(rows, key=lambda row: (-row["matches"], row["opponent"]))


def tournament_paths(spec: TournamentSpec, records: list[MatchRecord]) -> dict[str, list[dict[str, Any]]]:
    """Each bot's way through the tournament: its ended matches in match order, with the round and
    table (0-based), its seat, score and rank, and how many sat at the table."""
    paths: dict[str, list[dict[str, Any]]] = {bot: [] for bot in spec.entrants}
    for record in records:
        number = spec.match_number(record.match_id)
        if number is None or not record.ended_ms or record.termination == "aborted":
            continue
        for seat, bot in enumerate(record.seats):
            paths.setdefault(bot, []).append(
                {
                    "match_id": record.match_id,
                    "number": number,
                    "round": spec.round_of(number),
                    "table": number % spec.matches_per_round,
                    "seat": seat,
                    "score": record.scores[seat],
                    "rank": record.ranks[seat],
                    "players": len(record.seats),
                }
            )
    return {bot: sorted(steps, key=lambda step: step["number"]) for bot, steps in paths.items()}


def rating_changes(ratings: dict[str, Any], starts: dict[str, float]) -> dict[str, float]:
    """Match id -> how much the bot's conservative rating (mu - 3 sigma) moved with that match; the
    first rated match of a game moves it from the game's starting rating (`starts`)."""
    changes = {}
    for game, rating in ratings.items():
        before = starts[game]
        for point in rating["history"]:
            now = point["mu"] - 3 * point["sigma"]
            changes[point["match_id"]] = now - before
            before = now
    return changes


def public_view(game: str, observation: object) -> dict[str, Any]:
    """What a spectator sees of a running match, as the game's kit shows it."""
    return kit_of(game).public_view(observation)


def game_of(record: dict[str, Any]) -> Game:
    return convert.game_from_spec(convert.spec_from_params(record["game"], record["params"]))


def faults(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every forfeit, then every strike, of an ended match's record, each with its line in plain words
    (`arena match show` prints the same lines): why a bot lost, for the match page."""
    forfeits, strikes = faults_of(record)
    return [
        {**fault.to_json(), "forfeit": forfeit, "words": describe(fault, forfeit=forfeit)}
        for found, forfeit in ((forfeits, True), (strikes, False))
        for fault in found
    ]


def replay_frames(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The position before the first move of each round and after every move, re-played by the engine
    (the game's kit says what each frame shows)."""
    game = game_of(record)
    return kit_of(game.name).replay_frames(game, record)


class WebData:
    """The web API's reads, over the same store objects as the gRPC service, from Redis alone: the web UI
    runs in a process of its own, and shows every node's matches and bots alike."""

    def __init__(self, store: Store, ratings: RatingStore) -> None:
        self.store = store
        self.ratings = ratings
        self.relay = RelayStore(store.redis)
        self.tournaments = TournamentStore(store.redis)
        self.hosted = HostedStore(store.redis)
        self.work = WorkQueue(store.redis)
        self._rebuilt: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        self._frames: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()

    async def leaderboards(self, limit: int) -> dict[str, Any]:
        """Per game how many rated seats were played and when last; `game`: the one to open first, the
        one with the most rated play (then the most recent), so the home page never opens on an empty
        board while another game has ratings; `board`: that game's leaderboard (`leaderboard(game,
        limit)`), so the home page draws in one request rather than two in a row."""
        summary: list[dict[str, Any]] = []
        for game in game_names():
            rows = await self.ratings.leaderboard(game, MAX_LIMIT)
            summary.append(
                {
                    "game": game,
                    "bots": len(rows),
                    "rated_seats": sum(row.games for row in rows),
                    "last_ms": max((row.last_ms for row in rows), default=0),
                }
            )
        best = max(summary, key=lambda entry: (entry["rated_seats"], entry["last_ms"]))
        game = str(best["game"])
        return {"game": game, "games": summary, "board": await self.leaderboard(game, limit)}

    async def leaderboard(self, game: str, limit: int) -> dict[str, Any]:
        rows = await self.ratings.leaderboard(check_game(game), limit)
        orders = await self.ratings.certainty(game, rows)
        return {
            "game": game,
            "rows": [leaderboard_row(row) for row in rows],
            "neighbours": [order.to_dict() for order in orders],
        }

    async def bots(self) -> dict[str, Any]:
        registered = await self.store.list_bots()
        connected = await self.relay.connected(bot.name for bot in registered)
        bots = [{**dataclasses.asdict(bot), "connected": bot.name in connected} for bot in registered]
        builtin = [builtin_bot(name) for name in BOTS]
        return {"bots": bots, "builtin": builtin}

    async def bot(self, name: str) -> dict[str, Any]:
        """A bot's details, its rating and rating history in each game, and its latest matches."""
        info = await self._bot_info(name)
        ratings: dict[str, Any] = {}
        starts: dict[str, float] = {}
        for game in game_names():
            found = (await self.ratings.ratings(game, [name])).get(name)
            if found is None:
                continue
            history = await self.ratings.history(game, name, HISTORY_POINTS)
            model = await self.ratings.model(game)
            starts[game] = model.mu - 3 * model.sigma
            ratings[game] = {
                "mu": found.mu,
                "sigma": found.sigma,
                "conservative": found.conservative,
                "games": found.games,
                "history": [
                    {"match_id": p.match_id, "mu": p.mu, "sigma": p.sigma, "games": p.games, "at": p.at}
                    for p in history
                ],
            }
        changes = rating_changes(ratings, starts)
        played = await self.store.list_matches(bot=name, limit=RIVAL_MATCHES)
        matches = [
            {**match_summary(record), "rating_change": changes.get(record.match_id)}
            for record in played[:RECENT_MATCHES]
        ]
        shown = {"bot": info, "ratings": ratings, "matches": matches, "rivals": rivals(name, played)}
        if info["kind"] == BotKind.HOSTED:
            active = await self.hosted.active(name)
            shown["hosted_versions"] = [
                {**dataclasses.asdict(version), "active": active is not None and active.version == version.version}
                for version in await self.hosted.versions(name)
            ]
        return shown

    async def _bot_info(self, name: str) -> dict[str, Any]:
        if name.startswith(BUILTIN_PREFIX) and name.removeprefix(BUILTIN_PREFIX) in BOTS:
            return builtin_bot(name.removeprefix(BUILTIN_PREFIX))
        bot = await self.store.get_bot(name)
        if bot is None:
            raise NotFoundError(f"no bot named {name!r}; /api/bots lists the registered and built-in bots")
        return {**dataclasses.asdict(bot), "connected": name in await self.relay.connected([name])}

    async def matches(
        self, game: str, bot: str, tournament: str, limit: int, before: str = "", after: str = ""
    ) -> dict[str, Any]:
        """Matches newest first, filtered by game, bot and tournament, paged from `before` or `after` (a
        match id of the same list); `older` and `newer`: the ids to page on from, null where none follow."""
        if game:
            check_game(game)
        if bot:
            await self._bot_info(bot)
        if tournament:
            await self._tournament_state(tournament)
        try:
            page = await self.store.page_matches(game, bot, limit, tournament, before, after)
        except NotFound as error:
            raise NotFoundError(str(error)) from None
        except StoreError as error:
            raise HTTPException(422, str(error)) from None
        return {
            "matches": [match_summary(record) for record in page.matches],
            "older": page.older or None,
            "newer": page.newer or None,
        }

    async def replay(self, match_id: str) -> dict[str, Any]:
        """An ended match's replay record as stored; while its deal is still played at another table of its
        tournament, the public record only, as the match page shows it."""
        try:
            found = await self.store.get_match(match_id)
        except CorruptReplay as error:
            raise HTTPException(500, str(error)) from None
        if found is None:
            raise NotFoundError(f"no match {match_id!r}; /api/matches lists the matches")
        record, stored = found
        if not record.ended_ms:
            raise NotFoundError(f"match {match_id} is still running; its replay is stored when it ends")
        if stored is None:
            raise NotFoundError(f"match {match_id} was aborted before it ended and has no replay")
        if await self.tournaments.sealed(record.tournament_id):
            return public_record(stored)
        return stored

    async def match(self, match_id: str, replay: bool = True) -> dict[str, Any]:
        """A running match's public view, or an ended match's replay record with a frame per move
        (`replay` False: only its summary, as the live stream ends with)."""
        try:
            found = await self.store.get_match(match_id)
        except CorruptReplay as error:  # a one-line answer, as {"detail": ...} like every error here
            raise HTTPException(500, str(error)) from None
        if found is None:
            raise NotFoundError(f"no match {match_id!r}; /api/matches lists the matches")
        record, stored = found
        shown: dict[str, Any] = {"match": match_summary(record), "drawing": kit_of(record.game).drawing}
        if not record.ended_ms:
            # Its public view is rebuilt from the moves the node playing it writes to Redis.
            elsewhere = await self._live_from_events(record)
            if elsewhere is not None:
                shown["live"] = elsewhere
        elif stored is not None and replay and await self.tournaments.sealed(record.tournament_id):
            # Its deal is still to be played at another table: the public record only, as while it ran.
            shown["replay"] = public_record(stored)
            shown["sealed"] = (
                f"hands and seed are shown once tournament {record.tournament_id} has ended: its other tables "
                "play the same deal"
            )
        elif stored is not None and replay:
            shown["replay"] = stored
            shown["frames"] = self._replay_frames(match_id, stored)
        if record.ended_ms and stored is not None and replay:
            shown["faults"] = faults(stored)
        return shown

    async def _live_from_events(self, record: MatchRecord) -> dict[str, Any] | None:
        """The public view of a running match, from its event stream (seed, then the actions applied);
        None when it has none yet (its order waits for a node). Only public parts leave here."""
        events = await self.work.events(record.match_id)
        if not events.seed:
            return None
        cached = self._rebuilt.get(record.match_id)
        if cached is not None and cached[0] == len(events.actions):
            return cached[1]
        # Built as the node that runs it builds it, so that its recorded actions mean the same moves.
        game = make_game(record.game, **record.params)
        state = game.new_match(bytes.fromhex(events.seed))
        last_move = ""
        for action in events.actions:
            seat = state.current_player()
            state.apply(action)
            last_move = f"seat {seat} played {game.action_text(action)}"
        live = {
            "view": public_view(record.game, state.public_observation()),
            "last_move": last_move,
            "record": public_record(state.record(record.seats, Termination.RUNNING)),
        }
        self._rebuilt[record.match_id] = (len(events.actions), live)
        if len(self._rebuilt) > FRAME_CACHE:
            self._rebuilt.popitem(last=False)
        return live

    def _replay_frames(self, match_id: str, replay: dict[str, Any]) -> list[dict[str, Any]]:
        frames = self._frames.get(match_id)
        if frames is None:
            frames = self._frames[match_id] = replay_frames(replay)
            if len(self._frames) > FRAME_CACHE:
                self._frames.popitem(last=False)
        self._frames.move_to_end(match_id)
        return frames

    async def tournaments_list(self, limit: int) -> dict[str, Any]:
        """Tournaments newest first with their progress (what became of every match) and whom they wait for."""
        listed = []
        for name in await self.tournaments.names(limit):
            state = await self.tournaments.get(name)
            if state is None:
                continue
            # Only a finished tournament names its winner: that needs its standings, the rest do not.
            view = await tournament_view(self.store, state, standings=bool(state.finished_ms))
            shown = tournament_json(view)
            shown["winner"] = ""
            if view.table is not None and view.table.rows and view.table.rows[0].games:
                shown["winner"] = view.table.rows[0].bot
            listed.append(shown)
        return {"tournaments": listed}

    async def tournament(self, name: str) -> dict[str, Any]:
        """The tournament's spec, progress (done, due, re-running, aborted with reasons, cancelled), whom it
        waits for, live standings (mean score with its 95% interval over deals, TrueSkill), `head_to_head`:
        every pair of bots in standing order with the first's advantage per deal on the deals both played
        (positive: first better) and its 95% interval, and `unsettled`: the [upper, lower] neighbours in
        the standings whose order the deals so far do not establish."""
        view = await tournament_view(self.store, await self._tournament_state(name))
        assert view.table is not None
        table = view.table.to_dict()
        spec = view.state.spec
        records = await self.store.list_matches(tournament=name, limit=2 * spec.total_matches + MAX_LIMIT)
        return {
            **tournament_json(view),
            **{key: table[key] for key in TABLE_KEYS},
            "paths": tournament_paths(spec, records),
            "playing": [record.match_id for record in records if not record.ended_ms],
        }

    async def _tournament_state(self, name: str) -> TournamentState:
        state = await self.tournaments.get(name)
        if state is None:
            raise NotFoundError(f"no tournament named {name!r}; /api/tournaments lists them")
        return state


def builtin_bot(policy: str) -> dict[str, Any]:
    """A built-in bot described like a registered one: it runs inside the server."""
    return {
        "name": f"{BUILTIN_PREFIX}{policy}",
        "owner": "",
        "kind": "builtin",
        "language": "python",
        "games": game_names(),
        "description": f"the arena's own {policy} policy, played inside the server",
        "created_ms": 0,
        "connected": True,
    }


def tournament_header(state: TournamentState) -> dict[str, Any]:
    """What a tournament is and who made it; the seed only once it has ended (`seed_shown`: the web
    has no admin), its commitment always."""
    game = state.spec.build_game()
    spec = state.spec.to_dict()
    if not seed_shown(state, admin=False):
        spec["seed"] = ""
    return {
        "spec": spec,
        "seed_commitment": seed_commitment(state.spec.seed),
        "created_by": state.created_by,
        "created_ms": state.created_ms,
        "finished_ms": state.finished_ms,
        "cancelled_ms": state.cancelled_ms,
        "cancelled_by": state.cancelled_by,
        "score_name": game.score_name,
        "lower_is_better": game.lower_is_better,
    }


def tournament_json(view: TournamentView) -> dict[str, Any]:
    """The header, what became of every match (as `arena tournament show` tells it), and whom it waits for."""
    return {**tournament_header(view.state), **view.progress.to_dict(), "waiting_for": list(view.waiting_for)}
