"""`arena bot`: registered bots, their tokens, hosted versions and logs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli.options import Token, call, connection_options, enum_word, fail, json_option, print_json, to_dict
from arena.cli.output import console, counted, table, when

if TYPE_CHECKING:
    from rich.table import Table

    from arena.client import ArenaClient, Connection

UPLOAD_CHUNK = 256 << 10
"""Bytes per SubmitBot message, well under the server's 1 MiB message limit."""


@click.group()
def bot() -> None:
    """Registered bots."""


@bot.command("register")
@click.argument("name")
@click.option("--game", "games", multiple=True, required=True, help="A game it plays; repeat for several.")
@click.option("--language", default="", help="The language it is written in.")
@click.option("--description", default="", help="Free text.")
@click.option(
    "--accept-invitations",
    is_flag=True,
    help="Let other owners enter it into their tournaments (rated or not) and challenges; off by default.",
)
@connection_options(Token.OWNER)
@json_option
def bot_register(
    name: str,
    games: tuple[str, ...],
    language: str,
    description: str,
    accept_invitations: bool,
    connection: Connection,
    as_json: bool,
) -> None:
    """Register bot NAME (owner token); prints its token once."""
    from arena.v1 import arena_service_pb2 as api_pb

    request = api_pb.RegisterBotRequest(
        name=name,
        games=games,
        language=language,
        description=description,
        accepts_invitations=accept_invitations,
    )
    reply = call(connection, lambda arena: arena.register_bot(request))
    if as_json:
        print_json(to_dict(reply))
    else:
        print(f"bot {reply.bot.name} registered for {', '.join(reply.bot.games)}; its token (shown once):")
        print(reply.token)


@bot.command("set")
@click.argument("name")
@click.option(
    "--accept-invitations/--no-accept-invitations",
    "accept_invitations",
    default=None,
    help="Whether other owners may enter it into their tournaments (rated or not) and challenges.",
)
@connection_options(Token.OWNER)
@json_option
def bot_set(name: str, accept_invitations: bool | None, connection: Connection, as_json: bool) -> None:
    """Change bot NAME's settings (its owner's token); prints them."""
    from arena.v1 import arena_service_pb2 as api_pb

    if accept_invitations is None:
        fail("say what to change: --accept-invitations or --no-accept-invitations")
    request = api_pb.UpdateBotRequest(name=name, accepts_invitations=accept_invitations)
    reply = call(connection, lambda arena: arena.update_bot(request))
    if as_json:
        print_json(to_dict(reply.bot))
    else:
        print(f"bot {reply.bot.name}: {_invitations(reply.bot)}")


def _invitations(info: Any) -> str:
    if info.accepts_invitations:
        return "accepts invitations: other owners may enter it into their tournaments"
    return "accepts no invitations: only its owner and the admin enter it into tournaments"


def _bots_table(bots: Any) -> Table:
    view = table(
        "bots", ("bot", "owner", "language", "games", "connected", "registered"), keep=("bot", "games", "registered")
    )
    for info in bots:
        view.add_row(
            info.name,
            info.owner,
            info.language or "-",
            ",".join(info.games),
            "yes" if info.connected else "no",
            when(info.created_ms, "day"),
        )
    return view


@bot.command("list")
@click.option("--owner", "owner_name", default="", help="Only this owner's bots.")
@connection_options()
@json_option
def bot_list(owner_name: str, connection: Connection, as_json: bool) -> None:
    """List the registered bots."""
    from arena.v1 import arena_service_pb2 as api_pb

    reply = call(connection, lambda arena: arena.list_bots(api_pb.ListBotsRequest(owner=owner_name)))
    if as_json:
        print_json([to_dict(info) for info in reply.bots])
    else:
        console().print(_bots_table(reply.bots))


