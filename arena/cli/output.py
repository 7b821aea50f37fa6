"""The tables people read: standings, head to head and tournaments, shared by local play and the arena."""

from __future__ import annotations

import datetime
import functools
import math
from collections.abc import Collection, Sequence
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


SHAPES = {"day": "%Y-%m-%d", "minute": "%Y-%m-%d %H:%M", "second": "%Y-%m-%d %H:%M:%S"}


def when(ms: int, to: str = "minute") -> str:
    """A stored time in milliseconds as UTC text, to the day, minute (tables: one line, 16
    characters) or second; "-" for none."""
    if not ms:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime(SHAPES[to])


def table(title: str, columns: Sequence[str], *, numbers: Collection[str] = (), keep: Collection[str] = ()) -> Table:
    """An empty table in the CLI's one style: a rule under the header and no boxes (two spaces between
    columns, none at the edges), the title on the left, `numbers` right-aligned, and `keep` (bot names,
    times) never wrapped. Nothing in it is ever cut (`fitted_table`): the other columns wrap between
    words to fit the terminal, and a table that cannot fit so prints each row as a record instead."""
    from rich import box

    # At least as wide as its title, so that the title is not folded over two lines.
    view = fitted_table()(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
        min_width=min(len(title), console().width),
    )
    for column in columns:
        # A header is never cut: its width is the least its column gets.
        view.add_column(
            column,
            justify="right" if column in numbers else "left",
            no_wrap=column in keep,
            min_width=len(column),
            overflow="fold",
        )
    return view


@functools.cache
def fitted_table() -> type[Table]:
    """rich's Table, laid out so that nothing is cut: made on first use, as rich is loaded then.

    rich fits a wide table to the terminal by cutting cells short ("javascr…") and, when that is not
    enough, dropping whole columns. This one shrinks only the columns that may wrap, widest first and
    never below their longest word (or a kept column's whole cell), so every word stays whole; a table
    whose least width is still wider than the terminal prints as records, a "column  value" line each.
    """
    from rich.console import ConsoleOptions, Group, RenderResult
    from rich.table import Table

    class FittedTable(Table):
        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            for column in self.columns:
                column.width = None  # laid out afresh for every width it is drawn at
            widths = self.fitted_widths(console, options)
            if widths is None:
                yield self.records()
                return
            for column, width in zip(self.columns, widths, strict=True):
                column.width = width - self._get_padding_width(column._index)
            try:
                yield from super().__rich_console__(console, options)
            finally:
                for column in self.columns:
                    column.width = None

        def fitted_widths(self, console: Console, options: ConsoleOptions) -> list[int] | None:
            """Each column's width with its padding, within `options.max_width`; None if the words do not fit."""
            room = options.max_width - self._extra_width
            measured = [self._measure_column(console, options.update_width(10**6), column) for column in self.columns]
            widths = [measure.maximum for measure in measured]
            least = [
                measure.maximum if column.no_wrap else measure.minimum
                for measure, column in zip(measured, self.columns, strict=True)
            ]
            if sum(least) > room:
                return None
            while sum(widths) > room:
                widest = max((i for i in range(len(widths)) if widths[i] > least[i]), key=lambda i: widths[i])
                widths[widest] -= 1
            return widths

        def records(self) -> Group:
            """The rows as records: the title, then per row a "column  value" line per column, a blank line between."""
            form = Table.grid(padding=(0, 2))
            form.add_column(no_wrap=True)
            form.add_column(overflow="fold")
            rows = list(zip(*(column.cells for column in self.columns), strict=True))
            for number, row in enumerate(rows):
                if number:
                    form.add_row("", "")
                for column, cell in zip(self.columns, row, strict=True):
                    form.add_row(str(column.header), cell)
            return Group(self.title or "", form) if self.title else Group(form)

    return FittedTable


