"""The tables people read: standings, head to head and tournaments, shared by local play and the arena."""

from __future__ import annotations

import datetime
import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from arena.standings import Standing


@functools.cache
def console() -> Console:
    """The terminal the tables and progress bars go to, made on first use: loading rich takes
    about as long as the rest of `arena --help`."""
    from rich.console import Console

    return Console()


def counted(number: int, thing: str, plural: str = "") -> str:
    """ "1 match", "2 matches": a count with its noun in the right number."""
    return f"{number} {thing if number == 1 else plural or thing + 's'}"


def when(ms: int) -> str:
    """A stored time in milliseconds as UTC text; "-" for none."""
    if not ms:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")


def print_head_to_head(rows: list[dict[str, Any]], pairs: list[dict[str, Any]], score_name: str) -> None:
    """The head-to-head matrix: the row bot's advantage per deal over the column bot on the deals
    both played, with its 95% interval; then the neighbours in the standings whose order is open."""
    from rich.table import Table

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
    console().print(view)
    order = {bot: place for place, bot in enumerate(bots)}
    for pair in pairs:
        upper, lower = pair["first"], pair["second"]
        if upper in order and lower in order and order[lower] == order[upper] + 1 and not pair["established"]:
            shown = (
                "no shared deals"
                if pair["advantage"] is None
                else (
                    f"{pair['advantage']:+.2f}"
                    + ("" if pair["ci95"] is None else f" ± {pair['ci95']:.2f}")
                    + f" over {pair['deals']} deals"
                )
            )
            console().print(
                f"not yet established: {upper} above {lower} ({shown}); more deals may settle it, or show them equal"
            )


def standings_view(title: str, score_name: str) -> Table:
    """An empty standings table: the columns `arena play` and tournaments share."""
    from rich.table import Table

    view = Table(title=title)
    view.add_column("#", justify="right")
    view.add_column("bot")
    view.add_column("games", justify="right")
    view.add_column(f"mean {score_name} ± 95% CI", justify="right")
    view.add_column("wins", justify="right")
    view.add_column("mean rank", justify="right")
    return view


def print_standings(game: str, score_name: str, table: list[Standing], matches: int, elapsed: float) -> None:
    view = standings_view(f"{game}: {counted(matches, 'match', 'matches')}", score_name)
    for place, row in enumerate(table, start=1):
        view.add_row(
            str(place),
            row.bot,
            str(row.games),
            f"{row.mean_score:.2f} ± {row.ci95:.2f}",
            str(row.wins),
            f"{row.mean_rank:.2f}",
        )
    console().print(view)
    console().print(
        f"{counted(matches, 'match', 'matches')} in {elapsed:.2f} s ({matches / max(elapsed, 1e-9):.1f} matches/s)"
    )


def print_tournament(table: dict[str, Any], score_name: str = "penalty") -> None:
    """A tournament's standings as a table; `table` is `TournamentTable.to_dict()`."""
    title = f"{table['tournament']}: {table['game']} {table['format']}, {table['done']}/{counted(table['total'], 'match', 'matches')}"
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
    console().print(view)
    print_head_to_head(table["standings"], table.get("head_to_head", []), score_name)
