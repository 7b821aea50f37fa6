"""What every command group shares: the connection options, --json, and one-line usage errors.

Every command that calls an arena takes the same --server, --token, --tls and --ca-cert (README,
"Environment variables"). A command that needs the admin token reads ARENA_ADMIN_TOKEN before
ARENA_TOKEN; every other command reads ARENA_TOKEN before ARENA_ADMIN_TOKEN.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click
from click.core import ParameterSource

from arena.wire.address import DEFAULT_SERVER

if TYPE_CHECKING:
    from google.protobuf.message import Message

    from arena.client import ArenaClient, Connection

Result = TypeVar("Result")
Command = Callable[..., Any]

SERVER_ENV = "ARENA_SERVER"
TOKEN_ENV = "ARENA_TOKEN"
ADMIN_TOKEN_ENV = "ARENA_ADMIN_TOKEN"
TLS_ENV = "ARENA_TLS"
CA_CERT_ENV = "ARENA_CA_CERT"


HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


class FiniteRange(click.FloatRange):
    """A FloatRange that also refuses nan (which compares false with both bounds, so FloatRange lets it by)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail(f"{value!r} is not a number in the range {self._describe_range()}.", param, ctx)
        return number


# Every number the commands take has both bounds (tests/cli/test_numbers.py walks them): a value out
# of range is one line and exit code 2, never a traceback from the wire (uint32 fields) or a run
# that fills the memory. The bounds are far beyond any sensible use.
MOVE_MS = click.IntRange(1, HOUR_MS)
"""Milliseconds a move may take: at most an hour."""
BANK_MS = click.IntRange(0, DAY_MS)
"""Milliseconds of a match's time bank: at most a day."""
MOST_SEATS = 100
"""More seats than any game has (the card games seat at most 6): the game's own check names its range."""
MOST_MATCHES = 100_000
"""A tournament's most matches (arena.tournaments.spec.MAX_MATCHES, not imported: it loads every game)."""
MOST_SEATINGS = 5040
"""Seatings per deal: every order of 7 players, more than the seat-fair designs of any game's table."""


class UsageProblem(Exception):
    """Bad input from the command line: printed as one line, exit code 2."""


def fail(message: str) -> NoReturn:
    raise UsageProblem(message)


class Token(enum.Enum):
    """Whose token a command needs, which decides the order its environment variables are read in."""

    NONE = "no"
    OWNER = "an owner"
    ADMIN = "the admin"

    @property
    def envvars(self) -> list[str]:
        return [ADMIN_TOKEN_ENV, TOKEN_ENV] if self is Token.ADMIN else [TOKEN_ENV, ADMIN_TOKEN_ENV]


class EnvOption(click.Option):
    """An option that an environment variable may set; a bad value from there names the variable.

    Click records where a value came from only after checking it, so this records it before:
    `arena.cli.bad_parameter_message` reads it when the check fails. Every option with an
    `envvar` uses this class (a test walks the commands).
    """

    def consume_value(self, ctx: click.Context, opts: Mapping[str, Any]) -> tuple[Any, ParameterSource]:
        value, source = super().consume_value(ctx, opts)
        if self.name is not None:
            ctx.set_parameter_source(self.name, source)
        return value, source