@bot.command("show")
@click.argument("name")
@connection_options()
@json_option
def bot_show(name: str, connection: Connection, as_json: bool) -> None:
    """One bot and its rating in each of its games."""
    from arena.v1 import arena_service_pb2 as api_pb

    async def look(arena: ArenaClient) -> tuple[Any, dict[str, Any]]:
        found = [info for info in (await arena.list_bots(api_pb.ListBotsRequest())).bots if info.name == name]
        if not found:
            fail(f"no bot named {name!r}")
        ratings = {}
        for game in found[0].games:
            history = await arena.get_rating_history(api_pb.GetRatingHistoryRequest(bot=name, game=game, limit=1))
            if history.points:
                ratings[game] = history.points[-1]
        return found[0], ratings

    info, ratings = call(connection, look)
    if as_json:
        print_json({**to_dict(info), "ratings": {game: to_dict(point) for game, point in ratings.items()}})
        return
    console().print(_bots_table([info]))
    print(_invitations(info))
    numbers = ("mu", "sigma", "mu-3sigma", "games")
    view = table(f"ratings of {name}", ("game", *numbers, "last match"), numbers=numbers, keep=("last match",))
    for game in info.games:
        point = ratings.get(game)
        if point is None:
            view.add_row(game, "-", "-", "-", "0", "-")
        else:
            view.add_row(
                game,
                f"{point.mu:.2f}",
                f"{point.sigma:.2f}",
                f"{point.conservative:.2f}",
                str(point.games),
                point.match_id,
            )
    console().print(view)


@bot.command("rotate-token")
@click.argument("name")
@connection_options(Token.OWNER)
@json_option
def bot_rotate_token(name: str, connection: Connection, as_json: bool) -> None:
    """Give bot NAME a new token (its owner's token or admin); the old one stops working."""
    from arena.v1 import arena_service_pb2 as api_pb

    reply = call(connection, lambda arena: arena.rotate_bot_token(api_pb.RotateBotTokenRequest(name=name)))
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
@connection_options(Token.OWNER)
@json_option
def bot_submit(name: str, game: str, folder: Path, run_command: str, connection: Connection, as_json: bool) -> None:
    """Upload a new version of bot NAME for the arena to run (owner token); waits for its validation match."""
    from arena.hosted.package import PackageError, pack  # loaded only here, so that the CLI starts fast
    from arena.v1 import arena_service_pb2 as api_pb

    try:
        package = pack(folder)
    except PackageError as error:
        fail(str(error))
    first = api_pb.SubmitBotRequest(name=name, game=game, run=run_command)
    chunks = [package.data[at : at + UPLOAD_CHUNK] for at in range(0, len(package.data), UPLOAD_CHUNK)]
    requests = [first] + [api_pb.SubmitBotRequest(chunk=chunk) for chunk in chunks]
    reply = call(connection, lambda arena: arena.submit_bot(requests))
    if as_json:
        print_json(to_dict(reply))
        return
    version = reply.version
    ok = version.status == api_pb.HOSTED_VERSION_STATUS_OK
    print(
        f"bot {name} version {version.version} ({counted(package.files, 'file')}, sha256 {version.sha256[:12]}): "
        f"{enum_word(api_pb.HostedVersionStatus, version.status)}{': ' + version.reason if version.reason else ''}"
    )
    if not ok and reply.stderr_tail:
        print("the end of its stderr:")
        print(_tail(reply.stderr_tail))
    if not ok:
        sys.exit(1)


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


@bot.command("logs")
@click.argument("name")
@click.option("--runs", type=click.IntRange(1, 50), default=5, show_default=True, help="How many recent runs.")
@connection_options(Token.OWNER)
@json_option
def bot_logs(name: str, runs: int, connection: Connection, as_json: bool) -> None:
    """A hosted bot's versions and the end of its stderr in recent runs (its owner's token, or admin)."""
    from arena.v1 import arena_service_pb2 as api_pb

    request = api_pb.GetBotLogsRequest(name=name, limit=runs)
    reply = call(connection, lambda arena: arena.get_bot_logs(request))
    if as_json:
        print_json(to_dict(reply))
        return
    view = table(
        f"versions of {name}",
        ("version", "uploaded", "status", "run", "sha256", "reason"),
        numbers=("version",),
        keep=("uploaded",),
    )
    for version in reply.versions:
        view.add_row(
            str(version.version),
            when(version.created_ms),
            enum_word(api_pb.HostedVersionStatus, version.status),
            version.run,
            version.sha256[:12],
            version.reason,
        )
    console().print(view)
    for run in reply.runs:
        print(
            f"\n-- version {run.version}, {when(run.started_ms, 'second')} on {run.node}, matches "
            f"{', '.join(run.match_ids) or '-'}: {run.ending}"
        )
        print(_tail(run.stderr) if run.stderr.strip() else "(no stderr)")
