"""The `arena` command line."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from arena.bots import BOTS, UnknownBot
from arena.client import register as register_client_commands
from arena.games import GameError, make_game
from arena.match.local import play_series, schedule
from arena.match.runner import MatchResult
from arena.match.seating import describe_design
from arena.standings import Pair, Played, Standing, head_to_head, standings, unsettled

console = Console()


class UsageProblem(Exception):
    """Bad input from the command line: printed as one line, exit code 2."""


def fail(message: str) -> NoReturn:
    raise UsageProblem(message)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="thirteen-arena", prog_name="arena")
def app() -> None:
    """Thirteen Arena: bots play Friday the 13th, 13 and the 13thg board games."""


def game_params(players: int | None, edition: str | None, scenario: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if players is not None:
        params["players"] = players
    if edition is not None:
        params["edition"] = edition
    if scenario is not None:
        params["scenario"] = scenario
    return params


@app.command()
@click.argument("game_name", metavar="GAME")
@click.option(
    "--bots", required=True,
    help="Comma-separated built-in bots in seat order, e.g. mc,heuristic,random; NAME=BOT names a copy, "
    "e.g. h1=heuristic,h2=heuristic.",
)  # fmt: skip
@click.option("--players", type=int, help="Number of players; defaults to the number of bots.")
@click.option("--edition", help="friday13 edition: en (50 cards, the default) or de (53 cards).")
@click.option("--scenario", help="board13 scenario: a shipped name or a TOML file.")
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True, help="Number of matches.")
@click.option("--seed", default="1", show_default=True, help="Seed text; the same seed gives the same deals.")
@click.option(
    "--duplicate", is_flag=True,
    help="Play every deal under the seat-fair design: each bot in every seat and after every other bot equally often.",
)  # fmt: skip
@click.option(
    "--seatings", type=click.IntRange(min=1),
    help="With --duplicate: seatings per deal, a multiple of the players (default: the whole design, 24 for 4).",
)  # fmt: skip
@click.option(
    "--replays", type=click.Path(file_okay=False, path_type=Path), help="Write one replay JSON file per match here."
)
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON.")
def play(
    game_name: str,
    bots: str,
    players: int | None,
    edition: str | None,
    scenario: str | None,
    games: int,
    seed: str,
    duplicate: bool,
    seatings: int | None,
    replays: Path | None,
    as_json: bool,
) -> None:
    """Play matches between built-in bots in this process and print the standings.

    GAME is friday13, amigo13 or board13.
    """
    entries = [entry.strip() for entry in bots.split(",") if entry.strip()]
    policies = dict(entry.partition("=")[::2] if "=" in entry else (entry, entry) for entry in entries)
    names = [entry.partition("=")[0] for entry in entries]
    for name, bot in policies.items():
        if bot not in BOTS:
            raise UnknownBot(f"unknown bot {bot!r}; built-in bots are: {', '.join(BOTS)}")
        if "=" in bot or not name:
            fail(f"--bots entry {name}={bot} must be BOT or NAME=BOT, e.g. h1=heuristic")
    if any(entry.partition("=")[0] in names[:k] and "=" in entry for k, entry in enumerate(entries)):
        fail("--bots gives one NAME to two seats; name each copy differently, e.g. h1=heuristic,h2=heuristic")
    if players is None:
        players = len(names)
    game = make_game(game_name, **game_params(players, edition, scenario))
    if len(names) != game.players:
        fail(f"--bots names {len(names)} bots but {game.name} is set for {game.players} players")
    try:
        pairings = list(schedule(names, games, duplicate=duplicate, seatings=seatings))
    except ValueError as problem:
        fail(str(problem))

    started = time.perf_counter()
    if sys.stdout.isatty() and not as_json:
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=console, transient=True,
        ) as progress:  # fmt: skip
            task = progress.add_task(game.name, total=games)
            results = asyncio.run(
                play_series(game, pairings, seed, replays=replays, on_result=lambda _: progress.advance(task),
                            policy=policies.__getitem__)
            )  # fmt: skip
    else:
        results = asyncio.run(play_series(game, pairings, seed, replays=replays, policy=policies.__getitem__))
    elapsed = time.perf_counter() - started
    played = (Played(r.seats, r.scores, r.ranks, p.deal) for r, p in zip(results, pairings, strict=True))
    table = standings(played, lower_is_better=game.lower_is_better)
    pairs = head_to_head(table, lower_is_better=game.lower_is_better)
    seating = describe_design(len(names), seatings) if duplicate else "the seats in the order given, every match"
    if as_json:
        report = standings_json(game.name, game.params(), results, table, elapsed)
        print(json.dumps({**report, "seating": seating, **pairs_json(table, pairs)}, indent=2))
    else:
        print_standings(game.name, game.score_name, table, len(results), elapsed)
        console.print(f"seating: {seating}" + ("" if duplicate else " (--duplicate seats the bots fairly)"))
        print_head_to_head([row.to_dict() for row in table], [pair.to_dict() for pair in pairs], game.score_name)


@app.command("test")
@click.argument("bot_a", metavar="A")
@click.argument("bot_b", metavar="B")
@click.option("--game", "game_name", required=True, help="friday13, amigo13 or board13.")
@click.option("--players", type=int, help="Players per match (default: the game's); seats beyond A and B hold --field.")
@click.option(
    "--field", "field_bot", help="The bot in the other seats (default: heuristic; builtin:heuristic with --server)."
)
@click.option("--margin", type=float, help="H1: A scores this much better per match than B (default 1, if no Elo).")
@click.option("--elo0", type=float, help="H0 as an Elo difference A - B (instead of --margin).")
@click.option("--elo1", type=float, help="H1 as an Elo difference A - B.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="The chance of accepting H1 when H0 holds.")  # fmt: skip
@click.option("--beta", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="The chance of accepting H0 when H1 holds.")  # fmt: skip
@click.option(
    "--max-deals", type=click.IntRange(min=1), default=2000, show_default=True, help="Stop undecided after this."
)
@click.option("--seatings", type=click.IntRange(min=1), help="Seatings per deal (default: the whole seat-fair design).")
@click.option("--seed", default="abtest", show_default=True, help="Seed text; the same seed gives the same deals.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.option("--server", help="HOST:PORT of an arena: play there, A and B naming its bots (or builtin:BOT).")
@click.option("--token", envvar="ARENA_ADMIN_TOKEN", help="With --server: the admin token (env ARENA_ADMIN_TOKEN).")
@click.option("--parallel", type=click.IntRange(1, 64), default=4, show_default=True,
              help="With --server: matches of a deal played at once.")  # fmt: skip
def ab_test(
    bot_a: str, bot_b: str, game_name: str, players: int | None, field_bot: str, margin: float | None,
    elo0: float | None, elo1: float | None, alpha: float, beta: float, max_deals: int, seatings: int | None,
    seed: str, as_json: bool, server: str | None, token: str | None, parallel: int,
) -> None:  # fmt: skip
    """A/B test: does bot A beat B? Plays seat-fair deals until a sequential test decides.

    Locally A, B and the field are built-in bots; with --server they are the arena's bots
    (registered and connected, or builtin:random|heuristic|mc) and the admin token creates the
    matches. Exits 0 when H1 is accepted (A is better by the margin), 1 when H0 is, 3 when
    --max-deals ran out first.
    """
    from arena.cli.remote_abtest import ServerProblem
    from arena.match.abtest import ABTest, Hypotheses, play_deals
    from arena.match.seating import check_seatings_per_deal

    if field_bot is None:
        field_bot = "builtin:heuristic" if server else "heuristic"
    if server is None:
        for name in (bot_a, bot_b, field_bot):
            if name not in BOTS:
                raise UnknownBot(f"unknown bot {name!r}; built-in bots are: {', '.join(BOTS)}")
    elif not token:
        fail("--server needs the admin token: --token or ARENA_ADMIN_TOKEN (matches are created with it)")
    elif bot_a == bot_b and not bot_a.startswith("builtin:"):
        fail(f"{bot_a} cannot play itself on the server: a bot takes one seat per match")
    game = make_game(game_name, **game_params(players, None, None))
    try:
        if seatings is not None:
            check_seatings_per_deal(game.players, seatings)
        if margin is None and elo0 is None and elo1 is None:
            margin = 1.0
        hypotheses = Hypotheses(margin, elo0, elo1)
    except ValueError as problem:
        fail(str(problem))
    test = ABTest(game, bot_a, bot_b, hypotheses, field_bot, alpha, beta, seatings, seed)
    live = sys.stderr.isatty() and not as_json
    if not as_json:
        console.print(f"{game.name}, {game.players} players: A = {bot_a}, B = {bot_b}"
                      + (f", field {field_bot}" if game.players > 2 else ""))  # fmt: skip
        console.print(f"{hypotheses.describe(game.score_name)}; alpha {alpha:g}, beta {beta:g}; "
                      f"{test.per_deal} seatings per deal")  # fmt: skip

    def progress(running: ABTest) -> None:
        line = sprt_line(running)
        if live:
            print(f"\r{line}\033[K", end="", file=sys.stderr, flush=True)
        elif not as_json and running.sprt.n % 10 == 0:
            print(line, file=sys.stderr, flush=True)

    started = time.perf_counter()
    if server is None:
        asyncio.run(play_deals(test, max_deals, progress))
    else:
        try:
            asyncio.run(play_on_server(test, max_deals, server, token or "", progress, parallel))
        except ServerProblem as problem:
            fail(str(problem))
    elapsed = time.perf_counter() - started
    if live:
        print(file=sys.stderr)
    verdict = test.sprt.verdict
    if as_json:
        print(json.dumps({
            "game": game.name, "players": game.players, "a": bot_a, "b": bot_b, "field": field_bot,
            "seatings_per_deal": test.per_deal, "matches": test.sprt.n * test.per_deal, "seconds": round(elapsed, 3),
            "hypotheses": {"margin": margin, "elo0": elo0, "elo1": elo1}, **test.sprt.to_dict(),
        }, indent=2))  # fmt: skip
    else:
        console.print(sprt_line(test))
        console.print(verdict_text(test, max_deals))
    raise click.exceptions.Exit(0 if verdict == "H1" else 1 if verdict == "H0" else 3)


async def play_on_server(test: Any, max_deals: int, server: str, token: str, progress: Any, parallel: int) -> None:
    import grpc

    from arena.cli.remote_abtest import play_deals_on_server
    from arena.v1 import arena_service_pb2_grpc as api_grpc

    async with grpc.aio.insecure_channel(server) as channel:
        stub = api_grpc.ArenaServiceStub(channel)  # type: ignore[no-untyped-call]
        try:
            await play_deals_on_server(test, max_deals, stub, token, progress, parallel)
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise click.ClickException(f"cannot reach the server at {server}") from None
            raise click.ClickException(str(error.details())) from None


def sprt_line(test: Any) -> str:
    """The progress line: LLR within its bounds, deals and matches, A's running advantage."""
    sprt = test.sprt
    unit = "share vs B" if test.hypotheses.by_elo else f"{test.game.score_name}/match"
    interval = sprt.interval
    shown = "-" if sprt.n == 0 else f"{interval.mean:+.3f}" + (
        "" if interval.half_width != interval.half_width else f" ± {interval.half_width:.3f}"
    )  # fmt: skip
    return (f"LLR {sprt.llr:+.2f} ({sprt.lower:+.2f}, {sprt.upper:+.2f}) · {sprt.n} deals, "
            f"{sprt.n * test.per_deal} matches · A's advantage {shown} {unit}")  # fmt: skip


