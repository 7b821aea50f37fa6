"""The `arena` command: local play and A/B tests, the server, and people's commands against one.

One module per command group: local (play, test, scenarios), serve (serve, demo), owner, bot,
challenge, match, tournament, ratings (leaderboard, ratings, queue). The ones that call an arena share the
options of `arena.cli.options` and the one client of `arena.client`.
"""

from __future__ import annotations

import os
import sys

import click
from click.core import ParameterSource

from arena.cli.bot import bot
from arena.cli.challenge import challenge
from arena.cli.local import ab_test, games_command, play, scenarios
from arena.cli.match import match
from arena.cli.options import UsageProblem
from arena.cli.owner import owner
from arena.cli.ratings import leaderboard, queue, ratings
from arena.cli.serve import demo, serve
from arena.cli.tournament import tournament

__all__ = ["app", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="thirteen-arena", prog_name="arena")
def app() -> None:
    """Thirteen Arena: bots play Friday the 13th, 13 and the 13thg board games."""


for command in (
    play,
    ab_test,
    games_command,
    scenarios,
    serve,
    demo,
    owner,
    bot,
    challenge,
    match,
    tournament,
    leaderboard,
    ratings,
    queue,
):
    app.add_command(command)


def bad_parameter_message(problem: click.BadParameter) -> str:
    """Click's message, or, when the bad value came from an environment variable (an `EnvOption`
    records that), one naming the variable and its value, since the command line shows neither."""
    parameter, context = problem.param, problem.ctx
    if parameter is None or context is None or parameter.name is None:
        return problem.format_message()
    if context.get_parameter_source(parameter.name) is not ParameterSource.ENVIRONMENT:
        return problem.format_message()
    names = [parameter.envvar] if isinstance(parameter.envvar, str) else list(parameter.envvar or ())
    name = next((name for name in names if os.environ.get(name)), " or ".join(names))
    return (
        f"{name}={os.environ.get(name, '')}: {problem.message} (the value of {parameter.opts[0]}; fix or unset {name})"
    )


ONE_LINE_PROBLEMS = (("arena.bots", "UnknownBot"), ("arena.client", "ArenaError"), ("arena.games", "GameError"))
"""The errors of bad input besides Click's and UsageProblem: a bad bot, call to an arena, or game."""


def one_line_problems() -> tuple[type[Exception], ...]:
    """The errors of bad input besides Click's: a bad game, bot or call to an arena.

    Taken from the modules loaded already, not imported: one that is not loaded raised nothing, and
    importing the games and bots only to tell so would cost a failed call a fifth of a second.
    """
    loaded = [sys.modules.get(module) for module, _ in ONE_LINE_PROBLEMS]
    found = [getattr(module, name) for module, (_, name) in zip(loaded, ONE_LINE_PROBLEMS, strict=True) if module]
    return (UsageProblem, *found)


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
    except click.BadParameter as problem:
        print(f"arena: error: {bad_parameter_message(problem)}", file=sys.stderr)
        sys.exit(2)
    except click.ClickException as problem:
        print(f"arena: error: {problem.format_message()}", file=sys.stderr)
        sys.exit(2)
    except Exception as problem:
        if not isinstance(problem, one_line_problems()):
            raise
        print(f"arena: error: {problem}", file=sys.stderr)
        sys.exit(2)