def print_head_to_head(rows: list[dict[str, Any]], pairs: list[dict[str, Any]], score_name: str) -> None:
    """The head-to-head matrix: the row bot's advantage in score per deal over the column bot on the
    deals both played, with its 95% interval; a list of pairs instead when the matrix would not fit
    the terminal; then the neighbours in the standings whose order is open."""
    bots = [row["bot"] for row in rows if row["games"]]
    if len(bots) < 2:
        return
    by_bots: dict[tuple[str, str], dict[str, Any]] = {}
    for pair in pairs:
        by_bots[(pair["first"], pair["second"])] = pair
        flipped = None if pair["advantage"] is None else -pair["advantage"]
        by_bots[(pair["second"], pair["first"])] = {**pair, "advantage": flipped}

    def shown(cell: dict[str, Any] | None) -> str:
        if cell is None or cell["advantage"] is None:
            return ""
        ci = "" if cell["ci95"] is None else f" ± {cell['ci95']:.2f}"
        style = ("green" if cell["advantage"] > 0 else "red") if cell["established"] else "dim"
        return f"[{style}]{cell['advantage']:+.2f}{ci}[/]"

    title = f"head to head: the row's advantage in {score_name} per deal, on the deals both played"
    longest = max(len(bot) for bot in bots)
    # "+18.00 ± 38.24" is 14 wide; a column is as wide as its longest bot name or that, plus 2 between.
    matrix_width = longest + sum(max(len(bot), 14) + 2 for bot in bots)
    if matrix_width <= console().width:
        view = table(title, ["", *bots], numbers=bots, keep=["", *bots])
        for first in bots:
            view.add_row(first, *("" if first == second else shown(by_bots.get((first, second))) for second in bots))
    else:
        view = table(
            title, ["bot", "against", "advantage", "deals"], numbers=["advantage", "deals"], keep=["bot", "against"]
        )
        for place, first in enumerate(bots):
            for second in bots[place + 1 :]:
                cell = by_bots.get((first, second))
                view.add_row(first, second, shown(cell), str(cell["deals"]) if cell else "0")
    console().print(view)
    order = {bot: place for place, bot in enumerate(bots)}
    for pair in pairs:
        upper, lower = pair["first"], pair["second"]
        if upper in order and lower in order and order[lower] == order[upper] + 1 and not pair["established"]:
            shown_pair = (
                "no shared deals"
                if pair["advantage"] is None
                else (
                    f"{pair['advantage']:+.2f}"
                    + ("" if pair["ci95"] is None else f" ± {pair['ci95']:.2f}")
                    + f" over {counted(pair['deals'], 'deal')}"
                )
            )
            console().print(
                f"not yet established: {upper} above {lower} ({shown_pair}); more deals may settle it, or show them equal"
            )


def standings_view(title: str, score_name: str) -> Table:
    """An empty standings table: the columns `arena play` and tournaments share."""
    return table(
        f"{title} (mean {score_name} ± 95% CI)",
        ["#", "bot", "games", f"mean {score_name}", "wins", "mean rank"],
        numbers=["#", "games", f"mean {score_name}", "wins", "mean rank"],
        keep=["bot", f"mean {score_name}"],
    )


def print_standings(game: str, score_name: str, table: list[Standing], matches: int, elapsed: float) -> None:
    view = standings_view(f"{game}: {counted(matches, 'match', 'matches')}", score_name)
    for place, row in enumerate(table, start=1):
        view.add_row(
            str(place),
            row.bot,
            str(row.games),
            f"{row.mean_score:.2f}" + ("" if math.isnan(row.ci95) else f" ± {row.ci95:.2f}"),
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
    view.add_column("TrueSkill", justify="right", no_wrap=True)
    for place, row in enumerate(table["standings"], start=1):
        mean, ci = row["mean_score"], row["ci95"]
        score = "-" if mean is None else f"{mean:.2f}" + ("" if ci is None else f" ± {ci:.2f}")
        rank = "-" if row["mean_rank"] is None else f"{row['mean_rank']:.2f}"
        skill = f"{row['mu']:.1f} ± {row['sigma']:.1f}" if row.get("mu") is not None else "-"
        view.add_row(str(place), row["bot"], str(row["games"]), score, str(row["wins"]), rank, skill)
    console().print(view)
    print_head_to_head(table["standings"], table.get("head_to_head", []), score_name)
