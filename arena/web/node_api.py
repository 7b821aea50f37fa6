"""The web UI's way to the node's gRPC API, for what a signed-in owner changes.

Every write goes through the node's own RPCs with the owner's token (RegisterBot, RotateBotToken,
SubmitBot, GetBotLogs, CreateChallenge), so that who may do what, the limits and the validation of an
upload stay in one place: the web UI checks only what it must before it calls (the session, CSRF, the
size of a body it streams on).
"""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus

import grpc

from arena.v1 import arena_service_pb2_grpc as api_grpc

CALL_TIMEOUT = 30.0
"""Seconds a call other than SubmitBot may take."""
SUBMIT_TIMEOUT = 300.0
"""Seconds SubmitBot may take: it waits for the version's validation match (at most 120 s by default)."""
STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: HTTPStatus.UNPROCESSABLE_ENTITY,
    grpc.StatusCode.NOT_FOUND: HTTPStatus.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS: HTTPStatus.CONFLICT,
    grpc.StatusCode.PERMISSION_DENIED: HTTPStatus.FORBIDDEN,
    grpc.StatusCode.UNAUTHENTICATED: HTTPStatus.UNAUTHORIZED,
    grpc.StatusCode.FAILED_PRECONDITION: HTTPStatus.CONFLICT,
    grpc.StatusCode.RESOURCE_EXHAUSTED: HTTPStatus.TOO_MANY_REQUESTS,
    grpc.StatusCode.UNAVAILABLE: HTTPStatus.SERVICE_UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED: HTTPStatus.GATEWAY_TIMEOUT,
}
"""The HTTP status of a refused call; any other code is 502 (the node failed)."""


@dataclass(frozen=True)
class NodeAddress:
    """Where the web UI reaches its node's gRPC API, and what it tells bot authors to dial."""

    target: str
    """A gRPC target on this machine: the node's Unix socket ("unix:/tmp/arena-.../bots.sock"), whose
    folder only the node's user may enter, or a loopback address for a supervisor's workers."""
    port: int
    """The node's gRPC port on the network, for the command that connects a bot."""
    tls: bool = False
    """Whether that port speaks TLS (the command then says so)."""


def http_status(error: grpc.aio.AioRpcError) -> int:
    return int(STATUS.get(error.code(), HTTPStatus.BAD_GATEWAY))


def one_line(error: grpc.aio.AioRpcError) -> str:
    return " ".join((error.details() or error.code().name.lower().replace("_", " ")).split())


class NodeApi:
    """A channel to the node's ArenaService, opened on first use in the running event loop."""

    def __init__(self, address: NodeAddress) -> None:
        self.address = address
        self._channel: grpc.aio.Channel | None = None
        self._stub: api_grpc.ArenaServiceStub | None = None

    @property
    def stub(self) -> api_grpc.ArenaServiceStub:
        if self._stub is None:
            self._channel = grpc.aio.insecure_channel(self.address.target)
            self._stub = api_grpc.ArenaServiceStub(self._channel)
        return self._stub

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
        self._channel = self._stub = None
