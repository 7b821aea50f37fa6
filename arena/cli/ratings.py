"""`arena leaderboard`, `arena ratings` and `arena queue`: TrueSkill ratings and the ladder's queues."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arena.cli.options import Token, call, connection_options, fail, json_option, print_json, to_dict
from arena.cli.output import console, counted, table, when

if TYPE_CHECKING:
    from arena.client import Connection
    from arena.v1 import arena_service_pb2 as api_pb


@click.command()
@click.argument("game")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True, help="Rows to show.")
@connection_options()
@json_option
def leaderboard(game: str, limit: int, connection: Connection, as_json: bool) -> None:
    """GAME's leaderboard: TrueSkill mu - 3 sigma, best first."""
    from arena.ratings import PROVISIONAL_MATCHES
    from arena.v1 import arena_service_pb2 as api_pb

    reply = call(connection, lambda arena: arena.get_leaderboard(api_pb.GetLeaderboardRequest(game=game, limit=limit)))
    if as_json:
        print_json([{**to_dict(row), **_neighbour_below(reply, index)} for index, row in enumerate(reply.rows)])
        return
    numbers = ("#", "mu-3sigma", "mu", "sigma", "games")
    versioned = any(row.version for row in reply.rows)
    view = table(
        f"{game} leaderboard (TrueSkill: ranked by mu - 3 sigma, the conservative rating)",
        ("#", "bot", *(("version",) if versioned else ()), *numbers[1:], "last played"),
        numbers=numbers,
        keep=("bot", "last played"),
    )
    for row in reply.rows:
        view.add_row(
            str(row.rank),
            row.bot,
            *((row.version,) if versioned else ()),
            f"{row.conservative:.2f}",
            f"{row.mu:.2f}",
            f"{row.sigma:.2f}",
            str(row.games),
            when(row.last_played_ms),
        )
    out = console()
    out.print(view)
    # Lines wrapped to the terminal, as the table is: a long list of bots never runs past its edge.
    provisional = [row.bot for row in reply.rows if row.provisional]
    if provisional:
        out.print(
            f"provisional (under {PROVISIONAL_MATCHES} rated matches, or a new version): {', '.join(provisional)}",
            highlight=False,
            markup=False,
        )
    if reply.neighbours:
        out.print("neighbours' order (95%):", highlight=False, markup=False)
    for order in reply.neighbours:
        out.print(f"  {order.upper} > {order.lower}: {order_marker(order)}", highlight=False, markup=False)


def order_marker(order: api_pb.NeighbourOrder) -> str:
    """How sure a neighbour pair's order is, in words: established (since when) or not yet."""
    if not order.established:
        return f"not established (z {order.z:.2f})"
    if not order.since_games:
        return f"established (z {order.z:.2f})"
    earlier = " or earlier" if order.since_earlier else ""
    return f"established since {counted(order.since_games, 'match', 'matches')}{earlier}"


def _neighbour_below(reply: api_pb.GetLeaderboardResponse, index: int) -> dict[str, object]:
    """The JSON of the order between row `index` and the row below it (none for the last row)."""
    if index >= len(reply.neighbours):
        return {}
    order = reply.neighbours[index]
    return {
        "order_below": {
            "lower": order.lower,
            "z": order.z,
            "established": order.established,
            "since_games": order.since_games or None,
            "since_earlier": order.since_earlier,
        }
    }


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


@ratings.command("versions")
@click.argument("bot_name", metavar="BOT")
@click.argument("game")
@connection_options()
@json_option
def ratings_versions(bot_name: str, game: str, connection: Connection, as_json: bool) -> None:
    """BOT's rating in GAME per version: what each earlier version reached, and the active one now."""
    from arena.ratings import HistoryEntry, version_ratings
    from arena.v1 import arena_service_pb2 as api_pb

    request = api_pb.GetRatingHistoryRequest(bot=bot_name, game=game)
    reply = call(connection, lambda arena: arena.get_rating_history(request))
    history = [
        HistoryEntry(bot_name, point.match_id, point.mu, point.sigma, point.games, point.at_ms / 1000)
        for point in reply.points
    ]
    spans = version_ratings(history)
    if as_json:
        print_json(
            [
                {
                    "version": span.version,
                    "active": index == len(spans) - 1,
                    "matches": span.matches,
                    "mu": span.end.mu,
                    "sigma": span.end.sigma,
                    "conservative": span.end.conservative,
                    "from_ms": round(span.start.at * 1000),
                    "to_ms": round(span.end.at * 1000),
                }
                for index, span in enumerate(spans)
            ]
        )
        return
    if not spans:
        print(f"{bot_name} has no rating in {game} yet")
        return
    numbers = ("matches", "mu", "sigma", "mu-3sigma")
    view = table(
        f"{bot_name} in {game}: the rating each version reached (the last is the active one)",
        ("version", *numbers, "from", "last"),
        numbers=numbers,
        keep=("version", "from", "last"),
    )
    for index, span in enumerate(spans):
        label = span.version or "(none)"
        view.add_row(
            f"{label} (active)" if index == len(spans) - 1 else label,
            str(span.matches),
            f"{span.end.mu:.2f}",
            f"{span.end.sigma:.2f}",
            f"{span.end.conservative:.2f}",
            when(round(span.start.at * 1000)),
            when(round(span.end.at * 1000)),
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
