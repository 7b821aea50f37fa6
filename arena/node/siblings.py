"""A session resumed on the worker that holds it: `arena serve --workers N` shares one port.

The kernel hands each new connection to any worker (SO_REUSEPORT), so a bot whose stream broke
reconnects, more often than not, to a worker other than the one holding its session, its pending
requests and its seats. That worker forwards the stream to its sibling: it opens a `Connect` to the
sibling's Unix socket with the bot's own token and Hello, and passes the messages both ways until
either side ends. The sibling checks the token again and resumes the session as for any stream.

Which sibling: each worker links its socket into a folder the supervisor made (`<folder>/w<index>`,
replaced when a worker restarts), and the Hello is offered to each in turn with `RESUME_ONLY` set,
so that a sibling that does not hold the session refuses at once (NOT_FOUND) rather than open a new
one. When none holds it (expired, or a worker that died with its sessions), the worker that took
the connection opens a new session itself, as a lone node does.

The marker restricts what a sibling does, so it needs no trust: anyone may send it, and gets at
most a refusal. The folder is the supervisor's (0700); the sockets in it are the workers' own.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from arena import metrics
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc

RESUME_ONLY = "x-arena-resume-only"
"""Metadata: resume the Hello's session if this node holds it, else refuse with NOT_FOUND (open none)."""
FORWARDED = ("authorization",)
"""The bot's metadata a forwarded stream carries: its token, which the sibling checks again."""
ASK_TIMEOUT = 5.0
"""Seconds all siblings together have to answer a forwarded Hello; after that the session is taken for gone."""


class Siblings:
    """The other workers of this supervisor, reached through the Unix sockets linked in `folder`."""

    def __init__(self, link: Path, max_receive: int, max_send: int) -> None:
        self.folder = link.parent
        self.own = link.name
        """This worker's link's name in the folder (`w<index>`)."""
        self._options = [("grpc.max_receive_message_length", max_send), ("grpc.max_send_message_length", max_receive)]
        self._channels: dict[str, tuple[str, grpc.aio.Channel]] = {}

    def join(self, socket_path: str) -> None:
        """Link this worker's socket into the folder, replacing the link of its earlier incarnation."""
        link = self.folder / self.own
        staged = self.folder / f".{self.own}.{os.getpid()}"
        staged.unlink(missing_ok=True)
        staged.symlink_to(socket_path)
        staged.replace(link)  # atomic: a sibling never finds the link missing while this worker restarts

    def others(self) -> list[str]:
        try:
            names = sorted(entry.name for entry in os.scandir(self.folder))
        except OSError:
            return []
        return [name for name in names if name != self.own and not name.startswith(".")]

    async def _channel(self, name: str) -> grpc.aio.Channel:
        target = os.readlink(self.folder / name)
        kept = self._channels.get(name)
        if kept is not None and kept[0] == target:
            return kept[1]
        if kept is not None:
            await kept[1].close()  # the sibling restarted: its socket is a new one
        channel = grpc.aio.insecure_channel(f"unix:{target}", options=self._options)
        self._channels[name] = (target, channel)
        return channel

    async def forward(self, hello: bot_pb.Hello, metadata: Sequence[tuple[str, Any]]) -> Forwarded | None:
        """The stream of the sibling that holds `hello`'s session, its Welcome already read; None if none does."""
        sent = (*((key, value) for key, value in metadata if key in FORWARDED), (RESUME_ONLY, "1"))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ASK_TIMEOUT
        for name in self.others():
            left = deadline - loop.time()
            if left <= 0:
                break
            try:
                forwarded = await asyncio.wait_for(self._ask(name, hello, sent), left)
            except TimeoutError:
                forwarded = None  # too slow to ask: taken for one that does not hold it
            if forwarded is not None:
                metrics.RESUMES_FORWARDED.labels("forwarded").inc()
                return forwarded
        metrics.RESUMES_FORWARDED.labels("not_held").inc()
        return None

    async def _ask(self, name: str, hello: bot_pb.Hello, sent: tuple[tuple[str, Any], ...]) -> Forwarded | None:
        try:
            call = bot_grpc.BotServiceStub(await self._channel(name)).Connect(metadata=sent)
        except OSError:
            return None  # its link is gone: the sibling restarts
        try:
            await call.write(bot_pb.ConnectRequest(hello=hello))
            first = await call.read()
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            first = None  # it does not hold the session (NOT_FOUND), or is down
        except BaseException:
            call.cancel()
            raise
        if first is None or first is grpc.aio.EOF or first.WhichOneof("message") != "welcome":
            call.cancel()
            return None
        return Forwarded(call, first)

    async def close(self) -> None:
        for _, channel in self._channels.values():
            await channel.close()
        self._channels.clear()


class Forwarded:
    """A bot's stream passed on to the sibling that resumed its session."""

    def __init__(self, call: Any, welcome: bot_pb.ConnectResponse) -> None:
        self.call = call
        self.welcome = welcome

    async def relay(self, context: grpc.aio.ServicerContext, unreadable: str) -> tuple[grpc.StatusCode, str] | None:
        """Pass messages both ways until either side ends; the status to end the bot's call with, if any
        (the sibling's, or `unreadable` after a message that could not be parsed)."""
        await context.write(self.welcome)
        upstream = asyncio.create_task(self._upstream(context))
        downstream = asyncio.create_task(self._downstream(context))
        try:
            await asyncio.wait((upstream, downstream), return_when=asyncio.FIRST_COMPLETED)
            if not downstream.done():
                bot_side = upstream.result()
                if bot_side == "unreadable":
                    return grpc.StatusCode.INVALID_ARGUMENT, unreadable
                if bot_side == "broken":
                    return None  # nothing can reach the bot; the sibling's session waits out its grace
            # The sibling ends the call: after the bot's half-close (it answers as for any stream), or by itself.
            return await downstream
        finally:
            self.call.cancel()
            for task in (upstream, downstream):
                task.cancel()
            await asyncio.gather(upstream, downstream, return_exceptions=True)

    async def _downstream(self, context: grpc.aio.ServicerContext) -> tuple[grpc.StatusCode, str] | None:
        """The sibling's messages to the bot, then its status (None: OK, or the bot can no longer be told)."""
        try:
            # read(), not `async for`: the Welcome was taken with read(), and grpc forbids mixing the two on a call.
            while (message := await self.call.read()) is not grpc.aio.EOF:
                await context.write(message)
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details() or ""
        except (grpc.RpcError, asyncio.InvalidStateError, RuntimeError):
            return None  # the bot's stream is gone
        return None

    async def _upstream(self, context: grpc.aio.ServicerContext) -> str:
        """The bot's messages to the sibling until its side ends: how ("half-close", "unreadable", "broken",
        or "sibling" when the sibling's side ended first)."""
        while True:
            try:
                message = await context.read()
            except DecodeError:
                return "unreadable"
            except (grpc.aio.AioRpcError, grpc.RpcError, asyncio.InvalidStateError):
                return "broken"
            try:
                if message is grpc.aio.EOF:
                    await self.call.done_writing()
                    return "half-close"
                await self.call.write(message)
            except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                return "sibling"
