"""`arena match`: start a match on an arena, list them, look at one, export its replay record."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.options import (
    BANK_MS,
    MOST_SEATS,
    MOVE_MS,
    Token,
    call,
    connection_options,
    game_param_option,
    game_param_texts,
    json_option,
    print_json,
    to_dict,
)
from arena.cli.output import console, table, when

if TYPE_CHECKING:
    from arena.client import Connection


@click.group()
def match() -> None:
    """Matches on a running arena server."""


@match.command("create")
@click.argument("game_name", metavar="GAME")
@click.option(
    "--seats",
    required=True,
    help="Comma-separated, in seat order: connected bots' names or builtin:random|heuristic|mc.",
)
@click.option(
    "--players",
    type=click.IntRange(0, MOST_SEATS),
    default=0,
    help="Number of players; defaults to the number of seats.",
)
@click.option("--edition", default="", help="Shorthand for --param edition=E (friday13: en, the default, or de).")
@game_param_option
@click.option("--seed", default="", help="The match seed in hex; random when not given.")
@click.option("--per-move-ms", type=MOVE_MS, help="Time per move (default: the server's).")
@click.option("--bank-ms", type=BANK_MS, default=10000, show_default=True, help="Time bank, with --per-move-ms.")
@connection_options(Token.ADMIN)
def match_create(
    game_name: str,
    seats: str,
    players: int,
    edition: str,
    param_texts: tuple[str, ...],
    seed: str,
    per_move_ms: int | None,
    bank_ms: int,
    connection: Connection,
) -> None:
    """Start a match between bots connected to the server; prints its id."""
    from arena.v1 import arena_service_pb2 as api_pb
    from arena.v1 import messages_pb2 as pb

    request = api_pb.CreateMatchRequest(
        game=pb.GameSpec(game=game_name, players=players, params=game_param_texts(param_texts, edition=edition)),
        seats=[name.strip() for name in seats.split(",") if name.strip()],
        seed=seed,
    )
    if per_move_ms:
        request.clock.CopyFrom(pb.Clock(per_move_ms=per_move_ms, bank_ms=bank_ms))
    print(call(connection, lambda arena: arena.create_match(request)).match_id)


@match.command("list")
@click.option("--game", default="", help="Only matches of this game.")
@click.option("--bot", default="", help="Only matches this bot played.")
@click.option("--tournament", default="", help="Only matches of this tournament.")
@click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True, help="How many, 1 to 500.")
@click.option("--before", default="", metavar="ID", help="Only matches older than match ID: the next page.")
@connection_options()
@json_option
def match_list(
    game: str, bot: str, tournament: str, limit: int, before: str, connection: Connection, as_json: bool
) -> None:
    """Matches newest first: how each ended, scores and ranks; the command for the next page last."""
    from arena.v1 import arena_service_pb2 as api_pb
    from arena.v1 import messages_pb2 as pb

    request = api_pb.ListMatchesRequest(game=game, bot=bot, tournament_id=tournament, limit=limit, before=before)
    page = call(connection, lambda arena: arena.list_matches(request))
    if as_json:
        print_json({"matches": [to_dict(summary) for summary in page.matches], "older": page.older})
        return
    view = table(
        "matches, newest first",
        ("id", "game", "ended", "seats (score, rank)", "started"),
        keep=("id", "started"),
    )
    for summary in page.matches:
        ended = pb.Termination.Name(summary.termination).removeprefix("TERMINATION_").lower()
        seats = ", ".join(
            f"{name} ({summary.scores[seat]}, {summary.ranks[seat]})" if seat < len(summary.ranks) else name
            for seat, name in enumerate(summary.seats)
        )
        view.add_row(summary.match_id, summary.game.game, ended if summary.ended_ms else "running", seats,
                     when(summary.started_ms))  # fmt: skip
    console().print(view)
    if page.older:
        filters = "".join(f" --{key} {value}" for key, value in (("game", game), ("bot", bot),
                                                                  ("tournament", tournament)) if value)  # fmt: skip
        print(f"older: arena match list{filters} --before {page.older}")


@match.command("show")
@click.argument("match_id", metavar="ID")
@connection_options()
@json_option
def match_show(match_id: str, connection: Connection, as_json: bool) -> None:
    """A match's summary: seats, scores, ranks, how it ended, and why each forfeit and strike happened."""
    from arena.match.faults import explain, faults_of
    from arena.v1 import arena_service_pb2 as api_pb
    from arena.v1 import messages_pb2 as pb

    reply = call(connection, lambda arena: arena.get_match(api_pb.GetMatchRequest(match_id=match_id)))
    summary = reply.match
    record = json.loads(reply.replay_json) if reply.replay_json else {}
    if as_json:
        shown = to_dict(summary)
        if record:
            forfeits, strikes = faults_of(record)
            shown["forfeits"] = [fault.to_json() for fault in forfeits]
            shown["strikes"] = [fault.to_json() for fault in strikes]
        print_json(shown)
        return
    ended = pb.Termination.Name(summary.termination).removeprefix("TERMINATION_").lower()
    view = table(
        f"match {summary.match_id}: {summary.game.game}, {ended if summary.ended_ms else 'running'}",
        ("seat", "bot", "score", "rank"),
        numbers=("seat", "score", "rank"),
        keep=("bot",),
    )
    for seat, name in enumerate(summary.seats):
        score = str(summary.scores[seat]) if seat < len(summary.scores) else "-"
        rank = str(summary.ranks[seat]) if seat < len(summary.ranks) else "-"
        view.add_row(str(seat), name, score, rank)
    console().print(view)
    print(f"started {when(summary.started_ms, 'second')}, ended {when(summary.ended_ms, 'second')}")
    width = console().width
    faults = explain(record)
    if faults:
        print("forfeits and strikes:")
    for line in faults:
        # Whole names and details, wrapped under their line rather than cut (the tables' rule too).
        print(textwrap.fill(line, width, initial_indent="  ", subsequent_indent="    ", break_long_words=False))
    said = sorted({seat for _, seat, _ in record.get("debug", ())})
    if said:
        seats = ", ".join(
            f"{seat} ({summary.seats[seat]})" if seat < len(summary.seats) else str(seat) for seat in said
        )
        note = f"debug output: {len(record['debug'])} texts of seat {seats} (arena match export {match_id})"
        print(textwrap.fill(note, width, subsequent_indent="  ", break_long_words=False))


@match.command("export")
@click.argument("match_id", metavar="ID")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not to stdout.")
@connection_options()
def match_export(match_id: str, output: Path | None, connection: Connection) -> None:
    """A finished match's replay record (arena-replay/1 JSON)."""
    from arena.v1 import arena_service_pb2 as api_pb

    reply = call(connection, lambda arena: arena.get_match(api_pb.GetMatchRequest(match_id=match_id)))
    if not reply.match.ended_ms:
        raise click.ClickException(f"match {match_id} is still running; its full record comes once it ended")
    if not reply.replay_json:
        raise click.ClickException(f"match {match_id} was aborted and has no replay record")
    text = json.dumps(json.loads(reply.replay_json), indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)
