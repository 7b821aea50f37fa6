"""The people's commands against a running arena: owners, bots, leaderboards, matches, the ladder
queue and ratings. Each prints a table for people or, with --json, JSON for scripts.

Every command takes --server HOST:PORT (env ARENA_SERVER) and, where it writes, --token (env
ARENA_TOKEN). Errors are one line with exit code 2, as `arena.cli.commands.main` prints them.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from rich.console import Console
from rich.table import Table

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb

DEFAULT_SERVER = "127.0.0.1:50051"
TIMEOUT = 15.0
SUBMIT_TIMEOUT = 300.0
"""Seconds `arena bot submit` waits: the upload and the validation match."""
UPLOAD_CHUNK = 256 << 10
"""Bytes per SubmitBot message, well under the server's 1 MiB message limit."""
UNREACHABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

console = Console()
Reply = TypeVar("Reply", bound=Message)


class ArenaCall:
    """One connection to the arena for one command; RPC failures become one-line ClickExceptions."""

    def __init__(self, server: str, token: str = "") -> None:
        self.server = server
        self.token = token

    @contextmanager
    def stub(self) -> Iterator[Any]:
        with grpc.insecure_channel(self.server) as channel:
            yield api_grpc.ArenaServiceStub(channel)  # type: ignore[no-untyped-call]

    def __call__(self, method: str, request: Any, *, needs: str = "", timeout: float = TIMEOUT) -> Any:
        if needs and not self.token:
            raise click.ClickException(f"this needs {needs} token: pass --token or set ARENA_TOKEN")
        metadata = (("authorization", f"Bearer {self.token}"),) if self.token else ()
        with self.stub() as stub:
            try:
                return getattr(stub, method)(request, metadata=metadata, timeout=timeout)
            except grpc.RpcError as error:
                code = error.code()
                if code in UNREACHABLE:
                    raise click.ClickException(
                        f"cannot reach the arena at {self.server} (is `arena serve` running?)"
                    ) from None
                raise click.ClickException(str(error.details())) from None


def server_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--server", default=DEFAULT_SERVER, show_default=True, envvar="ARENA_SERVER", help="HOST:PORT of the arena."
    )(function)


def token_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--token", envvar="ARENA_TOKEN", default="", help="Your token (env ARENA_TOKEN).")(function)


def json_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")(function)


