"""One typed client of the ArenaService for people's commands and tools, over plaintext or TLS.

Every `arena` command that talks to a running arena goes through `ArenaClient`: one method per
RPC, the request message in and the reply message out. A failed call raises `ArenaError` with
one line a person can act on (`error_message` is the only place that words gRPC failures).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.wire.address import DEFAULT_SERVER

TIMEOUT = 30.0
"""Seconds a call may take; uploads (SubmitBot) take longer, see `SUBMIT_TIMEOUT`."""
SUBMIT_TIMEOUT = 300.0
"""Seconds `SubmitBot` may take: the upload and the validation match."""
UNREACHABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

Reply = TypeVar("Reply", bound=Message)


class ArenaError(Exception):
    """A call to the arena failed; the message is one line for a person, `code` the gRPC status."""

    def __init__(self, message: str, code: grpc.StatusCode) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Connection:
    """Where the arena is and how to reach it: the address, the caller's token, TLS."""

    server: str = DEFAULT_SERVER
    token: str = ""
    tls: bool = False
    """Speak TLS, checking the server's certificate against the system's roots or `ca_cert`."""
    ca_cert: Path | None = None
    """A PEM file of the certificates to trust (a private CA, a self-signed server); implies TLS."""

    def credentials(self) -> grpc.ChannelCredentials | None:
        """TLS credentials, or None for plaintext."""
        if self.ca_cert is None and not self.tls:
            return None
        roots = None
        if self.ca_cert is not None:
            try:
                roots = self.ca_cert.read_bytes()
            except OSError as error:
                raise ArenaError(
                    f"cannot read the CA certificate {self.ca_cert}: {error.strerror}", grpc.StatusCode.INVALID_ARGUMENT
                ) from None
        return grpc.ssl_channel_credentials(root_certificates=roots)

    def metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),) if self.token else ()


def error_message(error: grpc.RpcError, server: str) -> str:
    """What a failed call means for the person who made it, in one line."""
    code = error.code()
    details = str(error.details() or "")
    first_line = details.splitlines()[0] if details else code.name
    if code in UNREACHABLE and any(word in details.lower() for word in ("ssl", "handshake", "certificate")):
        return f"no TLS connection to the arena at {server} (check --tls and --ca-cert): {first_line}"
    if code in UNREACHABLE:
        return f"cannot reach the arena at {server} (is `arena serve` running?)"
    return first_line


class ArenaClient:
    """The ArenaService of one arena; use as `async with ArenaClient(connection) as arena: ...`."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        credentials = connection.credentials()
        if credentials is None:
            self._channel = grpc.aio.insecure_channel(connection.server)
        else:
            self._channel = grpc.aio.secure_channel(connection.server, credentials)
        # The generated stub has no type hints: the typed methods below are its only users.
        self._stub: Any = api_grpc.ArenaServiceStub(self._channel)

    async def __aenter__(self) -> ArenaClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self._channel.close()

    def _failed(self, error: grpc.RpcError) -> ArenaError:
        return ArenaError(error_message(error, self.connection.server), error.code())

    async def _call(self, rpc: str, request: Any, reply: type[Reply], timeout: float = TIMEOUT) -> Reply:
        try:
            answer: Reply = await getattr(self._stub, rpc)(
                request, metadata=self.connection.metadata(), timeout=timeout
            )
        except grpc.aio.AioRpcError as error:
            raise self._failed(error) from None
        return answer

    async def create_owner(self, request: api_pb.CreateOwnerRequest) -> api_pb.CreateOwnerResponse:
        return await self._call("CreateOwner", request, api_pb.CreateOwnerResponse)

    async def register_bot(self, request: api_pb.RegisterBotRequest) -> api_pb.RegisterBotResponse:
        return await self._call("RegisterBot", request, api_pb.RegisterBotResponse)

    async def rotate_bot_token(self, request: api_pb.RotateBotTokenRequest) -> api_pb.RotateBotTokenResponse:
        return await self._call("RotateBotToken", request, api_pb.RotateBotTokenResponse)

    async def update_bot(self, request: api_pb.UpdateBotRequest) -> api_pb.UpdateBotResponse:
        return await self._call("UpdateBot", request, api_pb.UpdateBotResponse)

    async def list_bots(self, request: api_pb.ListBotsRequest) -> api_pb.ListBotsResponse:
        return await self._call("ListBots", request, api_pb.ListBotsResponse)

    async def submit_bot(self, requests: Iterable[api_pb.SubmitBotRequest]) -> api_pb.SubmitBotResponse:
        return await self._call("SubmitBot", iter(requests), api_pb.SubmitBotResponse, timeout=SUBMIT_TIMEOUT)

    async def get_bot_logs(self, request: api_pb.GetBotLogsRequest) -> api_pb.GetBotLogsResponse:
        return await self._call("GetBotLogs", request, api_pb.GetBotLogsResponse)

    async def get_match(self, request: api_pb.GetMatchRequest) -> api_pb.GetMatchResponse:
        return await self._call("GetMatch", request, api_pb.GetMatchResponse)

    async def list_matches(self, request: api_pb.ListMatchesRequest) -> api_pb.ListMatchesResponse:
        return await self._call("ListMatches", request, api_pb.ListMatchesResponse)

    async def create_match(self, request: api_pb.CreateMatchRequest) -> api_pb.CreateMatchResponse:
        return await self._call("CreateMatch", request, api_pb.CreateMatchResponse)

    async def get_leaderboard(self, request: api_pb.GetLeaderboardRequest) -> api_pb.GetLeaderboardResponse:
        return await self._call("GetLeaderboard", request, api_pb.GetLeaderboardResponse)

    async def get_rating_history(self, request: api_pb.GetRatingHistoryRequest) -> api_pb.GetRatingHistoryResponse:
        return await self._call("GetRatingHistory", request, api_pb.GetRatingHistoryResponse)

    async def get_queue(self, request: api_pb.GetQueueRequest) -> api_pb.GetQueueResponse:
        return await self._call("GetQueue", request, api_pb.GetQueueResponse)

    async def recompute_ratings(self, request: api_pb.RecomputeRatingsRequest) -> api_pb.RecomputeRatingsResponse:
        return await self._call("RecomputeRatings", request, api_pb.RecomputeRatingsResponse)

    async def create_tournament(self, request: api_pb.CreateTournamentRequest) -> api_pb.CreateTournamentResponse:
        return await self._call("CreateTournament", request, api_pb.CreateTournamentResponse)

    async def get_tournament(self, request: api_pb.GetTournamentRequest) -> api_pb.GetTournamentResponse:
        return await self._call("GetTournament", request, api_pb.GetTournamentResponse)

    async def list_tournaments(self, request: api_pb.ListTournamentsRequest) -> api_pb.ListTournamentsResponse:
        return await self._call("ListTournaments", request, api_pb.ListTournamentsResponse)

    async def cancel_tournament(self, request: api_pb.CancelTournamentRequest) -> api_pb.CancelTournamentResponse:
        return await self._call("CancelTournament", request, api_pb.CancelTournamentResponse)

    async def watch_tournament(
        self, request: api_pb.WatchTournamentRequest
    ) -> AsyncIterator[api_pb.WatchTournamentResponse]:
        """The tournament's state now and after every change, until it ends."""
        try:
            async for update in self._stub.WatchTournament(request, metadata=self.connection.metadata()):
                yield update
        except grpc.aio.AioRpcError as error:
            raise self._failed(error) from None
