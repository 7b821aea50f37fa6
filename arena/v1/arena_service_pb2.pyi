from arena.v1 import messages_pb2 as _messages_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BotKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_KIND_UNSPECIFIED: _ClassVar[BotKind]
    BOT_KIND_REMOTE: _ClassVar[BotKind]
    BOT_KIND_HOSTED: _ClassVar[BotKind]

class TournamentFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_FORMAT_UNSPECIFIED: _ClassVar[TournamentFormat]
    TOURNAMENT_FORMAT_ROUND_ROBIN: _ClassVar[TournamentFormat]
    TOURNAMENT_FORMAT_GAUNTLET: _ClassVar[TournamentFormat]
    TOURNAMENT_FORMAT_SWISS: _ClassVar[TournamentFormat]

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED_WITH_ABORTS: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_CANCELLED: _ClassVar[TournamentStatus]

class HostedVersionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HOSTED_VERSION_STATUS_UNSPECIFIED: _ClassVar[HostedVersionStatus]
    HOSTED_VERSION_STATUS_VALIDATING: _ClassVar[HostedVersionStatus]
    HOSTED_VERSION_STATUS_OK: _ClassVar[HostedVersionStatus]
    HOSTED_VERSION_STATUS_FAILED: _ClassVar[HostedVersionStatus]
BOT_KIND_UNSPECIFIED: BotKind
BOT_KIND_REMOTE: BotKind
BOT_KIND_HOSTED: BotKind
TOURNAMENT_FORMAT_UNSPECIFIED: TournamentFormat
TOURNAMENT_FORMAT_ROUND_ROBIN: TournamentFormat
TOURNAMENT_FORMAT_GAUNTLET: TournamentFormat
TOURNAMENT_FORMAT_SWISS: TournamentFormat
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus
TOURNAMENT_STATUS_FINISHED_WITH_ABORTS: TournamentStatus
TOURNAMENT_STATUS_CANCELLED: TournamentStatus
HOSTED_VERSION_STATUS_UNSPECIFIED: HostedVersionStatus
HOSTED_VERSION_STATUS_VALIDATING: HostedVersionStatus
HOSTED_VERSION_STATUS_OK: HostedVersionStatus
HOSTED_VERSION_STATUS_FAILED: HostedVersionStatus

class CreateOwnerRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class CreateOwnerResponse(_message.Message):
    __slots__ = ("name", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "games", "language", "description", "accepts_invitations")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ACCEPTS_INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    games: _containers.RepeatedScalarFieldContainer[str]
    language: str
    description: str
    accepts_invitations: bool
    def __init__(self, name: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., language: _Optional[str] = ..., description: _Optional[str] = ..., accepts_invitations: _Optional[bool] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("bot", "token")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    bot: BotInfo
    token: str
    def __init__(self, bot: _Optional[_Union[BotInfo, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class RotateBotTokenRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RotateBotTokenResponse(_message.Message):
    __slots__ = ("token",)
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class UpdateBotRequest(_message.Message):
    __slots__ = ("name", "accepts_invitations")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ACCEPTS_INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    accepts_invitations: bool
    def __init__(self, name: _Optional[str] = ..., accepts_invitations: _Optional[bool] = ...) -> None: ...

class UpdateBotResponse(_message.Message):
    __slots__ = ("bot",)
    BOT_FIELD_NUMBER: _ClassVar[int]
    bot: BotInfo
    def __init__(self, bot: _Optional[_Union[BotInfo, _Mapping]] = ...) -> None: ...

class BotInfo(_message.Message):
    __slots__ = ("name", "owner", "kind", "language", "games", "description", "created_ms", "connected", "accepts_invitations")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_MS_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    ACCEPTS_INVITATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    kind: BotKind
    language: str
    games: _containers.RepeatedScalarFieldContainer[str]
    description: str
    created_ms: int
    connected: bool
    accepts_invitations: bool
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., kind: _Optional[_Union[BotKind, str]] = ..., language: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., created_ms: _Optional[int] = ..., connected: _Optional[bool] = ..., accepts_invitations: _Optional[bool] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("owner",)
    OWNER_FIELD_NUMBER: _ClassVar[int]
    owner: str
    def __init__(self, owner: _Optional[str] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[BotInfo]
    def __init__(self, bots: _Optional[_Iterable[_Union[BotInfo, _Mapping]]] = ...) -> None: ...

class GetMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetMatchResponse(_message.Message):
    __slots__ = ("match", "replay_json")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    REPLAY_JSON_FIELD_NUMBER: _ClassVar[int]
    match: _messages_pb2.MatchSummary
    replay_json: str
    def __init__(self, match: _Optional[_Union[_messages_pb2.MatchSummary, _Mapping]] = ..., replay_json: _Optional[str] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("game", "bot", "limit", "tournament_id", "before", "after")
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    game: str
    bot: str
    limit: int
    tournament_id: str
    before: str
    after: str
    def __init__(self, game: _Optional[str] = ..., bot: _Optional[str] = ..., limit: _Optional[int] = ..., tournament_id: _Optional[str] = ..., before: _Optional[str] = ..., after: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches", "older", "newer")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    OLDER_FIELD_NUMBER: _ClassVar[int]
    NEWER_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[_messages_pb2.MatchSummary]
    older: str
    newer: str
    def __init__(self, matches: _Optional[_Iterable[_Union[_messages_pb2.MatchSummary, _Mapping]]] = ..., older: _Optional[str] = ..., newer: _Optional[str] = ...) -> None: ...

class WatchMatchRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class WatchMatchResponse(_message.Message):
    __slots__ = ("match", "public_view", "last_move", "ended")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_VIEW_FIELD_NUMBER: _ClassVar[int]
    LAST_MOVE_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    match: _messages_pb2.MatchSummary
    public_view: _messages_pb2.Observation
    last_move: str
    ended: bool
    def __init__(self, match: _Optional[_Union[_messages_pb2.MatchSummary, _Mapping]] = ..., public_view: _Optional[_Union[_messages_pb2.Observation, _Mapping]] = ..., last_move: _Optional[str] = ..., ended: _Optional[bool] = ...) -> None: ...

class CreateMatchRequest(_message.Message):
    __slots__ = ("game", "seats", "seed", "clock")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    game: _messages_pb2.GameSpec
    seats: _containers.RepeatedScalarFieldContainer[str]
    seed: str
    clock: _messages_pb2.Clock
    def __init__(self, game: _Optional[_Union[_messages_pb2.GameSpec, _Mapping]] = ..., seats: _Optional[_Iterable[str]] = ..., seed: _Optional[str] = ..., clock: _Optional[_Union[_messages_pb2.Clock, _Mapping]] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "seed_commitment")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seed_commitment: str
    def __init__(self, match_id: _Optional[str] = ..., seed_commitment: _Optional[str] = ...) -> None: ...

class GetLeaderboardRequest(_message.Message):
    __slots__ = ("game", "limit")
    GAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    game: str
    limit: int
    def __init__(self, game: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class LeaderboardRow(_message.Message):
    __slots__ = ("rank", "bot", "mu", "sigma", "conservative", "games", "last_played_ms", "provisional", "version")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    CONSERVATIVE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    LAST_PLAYED_MS_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    games: int
    last_played_ms: int
    provisional: bool
    version: str
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., conservative: _Optional[float] = ..., games: _Optional[int] = ..., last_played_ms: _Optional[int] = ..., provisional: _Optional[bool] = ..., version: _Optional[str] = ...) -> None: ...

class NeighbourOrder(_message.Message):
    __slots__ = ("upper", "lower", "z", "established", "since_games", "since_earlier")
    UPPER_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    Z_FIELD_NUMBER: _ClassVar[int]
    ESTABLISHED_FIELD_NUMBER: _ClassVar[int]
    SINCE_GAMES_FIELD_NUMBER: _ClassVar[int]
    SINCE_EARLIER_FIELD_NUMBER: _ClassVar[int]
    upper: str
    lower: str
    z: float
    established: bool
    since_games: int
    since_earlier: bool
    def __init__(self, upper: _Optional[str] = ..., lower: _Optional[str] = ..., z: _Optional[float] = ..., established: _Optional[bool] = ..., since_games: _Optional[int] = ..., since_earlier: _Optional[bool] = ...) -> None: ...

class GetLeaderboardResponse(_message.Message):
    __slots__ = ("game", "rows", "neighbours")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    NEIGHBOURS_FIELD_NUMBER: _ClassVar[int]
    game: str
    rows: _containers.RepeatedCompositeFieldContainer[LeaderboardRow]
    neighbours: _containers.RepeatedCompositeFieldContainer[NeighbourOrder]
    def __init__(self, game: _Optional[str] = ..., rows: _Optional[_Iterable[_Union[LeaderboardRow, _Mapping]]] = ..., neighbours: _Optional[_Iterable[_Union[NeighbourOrder, _Mapping]]] = ...) -> None: ...

class GetRatingHistoryRequest(_message.Message):
    __slots__ = ("bot", "game", "limit")
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    game: str
    limit: int
    def __init__(self, bot: _Optional[str] = ..., game: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class RatingPoint(_message.Message):
    __slots__ = ("match_id", "mu", "sigma", "conservative", "games", "at_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    CONSERVATIVE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    AT_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    mu: float
    sigma: float
    conservative: float
    games: int
    at_ms: int
    def __init__(self, match_id: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., conservative: _Optional[float] = ..., games: _Optional[int] = ..., at_ms: _Optional[int] = ...) -> None: ...

class GetRatingHistoryResponse(_message.Message):
    __slots__ = ("bot", "game", "points")
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    game: str
    points: _containers.RepeatedCompositeFieldContainer[RatingPoint]
    def __init__(self, bot: _Optional[str] = ..., game: _Optional[str] = ..., points: _Optional[_Iterable[_Union[RatingPoint, _Mapping]]] = ...) -> None: ...

class GetQueueRequest(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: str
    def __init__(self, game: _Optional[str] = ...) -> None: ...

class QueueEntry(_message.Message):
    __slots__ = ("game", "bot", "ticket", "waited_seconds", "since_ms")
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    TICKET_FIELD_NUMBER: _ClassVar[int]
    WAITED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SINCE_MS_FIELD_NUMBER: _ClassVar[int]
    game: str
    bot: str
    ticket: str
    waited_seconds: float
    since_ms: int
    def __init__(self, game: _Optional[str] = ..., bot: _Optional[str] = ..., ticket: _Optional[str] = ..., waited_seconds: _Optional[float] = ..., since_ms: _Optional[int] = ...) -> None: ...

class LadderQueue(_message.Message):
    __slots__ = ("game", "table_size", "entries")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    game: str
    table_size: int
    entries: _containers.RepeatedCompositeFieldContainer[QueueEntry]
    def __init__(self, game: _Optional[str] = ..., table_size: _Optional[int] = ..., entries: _Optional[_Iterable[_Union[QueueEntry, _Mapping]]] = ...) -> None: ...

class GetQueueResponse(_message.Message):
    __slots__ = ("queues",)
    QUEUES_FIELD_NUMBER: _ClassVar[int]
    queues: _containers.RepeatedCompositeFieldContainer[LadderQueue]
    def __init__(self, queues: _Optional[_Iterable[_Union[LadderQueue, _Mapping]]] = ...) -> None: ...

class RecomputeRatingsRequest(_message.Message):
    __slots__ = ("game", "parameters")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    game: str
    parameters: _containers.ScalarMap[str, float]
    def __init__(self, game: _Optional[str] = ..., parameters: _Optional[_Mapping[str, float]] = ...) -> None: ...

class RecomputeRatingsResponse(_message.Message):
    __slots__ = ("game", "results", "bots", "parameters")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    game: str
    results: int
    bots: int
    parameters: _containers.ScalarMap[str, float]
    def __init__(self, game: _Optional[str] = ..., results: _Optional[int] = ..., bots: _Optional[int] = ..., parameters: _Optional[_Mapping[str, float]] = ...) -> None: ...

class TournamentAbortedMatch(_message.Message):
    __slots__ = ("number", "match_id", "attempt", "reason", "rerun_match_id")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RERUN_MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    number: int
    match_id: str
    attempt: int
    reason: str
    rerun_match_id: str
    def __init__(self, number: _Optional[int] = ..., match_id: _Optional[str] = ..., attempt: _Optional[int] = ..., reason: _Optional[str] = ..., rerun_match_id: _Optional[str] = ...) -> None: ...

class TournamentSpec(_message.Message):
    __slots__ = ("name", "game", "entrants", "format", "table_size", "rounds", "duplicate", "rated", "seed", "hero", "seatings")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    HERO_FIELD_NUMBER: _ClassVar[int]
    SEATINGS_FIELD_NUMBER: _ClassVar[int]
    name: str
    game: _messages_pb2.GameSpec
    entrants: _containers.RepeatedScalarFieldContainer[str]
    format: TournamentFormat
    table_size: int
    rounds: int
    duplicate: bool
    rated: bool
    seed: str
    hero: str
    seatings: int
    def __init__(self, name: _Optional[str] = ..., game: _Optional[_Union[_messages_pb2.GameSpec, _Mapping]] = ..., entrants: _Optional[_Iterable[str]] = ..., format: _Optional[_Union[TournamentFormat, str]] = ..., table_size: _Optional[int] = ..., rounds: _Optional[int] = ..., duplicate: _Optional[bool] = ..., rated: _Optional[bool] = ..., seed: _Optional[str] = ..., hero: _Optional[str] = ..., seatings: _Optional[int] = ...) -> None: ...

class TournamentStanding(_message.Message):
    __slots__ = ("bot", "games", "mean_score", "ci95", "wins", "mean_rank", "mu", "sigma", "deals")
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MEAN_SCORE_FIELD_NUMBER: _ClassVar[int]
    CI95_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    MEAN_RANK_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    games: int
    mean_score: float
    ci95: float
    wins: int
    mean_rank: float
    mu: float
    sigma: float
    deals: int
    def __init__(self, bot: _Optional[str] = ..., games: _Optional[int] = ..., mean_score: _Optional[float] = ..., ci95: _Optional[float] = ..., wins: _Optional[int] = ..., mean_rank: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., deals: _Optional[int] = ...) -> None: ...

class HeadToHead(_message.Message):
    __slots__ = ("first", "second", "deals", "advantage", "ci95", "established")
    FIRST_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    DEALS_FIELD_NUMBER: _ClassVar[int]
    ADVANTAGE_FIELD_NUMBER: _ClassVar[int]
    CI95_FIELD_NUMBER: _ClassVar[int]
    ESTABLISHED_FIELD_NUMBER: _ClassVar[int]
    first: str
    second: str
    deals: int
    advantage: float
    ci95: float
    established: bool
    def __init__(self, first: _Optional[str] = ..., second: _Optional[str] = ..., deals: _Optional[int] = ..., advantage: _Optional[float] = ..., ci95: _Optional[float] = ..., established: _Optional[bool] = ...) -> None: ...

class TournamentInfo(_message.Message):
    __slots__ = ("spec", "done", "total", "finished_ms", "created_ms", "created_by", "standings", "score_name", "status", "due", "rerunning", "aborted", "cancelled", "aborted_matches", "waiting_for", "cancelled_ms", "cancelled_by", "head_to_head", "seed_commitment")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    FINISHED_MS_FIELD_NUMBER: _ClassVar[int]
    CREATED_MS_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    SCORE_NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DUE_FIELD_NUMBER: _ClassVar[int]
    RERUNNING_FIELD_NUMBER: _ClassVar[int]
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    ABORTED_MATCHES_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_MS_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_BY_FIELD_NUMBER: _ClassVar[int]
    HEAD_TO_HEAD_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    spec: TournamentSpec
    done: int
    total: int
    finished_ms: int
    created_ms: int
    created_by: str
    standings: _containers.RepeatedCompositeFieldContainer[TournamentStanding]
    score_name: str
    status: TournamentStatus
    due: int
    rerunning: int
    aborted: int
    cancelled: int
    aborted_matches: _containers.RepeatedCompositeFieldContainer[TournamentAbortedMatch]
    waiting_for: _containers.RepeatedScalarFieldContainer[str]
    cancelled_ms: int
    cancelled_by: str
    head_to_head: _containers.RepeatedCompositeFieldContainer[HeadToHead]
    seed_commitment: str
    def __init__(self, spec: _Optional[_Union[TournamentSpec, _Mapping]] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., finished_ms: _Optional[int] = ..., created_ms: _Optional[int] = ..., created_by: _Optional[str] = ..., standings: _Optional[_Iterable[_Union[TournamentStanding, _Mapping]]] = ..., score_name: _Optional[str] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., due: _Optional[int] = ..., rerunning: _Optional[int] = ..., aborted: _Optional[int] = ..., cancelled: _Optional[int] = ..., aborted_matches: _Optional[_Iterable[_Union[TournamentAbortedMatch, _Mapping]]] = ..., waiting_for: _Optional[_Iterable[str]] = ..., cancelled_ms: _Optional[int] = ..., cancelled_by: _Optional[str] = ..., head_to_head: _Optional[_Iterable[_Union[HeadToHead, _Mapping]]] = ..., seed_commitment: _Optional[str] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("spec",)
    SPEC_FIELD_NUMBER: _ClassVar[int]
    spec: TournamentSpec
    def __init__(self, spec: _Optional[_Union[TournamentSpec, _Mapping]] = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: TournamentInfo
    def __init__(self, tournament: _Optional[_Union[TournamentInfo, _Mapping]] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: TournamentInfo
    def __init__(self, tournament: _Optional[_Union[TournamentInfo, _Mapping]] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentInfo]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[TournamentInfo, _Mapping]]] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class WatchTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: TournamentInfo
    def __init__(self, tournament: _Optional[_Union[TournamentInfo, _Mapping]] = ...) -> None: ...

class CancelTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class CancelTournamentResponse(_message.Message):
    __slots__ = ("tournament", "cancelled", "running", "already_cancelled")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    ALREADY_CANCELLED_FIELD_NUMBER: _ClassVar[int]
    tournament: TournamentInfo
    cancelled: int
    running: int
    already_cancelled: bool
    def __init__(self, tournament: _Optional[_Union[TournamentInfo, _Mapping]] = ..., cancelled: _Optional[int] = ..., running: _Optional[int] = ..., already_cancelled: _Optional[bool] = ...) -> None: ...

class SubmitBotRequest(_message.Message):
    __slots__ = ("name", "game", "run", "chunk")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    name: str
    game: str
    run: str
    chunk: bytes
    def __init__(self, name: _Optional[str] = ..., game: _Optional[str] = ..., run: _Optional[str] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class HostedVersion(_message.Message):
    __slots__ = ("version", "sha256", "size_bytes", "run", "status", "reason", "created_ms", "validation_match_id")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_MS_FIELD_NUMBER: _ClassVar[int]
    VALIDATION_MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    version: int
    sha256: str
    size_bytes: int
    run: str
    status: HostedVersionStatus
    reason: str
    created_ms: int
    validation_match_id: str
    def __init__(self, version: _Optional[int] = ..., sha256: _Optional[str] = ..., size_bytes: _Optional[int] = ..., run: _Optional[str] = ..., status: _Optional[_Union[HostedVersionStatus, str]] = ..., reason: _Optional[str] = ..., created_ms: _Optional[int] = ..., validation_match_id: _Optional[str] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("version", "stderr_tail")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STDERR_TAIL_FIELD_NUMBER: _ClassVar[int]
    version: HostedVersion
    stderr_tail: str
    def __init__(self, version: _Optional[_Union[HostedVersion, _Mapping]] = ..., stderr_tail: _Optional[str] = ...) -> None: ...

class GetBotLogsRequest(_message.Message):
    __slots__ = ("name", "limit")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    name: str
    limit: int
    def __init__(self, name: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class HostedRun(_message.Message):
    __slots__ = ("version", "match_ids", "started_ms", "ended_ms", "ending", "stderr", "node")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_IDS_FIELD_NUMBER: _ClassVar[int]
    STARTED_MS_FIELD_NUMBER: _ClassVar[int]
    ENDED_MS_FIELD_NUMBER: _ClassVar[int]
    ENDING_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    version: int
    match_ids: _containers.RepeatedScalarFieldContainer[str]
    started_ms: int
    ended_ms: int
    ending: str
    stderr: str
    node: str
    def __init__(self, version: _Optional[int] = ..., match_ids: _Optional[_Iterable[str]] = ..., started_ms: _Optional[int] = ..., ended_ms: _Optional[int] = ..., ending: _Optional[str] = ..., stderr: _Optional[str] = ..., node: _Optional[str] = ...) -> None: ...

class GetBotLogsResponse(_message.Message):
    __slots__ = ("name", "versions", "runs")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    name: str
    versions: _containers.RepeatedCompositeFieldContainer[HostedVersion]
    runs: _containers.RepeatedCompositeFieldContainer[HostedRun]
    def __init__(self, name: _Optional[str] = ..., versions: _Optional[_Iterable[_Union[HostedVersion, _Mapping]]] = ..., runs: _Optional[_Iterable[_Union[HostedRun, _Mapping]]] = ...) -> None: ...

class CreateChallengeRequest(_message.Message):
    __slots__ = ("bot", "opponents", "game")
    BOT_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    bot: str
    opponents: _containers.RepeatedScalarFieldContainer[str]
    game: _messages_pb2.GameSpec
    def __init__(self, bot: _Optional[str] = ..., opponents: _Optional[_Iterable[str]] = ..., game: _Optional[_Union[_messages_pb2.GameSpec, _Mapping]] = ...) -> None: ...

class CreateChallengeResponse(_message.Message):
    __slots__ = ("match_id", "seed_commitment", "game", "seats")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seed_commitment: str
    game: _messages_pb2.GameSpec
    seats: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., seed_commitment: _Optional[str] = ..., game: _Optional[_Union[_messages_pb2.GameSpec, _Mapping]] = ..., seats: _Optional[_Iterable[str]] = ...) -> None: ...