def to_dict(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


def when(ms: int) -> str:
    if not ms:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")


def show(table: Table) -> None:
    console.print(table)


# -- owners ---------------------------------------------------------------------------------------


@click.group()
def owner() -> None:
    """Owner accounts (admin token)."""


@owner.command("create")
@click.argument("name")
@server_option
@token_option
@json_option
def owner_create(name: str, server: str, token: str, as_json: bool) -> None:
    """Create owner NAME; prints its token once."""
    reply = ArenaCall(server, token)("CreateOwner", api_pb.CreateOwnerRequest(name=name), needs="the admin")
    if as_json:
        print_json(to_dict(reply))
    else:
        print(f"owner {reply.name} created; its token (shown once, keep it secret):")
        print(reply.token)


# -- bots -----------------------------------------------------------------------------------------


@click.group()
def bot() -> None:
    """Registered bots."""


@bot.command("register")
@click.argument("name")
@click.option("--game", "games", multiple=True, required=True, help="A game it plays; repeat for several.")
@click.option("--language", default="", help="The language it is written in.")
@click.option("--description", default="", help="Free text.")
@server_option
@token_option
@json_option
def bot_register(
    name: str, games: tuple[str, ...], language: str, description: str, server: str, token: str, as_json: bool
) -> None:
    """Register bot NAME (owner token); prints its token once."""
    request = api_pb.RegisterBotRequest(name=name, games=games, language=language, description=description)
    reply = ArenaCall(server, token)("RegisterBot", request, needs="an owner")
    if as_json:
        print_json(to_dict(reply))
    else:
        print(f"bot {reply.bot.name} registered for {', '.join(reply.bot.games)}; its token (shown once):")
        print(reply.token)


def _bots_table(bots: Any) -> Table:
    table = Table(title="bots")
    for column in ("bot", "owner", "language", "games", "connected", "registered"):
        table.add_column(column)
    for info in bots:
        table.add_row(info.name, info.owner, info.language or "-", ", ".join(info.games),
                      "yes" if info.connected else "no", when(info.created_ms))  # fmt: skip
    return table


@bot.command("list")
@click.option("--owner", "owner_name", default="", help="Only this owner's bots.")
@server_option
@json_option
def bot_list(owner_name: str, server: str, as_json: bool) -> None:
    """List the registered bots."""
    reply = ArenaCall(server)("ListBots", api_pb.ListBotsRequest(owner=owner_name))
    if as_json:
        print_json([to_dict(info) for info in reply.bots])
    else:
        show(_bots_table(reply.bots))


@bot.command("show")
@click.argument("name")
@server_option
@json_option
def bot_show(name: str, server: str, as_json: bool) -> None:
    """One bot and its rating in each of its games."""
    call = ArenaCall(server)
    found = [info for info in call("ListBots", api_pb.ListBotsRequest()).bots if info.name == name]
    if not found:
        raise click.ClickException(f"no bot named {name!r}")
    info = found[0]
    ratings = {}
    for game in info.games:
        points = call("GetRatingHistory", api_pb.GetRatingHistoryRequest(bot=name, game=game, limit=1)).points
        if points:
            ratings[game] = points[-1]
    if as_json:
        print_json({**to_dict(info), "ratings": {game: to_dict(point) for game, point in ratings.items()}})
        return
    show(_bots_table([info]))
    table = Table(title=f"ratings of {name}")
    for column in ("game", "mu", "sigma", "mu - 3 sigma", "games", "last match"):
        table.add_column(column)
    for game in info.games:
        point = ratings.get(game)
        if point is None:
            table.add_row(game, "-", "-", "-", "0", "-")
        else:
            table.add_row(game, f"{point.mu:.2f}", f"{point.sigma:.2f}", f"{point.conservative:.2f}",
                          str(point.games), point.match_id)  # fmt: skip
    show(table)


@bot.command("rotate-token")
@click.argument("name")
@server_option
@token_option
@json_option
def bot_rotate_token(name: str, server: str, token: str, as_json: bool) -> None:
    """Give bot NAME a new token (its owner's token or admin); the old one stops working."""
    reply = ArenaCall(server, token)("RotateBotToken", api_pb.RotateBotTokenRequest(name=name), needs="an owner")
    if as_json:
        print_json({"name": name, "token": reply.token})
    else:
        print(f"new token of {name} (shown once; the old one no longer works):")
        print(reply.token)


@bot.command("submit")
@click.argument("name")
@click.option("--game", required=True, help="The game of its validation match.")
@click.option(
    "--dir", "folder", required=True, type=click.Path(file_okay=False, path_type=Path), help="The bot's folder."
)
@click.option("--run", "run_command", required=True, help="The command that starts it there, e.g. 'python bot.py'.")
@server_option
@token_option
@json_option
def bot_submit(name: str, game: str, folder: Path, run_command: str, server: str, token: str, as_json: bool) -> None:
    """Upload a new version of bot NAME for the arena to run (owner token); waits for its validation match."""
    from arena.hosted.package import PackageError, pack

    try:
        package = pack(folder)
    except PackageError as error:
        raise click.ClickException(str(error)) from None
    first = api_pb.SubmitBotRequest(name=name, game=game, run=run_command)
    chunks = [package.data[at : at + UPLOAD_CHUNK] for at in range(0, len(package.data), UPLOAD_CHUNK)]
    requests = [first] + [api_pb.SubmitBotRequest(chunk=chunk) for chunk in chunks]
    reply = ArenaCall(server, token)("SubmitBot", iter(requests), needs="an owner", timeout=SUBMIT_TIMEOUT)
    if as_json:
        print_json(to_dict(reply))
        return
    version = reply.version
    print(f"bot {name} version {version.version} ({package.files} files, sha256 {version.sha256[:12]}): "
          f"{version.status}{': ' + version.reason if version.reason else ''}")  # fmt: skip
    if version.status != "ok" and reply.stderr_tail:
        print("the end of its stderr:")
        print(_tail(reply.stderr_tail))
    if version.status != "ok":
        sys.exit(1)


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


@bot.command("logs")
@click.argument("name")
@click.option("--runs", type=click.IntRange(1, 50), default=5, show_default=True, help="How many recent runs.")
@server_option
@token_option
@json_option
def bot_logs(name: str, runs: int, server: str, token: str, as_json: bool) -> None:
    """A hosted bot's versions and the end of its stderr in recent runs (its owner's token, or admin)."""
    reply = ArenaCall(server, token)("GetBotLogs", api_pb.GetBotLogsRequest(name=name, limit=runs), needs="an owner")
    if as_json:
        print_json(to_dict(reply))
        return
    table = Table(title=f"versions of {name}")
    for column in ("version", "uploaded", "status", "run", "sha256", "reason"):
        table.add_column(column)
    for version in reply.versions:
        table.add_row(str(version.version), when(version.created_ms), version.status, version.run,
                      version.sha256[:12], version.reason)  # fmt: skip
    show(table)
    for run in reply.runs:
        print(f"\n-- version {run.version}, {when(run.started_ms)} on {run.node}, matches "
              f"{', '.join(run.match_ids) or '-'}: {run.ending}")  # fmt: skip
        print(_tail(run.stderr) if run.stderr.strip() else "(no stderr)")


# -- leaderboards and ratings ---------------------------------------------------------------------


@click.command()
@click.argument("game")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True, help="Rows to show.")
@server_option
@json_option
def leaderboard(game: str, limit: int, server: str, as_json: bool) -> None:
    """GAME's leaderboard: TrueSkill mu - 3 sigma, best first."""
    reply = ArenaCall(server)("GetLeaderboard", api_pb.GetLeaderboardRequest(game=game, limit=limit))
    if as_json:
        print_json([to_dict(row) for row in reply.rows])
        return
    table = Table(title=f"{game} leaderboard")
    for column in ("#", "bot", "mu - 3 sigma", "mu", "sigma", "games", "last played"):
        table.add_column(column, justify="right" if column not in ("bot", "last played") else "left")
    for row in reply.rows:
        table.add_row(str(row.rank), row.bot, f"{row.conservative:.2f}", f"{row.mu:.2f}", f"{row.sigma:.2f}",
                      str(row.games), when(row.last_played_ms))  # fmt: skip
    show(table)


