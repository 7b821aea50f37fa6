"""A small client for Python bots: subclass `Bot`, implement `act`, call `run`.

The client keeps one session with the arena and plays every match the arena seats the bot in,
one `Bot` instance per match. It reconnects by itself after a lost stream, resuming its session
(and so its matches) with exponential backoff, and says what it does in one line each (to
stderr: a hosted bot's run log keeps them): connected, every attempt to reconnect and why, and
giving up after `max_attempts` attempts or `give_up_after` seconds without a Welcome.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import grpc

from arena.bots import make_bot
from arena.bots.base import Bot as Policy
from arena.games.base import Action
from arena.match.debug import cut
from arena.match.seats import MatchInfo
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.wire import convert
from arena.wire.address import DEFAULT_SERVER

log = logging.getLogger("arena.sdk")

CLIENT_NAME = "arena-sdk-python/0.1"
MAX_BATCH = 64
"""Answers sent in one Actions message at most: 64 with a full debug text each (1 KiB) stay far below the
arena's 1 MiB a message."""
FATAL = (
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
)
"""Statuses that no reconnect can fix."""


KEEPALIVE = (
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
)
"""A node that stops answering (its machine froze, its process was stopped) still holds the TCP connection:
a ping every 10 s unanswered within 5 s ends the stream, and the bot moves on to the next address."""


class BotRejected(RuntimeError):
    """The arena refused the bot (bad token, bad Hello); the message says why."""


class BotGaveUp(RuntimeError):
    """No Welcome came within the client's limits (attempts, seconds); the message says what was tried."""


class NoWelcome(Exception):
    """An attempt that got no Welcome within `Client.connect_timeout` (a host that swallows packets)."""


def say_to_stderr(line: str) -> None:
    print(f"arena-sdk: {line}", file=sys.stderr, flush=True)


Match = MatchInfo
"""A match the bot sits in, as MatchStarted announced it: the runner's own MatchInfo."""


class Turn:
    """One ActionRequest. Satisfies arena.bots' `Turn`, so built-in policies can answer it."""

    __slots__ = ("_debug", "_observation", "legal_actions", "match", "message", "request_id", "time_left")

    def __init__(self, match: Match, message: bot_pb.ActionRequest) -> None:
        self.match = match
        self.message = message
        self.request_id: int = message.request_id
        self.legal_actions: list[Action] = [legal.id for legal in message.legal_actions]
        self.time_left: float = message.time_left_ms / 1000
        """Seconds until the answer is late."""
        self._observation: Any = None
        self._debug: list[str] = []

    @property
    def seat(self) -> int:
        return self.match.seat

    @property
    def observation(self) -> Any:
        """The engine's observation (e.g. `CardObservation`), converted on first use."""
        if self._observation is None:
            self._observation = convert.observation_from_pb(
                self.match.game, self.message.observation, self.legal_actions
            )
        return self._observation

    def action_text(self, action: Action) -> str:
        return self.match.game.action_text(action)

    def debug(self, text: str) -> None:
        """Say something about this move (why this action, an evaluation): it goes with the answer and is
        kept in the replay record at this move, shown to the bot's owner while the match runs and to
        everyone after it; never to the other seats. Several calls make several lines; the arena keeps
        at most 1 KiB a move and 64 KiB a match (more is cut and ends with "…[cut]")."""
        self._debug.append(text)

    @property
    def debug_text(self) -> str:
        """What `debug` was told for this move, as the Action carries it (cut to 1 KiB here already)."""
        return cut("\n".join(self._debug))


class Bot(ABC):
    """One bot's play of one match; a new instance is made for every match."""

    def __init__(self, match: Match) -> None:
        self.match = match

    @abstractmethod
    def act(self, turn: Turn) -> Action:
        """The action to play: one of `turn.legal_actions`; `turn.observation` is what the seat sees."""

    def on_end(self, result: bot_pb.MatchEnded) -> None:  # noqa: B027 - optional hook
        """The match is over."""

    def on_error(self, error: bot_pb.Error) -> None:
        """The arena reports something wrong with what the bot sent."""
        log.warning("arena error %s: %s", bot_pb.ErrorCode.Name(error.code), error.message)


class BuiltinBot(Bot):
    """A bot that plays one of the built-in policies of arena.bots."""

    policy: ClassVar[str]

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        self.player: Policy = make_bot(self.policy, match.game, match.seat, seed=random.randrange(1 << 30))

    def act(self, turn: Turn) -> Action:
        return self.player.act(turn)