def verdict_text(test: Any, max_deals: int) -> str:
    verdict = test.sprt.verdict
    if verdict == "H1":
        return f"H1 accepted: A ({test.a}) is better than B ({test.b}) by the margin tested"
    if verdict == "H0":
        return f"H0 accepted: A ({test.a}) is not better than B ({test.b}) by the margin tested"
    return f"no verdict after {max_deals} deals (--max-deals): the difference lies between H0 and H1"


@app.command()
@click.argument("scenario", required=False, metavar="[NAME|FILE]")
def scenarios(scenario: str | None) -> None:
    """The board13 scenarios; with a name or a TOML file, check it and draw its starting board."""
    from arena.games.board13.render import render_text
    from arena.games.board13.rules import Board13Observation
    from arena.games.board13.scenario import load_scenario, scenario_names

    if scenario is None:
        view = Table(title="board13 scenarios (arena play board13 --scenario NAME)")
        view.add_column("name")
        view.add_column("goal")
        view.add_column("description")
        for name in scenario_names():
            shipped = load_scenario(name)
            view.add_row(name, shipped.goal, shipped.description)
        console.print(view)
        return
    loaded = load_scenario(scenario)
    board = make_game("board13", scenario=scenario).new_match(b"show").public_observation()
    assert isinstance(board, Board13Observation)
    print(f"{loaded.name}: {loaded.description}")
    print(render_text(board))


