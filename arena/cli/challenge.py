"""`arena challenge`: an unrated match of your bot against opponents you choose, now (owner token)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arena.cli.options import (
    Token,
    call,
    connection_options,
    fail,
    game_param_option,
    game_param_texts,
    json_option,
    print_json,
    to_dict,
)
from arena.wire.address import DEFAULT_SERVER

if TYPE_CHECKING:
    from arena.client import Connection


@click.command()
@click.argument("bot_name", metavar="BOT")
@click.option(
    "--against",
    required=True,
    help="Its opponents in seat order, comma-separated: builtin:random|heuristic|mc, your own bots, or other "
    "owners' bots that accept invitations.",
)
@click.option(
    "--game",
    "game_name",
    default="",
    help="The game (default: the first game BOT lists that seats this many players and every bot plays).",
)
@game_param_option
@connection_options(Token.OWNER)
@json_option
def challenge(
    bot_name: str, against: str, game_name: str, param_texts: tuple[str, ...], connection: Connection, as_json: bool
) -> None:
    """Start an unrated match of your bot BOT against the bots named by --against; prints its id.

    BOT sits first, then the opponents in the order given. Each owner may have 4 challenges running
    and start 60 an hour.
    """
    from arena.v1 import arena_service_pb2 as api_pb
    from arena.v1 import messages_pb2 as pb

    opponents = [name.strip() for name in against.split(",") if name.strip()]
    if not opponents:
        fail("--against names no bot: e.g. --against builtin:mc,builtin:heuristic")
    params = game_param_texts(param_texts)
    if params and not game_name:
        fail("--param sets a parameter of the game named by --game: add --game")
    request = api_pb.CreateChallengeRequest(
        bot=bot_name, opponents=opponents, game=pb.GameSpec(game=game_name, params=params)
    )
    reply = call(connection, lambda arena: arena.create_challenge(request))
    if as_json:
        print_json(to_dict(reply))
        return
    print(f"challenge {reply.match_id}: {reply.game.game}, {' vs '.join(reply.seats)} (unrated)")
    server = "" if connection.server == DEFAULT_SERVER else f" --server {connection.server}"
    print(f"follow it: arena match show {reply.match_id}{server}   (web UI: /#/matches/{reply.match_id})")
