"""A small client for Python bots: subclass `Bot`, implement `act`, call `run`.

The client keeps one session with the arena and plays every match the arena seats the bot in,
one `Bot` instance per match. It reconnects by itself after a lost stream, resuming its session
(and so its matches) with exponential backoff.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import grpc

from arena.bots import make_bot
from arena.bots.base import Bot as Policy
from arena.games.base import Action
from arena.match.seats import MatchInfo
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.wire import convert
from arena.wire.address import DEFAULT_SERVER

log = logging.getLogger("arena.sdk")

CLIENT_NAME = "arena-sdk-python/0.1"
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


Match = MatchInfo
"""A match the bot sits in, as MatchStarted announced it: the runner's own MatchInfo."""


class Turn:
    """One ActionRequest. Satisfies arena.bots' `Turn`, so built-in policies can answer it."""

    __slots__ = ("_observation", "legal_actions", "match", "message", "request_id", "time_left")

    def __init__(self, match: Match, message: bot_pb.ActionRequest) -> None:
        self.match = match
        self.message = message
        self.request_id: int = message.request_id
        self.legal_actions: list[Action] = [legal.id for legal in message.legal_actions]
        self.time_left: float = message.time_left_ms / 1000
        """Seconds until the answer is late."""
        self._observation: Any = None

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
    session_id: str = ""
    bots: dict[str, Bot] = field(default_factory=dict)
    ended: list[bot_pb.MatchEnded] = field(default_factory=list)
    welcomed: asyncio.Event = field(default_factory=asyncio.Event)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _call: Any = None
    _turn: int = 0
    """Which of the comma-separated addresses in `server` the next connection dials."""

    @property
    def addresses(self) -> list[str]:
        """`server` may name several nodes, comma-separated: a lost stream moves on to the next one."""
        return [address.strip() for address in self.server.split(",") if address.strip()]

    def stop(self) -> None:
        self._stop.set()
        if self._call is not None:
            self._call.cancel()

    async def run(self) -> None:
        """Play until stopped; reconnect with backoff; raise BotRejected when the arena refuses the bot."""
        delay = self.backoff
        while not self._stop.is_set():
            try:
                await self._session()
                delay = self.backoff
            except grpc.aio.AioRpcError as error:
                if error.code() in FATAL:
                    raise BotRejected(f"the arena refused the bot: {error.details()}") from None
                self._turn += 1
                log.info(
                    "stream lost (%s: %s); reconnecting to %s in %.1f s",
                    error.code().name,
                    error.details(),
                    self.addresses[self._turn % len(self.addresses)],
                    delay,
                )
            if self._stop.is_set():
                return
            await asyncio.sleep(delay)
            delay = min(self.max_backoff, delay * 2)

    async def _session(self) -> None:
        options = [("grpc.max_receive_message_length", 16 << 20), *KEEPALIVE]
        if self.credentials is not None:
            channel = grpc.aio.secure_channel(self._address(), self.credentials, options=options)
        else:
            channel = grpc.aio.insecure_channel(self._address(), options=options)
        async with channel:
            stub = bot_grpc.BotServiceStub(channel)
            call = stub.Connect(metadata=(("authorization", f"Bearer {self.token}"),))
            hello = bot_pb.Hello(
                games=self.games,
                max_matches=self.max_matches,
                join_ladder=self.ladder,
                resume_session_id=self.session_id,
                client=CLIENT_NAME,
            )
            await call.write(bot_pb.ConnectRequest(hello=hello))
            self._call = call
            # Answers go out from their own task, in order, while the next requests are read: the reads
            # do not wait for each write to complete, and gRPC's completions can reach the loop together.
            outbox: asyncio.Queue[bot_pb.ConnectRequest] = asyncio.Queue()
            writer = asyncio.create_task(self._write(call, outbox))
            try:
                while True:
                    message = await call.read()
                    if message is grpc.aio.EOF:
                        return
                    reply = self._handle(message)
                    if reply is not None:
                        outbox.put_nowait(reply)
            except asyncio.CancelledError:
                if self._stop.is_set():
                    return
                raise
            finally:
                self._call = None
                writer.cancel()

    @staticmethod
    async def _write(call: Any, outbox: asyncio.Queue[bot_pb.ConnectRequest]) -> None:
        """Send the answers in the order they were made; a broken stream ends the reads too."""
        try:
            while True:
                await call.write(await outbox.get())
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            return  # the stream ended: the reads see it too, and the session reconnects
        except Exception:
            log.exception("sending to the arena failed; the stream is closed")
            call.cancel()
            raise

    def _address(self) -> str:
        addresses = self.addresses
        return addresses[self._turn % len(addresses)] if addresses else self.server

    def _handle(self, message: bot_pb.ConnectResponse) -> bot_pb.ConnectRequest | None:
        kind = message.WhichOneof("message")
        if kind == "action_request":
            request = message.action_request
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
            return bot_pb.ConnectRequest(
                action=bot_pb.Action(match_id=request.match_id, request_id=request.request_id, action_id=action)
            )
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
            self.welcomed.set()
            log.info("session %s (resumed: %s)", self.session_id, message.welcome.resumed)
        elif kind == "error":
            error = message.error
            bot = self.bots.get(error.match_id)
            if bot is not None:
                bot.on_error(error)
            else:
                log.warning("arena error %s: %s", bot_pb.ErrorCode.Name(error.code), error.message)
        return None


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
    parser.add_argument("-v", "--verbose", action="store_true", help="log every session event")
    options = parser.parse_args(argv)
    if not options.token:
        parser.error("give the bot's token with --token or the environment variable ARENA_TOKEN")
    if options.max_matches < 1:
        parser.error("--max-matches must be at least 1")
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
    )
    try:
        run_loop(client.run())
    except BotRejected as rejected:
        print(f"{sys.argv[0]}: {rejected}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
