"""`arena tournament`: tournaments on a running arena; any node of the arena runs their matches."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from arena.cli.options import Token, call, connection_options, game_param_option, game_param_texts
from arena.cli.output import console, counted, print_tournament, table

if TYPE_CHECKING:
    from arena.client import ArenaClient, Connection


@click.group()
def tournament() -> None:
    """Tournaments on a running arena server; any node of the arena runs their matches."""


@tournament.command("create")
@click.argument("name")
@click.option("--game", "game_name", required=True, help="The game (`arena games` lists them).")
@click.option(
    "--format",
    "format_name",
    type=click.Choice(["round-robin", "gauntlet", "swiss"]),
    default="round-robin",
    show_default=True,
    help="How entrants are seated.",
)
@click.option("--entrants", required=True, help="Comma-separated bot names, or builtin:random|heuristic|mc.")
@click.option(
    "--table-size",
    "--players",
    "table_size",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Players per match.",
)
@click.option(
    "--rounds", type=click.IntRange(min=1), default=1, show_default=True, help="Repetitions, or Swiss rounds."
)
@click.option(
    "--duplicate",
    is_flag=True,
    help="Play every deal under the seat-fair design: each bot in every seat and after every other bot equally often.",
)
@click.option(
    "--seatings",
    type=click.IntRange(min=0),
    default=0,
    help="With --duplicate: seatings per deal, a multiple of the table size (default: the whole design).",
)
@click.option("--rated", is_flag=True, help="Results also change the ladder ratings.")
@click.option(
    "--seed",
    default="",
    help="Seed text, the admin's only: the same seed gives the same deals. Left out, the arena makes a "
    "secret random one and shows it once the tournament has ended.",
)
@click.option("--hero", default="", help="The gauntlet's hero (one of the entrants).")
@click.option("--edition", default="", help="Shorthand for --param edition=E (friday13: en, the default, or de).")
@game_param_option
@click.option("--json", "as_json", is_flag=True, help="Print the new tournament as JSON (as `tournament show`).")
@connection_options(Token.OWNER)
def tournament_create(
    name: str,
    game_name: str,
    format_name: str,
    entrants: str,
    table_size: int,
    rounds: int,
    duplicate: bool,
    seatings: int,
    rated: bool,
    seed: str,
    hero: str,
    edition: str,
    param_texts: tuple[str, ...],
    as_json: bool,
    connection: Connection,
) -> None:
    """Create tournament NAME and queue its matches; prints how many."""
    from arena.tournaments import TournamentFormat
    from arena.v1 import arena_service_pb2 as api_pb
    from arena.v1 import messages_pb2 as pb
    from arena.wire.convert import TOURNAMENT_FORMATS  # loaded only here and below, so that the CLI starts fast

    spec = api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game=game_name, params=game_param_texts(param_texts, edition=edition)),
        format=TOURNAMENT_FORMATS[TournamentFormat(format_name)],
        entrants=[entrant.strip() for entrant in entrants.split(",") if entrant.strip()],
        table_size=table_size,
        rounds=rounds,
        duplicate=duplicate,
        seatings=seatings,
        rated=rated,
        seed=seed,
        hero=hero,
    )
    response = call(connection, lambda arena: arena.create_tournament(api_pb.CreateTournamentRequest(spec=spec)))
    if as_json:
        print(json.dumps(info_dict(response.tournament), indent=2))
        return
    print(f"tournament {name}: {counted(response.tournament.total, 'match', 'matches')} queued")


@tournament.command("run")
@click.argument("name")
@connection_options()
def tournament_run(name: str, connection: Connection) -> None:
    """Follow tournament NAME with a progress bar until it ends, then print its standings.

    Exits with 1 and a one-line reason when it ended with matches aborted for good, or was cancelled.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from arena.v1 import arena_service_pb2 as api_pb

    async def follow(arena: ArenaClient) -> Any:
        last: Any = None
        said = ""
        tty = sys.stdout.isatty()
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console(),
            transient=True,
            disable=not tty,
        ) as progress:
            task = progress.add_task(name, total=None)
            async for update in arena.watch_tournament(api_pb.WatchTournamentRequest(name=name)):
                last = update.tournament
                note = waiting_note(info_dict(last))
                progress.update(
                    task,
                    total=last.total,
                    completed=last.done + last.aborted + last.cancelled,
                    description=f"{name} {note}".strip(),
                )
                if note and note != said and not tty:
                    print(f"{name}: {note}", file=sys.stderr, flush=True)
                said = note
        return last

    info = call(connection, follow)
    row = info_dict(info)
    print_tournament(row, info.score_name)
    print_progress(row)
    problem = ended_badly(row)
    if problem:
        print(f"arena: {problem}", file=sys.stderr)
        raise click.exceptions.Exit(1)


