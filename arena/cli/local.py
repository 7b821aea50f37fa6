"""Commands that play in this process, without a server: `arena play`, `arena test` (or on an arena
with --server) and `arena scenarios`."""

from __future__ import annotations

import json
import secrets
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli.options import (
    ADMIN_TOKEN_ENV,
    TOKEN_ENV,
    EnvOption,
    Token,
    call,
    fail,
    game_param_option,
    game_param_texts,
    print_json,
)
from arena.cli.output import console, counted, print_head_to_head, print_standings, table

if TYPE_CHECKING:
    from arena.match.abtest import ABTest
    from arena.match.local import PlayedMatch
    from arena.standings import Pair, Standing


def game_params(game_name: str, players: int | None, texts: dict[str, str]) -> dict[str, Any]:
    """Keyword arguments for `make_game`: the players and the game's own parameters, parsed by its kit."""
    from arena.games import kit_of

    params: dict[str, Any] = kit_of(game_name).params_from_text(texts)
    if players is not None:
        params["players"] = players
    return params


@click.command()
@click.argument("game_name", metavar="GAME")
@click.option(
    "--bots",
    required=True,
    help="Comma-separated built-in bots in seat order, e.g. mc,heuristic,random; NAME=BOT names a copy, "
    "e.g. h1=heuristic,h2=heuristic.",
)
@click.option("--players", type=int, help="Number of players; defaults to the number of bots.")
@click.option("--edition", help="Shorthand for --param edition=E (friday13: en, 50 cards, or de, 53 cards).")
@click.option("--scenario", help="Shorthand for --param scenario=S (board13: a shipped name or a TOML file).")
@game_param_option
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True, help="Number of matches.")
@click.option("--seed", default="1", show_default=True, help="Seed text; the same seed gives the same deals.")
@click.option(
    "--duplicate",
    is_flag=True,
    help="Play every deal under the seat-fair design: each bot in every seat and after every other bot equally often.",
)
@click.option(
    "--seatings",
    type=click.IntRange(min=1),
    help="With --duplicate: seatings per deal, a multiple of the players (default: the whole design, 24 for 4).",
)
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
    param_texts: tuple[str, ...],
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
    from arena.bots import BOTS, UnknownBot
    from arena.games import make_game
    from arena.match.local import play_matches, schedule
    from arena.match.seating import describe_design
    from arena.standings import Played, head_to_head, standings

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
    game = make_game(
        game_name, **game_params(game_name, players, game_param_texts(param_texts, edition=edition, scenario=scenario))
    )
    if len(names) != game.players:
        fail(f"--bots names {counted(len(names), 'bot')} but {game.name} is set for {game.players} players")
    try:
        pairings = list(schedule(names, games, duplicate=duplicate, seatings=seatings))
    except ValueError as problem:
        fail(str(problem))

    started = time.perf_counter()
    if sys.stdout.isatty() and not as_json:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console(),
            transient=True,
        ) as progress:
            task = progress.add_task(game.name, total=games)
            results = play_matches(
                game,
                pairings,
                seed,
                replays=replays,
                on_result=lambda _: progress.advance(task),
                policy=policies.__getitem__,
            )
    else:
        results = play_matches(game, pairings, seed, replays=replays, policy=policies.__getitem__)
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
        console().print(f"seating: {seating}" + ("" if duplicate else " (--duplicate seats the bots fairly)"))
        print_head_to_head([row.to_dict() for row in table], [pair.to_dict() for pair in pairs], game.score_name)