@dataclass
class Client:
    """One session with the arena, kept up until `stop()` (or `matches` matches have ended)."""

    bot_class: Callable[[Match], Bot]
    server: str
    token: str
    games: Sequence[str] = ()
    max_matches: int = 1
    ladder: bool = False
    credentials: grpc.ChannelCredentials | None = None
    matches: int | None = None
    """Stop after this many matches ended; None plays on until stopped."""
    backoff: float = 0.1
    max_backoff: float = 5.0
    max_attempts: int = 20
    """Attempts in a row without a Welcome after which the bot gives up (0: no limit)."""
    give_up_after: float = 120.0
    """Seconds without a Welcome (from the start, or from losing the stream) after which it gives up (0: no limit)."""
    connect_timeout: float = 10.0
    """Seconds an attempt may take from dialling to the Welcome (the server itself waits 10 s for the Hello)."""
    prompt: float = 0.002
    """Seconds the bot may spend answering the requests of one batch before the answers made so far are sent
    (those made sooner go together, in one message)."""
    say: Callable[[str], None] = field(default_factory=lambda: say_to_stderr)
    """Where the client's lines go: connected, reconnecting and why, giving up."""
    session_id: str = ""
    bots: dict[str, Bot] = field(default_factory=dict)
    ended: list[bot_pb.MatchEnded] = field(default_factory=list)
    welcomed: asyncio.Event = field(default_factory=asyncio.Event)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _call: Any = None
    _turn: int = 0
    """Which of the comma-separated addresses in `server` the next connection dials."""
    _welcomes: int = 0
    _dialled: str = ""

    @property
    def addresses(self) -> list[str]:
        """`server` may name several nodes, comma-separated: a lost stream moves on to the next one."""
        return [address.strip() for address in self.server.split(",") if address.strip()]

    def stop(self) -> None:
        self._stop.set()
        if self._call is not None:
            self._call.cancel()

    async def run(self) -> None:
        """Play until stopped; reconnect with backoff, saying why; raise BotRejected when the arena refuses the bot,
        BotGaveUp when no Welcome came within the limits (`max_attempts`, `give_up_after`)."""
        delay = self.backoff
        attempts = 0
        since = time.monotonic()
        while not self._stop.is_set():
            welcomes = self._welcomes
            try:
                await self._session()
                why = "the server ended the stream"
            except grpc.aio.AioRpcError as error:
                if error.code() in FATAL:
                    raise BotRejected(f"the arena refused the bot: {error.details()}") from None
                why = _why(error)
            except NoWelcome as error:
                why = str(error)
            if self._stop.is_set():
                return
            if self._welcomes != welcomes:  # it had a session: count again from now
                attempts, since, delay = 0, time.monotonic(), self.backoff
                what = f"lost the stream to {self._dialled}: {why}"
            else:
                what = f"cannot connect to {self._dialled}: {why}"
            attempts += 1
            waited = time.monotonic() - since
            if (self.max_attempts and attempts >= self.max_attempts) or (
                self.give_up_after and waited >= self.give_up_after
            ):
                raise BotGaveUp(
                    f"giving up after {attempts} attempts in {waited:.0f} s without a Welcome ({what}); "
                    "check the server's address and that the arena is running"
                )
            self._turn += 1
            limit = f" of {self.max_attempts}" if self.max_attempts else ""
            self.say(f"{what}; retrying at {self._address()} in {delay:.1f} s (attempt {attempts + 1}{limit})")
            await asyncio.sleep(delay)
            delay = min(self.max_backoff, delay * 2)

    async def _session(self) -> None:
        options = [("grpc.max_receive_message_length", 16 << 20), *KEEPALIVE]
        self._dialled = address = self._address()
        if self.credentials is not None:
            channel = grpc.aio.secure_channel(address, self.credentials, options=options)
        else:
            channel = grpc.aio.insecure_channel(address, options=options)
        async with channel:
            stub = bot_grpc.BotServiceStub(channel)
            call = stub.Connect(metadata=(("authorization", f"Bearer {self.token}"),))
            hello = bot_pb.Hello(
                games=self.games,
                max_matches=self.max_matches,
                join_ladder=self.ladder,
                resume_session_id=self.session_id,
                client=CLIENT_NAME,
                batches=True,
            )
            self._call = call
            writer: asyncio.Task[None] | None = None
            try:
                try:
                    # The Hello and the first reply within the timeout: a host that swallows packets costs
                    # seconds, not the minutes a TCP connect may wait.
                    async with asyncio.timeout(self.connect_timeout):
                        await call.write(bot_pb.ConnectRequest(hello=hello))
                        message = await call.read()
                except TimeoutError:
                    call.cancel()
                    raise NoWelcome(f"no Welcome within {self.connect_timeout:g} s") from None
                # Answers go out from their own task, in order, while the next requests are read: the reads
                # do not wait for each write to complete, and gRPC's completions can reach the loop together.
                outbox: asyncio.Queue[bot_pb.Action] = asyncio.Queue()
                writer = asyncio.create_task(self._write(call, outbox))
                while message is not grpc.aio.EOF:
                    await self._take(message, outbox)
                    message = await call.read()
            except asyncio.CancelledError:
                if self._stop.is_set():
                    return
                raise
            finally:
                self._call = None
                if writer is not None:
                    writer.cancel()

    @staticmethod
    async def _write(call: Any, outbox: asyncio.Queue[bot_pb.Action]) -> None:
        """Send the answers in the order they were made: those made while the last write went out together,
        in one Actions message (up to MAX_BATCH), never waiting for more; a broken stream ends the reads too."""
        try:
            while True:
                actions = [await outbox.get()]
                while not outbox.empty() and len(actions) < MAX_BATCH:
                    actions.append(outbox.get_nowait())
                if len(actions) == 1:
                    await call.write(bot_pb.ConnectRequest(action=actions[0]))
                else:
                    await call.write(bot_pb.ConnectRequest(actions=bot_pb.Actions(actions=actions)))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            return  # the stream ended: the reads see it too, and the session reconnects
        except Exception:
            log.exception("sending to the arena failed; the stream is closed")
            call.cancel()
            raise

    def _address(self) -> str:
        addresses = self.addresses
        return addresses[self._turn % len(addresses)] if addresses else self.server

    def _answer(self, request: bot_pb.ActionRequest) -> bot_pb.Action | None:
        bot = self.bots.get(request.match_id)
        if bot is None:
            log.warning("request %d for unknown match %s ignored", request.request_id, request.match_id)
            return None
        turn = Turn(bot.match, request)
        try:
            action = bot.act(turn)
        except Exception:
            log.exception("the bot failed in match %s; playing its first legal action", request.match_id)
            action = turn.legal_actions[0]
        return bot_pb.Action(
            match_id=request.match_id, request_id=request.request_id, action_id=action, debug=turn.debug_text
        )

    async def _take(self, message: bot_pb.ConnectResponse, outbox: asyncio.Queue[bot_pb.Action]) -> None:
        """Take one message from the arena and queue the answers it asks for, in order. Once answering has
        taken `prompt` seconds, the writer gets the answers made so far before the next is made: a slow bot's
        first answer of a batch does not wait for its others."""
        kind = message.WhichOneof("message")
        if kind == "action_request":
            requests: Sequence[bot_pb.ActionRequest] = [message.action_request]
        elif kind == "action_requests":
            requests = message.action_requests.requests
        else:
            self._note(message, kind)
            return
        since = time.perf_counter()
        for request in requests:
            action = self._answer(request)
            if action is not None:
                outbox.put_nowait(action)
            if time.perf_counter() - since > self.prompt:
                await asyncio.sleep(0)
                since = time.perf_counter()

    def _note(self, message: bot_pb.ConnectResponse, kind: str | None) -> None:
        """Take a message that asks for no answer: a match started or ended, a Welcome, an error."""
        if kind == "match_started":
            started = message.match_started
            if started.match_id not in self.bots:
                match = Match(
                    started.match_id,
                    convert.game_from_spec(started.game),
                    started.seat,
                    tuple(started.seats),
                    started.seed_commitment,
                    convert.clock_from_pb(started.clock),
                )
                self.bots[started.match_id] = self.bot_class(match)
        elif kind == "match_ended":
            ended = message.match_ended
            bot = self.bots.pop(ended.match_id, None)
            if bot is not None:
                bot.on_end(ended)
            self.ended.append(ended)
            if self.matches is not None and len(self.ended) >= self.matches:
                self.stop()
        elif kind == "welcome":
            if message.welcome.session_id != self.session_id:
                self.bots.clear()
            self.session_id = message.welcome.session_id
            self._welcomes += 1
            self.welcomed.set()
            again = ", resumed" if message.welcome.resumed else ""
            self.say(f"connected to {self._dialled} as {message.welcome.bot_name}, session {self.session_id}{again}")
        elif kind == "error":
            error = message.error
            bot = self.bots.get(error.match_id)
            if bot is not None:
                bot.on_error(error)
            else:
                log.warning("arena error %s: %s", bot_pb.ErrorCode.Name(error.code), error.message)