@tournament.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the tournament as JSON.")
@connection_options()
def tournament_show(name: str, as_json: bool, connection: Connection) -> None:
    """The standings of tournament NAME so far, what became of its matches and whom it waits for."""
    from arena.v1 import arena_service_pb2 as api_pb

    info = call(connection, lambda arena: arena.get_tournament(api_pb.GetTournamentRequest(name=name))).tournament
    if as_json:
        print(json.dumps(info_dict(info), indent=2))
    else:
        row = info_dict(info)
        print_tournament(row, info.score_name)
        print_progress(row)


@tournament.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@connection_options()
def tournament_list(as_json: bool, connection: Connection) -> None:
    """Tournaments, newest first."""
    from arena.v1 import arena_service_pb2 as api_pb

    listed = call(connection, lambda arena: arena.list_tournaments(api_pb.ListTournamentsRequest())).tournaments
    rows = [info_dict(info) for info in listed]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    view = table(
        "tournaments",
        ("name", "game", "format", "entrants", "done", "state"),
        numbers=("entrants", "done"),
        keep=("name", "done"),
    )
    for row in rows:
        state = row["status_text"] + (f"; waiting for {', '.join(row['waiting_for'])}" if row["waiting_for"] else "")
        view.add_row(
            row["tournament"],
            row["game"],
            row["format"],
            str(len(row["entrants"])),
            f"{row['done']}/{row['total']}",
            state,
        )
    console().print(view)


@tournament.command("cancel")
@click.argument("name")
@connection_options(Token.OWNER)
def tournament_cancel(name: str, connection: Connection) -> None:
    """Cancel tournament NAME: its matches not started yet never start; running ones finish and count."""
    from arena.v1 import arena_service_pb2 as api_pb

    request = api_pb.CancelTournamentRequest(name=name)
    response = call(connection, lambda arena: arena.cancel_tournament(request))
    if response.already_cancelled:
        print(f"tournament {name}: cancelled already")
        return
    print(
        f"tournament {name}: cancelled; {counted(response.cancelled, 'match', 'matches')} will not start, {response.running} still running"
    )


