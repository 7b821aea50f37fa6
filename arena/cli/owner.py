"""`arena owner`: owner accounts (admin token)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arena.cli.options import Token, call, connection_options, json_option, print_json, to_dict

if TYPE_CHECKING:
    from arena.client import Connection


@click.group()
def owner() -> None:
    """Owner accounts (admin token)."""


@owner.command("create")
@click.argument("name")
@connection_options(Token.ADMIN)
@json_option
def owner_create(name: str, connection: Connection, as_json: bool) -> None:
    """Create owner NAME; prints its token once."""
    from arena.v1 import arena_service_pb2 as api_pb

    reply = call(connection, lambda arena: arena.create_owner(api_pb.CreateOwnerRequest(name=name)))
    if as_json:
        print_json(to_dict(reply))
    else:
        print(f"owner {reply.name} created; its token (shown once, keep it secret):")
        print(reply.token)
