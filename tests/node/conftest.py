"""The node package's own tests: its classes driven directly on the session's real Redis, no gRPC.

A `BotDriver` stands for a bot process at the far end of a session's stream: it attaches a stream
to the session as the BotService does, keeps every message it is sent, and answers each
ActionRequest through `Session.answer` as the stream reader does, unless told to hold its answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest_asyncio
from redis.asyncio import Redis

from arena.node.relay import Relay
from arena.node.sessions import Hangup, Limits, Session, SessionRegistry
from arena.store import keys
from arena.v1 import bot_service_pb2 as bot_pb
from tests.waiting import until

SLACK = 10.0
"""Seconds a loaded machine (two busy loops on two cores) may add to whatever a test waits for; a
condition that holds returns at once, so this only bounds how long a broken one takes to fail."""


@pytest_asyncio.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    """A client of the session's Redis, emptied for this test."""
    client = Redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


def hello(*games: str, max_matches: int = 4, resume: str = "", batches: bool = False) -> bot_pb.Hello:
    return bot_pb.Hello(
        games=games, max_matches=max_matches, resume_session_id=resume, client="tests/node", batches=batches
    )


class BotDriver:
    """The bot's side of one session: attach a stream, read what it is sent, answer requests.

    `answering` False holds every ActionRequest unanswered (a slow or stuck bot); `action_id`, when set,
    is the answer to every request (an illegal one, say), else its first legal action.
    """

    def __init__(
        self, registry: SessionRegistry, session: Session, answering: bool = True, action_id: int | None = None
    ) -> None:
        self.registry = registry
        self.session = session
        self.answering = answering
        self.action_id = action_id
        self.received: list[bot_pb.ConnectResponse | Hangup] = []
        self.stream = 0
        self._task: asyncio.Task[None] | None = None

    def connect(self) -> BotDriver:
        """Attach a stream (a Hello that opened or resumed the session) and start reading it."""
        welcome = bot_pb.Welcome(session_id=self.session.id, bot_name=self.session.bot)
        self.stream = self.session.attach(welcome)
        self._task = asyncio.create_task(self._read(self.stream), name=f"bot {self.session.bot}")
        return self

    def disconnect(self) -> None:
        """The stream is lost: the session waits out its grace (as the BotService's stream ending does)."""
        self.session.detach(self.stream, self.registry.expire)

    async def _read(self, stream: int) -> None:
        while (message := await self.session.next_message(stream)) is not None:
            if isinstance(message, bytes):  # an encoded ActionRequest: read it as the bot would
                message = bot_pb.ConnectResponse.FromString(message)
            self.received.append(message)
            if self.answering and not isinstance(message, Hangup) and message.HasField("action_request"):
                self.answer(message.action_request, self.action_id)

    def answer(self, request: bot_pb.ActionRequest, action_id: int | None = None) -> None:
        chosen = request.legal_actions[0].id if action_id is None else action_id
        self.session.answer(bot_pb.Action(match_id=request.match_id, request_id=request.request_id, action_id=chosen))

    def of_kind(self, kind: str) -> list[Any]:
        """The payloads of the messages received of one kind of ConnectResponse (e.g. "action_request")."""
        return [
            getattr(m, kind) for m in self.received if not isinstance(m, Hangup) and m.WhichOneof("message") == kind
        ]

    def kinds(self) -> list[str]:
        return ["hangup" if isinstance(m, Hangup) else str(m.WhichOneof("message")) for m in self.received]

    async def received_kind(self, kind: str, count: int = 1, timeout: float = SLACK) -> list[Any]:
        """Wait until `count` messages of `kind` have arrived; returns them all."""

        async def arrived() -> bool:
            return len(self.of_kind(kind)) >= count

        await until(arrived, f"{self.session.bot} receives {count} {kind}", timeout=timeout, every=0.01)
        return self.of_kind(kind)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


class RelayNode:
    """One node's side of the relay: its sessions, and its Relay while it runs.

    It "dies" as a node does in a fleet, as far as the relay can tell: its Relay stops reading and
    beating (its task is cancelled) and its heartbeat lapses (the key is deleted, as its expiry would).
    """

    def __init__(self, redis: Redis, name: str, grace: float, playing_here: Callable[[str], bool]) -> None:
        self.redis = redis
        self.name = name
        self.registry = SessionRegistry(Limits(grace=grace))
        self.relay = Relay(redis, self.registry, name, playing_here)
        self.task: asyncio.Task[None] | None = None
        self.bots: list[BotDriver] = []

    def connect(self, bot: str, answering: bool = True) -> BotDriver:
        """A bot process connects to this node."""
        session, _ = self.registry.open(bot, hello("friday13"))
        driver = BotDriver(self.registry, session, answering).connect()
        self.bots.append(driver)
        return driver

    def start(self) -> RelayNode:
        """The node runs: its first refresh states its sessions and beats at once."""
        self.task = asyncio.create_task(self.relay.run(), name=f"relay {self.name}")
        return self

    async def die(self) -> None:
        """Stop reading and beating at once (killed, or stopped), and let the heartbeat lapse."""
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait_for(asyncio.gather(self.task, return_exceptions=True), SLACK)
            self.task = None
        await self.redis.delete(keys.node_alive(self.name))

    async def close(self) -> None:
        await self.die()
        for bot in self.bots:
            await bot.stop()


@pytest_asyncio.fixture
async def nodes(redis: Redis) -> AsyncIterator[Callable[..., RelayNode]]:
    """Makes relay nodes on the test's Redis: nodes(name, grace=60.0, playing_here=...); closes them after."""
    made: list[RelayNode] = []

    def make(name: str, grace: float = 60.0, playing_here: Callable[[str], bool] = lambda _: False) -> RelayNode:
        node = RelayNode(redis, name, grace, playing_here)
        made.append(node)
        return node

    try:
        yield make
    finally:
        for node in made:
            await node.close()