def standings_json(
    game: str, params: dict[str, Any], results: list[MatchResult], table: list[Standing], elapsed: float
) -> dict[str, Any]:
    return {
        "game": game,
        "params": params,
        "matches": len(results),
        "seconds": round(elapsed, 3),
        "standings": [row.to_dict() for row in table],
    }


def pairs_json(table: list[Standing], pairs: list[Pair]) -> dict[str, Any]:
    return {
        "head_to_head": [pair.to_dict() for pair in pairs],
        "unsettled": [[pair.first, pair.second] for pair in unsettled(table, pairs)],
    }


def print_head_to_head(rows: list[dict[str, Any]], pairs: list[dict[str, Any]], score_name: str) -> None:
    """The head-to-head matrix: the row bot's advantage per deal over the column bot on the deals
    both played, with its 95% interval; then the neighbours in the standings whose order is open."""
    bots = [row["bot"] for row in rows if row["games"]]
    if len(bots) < 2:
        return
    by_bots: dict[tuple[str, str], dict[str, Any]] = {}
    for pair in pairs:
        by_bots[(pair["first"], pair["second"])] = pair
        flipped = None if pair["advantage"] is None else -pair["advantage"]
        by_bots[(pair["second"], pair["first"])] = {**pair, "advantage": flipped}
    view = Table(title=f"head to head: the row's advantage in {score_name} per deal, on the deals both played")
    view.add_column("")
    for bot in bots:
        view.add_column(bot, justify="right")
    for first in bots:
        cells = [first]
        for second in bots:
            cell = by_bots.get((first, second))
            if first == second or cell is None or cell["advantage"] is None:
                cells.append("")
                continue
            ci = "" if cell["ci95"] is None else f" ± {cell['ci95']:.2f}"
            style = ("green" if cell["advantage"] > 0 else "red") if cell["established"] else "dim"
            cells.append(f"[{style}]{cell['advantage']:+.2f}{ci}[/]")
        view.add_row(*cells)
    console.print(view)
    order = {bot: place for place, bot in enumerate(bots)}
    for pair in pairs:
        upper, lower = pair["first"], pair["second"]
        if upper in order and lower in order and order[lower] == order[upper] + 1 and not pair["established"]:
            shown = "no shared deals" if pair["advantage"] is None else (
                f"{pair['advantage']:+.2f}" + ("" if pair["ci95"] is None else f" ± {pair['ci95']:.2f}")
                + f" over {pair['deals']} deals"
            )  # fmt: skip
            console.print(
                f"not yet established: {upper} above {lower} ({shown}); more deals may settle it, or show them equal"
            )


