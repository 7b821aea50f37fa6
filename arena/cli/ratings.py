"""`arena leaderboard`, `arena ratings` and `arena queue`: TrueSkill ratings and the ladder's queues."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arena.cli.options import Token, call, connection_options, fail, json_option, print_json, to_dict
from arena.cli.output import console, counted, table, when

if TYPE_CHECKING:
    from arena.client import Connection


@click.command()
@click.argument("game")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True, help="Rows to show.")
@connection_options()
@json_option
def leaderboard(game: str, limit: int, connection: Connection, as_json: bool) -> None:
    """GAME's leaderboard: TrueSkill mu - 3 sigma, best first."""
    from arena.v1 import arena_service_pb2 as api_pb

    reply = call(connection, lambda arena: arena.get_leaderboard(api_pb.GetLeaderboardRequest(game=game, limit=limit)))
    if as_json:
        print_json([to_dict(row) for row in reply.rows])
        return
    numbers = ("#", "mu-3sigma", "mu", "sigma", "games")
    view = table(
        f"{game} leaderboard (TrueSkill: ranked by mu - 3 sigma, the conservative rating)",
        ("#", "bot", *numbers[1:], "last played"),
        numbers=numbers,
        keep=("bot", "last played"),
    )
    for row in reply.rows:
        view.add_row(
            str(row.rank),
            row.bot,
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            str(row.games),
            when(row.last_played_ms),
        )
    console().print(view)


@click.group()
def ratings() -> None:
    """TrueSkill ratings."""


@ratings.command("recompute")
@click.argument("game")
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="A TrueSkill parameter to change: mu, sigma, beta, tau or draw_probability.",
)
@connection_options(Token.ADMIN)
@json_option
def ratings_recompute(game: str, params: tuple[str, ...], connection: Connection, as_json: bool) -> None:
    """Rebuild GAME's ratings from its stored results (admin token)."""
    from arena.v1 import arena_service_pb2 as api_pb

    parameters: dict[str, float] = {}
    for param in params:
        name, sep, value = param.partition("=")
        try:
            if not sep:
                raise ValueError(param)
            parameters[name] = float(value)
        except ValueError:
            fail(f"--param {param!r}: write NAME=NUMBER, e.g. beta=4.2")
    request = api_pb.RecomputeRatingsRequest(game=game, parameters=parameters)
    reply = call(connection, lambda arena: arena.recompute_ratings(request))
    if as_json:
        print_json(to_dict(reply))
    else:
        used = ", ".join(f"{name}={value:g}" for name, value in sorted(reply.parameters.items()))
        print(f"{game}: {counted(reply.results, 'result')} replayed, {counted(reply.bots, 'bot')} rated ({used})")


@ratings.command("history")
@click.argument("bot_name", metavar="BOT")
@click.argument("game")
@connection_options()
@json_option
def ratings_history(bot_name: str, game: str, connection: Connection, as_json: bool) -> None:
    """BOT's rating in GAME after each rated match."""
    from arena.v1 import arena_service_pb2 as api_pb

    request = api_pb.GetRatingHistoryRequest(bot=bot_name, game=game)
    reply = call(connection, lambda arena: arena.get_rating_history(request))
    if as_json:
        print_json([to_dict(point) for point in reply.points])
        return
    numbers = ("#", "mu", "sigma", "mu-3sigma")
    view = table(
        f"{bot_name} in {game}: the rating after each rated match",
        ("#", "match", *numbers[1:], "at"),
        numbers=numbers,
        keep=("match", "at"),
    )
    for point in reply.points:
        view.add_row(
            str(point.games),
            point.match_id,
            f"{point.mu:.2f}",
            f"{point.sigma:.2f}",
            f"{point.conservative:.2f}",
            when(point.at_ms),
        )
    console().print(view)


@click.command()
@click.argument("game", required=False, default="")
@connection_options()
@json_option
def queue(game: str, connection: Connection, as_json: bool) -> None:
    """Who waits in the ladder queues (one line per free match slot), and for how long."""
    from arena.v1 import arena_service_pb2 as api_pb

    reply = call(connection, lambda arena: arena.get_queue(api_pb.GetQueueRequest(game=game)))
    if as_json:
        print_json([to_dict(one) for one in reply.queues])
        return
    for one in reply.queues:
        title = f"{one.game} ladder, tables of {one.table_size}"
        if not one.entries:
            console().print(f"{title}: nobody waiting")
            continue
        view = table(
            f"{title}: {len(one.entries)} waiting", ("bot", "ticket", "waited"), numbers=("waited",), keep=("bot",)
        )
        for entry in one.entries:
            view.add_row(entry.bot, entry.ticket, f"{entry.waited_seconds:.1f} s")
        console().print(view)