@click.command("test")
@click.argument("bot_a", metavar="A")
@click.argument("bot_b", metavar="B")
@click.option("--game", "game_name", required=True, help="The game (`arena games` lists them).")
@click.option("--players", type=int, help="Players per match (default: the game's); seats beyond A and B hold --field.")
@game_param_option
@click.option(
    "--field", "field_bot", help="The bot in the other seats (default: heuristic; builtin:heuristic with --server)."
)
@click.option("--margin", type=float, help="H1: A scores this much better per match than B (default 1, if no Elo).")
@click.option("--elo0", type=float, help="H0 as an Elo difference A - B (instead of --margin).")
@click.option("--elo1", type=float, help="H1 as an Elo difference A - B.")
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="The chance of accepting H1 when H0 holds.",
)
@click.option(
    "--beta",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="The chance of accepting H0 when H1 holds.",
)
@click.option(
    "--max-deals", type=click.IntRange(min=1), default=2000, show_default=True, help="Stop undecided after this."
)
@click.option("--seatings", type=click.IntRange(min=1), help="Seatings per deal (default: the whole seat-fair design).")
@click.option(
    "--seed",
    help="Seed text; the same seed gives the same deals. Default: 'abtest' here; with --server a random one, "
    "so that no bot at the tables can know the deals.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.option("--server", help="HOST:PORT of an arena: play there, A and B naming its bots (or builtin:BOT).")
@click.option(
    "--token",
    cls=EnvOption,
    envvar=Token.ADMIN.envvars,
    help=f"With --server: the admin token (env {ADMIN_TOKEN_ENV} or {TOKEN_ENV}).",
)
@click.option("--tls", is_flag=True, help="With --server: speak TLS, trusting the system's certificate authorities.")
@click.option(
    "--ca-cert",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="With --server: speak TLS, trusting the certificates in this PEM file.",
)
@click.option(
    "--parallel",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="With --server: matches of a deal played at once.",
)
def ab_test(
    bot_a: str,
    bot_b: str,
    game_name: str,
    players: int | None,
    param_texts: tuple[str, ...],
    field_bot: str,
    margin: float | None,
    elo0: float | None,
    elo1: float | None,
    alpha: float,
    beta: float,
    max_deals: int,
    seatings: int | None,
    seed: str | None,
    as_json: bool,
    server: str | None,
    token: str | None,
    tls: bool,
    ca_cert: Path | None,
    parallel: int,
) -> None:
    """A/B test: does bot A beat B? Plays seat-fair deals until a sequential test decides.

    Locally A, B and the field are built-in bots; with --server they are the arena's bots
    (registered and connected, or builtin:random|heuristic|mc) and the admin token creates the
    matches. Exits 0 when H1 is accepted (A is better by the margin), 1 when H0 is, 3 when
    --max-deals ran out first.
    """
    import asyncio

    from arena.bots import BOTS, UnknownBot
    from arena.cli.remote_abtest import ServerProblem, play_deals_on_server
    from arena.client import Connection
    from arena.games import make_game
    from arena.match.abtest import ABTest, Hypotheses, play_deals
    from arena.match.seating import check_seatings_per_deal

    if field_bot is None:
        field_bot = "builtin:heuristic" if server else "heuristic"
    if seed is None:
        seed = secrets.token_hex(16) if server else "abtest"
    if server is None:
        for name in (bot_a, bot_b, field_bot):
            if name not in BOTS:
                raise UnknownBot(f"unknown bot {name!r}; built-in bots are: {', '.join(BOTS)}")
    elif not token:
        fail(f"--server needs the admin token: --token, {ADMIN_TOKEN_ENV} or {TOKEN_ENV} (matches are created with it)")
    elif bot_a == bot_b and not bot_a.startswith("builtin:"):
        fail(f"{bot_a} cannot play itself on the server: a bot takes one seat per match")
    game = make_game(game_name, **game_params(game_name, players, game_param_texts(param_texts)))
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
        console().print(
            f"{game.name}, {game.players} players: A = {bot_a}, B = {bot_b}"
            + (f", field {field_bot}" if game.players > 2 else "")
        )
        console().print(
            f"{hypotheses.describe(game.score_name)}; alpha {alpha:g}, beta {beta:g}; {test.per_deal} seatings per deal"
        )

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
        connection = Connection(server, token or "", tls, ca_cert)
        try:
            call(connection, lambda arena: play_deals_on_server(test, max_deals, arena, progress, parallel))
        except ServerProblem as problem:
            fail(str(problem))
    elapsed = time.perf_counter() - started
    if live:
        print(file=sys.stderr)
    verdict = test.sprt.verdict
    if as_json:
        print(
            json.dumps(
                {
                    "game": game.name,
                    "players": game.players,
                    "a": bot_a,
                    "b": bot_b,
                    "field": field_bot,
                    "seatings_per_deal": test.per_deal,
                    "matches": test.sprt.n * test.per_deal,
                    "seconds": round(elapsed, 3),
                    "hypotheses": {"margin": margin, "elo0": elo0, "elo1": elo1},
                    **test.sprt.to_dict(),
                },
                indent=2,
            )
        )
    else:
        console().print(sprt_line(test))
        console().print(verdict_text(test, max_deals))
    raise click.exceptions.Exit(0 if verdict == "H1" else 1 if verdict == "H0" else 3)


def sprt_line(test: Any) -> str:
    """The progress line: LLR within its bounds, deals and matches, A's running advantage."""
    sprt = test.sprt
    unit = "share vs B" if test.hypotheses.by_elo else f"{test.game.score_name}/match"
    interval = sprt.interval
    shown = (
        "-"
        if sprt.n == 0
        else f"{interval.mean:+.3f}"
        + ("" if interval.half_width != interval.half_width else f" ± {interval.half_width:.3f}")
    )
    return (
        f"LLR {sprt.llr:+.2f} ({sprt.lower:+.2f}, {sprt.upper:+.2f}) · {counted(sprt.n, 'deal')}, "
        f"{counted(sprt.n * test.per_deal, 'match', 'matches')} · A's advantage {shown} {unit}"
    )


def verdict_text(test: Any, max_deals: int) -> str:
    verdict = test.sprt.verdict
    if verdict == "H1":
        return f"H1 accepted: A ({test.a}) is better than B ({test.b}) by the margin tested"
    if verdict == "H0":
        return f"H0 accepted: A ({test.a}) is not better than B ({test.b}) by the margin tested"
    return f"no verdict after {max_deals} deals (--max-deals): the difference lies between H0 and H1"


@click.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print the games and their parameters as JSON.")
def games_command(as_json: bool) -> None:
    """The games, their numbers of players and the parameters each declares (for --param)."""
    from arena.games import game_names, kit_of, make_game

    rows: list[dict[str, Any]] = []
    for name in game_names():
        game = make_game(name)
        parameters = [
            {"name": p.name, "default": p.default, "choices": list(p.choices), "help": p.help}
            for p in kit_of(name).parameters
        ]
        rows.append({"game": name, "players": [game.min_players, game.max_players], "parameters": parameters})
    if as_json:
        print_json(rows)
        return
    view = table(
        "games (--param NAME=VALUE sets a parameter)",
        ("game", "players", "parameter", "default", "values", "meaning"),
        keep=("game", "parameter"),
    )
    for row in rows:
        low, high = row["players"]
        players = f"{low}-{high}" if low != high else str(low)
        declared: list[dict[str, Any] | None] = [*row["parameters"]] or [None]
        for number, parameter in enumerate(declared):
            cells = [row["game"], players] if number == 0 else ["", ""]
            if parameter is None:
                view.add_row(*cells, "-", "", "", "")
            else:
                choices = ", ".join(parameter["choices"]) or "any"
                view.add_row(*cells, parameter["name"], str(parameter["default"]), choices, parameter["help"])
    console().print(view)


@click.command()
@click.argument("scenario", required=False, metavar="[NAME|FILE]")
def scenarios(scenario: str | None) -> None:
    """The board13 scenarios; with a name or a TOML file, check it and draw its starting board."""
    from arena.games import make_game
    from arena.games.board13.render import render_text
    from arena.games.board13.rules import Board13Observation
    from arena.games.board13.scenario import load_scenario, scenario_names

    if scenario is None:
        view = table(
            "board13 scenarios (arena play board13 --scenario NAME)", ("name", "goal", "description"), keep=("name",)
        )
        for name in scenario_names():
            shipped = load_scenario(name)
            view.add_row(name, shipped.goal, shipped.description)
        console().print(view)
        return
    loaded = load_scenario(scenario)
    board = make_game("board13", scenario=scenario).new_match(b"show").public_observation()
    assert isinstance(board, Board13Observation)
    print(f"{loaded.name}: {loaded.description}")
    print(render_text(board))


def standings_json(
    game: str, params: dict[str, Any], results: list[PlayedMatch], table: list[Standing], elapsed: float
) -> dict[str, Any]:
    return {
        "game": game,
        "params": params,
        "matches": len(results),
        "seconds": round(elapsed, 3),
        "standings": [row.to_dict() for row in table],
    }


def pairs_json(table: list[Standing], pairs: list[Pair]) -> dict[str, Any]:
    from arena.standings import unsettled

    return {
        "head_to_head": [pair.to_dict() for pair in pairs],
        "unsettled": [[pair.first, pair.second] for pair in unsettled(table, pairs)],
    }