def standings_view(title: str, score_name: str) -> Table:
    """An empty standings table: the columns `arena play` and tournaments share."""
    view = Table(title=title)
    view.add_column("#", justify="right")
    view.add_column("bot")
    view.add_column("games", justify="right")
    view.add_column(f"mean {score_name} ± 95% CI", justify="right")
    view.add_column("wins", justify="right")
    view.add_column("mean rank", justify="right")
    return view


def print_standings(game: str, score_name: str, table: list[Standing], matches: int, elapsed: float) -> None:
    view = standings_view(f"{game}: {matches} matches", score_name)
    for place, row in enumerate(table, start=1):
        view.add_row(
            str(place), row.bot, str(row.games), f"{row.mean_score:.2f} ± {row.ci95:.2f}", str(row.wins),
            f"{row.mean_rank:.2f}",
        )  # fmt: skip
    console.print(view)
    console.print(f"{matches} matches in {elapsed:.2f} s ({matches / max(elapsed, 1e-9):.1f} matches/s)")


@app.command()
@click.option(
    "--unsafe-no-sandbox", is_flag=True, envvar="ARENA_UNSAFE_NO_SANDBOX",
    help="Run hosted bots even where their sandbox cannot be made (not root, no bubblewrap, no user namespaces or "
    "cgroups): as plain child processes, for bots you trust.",
)  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=50051, show_default=True, help="Port to listen on.")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("arena-data"),
    show_default=True,
    help="Where the embedded Redis keeps its data (without --redis-url).",
)
@click.option(
    "--redis-url", help="Use this Redis (6.2 or newer), e.g. redis://localhost:6379/0, instead of the embedded one."
)
@click.option(
    "--tls-cert", type=click.Path(dir_okay=False, exists=True, path_type=Path), help="PEM certificate chain for TLS."
)
@click.option(
    "--tls-key", type=click.Path(dir_okay=False, exists=True, path_type=Path), help="PEM private key for TLS."
)
@click.option(
    "--per-move-ms", type=click.IntRange(min=1), default=1000, show_default=True, help="Default time per move."
)
@click.option(
    "--bank-ms", type=click.IntRange(min=0), default=10000, show_default=True, help="Default time bank per match."
)
@click.option(
    "--grace-ms",
    type=click.IntRange(min=0),
    default=10000,
    show_default=True,
    help="How long a bot that lost its stream may take to resume before it forfeits.",
)
@click.option(
    "--ladder-size",
    "ladder_sizes",
    multiple=True,
    metavar="GAME=N",
    help="Seats of a ladder table, e.g. friday13=5 (repeatable; default 4 for the card games, 2 for board13).",
)
@click.option(
    "--http-port", type=click.IntRange(0, 65535), default=8080, show_default=True,
    help="Port of the web UI and its JSON API, on the same --host (0: any free port).",
)  # fmt: skip
def serve(
    unsafe_no_sandbox: bool,
    host: str,
    port: int,
    data_dir: Path,
    redis_url: str | None,
    tls_cert: Path | None,
    tls_key: Path | None,
    per_move_ms: int,
    bank_ms: int,
    grace_ms: int,
    ladder_sizes: tuple[str, ...],
    http_port: int,
) -> None:
    """Run the arena server: bots connect over gRPC, matches run here, state lives in Redis.

    The admin token is read from ARENA_ADMIN_TOKEN or from the file named by ARENA_ADMIN_TOKEN_FILE,
    or made and printed once on first start. A password for --redis-url goes in the URL,
    e.g. redis://:PASSWORD@host:6379/0.
    """
    from arena.app import ConfigError
    from arena.cli.serve import CommandError, run_server
    from arena.match import Clock
    from arena.node.hosted import UNSAFE_ENV

    if unsafe_no_sandbox:
        os.environ[UNSAFE_ENV] = "1"
    try:
        run_server(host, port, data_dir, redis_url, tls_cert, tls_key, Clock(per_move_ms / 1000, bank_ms / 1000),
                   grace_ms / 1000, ladder_sizes, http_port)  # fmt: skip
    except (CommandError, ConfigError) as error:
        raise click.ClickException(str(error)) from None