def _why(error: grpc.aio.AioRpcError) -> str:
    """A failed attempt's reason in a few words: gRPC's "failed to connect to all addresses; last error: ...:
    Connection refused" says its cause last."""
    details = " ".join((error.details() or "").split())
    if details.startswith("failed to connect"):
        details = details.rsplit(": ", 1)[-1].lower()
    return f"{details} ({error.code().name})" if details else error.code().name


def run_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run a bot's event loop to its end: uvloop's where it is installed (a faster loop than asyncio's own;
    `benchmarks/grpc_throughput.py --uvloop-clients` compares bare gRPC clients on both), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


def parse_args(argv: Sequence[str] | None = None, description: str = "") -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description or "A bot for Thirteen Arena.")
    parser.add_argument(
        "--server",
        default=os.environ.get("ARENA_SERVER", DEFAULT_SERVER),
        help="HOST:PORT of the arena, or of several nodes comma-separated: a lost stream moves on to the next "
        f"(env ARENA_SERVER; default {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--token", default=os.environ.get("ARENA_TOKEN"), help="the bot's token from RegisterBot (env ARENA_TOKEN)"
    )
    parser.add_argument("--games", default="", help="comma-separated games to play (default: every game)")
    parser.add_argument("--max-matches", type=int, default=1, help="matches to play at once (default 1)")
    parser.add_argument("--ladder", action="store_true", help="let the matchmaker seat the bot in ladder matches")
    parser.add_argument("--matches", type=int, default=None, help="stop after this many matches ended")
    parser.add_argument("--tls", action="store_true", help="connect with TLS")
    parser.add_argument("--ca-cert", help="PEM file of the CA that signed the server's certificate (implies --tls)")
    parser.add_argument(
        "--max-attempts",
        type=int,
        default=20,
        help="give up after this many attempts in a row without a Welcome (0: never; default 20)",
    )
    parser.add_argument(
        "--give-up-after",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="give up after this long without a Welcome (0: never; default 120)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log every session event")
    options = parser.parse_args(argv)
    if not options.token:
        parser.error("give the bot's token with --token or the environment variable ARENA_TOKEN")
    if options.max_matches < 1:
        parser.error("--max-matches must be at least 1")
    if options.max_attempts < 0:
        parser.error("--max-attempts must be 0 (never give up) or more")
    if not 0 <= options.give_up_after < float("inf"):
        parser.error("--give-up-after must be 0 (never give up) or a number of seconds")
    return options


def run(bot_class: Callable[[Match], Bot], argv: Sequence[str] | None = None) -> None:
    """The command line of a bot program: `--server HOST:PORT --token T [--games ...] [--max-matches N] [--ladder]`."""
    options = parse_args(argv, (bot_class.__doc__ or "").strip().splitlines()[0] if bot_class.__doc__ else "")
    logging.basicConfig(level=logging.INFO if options.verbose else logging.WARNING, format="%(name)s: %(message)s")
    credentials = None
    if options.tls or options.ca_cert:
        root = Path(options.ca_cert).read_bytes() if options.ca_cert else None
        credentials = grpc.ssl_channel_credentials(root_certificates=root)
    client = Client(
        bot_class,
        options.server,
        options.token,
        games=[game for game in options.games.split(",") if game],
        max_matches=options.max_matches,
        ladder=options.ladder,
        credentials=credentials,
        matches=options.matches,
        max_attempts=options.max_attempts,
        give_up_after=options.give_up_after,
    )
    try:
        run_loop(client.run())
    except BotRejected as rejected:
        print(f"{sys.argv[0]}: {rejected}", file=sys.stderr)
        sys.exit(2)
    except BotGaveUp as gave_up:
        say_to_stderr(str(gave_up))
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
