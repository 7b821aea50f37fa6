from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Piece(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PIECE_UNSPECIFIED: _ClassVar[Piece]
    PIECE_EMPTY: _ClassVar[Piece]
    PIECE_BLACK: _ClassVar[Piece]
    PIECE_WHITE: _ClassVar[Piece]
    PIECE_NEUTRAL_MONUMENT: _ClassVar[Piece]
    PIECE_BLACK_MONUMENT: _ClassVar[Piece]
    PIECE_WHITE_MONUMENT: _ClassVar[Piece]

class FieldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIELD_KIND_UNSPECIFIED: _ClassVar[FieldKind]
    FIELD_KIND_NEUTRAL: _ClassVar[FieldKind]
    FIELD_KIND_BLACK_ONLY: _ClassVar[FieldKind]
    FIELD_KIND_WHITE_ONLY: _ClassVar[FieldKind]

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_NORMAL: _ClassVar[Termination]
    TERMINATION_FORFEIT: _ClassVar[Termination]
    TERMINATION_ABORTED: _ClassVar[Termination]
PIECE_UNSPECIFIED: Piece
PIECE_EMPTY: Piece
PIECE_BLACK: Piece
PIECE_WHITE: Piece
PIECE_NEUTRAL_MONUMENT: Piece
PIECE_BLACK_MONUMENT: Piece
PIECE_WHITE_MONUMENT: Piece
FIELD_KIND_UNSPECIFIED: FieldKind
FIELD_KIND_NEUTRAL: FieldKind
FIELD_KIND_BLACK_ONLY: FieldKind
FIELD_KIND_WHITE_ONLY: FieldKind
TERMINATION_UNSPECIFIED: Termination
TERMINATION_NORMAL: Termination
TERMINATION_FORFEIT: Termination
TERMINATION_ABORTED: Termination

class GameSpec(_message.Message):
    __slots__ = ("game", "players", "edition", "scenario", "params")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    edition: str
    scenario: str
    params: _containers.ScalarMap[str, str]
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., edition: _Optional[str] = ..., scenario: _Optional[str] = ..., params: _Optional[_Mapping[str, str]] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "text")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    id: int
    text: str
    def __init__(self, id: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class Card(_message.Message):
    __slots__ = ("suit", "value")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    suit: str
    value: int
    def __init__(self, suit: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...

class Pile(_message.Message):
    __slots__ = ("suit", "cards", "total")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    suit: str
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    total: int
    def __init__(self, suit: _Optional[str] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class CardList(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class CardMove(_message.Message):
    __slots__ = ("seat", "card", "pile")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    PILE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: Card
    pile: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., pile: _Optional[str] = ...) -> None: ...

class RoundPenalties(_message.Message):
    __slots__ = ("penalties",)
    PENALTIES_FIELD_NUMBER: _ClassVar[int]
    penalties: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, penalties: _Optional[_Iterable[int]] = ...) -> None: ...

class CardObservation(_message.Message):
    __slots__ = ("round", "rounds", "first_player", "dealer", "current_player", "hand", "piles", "hand_sizes", "draw_pile_size", "dummy_size", "collected", "moves", "scores", "round_penalties", "seat")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PILES_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    DRAW_PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    DUMMY_SIZE_FIELD_NUMBER: _ClassVar[int]
    COLLECTED_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    ROUND_PENALTIES_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    round: int
    rounds: int
    first_player: int
    dealer: int
    current_player: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    piles: _containers.RepeatedCompositeFieldContainer[Pile]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    draw_pile_size: int
    dummy_size: int
    collected: _containers.RepeatedCompositeFieldContainer[CardList]
    moves: _containers.RepeatedCompositeFieldContainer[CardMove]
    scores: _containers.RepeatedScalarFieldContainer[int]
    round_penalties: _containers.RepeatedCompositeFieldContainer[RoundPenalties]
    seat: int
    def __init__(self, round: _Optional[int] = ..., rounds: _Optional[int] = ..., first_player: _Optional[int] = ..., dealer: _Optional[int] = ..., current_player: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., piles: _Optional[_Iterable[_Union[Pile, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., draw_pile_size: _Optional[int] = ..., dummy_size: _Optional[int] = ..., collected: _Optional[_Iterable[_Union[CardList, _Mapping]]] = ..., moves: _Optional[_Iterable[_Union[CardMove, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., round_penalties: _Optional[_Iterable[_Union[RoundPenalties, _Mapping]]] = ..., seat: _Optional[int] = ...) -> None: ...

class Field(_message.Message):
    __slots__ = ("square", "kind", "piece", "movable")
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PIECE_FIELD_NUMBER: _ClassVar[int]
    MOVABLE_FIELD_NUMBER: _ClassVar[int]
    square: str
    kind: FieldKind
    piece: Piece
    movable: bool
    def __init__(self, square: _Optional[str] = ..., kind: _Optional[_Union[FieldKind, str]] = ..., piece: _Optional[_Union[Piece, str]] = ..., movable: _Optional[bool] = ...) -> None: ...

class Board13Observation(_message.Message):
    __slots__ = ("scenario", "fields", "reserves", "toppled", "ply", "ply_limit", "current_player", "passes", "capture_diagonal", "goal", "neutral_toppled", "moves", "scores", "seat")
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    RESERVES_FIELD_NUMBER: _ClassVar[int]
    TOPPLED_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    PLY_LIMIT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    CAPTURE_DIAGONAL_FIELD_NUMBER: _ClassVar[int]
    GOAL_FIELD_NUMBER: _ClassVar[int]
    NEUTRAL_TOPPLED_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    scenario: str
    fields: _containers.RepeatedCompositeFieldContainer[Field]
    reserves: _containers.RepeatedScalarFieldContainer[int]
    toppled: _containers.RepeatedScalarFieldContainer[int]
    ply: int
    ply_limit: int
    current_player: int
    passes: int
    capture_diagonal: bool
    goal: str
    neutral_toppled: _containers.RepeatedScalarFieldContainer[int]
    moves: _containers.RepeatedCompositeFieldContainer[Board13Move]
    scores: _containers.RepeatedScalarFieldContainer[int]
    seat: int
    def __init__(self, scenario: _Optional[str] = ..., fields: _Optional[_Iterable[_Union[Field, _Mapping]]] = ..., reserves: _Optional[_Iterable[int]] = ..., toppled: _Optional[_Iterable[int]] = ..., ply: _Optional[int] = ..., ply_limit: _Optional[int] = ..., current_player: _Optional[int] = ..., passes: _Optional[int] = ..., capture_diagonal: _Optional[bool] = ..., goal: _Optional[str] = ..., neutral_toppled: _Optional[_Iterable[int]] = ..., moves: _Optional[_Iterable[_Union[Board13Move, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., seat: _Optional[int] = ...) -> None: ...

class Board13Move(_message.Message):
    __slots__ = ("seat", "action_id", "text")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action_id: int
    text: str
    def __init__(self, seat: _Optional[int] = ..., action_id: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class GenericObservation(_message.Message):
    __slots__ = ("json",)
    JSON_FIELD_NUMBER: _ClassVar[int]
    json: str
    def __init__(self, json: _Optional[str] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("cards", "board13", "generic")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    BOARD13_FIELD_NUMBER: _ClassVar[int]
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    cards: CardObservation
    board13: Board13Observation
    generic: GenericObservation
    def __init__(self, cards: _Optional[_Union[CardObservation, _Mapping]] = ..., board13: _Optional[_Union[Board13Observation, _Mapping]] = ..., generic: _Optional[_Union[GenericObservation, _Mapping]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("per_move_ms", "bank_ms")
    PER_MOVE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    per_move_ms: int
    bank_ms: int
    def __init__(self, per_move_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("match_id", "game", "seats", "scores", "ranks", "termination", "started_ms", "ended_ms", "tournament_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    STARTED_MS_FIELD_NUMBER: _ClassVar[int]
    ENDED_MS_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: GameSpec
    seats: _containers.RepeatedScalarFieldContainer[str]
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    termination: Termination
    started_ms: int
    ended_ms: int
    tournament_id: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[_Union[GameSpec, _Mapping]] = ..., seats: _Optional[_Iterable[str]] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., termination: _Optional[_Union[Termination, str]] = ..., started_ms: _Optional[int] = ..., ended_ms: _Optional[int] = ..., tournament_id: _Optional[str] = ...) -> None: ...