@app.group()
def match() -> None:
    """Matches on a running arena server."""


@match.command("create")
@click.argument("game_name", metavar="GAME")
@click.option(
    "--seats",
    required=True,
    help="Comma-separated, in seat order: connected bots' names or builtin:random|heuristic|mc.",
)
@click.option("--players", type=int, default=0, help="Number of players; defaults to the number of seats.")
@click.option("--edition", default="", help="friday13 edition: en (the default) or de.")
@click.option("--seed", default="", help="The match seed in hex; random when not given.")
@click.option("--per-move-ms", type=click.IntRange(min=1), help="Time per move (default: the server's).")
@click.option(
    "--bank-ms", type=click.IntRange(min=0), default=10000, show_default=True, help="Time bank, with --per-move-ms."
)
@click.option(
    "--server", default="127.0.0.1:50051", show_default=True, envvar="ARENA_SERVER", help="HOST:PORT of the arena."
)
@click.option("--token", envvar="ARENA_ADMIN_TOKEN", required=True, help="The admin token (env ARENA_ADMIN_TOKEN).")
def match_create(
    game_name: str,
    seats: str,
    players: int,
    edition: str,
    seed: str,
    per_move_ms: int | None,
    bank_ms: int,
    server: str,
    token: str,
) -> None:
    """Start a match between bots connected to the server; prints its id."""
    from arena.cli.serve import CommandError, create_match
    from arena.match import Clock

    names = [name.strip() for name in seats.split(",") if name.strip()]
    clock = Clock(per_move_ms / 1000, bank_ms / 1000) if per_move_ms else None
    try:
        response = create_match(server, token, game_name, names, seed, players, edition, clock)
    except CommandError as error:
        raise click.ClickException(str(error)) from None
    print(response.match_id)


@app.group()
def tournament() -> None:
    """Tournaments on a running arena server; any node of the arena runs their matches."""


SERVER_OPTION = click.option(
    "--server", default="127.0.0.1:50051", show_default=True, envvar="ARENA_SERVER", help="HOST:PORT of the arena."
)