def connection_options(needs: Token = Token.NONE) -> Callable[[Command], Command]:
    """Add --server, --tls, --ca-cert and (when `needs` one) --token; the command gets `connection`."""

    def decorate(command: Command) -> Command:
        @functools.wraps(command)
        def with_connection(*args: Any, server: str, tls: bool, ca_cert: Path | None, **kwargs: Any) -> Any:
            from arena.client import Connection  # gRPC is loaded when a command calls an arena, not for --help

            token = kwargs.pop("token", None) or ""
            if needs is not Token.NONE and not token:
                fail(f"this needs {needs.value} token: pass --token or set {TOKEN_ENV} or {ADMIN_TOKEN_ENV}")
            return command(*args, connection=Connection(server, token, tls, ca_cert), **kwargs)

        options = [
            click.option(
                "--server",
                cls=EnvOption,
                default=DEFAULT_SERVER,
                show_default=True,
                envvar=SERVER_ENV,
                help=f"HOST:PORT of the arena (env {SERVER_ENV}).",
            ),
            click.option(
                "--tls",
                is_flag=True,
                cls=EnvOption,
                envvar=TLS_ENV,
                help=f"Speak TLS, trusting the system's certificate authorities (env {TLS_ENV}=1).",
            ),
            click.option(
                "--ca-cert",
                type=click.Path(dir_okay=False, exists=True, path_type=Path),
                cls=EnvOption,
                envvar=CA_CERT_ENV,
                help=f"Speak TLS, trusting the certificates in this PEM file (env {CA_CERT_ENV}).",
            ),
        ]
        if needs is not Token.NONE:
            names = " or ".join(needs.envvars)
            options.append(
                click.option(
                    "--token",
                    cls=EnvOption,
                    envvar=needs.envvars,
                    help=f"{needs.value.capitalize()} token (env {names}).",
                )
            )
        for option in reversed(options):
            with_connection = option(with_connection)
        return with_connection

    return decorate


def json_option(command: Command) -> Command:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")(command)


def call(connection: Connection, work: Callable[[ArenaClient], Awaitable[Result]]) -> Result:
    """Run `work` with a client of the arena; its ArenaError reaches `main` as one line."""
    import asyncio

    from arena.client import ArenaClient

    async def run() -> Result:
        async with ArenaClient(connection) as arena:
            return await work(arena)

    return asyncio.run(run())


def to_dict(message: Message) -> dict[str, Any]:
    """A reply as JSON for scripts: the protocol's field names, enum values as the words people read
    ("ok", "hosted", "normal"), and 64-bit numbers as numbers (protobuf's JSON writes them as text)."""
    from google.protobuf.json_format import MessageToDict

    data = MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    return _readable(message.DESCRIPTOR, data)


def enum_word(enum: Any, value: int) -> str:
    """A wire enum's value as the word people read: HOSTED_VERSION_STATUS_OK of HostedVersionStatus is
    "ok"; a value the enum does not know is "unspecified"."""
    names = {number: name for name, number in enum.items()}
    prefix = str(names[0]).removesuffix("UNSPECIFIED")
    return str(names.get(value, names[0])).removeprefix(prefix).lower().replace("_", "-")


def _readable(descriptor: Any, data: dict[str, Any]) -> dict[str, Any]:
    from google.protobuf.descriptor import FieldDescriptor

    wide = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)
    for field in descriptor.fields:
        if field.name not in data:
            continue
        value = data[field.name]
        repeated = isinstance(value, list)
        if field.enum_type is not None:
            prefix = field.enum_type.values[0].name.removesuffix("UNSPECIFIED")

            def word(name: str, prefix: str = prefix) -> str:
                return name.removeprefix(prefix).lower().replace("_", "-")

            data[field.name] = [word(item) for item in value] if repeated else word(value)
        elif field.cpp_type in wide:
            data[field.name] = [int(item) for item in value] if repeated else int(value)
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            for item in value if repeated else [value]:
                _readable(field.message_type, item)
    return data


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


def game_param_option(command: Command) -> Command:
    """--param NAME=VALUE (repeatable): a parameter the game declares (`arena games` lists them)."""
    return click.option(
        "--param",
        "param_texts",
        multiple=True,
        metavar="NAME=VALUE",
        help="A game parameter, repeatable; `arena games` lists each game's (e.g. edition=de, scenario=temple).",
    )(command)


def game_param_texts(param_texts: tuple[str, ...], **shorthands: str | None) -> dict[str, str]:
    """The game parameters as text, from --param NAME=VALUE and the shorthand options given."""
    texts: dict[str, str] = {}
    for setting in param_texts:
        name, sep, value = setting.partition("=")
        if not sep or not name.strip():
            raise UsageProblem(f"--param {setting!r}: write NAME=VALUE, e.g. --param edition=de")
        texts[name.strip()] = value.strip()
    texts.update({name: value for name, value in shorthands.items() if value})
    return texts