def info_dict(info: Any) -> dict[str, Any]:
    """A TournamentInfo message as the JSON that `show --json` prints (NaN as null)."""
    from arena.tournaments import Progress as TournamentProgress
    from arena.wire.convert import TOURNAMENT_FORMATS, TOURNAMENT_STATUSES

    formats = {number: name for name, number in TOURNAMENT_FORMATS.items()}
    statuses = {number: name for name, number in TOURNAMENT_STATUSES.items()}

    def number(value: float) -> float | None:
        return None if value != value else round(value, 4)

    spec = info.spec
    status = statuses.get(info.status, "running")
    counts = TournamentProgress(
        total=info.total,
        done=info.done,
        due=info.due,
        rerunning=info.rerunning,
        aborted=info.aborted,
        cancelled=info.cancelled,
        cancelled_ms=info.cancelled_ms,
    )
    return {
        "tournament": spec.name,
        "game": spec.game.game,
        "format": formats.get(spec.format, ""),
        "entrants": list(spec.entrants),
        "table_size": spec.table_size,
        "rounds": spec.rounds,
        "duplicate": spec.duplicate,
        "seatings": spec.seatings,
        "rated": spec.rated,
        "seed": spec.seed,
        "seed_commitment": info.seed_commitment,
        "status": status,
        "status_text": counts.describe(),
        "finished": status == "finished",
        "ended": bool(info.finished_ms),
        "done": info.done,
        "due": info.due,
        "rerunning": info.rerunning,
        "aborted": info.aborted,
        "cancelled": info.cancelled,
        "total": info.total,
        "waiting_for": list(info.waiting_for),
        "aborted_matches": [aborted_dict(m) for m in info.aborted_matches],
        "cancelled_ms": info.cancelled_ms,
        "cancelled_by": info.cancelled_by,
        "standings": [
            {
                "bot": row.bot,
                "games": row.games,
                "deals": row.deals,
                "mean_score": number(row.mean_score),
                "ci95": number(row.ci95),
                "wins": row.wins,
                "mean_rank": number(row.mean_rank),
                "mu": number(row.mu),
                "sigma": number(row.sigma),
            }
            for row in info.standings
        ],
        "head_to_head": [
            {
                "first": pair.first,
                "second": pair.second,
                "deals": pair.deals,
                "advantage": number(pair.advantage),
                "ci95": number(pair.ci95),
                "established": pair.established,
            }
            for pair in info.head_to_head
        ],
    }


def aborted_dict(attempt: Any) -> dict[str, Any]:
    """A TournamentAbortedMatch message as JSON."""
    return {
        "number": attempt.number,
        "match_id": attempt.match_id,
        "attempt": attempt.attempt,
        "reason": attempt.reason,
        "rerun": attempt.rerun_match_id,
    }


def waiting_note(row: dict[str, Any]) -> str:
    """Whom a running tournament waits for, and what it re-runs, in a few words ("" for nothing)."""
    notes = []
    if row["waiting_for"]:
        notes.append(f"waiting for {', '.join(row['waiting_for'])} (registered, not connected to any node)")
    if row["rerunning"]:
        notes.append(f"re-running {counted(row['rerunning'], 'aborted match', 'aborted matches')}")
    return "; ".join(notes)


def print_progress(row: dict[str, Any]) -> None:
    """Below the standings: what became of the matches, whom the tournament waits for, every aborted attempt."""
    print(
        f"matches: {row['done']} done, {row['due']} due, {row['rerunning']} re-running, {row['aborted']} aborted, "
        f"{row['cancelled']} cancelled of {row['total']}"
    )
    if row["cancelled_ms"]:
        print(f"cancelled by {row['cancelled_by']}")
    if row["waiting_for"]:
        print(f"waiting for: {', '.join(row['waiting_for'])} (registered, not connected to any node)")
    if row["aborted_matches"]:
        print("aborted:")
    for aborted in row["aborted_matches"]:
        then = f"re-run as {aborted['rerun']}" if aborted["rerun"] else "not re-run"
        print(
            f"  {aborted['match_id']} (match {aborted['number']}, attempt {aborted['attempt']}): "
            f"{aborted['reason'] or 'no reason stored'}; {then}"
        )


def ended_badly(row: dict[str, Any]) -> str:
    """Why a tournament that ended did not simply finish, in one line; "" if it finished."""
    name = row["tournament"]
    if row["status"] == "cancelled":
        return f"tournament {name} was cancelled by {row['cancelled_by']}: {row['done']} of {counted(row['total'], 'match', 'matches')} played"
    if row["status"] == "finished-with-aborts":
        return (
            f"tournament {name} finished with {row['aborted']} of {counted(row['total'], 'match', 'matches')} aborted "
            f"(arena tournament show {name} says why)"
        )
    if row["status"] != "finished":
        return f"tournament {name} is still {row['status_text']}"
    return ""