@tournament.command("create")
@click.argument("name")
@click.option("--game", "game_name", required=True, help="friday13, amigo13 or board13.")
@click.option("--format", "format_name", type=click.Choice(["round-robin", "gauntlet", "swiss"]), default="round-robin",
              show_default=True, help="How entrants are seated.")  # fmt: skip
@click.option("--entrants", required=True, help="Comma-separated bot names, or builtin:random|heuristic|mc.")
@click.option("--table-size", "--players", "table_size", type=click.IntRange(min=1), default=4, show_default=True,
              help="Players per match.")  # fmt: skip
@click.option(
    "--rounds", type=click.IntRange(min=1), default=1, show_default=True, help="Repetitions, or Swiss rounds."
)
@click.option(
    "--duplicate", is_flag=True,
    help="Play every deal under the seat-fair design: each bot in every seat and after every other bot equally often.",
)  # fmt: skip
@click.option(
    "--seatings", type=click.IntRange(min=0), default=0,
    help="With --duplicate: seatings per deal, a multiple of the table size (default: the whole design).",
)  # fmt: skip
@click.option("--rated", is_flag=True, help="Results also change the ladder ratings.")
@click.option("--seed", default="1", show_default=True, help="Seed text; the same seed gives the same deals.")
@click.option("--hero", default="", help="The gauntlet's hero (one of the entrants).")
@click.option("--edition", default="", help="friday13 edition: en (the default) or de.")
@SERVER_OPTION
@click.option("--token", envvar=["ARENA_TOKEN", "ARENA_ADMIN_TOKEN"], required=True,
              help="An admin or owner token (env ARENA_TOKEN or ARENA_ADMIN_TOKEN).")  # fmt: skip
def tournament_create(
    name: str, game_name: str, format_name: str, entrants: str, table_size: int, rounds: int, duplicate: bool,
    seatings: int, rated: bool, seed: str, hero: str, edition: str, server: str, token: str,
) -> None:  # fmt: skip
    """Create tournament NAME and queue its matches; prints how many."""
    from arena.server.tournament_rpcs import FORMATS_PB
    from arena.v1 import arena_service_pb2 as api_pb
    from arena.v1 import messages_pb2 as pb

    spec = api_pb.TournamentSpec(
        name=name, game=pb.GameSpec(game=game_name, edition=edition), format=FORMATS_PB[format_name],
        entrants=[entrant.strip() for entrant in entrants.split(",") if entrant.strip()], table_size=table_size,
        rounds=rounds, duplicate=duplicate, seatings=seatings, rated=rated, seed=seed, hero=hero,
    )  # fmt: skip
    response = api_call(server, "CreateTournament", api_pb.CreateTournamentRequest(spec=spec), token)
    print(f"tournament {name}: {response.tournament.total} matches queued")


@tournament.command("run")
@click.argument("name")
@SERVER_OPTION
def tournament_run(name: str, server: str) -> None:
    """Follow tournament NAME with a progress bar until it ends, then print its standings.

    Exits with 1 and a one-line reason when it ended with matches aborted for good, or was cancelled.
    """
    from arena.v1 import arena_service_pb2 as api_pb

    async def follow() -> Any:
        import grpc

        from arena.v1 import arena_service_pb2_grpc as api_grpc

        async with grpc.aio.insecure_channel(server) as channel:
            stub = api_grpc.ArenaServiceStub(channel)  # type: ignore[no-untyped-call]
            last: Any = None
            said = ""
            tty = sys.stdout.isatty()
            with Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                console=console, transient=True, disable=not tty,
            ) as progress:  # fmt: skip
                task = progress.add_task(name, total=None)
                async for update in stub.WatchTournament(api_pb.WatchTournamentRequest(name=name)):
                    last = update.tournament
                    note = waiting_note(info_dict(last))
                    progress.update(task, total=last.total, completed=last.done + last.aborted + last.cancelled,
                                    description=f"{name} {note}".strip())  # fmt: skip
                    if note and note != said and not tty:
                        print(f"{name}: {note}", file=sys.stderr, flush=True)
                    said = note
            return last

    info = run_rpc(server, follow())
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
@SERVER_OPTION
def tournament_show(name: str, as_json: bool, server: str) -> None:
    """The standings of tournament NAME so far, what became of its matches and whom it waits for."""
    from arena.v1 import arena_service_pb2 as api_pb

    info = api_call(server, "GetTournament", api_pb.GetTournamentRequest(name=name)).tournament
    if as_json:
        print(json.dumps(info_dict(info), indent=2))
    else:
        row = info_dict(info)
        print_tournament(row, info.score_name)
        print_progress(row)