@click.group()
def ratings() -> None:
    """TrueSkill ratings."""


@ratings.command("recompute")
@click.argument("game")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A TrueSkill parameter to change: mu, sigma, beta, tau or draw_probability.")  # fmt: skip
@server_option
@token_option
@json_option
def ratings_recompute(game: str, params: tuple[str, ...], server: str, token: str, as_json: bool) -> None:
    """Rebuild GAME's ratings from its stored results (admin token)."""
    parameters: dict[str, float] = {}
    for param in params:
        name, sep, value = param.partition("=")
        try:
            if not sep:
                raise ValueError(param)
            parameters[name] = float(value)
        except ValueError:
            raise click.ClickException(f"--param {param!r}: write NAME=NUMBER, e.g. beta=4.2") from None
    request = api_pb.RecomputeRatingsRequest(game=game, parameters=parameters)
    reply = ArenaCall(server, token)("RecomputeRatings", request, needs="the admin")
    if as_json:
        print_json(to_dict(reply))
    else:
        used = ", ".join(f"{name}={value:g}" for name, value in sorted(reply.parameters.items()))
        print(f"{game}: {reply.results} results replayed, {reply.bots} bots rated ({used})")


@ratings.command("history")
@click.argument("bot_name", metavar="BOT")
@click.argument("game")
@server_option
@json_option
def ratings_history(bot_name: str, game: str, server: str, as_json: bool) -> None:
    """BOT's rating in GAME after each rated match."""
    reply = ArenaCall(server)("GetRatingHistory", api_pb.GetRatingHistoryRequest(bot=bot_name, game=game))
    if as_json:
        print_json([to_dict(point) for point in reply.points])
        return
    table = Table(title=f"{bot_name} in {game}")
    for column in ("games", "match", "mu", "sigma", "mu - 3 sigma", "at"):
        table.add_column(column)
    for point in reply.points:
        table.add_row(str(point.games), point.match_id, f"{point.mu:.2f}", f"{point.sigma:.2f}",
                      f"{point.conservative:.2f}", when(point.at_ms))  # fmt: skip
    show(table)


