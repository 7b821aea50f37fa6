"""`arena demo`: the whole arena on this machine in one command.

A server on the embedded Redis; an owner and the sample bots (Python random, heuristic and
Monte Carlo, and the Node bot when node and npm are installed) registered and started as real
gRPC client processes, on the ladder; a rated round-robin tournament of friday13 and one of
amigo13 through the work stream, with the heuristic Python bot also uploaded once as a hosted bot
that the arena runs in its sandbox; then rated ladder tables of three for the Python bots, the
tournament tables and the leaderboards. With `stay`
the server keeps serving until Ctrl-C, and the demo shows the person at the keyboard how to bring
their own bot: an owner account "you" is made for them, its token kept in the data directory
(mode 0600, as the admin token is), and the commands to register, connect and challenge are printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from arena.app import RunningServer, ServerConfig, running, stop_on
from arena.cli import npm
from arena.cli.output import table
from arena.games import game_names
from arena.hosted.package import pack
from arena.matchmaking import QualitySchedule
from arena.node import submissions as hosted_api
from arena.node.ladder import LadderConfig, default_sizes
from arena.node.submissions import ValidationConfig
from arena.node.tournaments import create_tournament, live_table
from arena.store import NameTaken, Principal, Store, open_redis
from arena.store.hosted import HostedStatus
from arena.store.ratings import LeaderboardRow, RatingStore
from arena.store.tournaments import TournamentStore
from arena.tournaments import TournamentSpec, TournamentTable

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = ROOT / "sample_bots"
HOSTED_BOT = "py-hosted-heuristic"
OWNER = "demo"
GAMES = ("friday13", "amigo13")
"""The games of the demo's tournaments."""
PLAYED = (*GAMES, *(game for game in game_names() if game not in GAMES))
"""The games the sample bots play, and are registered for: every game (board13 too)."""
YOU = "you"
"""The owner account the demo makes for the person at the keyboard."""
ADMIN_TOKEN_FILE = "admin.token"
YOUR_BOT = "my-bot"


@dataclass(frozen=True)
class DemoBot:
    name: str
    language: str
    command: tuple[str, ...]
    """The program and its arguments, before --server and --token."""
    ladder: bool = True
    """Whether the program takes --ladder (the Node sample bot plays tournament and admin matches only)."""
    processes: int = 1
    """How many processes of the program connect, each a session of the bot sharing its slots."""


QUICK_PLAYOUTS = 250
"""The Monte Carlo bot's playouts a move in a quick demo: its full budget (docs/BENCHMARKS.md) would
take most of the quick demo's CPU, and a few hundred still play well above the heuristic."""


def demo_bots(note: Callable[[str], None], quick: bool) -> list[DemoBot]:
    python = SAMPLE_BOTS / "python"
    mc = (sys.executable, str(python / "mc_bot.py"), *(("--playouts", str(QUICK_PLAYOUTS)) if quick else ()))
    # The Monte Carlo bot's search is most of the demo's CPU, and one Python process thinks on one core:
    # with its full budget it runs as a process a core, or the demo waits on that one process.
    searchers = 1 if quick else max(1, os.cpu_count() or 1)
    bots = [
        DemoBot("py-random", "python", (sys.executable, str(python / "random_bot.py"))),
        DemoBot("py-heuristic", "python", (sys.executable, str(python / "heuristic_bot.py"))),
        DemoBot("py-mc", "python", mc, processes=searchers),
    ]
    node = node_bot(note)
    if node is not None:
        bots.append(DemoBot("js-heuristic", "javascript", ("node", str(node)), ladder=False))
    return bots


def node_bot(note: Callable[[str], None]) -> Path | None:
    """sample_bots/node/bot.js with its packages installed (`npm ci` when missing), or None with a note why."""
    directory = SAMPLE_BOTS / "node"
    if not (directory / "bot.js").exists():
        return None
    if shutil.which("node") is None or shutil.which("npm") is None:
        note("demo: node and npm are not installed: the JavaScript bot sits this one out")
        return None
    if not npm.installed(directory):
        note("demo: installing the JavaScript bot's packages (npm ci)")
        try:
            done = npm.npm_ci(directory)
        except subprocess.TimeoutExpired:
            note(f"demo: npm ci took more than {npm.TIMEOUT:.0f} s, the JavaScript bot sits this one out")
            return None
        if done is not None and done.returncode != 0:
            note(f"demo: npm ci failed, the JavaScript bot sits this one out: {done.stderr.strip()[:200]}")
            return None
    return directory / "bot.js"