@tournament.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@SERVER_OPTION
def tournament_list(as_json: bool, server: str) -> None:
    """Tournaments, newest first."""
    from arena.v1 import arena_service_pb2 as api_pb

    listed = api_call(server, "ListTournaments", api_pb.ListTournamentsRequest()).tournaments
    rows = [info_dict(info) for info in listed]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    view = Table(title="tournaments")
    for column in ("name", "game", "format", "entrants", "done", "state"):
        view.add_column(column)
    for row in rows:
        state = row["status_text"] + (f"; waiting for {', '.join(row['waiting_for'])}" if row["waiting_for"] else "")
        view.add_row(row["tournament"], row["game"], row["format"], str(len(row["entrants"])),
                     f"{row['done']}/{row['total']}", state)  # fmt: skip
    console.print(view)


@tournament.command("cancel")
@click.argument("name")
@SERVER_OPTION
@click.option("--token", envvar=["ARENA_TOKEN", "ARENA_ADMIN_TOKEN"], required=True,
              help="The admin token, or the token of the owner who created it (env ARENA_TOKEN or ARENA_ADMIN_TOKEN).")  # fmt: skip
def tournament_cancel(name: str, server: str, token: str) -> None:
    """Cancel tournament NAME: its matches not started yet never start; running ones finish and count."""
    from arena.v1 import arena_service_pb2 as api_pb

    response = api_call(server, "CancelTournament", api_pb.CancelTournamentRequest(name=name), token)
    if response.already_cancelled:
        print(f"tournament {name}: cancelled already")
        return
    print(f"tournament {name}: cancelled; {response.cancelled} matches will not start, "
          f"{response.running} still running")  # fmt: skip


def info_dict(info: Any) -> dict[str, Any]:
    """A TournamentInfo message as the JSON that `show --json` prints (NaN as null)."""
    from arena.server.tournament_rpcs import FORMATS_PB, STATUSES_PB
    from arena.tournaments import Progress

    formats = {number: name for name, number in FORMATS_PB.items()}
    statuses = {number: name for name, number in STATUSES_PB.items()}

    def number(value: float) -> float | None:
        return None if value != value else round(value, 4)

    spec = info.spec
    status = statuses.get(info.status, "running")
    counts = Progress(total=info.total, done=info.done, due=info.due, rerunning=info.rerunning, aborted=info.aborted,
                      cancelled=info.cancelled, cancelled_ms=info.cancelled_ms)  # fmt: skip
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
    return {"number": attempt.number, "match_id": attempt.match_id, "attempt": attempt.attempt,
            "reason": attempt.reason, "rerun": attempt.rerun_match_id}  # fmt: skip


def waiting_note(row: dict[str, Any]) -> str:
    """Whom a running tournament waits for, and what it re-runs, in a few words ("" for nothing)."""
    notes = []
    if row["waiting_for"]:
        notes.append(f"waiting for {', '.join(row['waiting_for'])} (registered, not connected to any node)")
    if row["rerunning"]:
        notes.append(f"re-running {row['rerunning']} aborted matches")
    return "; ".join(notes)


def print_progress(row: dict[str, Any]) -> None:
    """Below the standings: what became of the matches, whom the tournament waits for, every aborted attempt."""
    print(f"matches: {row['done']} done, {row['due']} due, {row['rerunning']} re-running, {row['aborted']} aborted, "
          f"{row['cancelled']} cancelled of {row['total']}")  # fmt: skip
    if row["cancelled_ms"]:
        print(f"cancelled by {row['cancelled_by']}")
    if row["waiting_for"]:
        print(f"waiting for: {', '.join(row['waiting_for'])} (registered, not connected to any node)")
    if row["aborted_matches"]:
        print("aborted:")
    for aborted in row["aborted_matches"]:
        then = f"re-run as {aborted['rerun']}" if aborted["rerun"] else "not re-run"
        print(f"  {aborted['match_id']} (match {aborted['number']}, attempt {aborted['attempt']}): "
              f"{aborted['reason'] or 'no reason stored'}; {then}")  # fmt: skip


