from arena.v1 import messages_pb2 as _messages_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_LATE: _ClassVar[ErrorCode]
    ERROR_CODE_ILLEGAL_ACTION: _ClassVar[ErrorCode]
    ERROR_CODE_UNKNOWN_REQUEST: _ClassVar[ErrorCode]
    ERROR_CODE_UNKNOWN_MATCH: _ClassVar[ErrorCode]
    ERROR_CODE_BAD_MESSAGE: _ClassVar[ErrorCode]
    ERROR_CODE_FLOOD: _ClassVar[ErrorCode]
    ERROR_CODE_FORFEIT: _ClassVar[ErrorCode]
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_LATE: ErrorCode
ERROR_CODE_ILLEGAL_ACTION: ErrorCode
ERROR_CODE_UNKNOWN_REQUEST: ErrorCode
ERROR_CODE_UNKNOWN_MATCH: ErrorCode
ERROR_CODE_BAD_MESSAGE: ErrorCode
ERROR_CODE_FLOOD: ErrorCode
ERROR_CODE_FORFEIT: ErrorCode

class ConnectRequest(_message.Message):
    __slots__ = ("hello", "action", "actions")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action: Action
    actions: Actions
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., actions: _Optional[_Union[Actions, _Mapping]] = ...) -> None: ...

class Actions(_message.Message):
    __slots__ = ("actions",)
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("games", "max_matches", "join_ladder", "resume_session_id", "client", "batches")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_MATCHES_FIELD_NUMBER: _ClassVar[int]
    JOIN_LADDER_FIELD_NUMBER: _ClassVar[int]
    RESUME_SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    BATCHES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedScalarFieldContainer[str]
    max_matches: int
    join_ladder: bool
    resume_session_id: str
    client: str
    batches: bool
    def __init__(self, games: _Optional[_Iterable[str]] = ..., max_matches: _Optional[int] = ..., join_ladder: _Optional[bool] = ..., resume_session_id: _Optional[str] = ..., client: _Optional[str] = ..., batches: _Optional[bool] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("match_id", "request_id", "action_id", "debug")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    DEBUG_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    action_id: int
    debug: str
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., action_id: _Optional[int] = ..., debug: _Optional[str] = ...) -> None: ...

class ConnectResponse(_message.Message):
    __slots__ = ("welcome", "match_started", "action_request", "match_ended", "error", "action_requests")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    ACTION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ACTION_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_started: MatchStarted
    action_request: ActionRequest
    match_ended: MatchEnded
    error: Error
    action_requests: ActionRequests
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., action_request: _Optional[_Union[ActionRequest, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., action_requests: _Optional[_Union[ActionRequests, _Mapping]] = ...) -> None: ...

class ActionRequests(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[ActionRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[ActionRequest, _Mapping]]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "bot_name", "resumed", "grace_ms", "server_version", "max_messages_per_second")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    RESUMED_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGES_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    bot_name: str
    resumed: bool
    grace_ms: int
    server_version: str
    max_messages_per_second: int
    def __init__(self, session_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., resumed: _Optional[bool] = ..., grace_ms: _Optional[int] = ..., server_version: _Optional[str] = ..., max_messages_per_second: _Optional[int] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ("match_id", "game", "seat", "seats", "seed_commitment", "clock")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: _messages_pb2.GameSpec
    seat: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    seed_commitment: str
    clock: _messages_pb2.Clock
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[_Union[_messages_pb2.GameSpec, _Mapping]] = ..., seat: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., seed_commitment: _Optional[str] = ..., clock: _Optional[_Union[_messages_pb2.Clock, _Mapping]] = ...) -> None: ...

class ActionRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "observation", "legal_actions", "time_left_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    observation: _messages_pb2.Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[_messages_pb2.LegalAction]
    time_left_ms: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., observation: _Optional[_Union[_messages_pb2.Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[_messages_pb2.LegalAction, _Mapping]]] = ..., time_left_ms: _Optional[int] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("match_id", "scores", "ranks", "termination", "seed", "forfeited")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    termination: _messages_pb2.Termination
    seed: str
    forfeited: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, match_id: _Optional[str] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., termination: _Optional[_Union[_messages_pb2.Termination, str]] = ..., seed: _Optional[str] = ..., forfeited: _Optional[_Iterable[int]] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "match_id", "request_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    match_id: str
    request_id: int
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., match_id: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...