@contextlib.contextmanager
def bot_processes(
    bots: list[DemoBot], tokens: dict[str, str], address: str, max_matches: int, ladder: bool
) -> Iterator[list[subprocess.Popen[bytes]]]:
    processes = []
    try:
        for bot in bots:
            command = [*bot.command, "--server", address, "--token", tokens[bot.name]]
            # Each process of a bot takes its share of the bot's slots: every bot plays as many matches at once.
            share = max(1, -(-max_matches // bot.processes))
            command += ["--max-matches", str(share), *(["--ladder"] if ladder and bot.ladder else [])]
            for _ in range(bot.processes):
                process = subprocess.Popen(
                    command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
                )
                processes.append(process)
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def register(store: Store, bots: list[DemoBot]) -> dict[str, str]:
    """The demo owner and bots (made on first run, new tokens on later runs on the same data).

    They accept invitations, so that other owners (the demo's "you" first) may challenge them."""
    with contextlib.suppress(NameTaken):
        await store.create_owner(OWNER)
    tokens = {}
    for bot in bots:
        try:
            _, tokens[bot.name] = await store.register_bot(
                OWNER, bot.name, PLAYED, bot.language, "a sample bot", accepts_invitations=True
            )
        except NameTaken:
            tokens[bot.name] = await store.rotate_bot_token(bot.name)
            await store.update_bot(OWNER, bot.name, accepts_invitations=True)
    return tokens


# -- tokens kept in the data directory ---------------------------------------------------------------


def owner_token_file(name: str) -> str:
    return f"owner-{name}.token"


def read_token(path: Path) -> str | None:
    """The token kept in `path`, None if there is none; RuntimeError (one line) if others may read it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise RuntimeError(f"cannot read the token file {path}: {error.strerror}") from None
    with os.fdopen(fd) as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.getuid():
            raise RuntimeError(f"the token file {path} is not a file of this user's: remove it")
        if status.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise RuntimeError(f"the token file {path} is open to others: chmod 600 {path}")
        token = file.read().strip()
    return token or None


def keep_token(path: Path, token: str) -> None:
    """Keep `token` in `path`, readable by this user alone (0600 from its first instant), replacing any earlier one."""
    draft = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(token + "\n")
    os.replace(draft, path)


def admin_token(data_dir: Path) -> str:
    """The admin token kept in DATA_DIR/admin.token, made and kept there on first run."""
    path = data_dir / ADMIN_TOKEN_FILE
    token = read_token(path)
    if token is None:
        token = "ata_" + secrets.token_urlsafe(24)
        keep_token(path, token)
    return token


async def your_owner(store: Store, data_dir: Path) -> Path | None:
    """The owner account "you", its token kept in DATA_DIR/owner-you.token: the file, or None when the
    account exists but the file holds no valid token of it (its token is lost; the admin makes another owner)."""
    path = data_dir / owner_token_file(YOU)
    token = read_token(path)
    if token is not None and await store.authenticate(token) == Principal("owner", YOU):
        return path
    try:
        keep_token(path, await store.create_owner(YOU))
    except NameTaken:
        return None
    return path


def kept_tokens(data_dir: Path, admin: str | None) -> list[str]:
    """What `arena serve` on a demo's data directory says of the tokens kept there: where they are.

    The admin token file counts only while it holds the token in force (`admin` is the one the node was
    given, None when it keeps the stored one)."""
    found = []
    try:
        token = read_token(data_dir / ADMIN_TOKEN_FILE)
        if token is not None and admin in (None, token):
            found.append(f"the admin's in {data_dir / ADMIN_TOKEN_FILE}")
        for path in sorted(data_dir.glob(owner_token_file("*"))):
            if read_token(path) is not None:
                name = path.name.removeprefix("owner-").removesuffix(".token")
                found.append(f"owner {name}'s in {path}")
    except RuntimeError as problem:
        return [f"arena: {problem}"]
    if not found:
        return []
    return [f"arena: tokens `arena demo` keeps in this data directory (mode 0600): {', '.join(found)}"]


def shown_path(path: Path) -> str:
    """`path` as a command line shows it: relative to the working directory when within it, else absolute."""
    absolute = path.resolve()
    with contextlib.suppress(ValueError):
        return shlex.quote(str(absolute.relative_to(Path.cwd())))
    return shlex.quote(str(absolute))


async def your_own_bot(store: Store, address: str, data_dir: Path, owner_file: Path | None) -> list[str]:
    """The lines that take the person at the keyboard from the demo to their own bot: the exact commands."""
    admin_file = shown_path(data_dir / ADMIN_TOKEN_FILE)
    another = f'ARENA_ADMIN_TOKEN="$(cat {admin_file})" arena owner create NAME --server {address}'
    if owner_file is None:
        return [
            f'demo: the owner account "{YOU}" exists, but its token is no longer kept in '
            f"{shown_path(data_dir / owner_token_file(YOU))}; make another owner with the admin token:",
            f"  {another}",
        ]
    python = "python" if shutil.which("python") == sys.executable else shlex.quote(sys.executable)
    yours = await store.list_bots(YOU)
    bot = yours[0].name if yours else YOUR_BOT
    games = " ".join(f"--game {game}" for game in PLAYED)
    token_line = (
        f"BOT_TOKEN=$(arena bot rotate-token {bot} | tail -n 1)"
        if yours
        else f"BOT_TOKEN=$(arena bot register {bot} {games} | tail -n 1)"
    )
    return [
        f'demo: your own bot, from another terminal (your owner account "{YOU}"; its token is kept in '
        f"{shown_path(owner_file)}, mode 0600):",
        f'  export ARENA_SERVER={address} ARENA_TOKEN="$(cat {shown_path(owner_file)})"',
        f"  {token_line}",
        f'  {python} {shown_path(SAMPLE_BOTS / "python" / "heuristic_bot.py")} --token "$BOT_TOKEN" &'
        "   # your bot: start from a copy",
        "demo: once it is connected, challenge the sample bots (an unrated match; arena match show ID follows it):",
        f"  arena challenge {bot} --against py-mc,builtin:heuristic",
        f"  arena challenge {bot} --against py-heuristic --game board13",
        f"demo: more owners: {another}",
    ]


async def submit_hosted(store: Store, note: Callable[[str], None]) -> list[str]:
    """The heuristic Python sample as a hosted bot: uploaded, validated, and run by the arena per match."""
    with contextlib.suppress(NameTaken):
        await store.register_bot(
            OWNER, HOSTED_BOT, PLAYED, "python", "a sample bot the arena hosts", accepts_invitations=True
        )
    package = pack(SAMPLE_BOTS / "python")
    done = await hosted_api.submit(
        store, OWNER, HOSTED_BOT, "friday13", "python heuristic_bot.py", package.data, ValidationConfig()
    )
    if done.version.status != HostedStatus.OK:
        note(f"demo: the hosted bot is left out: {done.version.reason}")
        return []
    note(f"demo: {HOSTED_BOT} uploaded (version {done.version.version}); the arena runs it in its sandbox")
    return [HOSTED_BOT]


async def wait_connected(
    arena: RunningServer,
    names: set[str],
    processes: list[subprocess.Popen[bytes]],
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    deadline = time.monotonic() + 60
    while not names <= arena.sessions.connected():
        stopped = [process.args for process in processes if process.poll() is not None]
        if stopped:
            raise RuntimeError(f"a bot program stopped early: {stopped[0]!r}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"bots {sorted(names - arena.sessions.connected())} did not connect within 60 s")
        await pause(0.1)


def tournament_specs(entrants: list[str], quick: bool) -> list[TournamentSpec]:
    """Duplicate round-robins: friday13 at every table of four, amigo13 at every table of three, each
    deal played as many times as the table has seats (consecutive slices of the seat-fair design,
    `--seatings` in `arena tournament create`), which keeps the demo to a minute or two; the whole
    design would play each deal 24 and 6 times."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    friday_table = min(4, len(entrants))
    return [
        TournamentSpec(
            f"demo-friday13-{stamp}",
            "friday13",
            tuple(entrants),
            table_size=friday_table,
            duplicate=not quick,
            seatings=0 if quick else friday_table,
            rated=True,
            seed=stamp,
        ),
        TournamentSpec(
            f"demo-amigo13-{stamp}",
            "amigo13",
            tuple(entrants),
            table_size=3,
            duplicate=not quick,
            seatings=0 if quick else 3,
            rated=True,
            seed=stamp,
        ),
    ]


async def run_tournaments(
    store: Store,
    specs: list[TournamentSpec],
    progress: Callable[[dict[str, tuple[int, int]]], None],
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> list[TournamentTable]:
    for spec in specs:
        await create_tournament(store, spec, OWNER)
    tournaments = TournamentStore(store.redis)
    while True:
        done = {}
        for spec in specs:
            state = await tournaments.get(spec.name)
            assert state is not None
            # Settled matches, not stored results: an aborted attempt is re-run and counts once.
            found, _ = await tournaments.progress(state)
            done[spec.name] = (found.total - found.unsettled, found.total)
        progress(done)
        if all(count >= total for count, total in done.values()):
            break
        await pause(0.25)
    tables = []
    for spec in specs:
        state = await tournaments.get(spec.name)
        assert state is not None
        tables.append(await live_table(store, state))
    return tables


async def leaderboards(store: Store) -> dict[str, list[LeaderboardRow]]:
    """The leaderboards of the tournaments' games, and of any other game the ladder rated matches of."""
    ratings = RatingStore(store.redis)
    boards = {game: await ratings.leaderboard(game) for game in PLAYED}
    return {game: rows for game, rows in boards.items() if rows or game in GAMES}


@contextlib.asynccontextmanager
async def demo_server(
    data_dir: Path | None, port: int, http_port: int | None = None
) -> AsyncIterator[tuple[RunningServer, Path]]:
    with contextlib.ExitStack() as stack:
        if data_dir is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-demo-")))
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Tables of three on the ladder: the three Python bots join it (the Node bot plays tournaments only).
        # Three bots of very different strength never make a balanced table, so the demo's ladder
        # settles for any table within seconds instead of the two minutes a real ladder waits.
        ladder = LadderConfig(
            sizes={**default_sizes(), "friday13": 3, "amigo13": 3},
            schedule=QualitySchedule(half_life=2.0, anything_after=6.0),
        )
        config = ServerConfig(
            port=port,
            data_dir=data_dir,
            admin_token=admin_token(data_dir),
            ladder=ladder,
            http_port=http_port,
            web_process=True,  # as `arena serve`: pages stay quick while the demo's matches run
        )
        async with open_redis(None, data_dir) as redis, running(config, redis) as arena:
            yield arena, data_dir


class Stop:
    """SIGINT or SIGTERM while the demo runs: its task is cancelled, so that the bots' processes and the
    server stop with it (SIGTERM's default action would leave the bots running). A cancellation can be
    lost inside a Redis call (redis-py), and the demo would then play on to its end: each of the demo's
    own waits (`pause`) and steps (`check`) stops it too."""

    def __init__(self) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.task = task
        self.asked = False
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.ask)

    def ask(self) -> None:
        if self.asked:
            raise KeyboardInterrupt  # a second one does not wait for the orderly stop, as asyncio's own
        self.asked = True
        self.task.cancel()

    def check(self) -> None:
        if self.asked:
            raise asyncio.CancelledError

    async def pause(self, seconds: float) -> None:
        self.check()
        await asyncio.sleep(seconds)
        self.check()


LADDER_MATCHES = 6
"""Ladder matches the demo waits for after its tournaments, which keep every bot busy while they run."""
LADDER_TIMEOUT = 60.0


def default_max_matches() -> int:
    return max(2, 2 * (os.cpu_count() or 1))


async def run_demo(
    data_dir: Path | None,
    port: int,
    quick: bool,
    stay: bool,
    console: Console,
    http_port: int | None = None,
    print_tournament: Callable[[dict[str, Any], str], None] | None = None,
) -> None:
    """The demo; `print_tournament` shows a finished tournament's table (the CLI's, by default none).

    SIGTERM stops it as Ctrl-C does, the bots' processes and the server with it (`Stop`); with `stay`, once
    the demo serves, either one stops it the orderly way."""
    stop = Stop()
    bots = demo_bots(lambda line: console.print(line), quick)
    async with demo_server(data_dir, port, http_port) as (arena, where):
        console.print(f"demo: arena serving on {arena.address} (embedded Redis, data in {where})")
        if arena.web_url:
            console.print(f"demo: web UI on {arena.web_url} (leaderboards, replays, live tournaments)")
        tokens = await register(arena.store, bots)
        owner_file = await your_owner(arena.store, where)
        with bot_processes(bots, tokens, arena.address, default_max_matches(), ladder=not quick) as processes:
            await wait_connected(arena, {bot.name for bot in bots}, processes, stop.pause)
            console.print(f"demo: {len(bots)} bots connected: {', '.join(bot.name for bot in bots)}")
            if arena.hosted_refusal:
                # Its validation would wait for a node that runs hosted bots: there is none.
                console.print(f"demo: the hosted bot is left out: {arena.hosted_refusal}")
                hosted = []
            else:
                hosted = await submit_hosted(arena.store, console.print)
                stop.check()
            specs = tournament_specs([bot.name for bot in bots] + hosted, quick)
            rated_before = await rated_results(arena.store)
            started = time.perf_counter()
            with Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as bar:
                tasks = {spec.name: bar.add_task(spec.name, total=spec.total_matches) for spec in specs}

                def progress(done: dict[str, tuple[int, int]]) -> None:
                    for name, (count, _) in done.items():
                        bar.update(tasks[name], completed=count)

                tables = await run_tournaments(arena.store, specs, progress, stop.pause)
            console.print(
                f"demo: {sum(spec.total_matches for spec in specs)} tournament matches in "
                f"{time.perf_counter() - started:.1f} s"
            )
            for table in tables:
                if print_tournament is not None:
                    print_tournament(table.to_dict(), table.spec.build_game().score_name)
            if not quick:
                played_before = rated_before + sum(spec.total_matches for spec in specs)
                with console.status("demo: the ladder plays rated tables of three between the Python bots"):
                    ladder = await ladder_matches(
                        arena.store, played_before, LADDER_MATCHES, LADDER_TIMEOUT, stop.pause
                    )
                console.print(f"demo: the ladder played {ladder} rated matches between the Python bots")
            for game, rows in (await leaderboards(arena.store)).items():
                console.print(leaderboard_view(game, rows))
            if stay:
                for line in await your_own_bot(arena.store, arena.address, where, owner_file):
                    console.print(line, soft_wrap=True, highlight=False, markup=False)
                console.print(f"demo: still serving on {arena.address}; Ctrl-C stops the server and the bots")
                await stop_on(signal.SIGINT, signal.SIGTERM).wait()
            elif data_dir is not None and owner_file is not None:
                console.print(
                    f"demo: `arena serve --data-dir {shown_path(where)}` serves this arena again; your owner "
                    f"token stays in {shown_path(owner_file)}",
                    soft_wrap=True,
                    highlight=False,
                    markup=False,
                )
    console.print(
        "demo: stopped the server, the bots and the web UI"
        + ("" if stay else " (--stay keeps them until Ctrl-C; --data-dir DIR keeps the data for another run)"),
        soft_wrap=True,
    )


async def ladder_matches(
    store: Store, before: int, want: int, timeout: float, pause: Callable[[float], Awaitable[None]] = asyncio.sleep
) -> int:
    """Rated matches beyond `before`, once `want` of them are stored or `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while (played := await rated_results(store) - before) < want and time.monotonic() < deadline:
        await pause(0.2)
    return played


async def rated_results(store: Store) -> int:
    """Results stored for the ratings of the demo's games (tournament and ladder matches)."""
    ratings = RatingStore(store.redis)
    return sum([len(await ratings.results(game)) for game in PLAYED])


def leaderboard_view(game: str, rows: list[LeaderboardRow]) -> Table:
    numbers = ("#", "mu-3sigma", "mu", "sigma", "games")
    view = table(
        f"{game} leaderboard (TrueSkill: ranked by mu - 3 sigma, the conservative rating)",
        ("#", "bot", *numbers[1:]),
        numbers=numbers,
        keep=("bot",),
    )
    for row in rows:
        view.add_row(
            str(row.rank), row.bot, f"{row.conservative:.2f}", f"{row.mu:.2f}", f"{row.sigma:.2f}", str(row.games)
        )
    return view