# -- matches and the queue ------------------------------------------------------------------------


@click.command("show")
@click.argument("match_id", metavar="ID")
@server_option
@json_option
def match_show(match_id: str, server: str, as_json: bool) -> None:
    """A match's summary: seats, scores, ranks, how it ended."""
    reply = ArenaCall(server)("GetMatch", api_pb.GetMatchRequest(match_id=match_id))
    summary = reply.match
    if as_json:
        print_json(to_dict(summary))
        return
    ended = pb.Termination.Name(summary.termination).removeprefix("TERMINATION_").lower()
    table = Table(title=f"match {summary.match_id}: {summary.game.game}, {ended if summary.ended_ms else 'running'}")
    for column in ("seat", "bot", "score", "rank"):
        table.add_column(column)
    for seat, name in enumerate(summary.seats):
        score = str(summary.scores[seat]) if seat < len(summary.scores) else "-"
        rank = str(summary.ranks[seat]) if seat < len(summary.ranks) else "-"
        table.add_row(str(seat), name, score, rank)
    show(table)
    print(f"started {when(summary.started_ms)}, ended {when(summary.ended_ms)}")


@click.command("export")
@click.argument("match_id", metavar="ID")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not to stdout.")
@server_option
def match_export(match_id: str, output: Path | None, server: str) -> None:
    """A finished match's replay record (arena-replay/1 JSON)."""
    reply = ArenaCall(server)("GetMatch", api_pb.GetMatchRequest(match_id=match_id))
    if not reply.match.ended_ms:
        raise click.ClickException(f"match {match_id} is still running; its full record comes once it ended")
    if not reply.replay_json:
        raise click.ClickException(f"match {match_id} was aborted and has no replay record")
    text = json.dumps(json.loads(reply.replay_json), indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)


@click.command()
@click.argument("game", required=False, default="")
@server_option
@json_option
def queue(game: str, server: str, as_json: bool) -> None:
    """Who waits in the ladder queues (one line per free match slot), and for how long."""
    reply = ArenaCall(server)("GetQueue", api_pb.GetQueueRequest(game=game))
    if as_json:
        print_json([to_dict(one) for one in reply.queues])
        return
    for one in reply.queues:
        table = Table(title=f"{one.game} ladder: tables of {one.table_size}, {len(one.entries)} waiting")
        for column in ("bot", "ticket", "waited"):
            table.add_column(column)
        for entry in one.entries:
            table.add_row(entry.bot, entry.ticket, f"{entry.waited_seconds:.1f} s")
        show(table)


def register(app: click.Group, match: click.Group) -> None:
    """Add the commands to the `arena` group and its `match` group."""
    for command in (owner, bot, leaderboard, ratings, queue):
        app.add_command(command)
    match.add_command(match_show)
    match.add_command(match_export)