def ended_badly(row: dict[str, Any]) -> str:
    """Why a tournament that ended did not simply finish, in one line; "" if it finished."""
    name = row["tournament"]
    if row["status"] == "cancelled":
        return (
            f"tournament {name} was cancelled by {row['cancelled_by']}: {row['done']} of {row['total']} matches played"
        )
    if row["status"] == "finished-with-aborts":
        return (f"tournament {name} finished with {row['aborted']} of {row['total']} matches aborted "
                f"(arena tournament show {name} says why)")  # fmt: skip
    if row["status"] != "finished":
        return f"tournament {name} is still {row['status_text']}"
    return ""


def api_call(server: str, method: str, request: Any, token: str = "") -> Any:
    """One ArenaService call; a one-line ClickException when it fails."""

    async def call() -> Any:
        import grpc

        from arena.v1 import arena_service_pb2_grpc as api_grpc

        async with grpc.aio.insecure_channel(server) as channel:
            stub = api_grpc.ArenaServiceStub(channel)  # type: ignore[no-untyped-call]
            metadata = (("authorization", f"Bearer {token}"),) if token else ()
            return await getattr(stub, method)(request, metadata=metadata, timeout=30)

    return run_rpc(server, call())


def run_rpc(server: str, call: Any) -> Any:
    import grpc

    try:
        return asyncio.run(call)
    except grpc.aio.AioRpcError as error:
        if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise click.ClickException(f"cannot reach the server at {server}") from None
        raise click.ClickException(str(error.details())) from None


@app.command()
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the demo's data (embedded Redis) here; a temporary directory by default.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=50051, show_default=True, help="Port to serve on.")
@click.option("--quick", is_flag=True, help="Short tournaments (a few seconds), for a first look and for tests.")
@click.option("--stay", is_flag=True, help="Keep serving after the tournaments, until Ctrl-C.")
@click.option(
    "--http-port", type=click.IntRange(0, 65535), default=8080, show_default=True,
    help="Port of the web UI (0: any free port).",
)  # fmt: skip
def demo(data_dir: Path | None, port: int, quick: bool, stay: bool, http_port: int) -> None:
    """The whole arena in one command: a server, the sample bots, rated tournaments, the leaderboards.

    Starts a server on the embedded Redis, registers the sample bots (Python random, heuristic and
    Monte Carlo, and the Node bot when node and npm are installed), starts them as gRPC client
    processes on the ladder, runs a rated round-robin tournament of friday13 and one of amigo13,
    and prints their tables and the leaderboards.
    """
    from arena.cli.demo import run_demo

    try:
        asyncio.run(run_demo(data_dir, port, quick, stay, console, http_port, print_tournament))
    except KeyboardInterrupt:
        console.print("demo: stopped")
    except (OSError, RuntimeError, TimeoutError) as problem:
        raise click.ClickException(str(problem)) from None


def print_tournament(table: dict[str, Any], score_name: str = "penalty") -> None:
    """A tournament's standings as a table; `table` is `TournamentTable.to_dict()`."""
    title = f"{table['tournament']}: {table['game']} {table['format']}, {table['done']}/{table['total']} matches"
    if "status_text" in table:
        title += f", {table['status_text']}"
    view = standings_view(title, score_name)
    view.add_column("TrueSkill mu ± sigma", justify="right")
    for place, row in enumerate(table["standings"], start=1):
        mean, ci = row["mean_score"], row["ci95"]
        score = "-" if mean is None else f"{mean:.2f}" + ("" if ci is None else f" ± {ci:.2f}")
        rank = "-" if row["mean_rank"] is None else f"{row['mean_rank']:.2f}"
        skill = f"{row['mu']:.1f} ± {row['sigma']:.1f}" if row.get("mu") is not None else "-"
        view.add_row(str(place), row["bot"], str(row["games"]), score, str(row["wins"]), rank, skill)
    console.print(view)
    print_head_to_head(table["standings"], table.get("head_to_head", []), score_name)


register_client_commands(app, match)


def main() -> None:
    """Entry point: one-line errors with exit code 2 for bad input, as scripts expect."""
    try:
        code = app.main(standalone_mode=False, prog_name="arena")
        sys.exit(code if isinstance(code, int) else 0)
    except click.exceptions.Abort:
        print("arena: aborted", file=sys.stderr)
        sys.exit(130)
    except click.exceptions.NoArgsIsHelpError as help_page:
        print(help_page.format_message())
        sys.exit(0)
    except click.ClickException as problem:
        print(f"arena: error: {problem.format_message()}", file=sys.stderr)
        sys.exit(2)
    except (UsageProblem, GameError, UnknownBot) as problem:
        print(f"arena: error: {problem}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
