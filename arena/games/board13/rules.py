"""The common rules of the 13thg board games, played on the layout of a scenario.

Black (seat 0) moves first. While a side has stones in reserve it places one; afterwards it
moves a stone (or a movable monument) any distance along a row, column or diagonal, without
jumping. The mover captures every enemy piece it encloses against one of its own pieces; the
entry ban keeps a piece off a field between two enemy pieces. The exact rules are in
CLARIFICATIONS.md and docs/BOARD13.md.

Actions are ints: `place F` is F (0..48), `move F-T` is 49 + 49*F + T, `pass` is PASS.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

from arena.games.base import (
    REPLAY_FORMAT,
    Action,
    Game,
    GameError,
    InvalidActionText,
    InvalidParameters,
    Outcome,
    State,
    Termination,
    ranks_from_scores,
    seed_commitment,
)
from arena.games.board13.board import (
    AXES,
    BLACK_STONE,
    CLAMPS,
    EMPTY,
    FIELDS,
    FIXED,
    FLANKS,
    GLYPHS,
    LINES,
    MONUMENT,
    NAMES,
    NEUTRAL_MONUMENT,
    OWNER,
    PIECE_NAMES,
    RAYS,
    SIDES,
    WHITE_STONE,
    between,
    parse_field,
)
from arena.games.board13.scenario import (
    BLACK_FIELD,
    KIND_NAMES,
    NEUTRAL_FIELD,
    WHITE_FIELD,
    Scenario,
    load_scenario,
)

NAME = "board13"
DEFAULT_SCENARIO = "duel"
MOVE_BASE = FIELDS
"""The id of `move a1-a1`; a move F-T is MOVE_BASE + FIELDS * F + T."""
PASS = MOVE_BASE + FIELDS * FIELDS
"""The id of `pass`, allowed only when no placement or move is."""
ACTION_COUNT = PASS + 1

WIN, DRAW, LOSS = 2, 1, 0
"""Points: 2 for a win, 1 each for a draw, 0 for a loss (chess scoring, doubled to stay whole)."""

ENDINGS = ("goal", "passes", "ply_limit")
"""How a match ends: a side reached its goal, two passes in a row, or the ply limit."""


def place_action(field: int) -> Action:
    return field


def move_action(start: int, end: int) -> Action:
    return MOVE_BASE + FIELDS * start + end


class Board13(Game):
    """A 13thg board game for two; the scenario gives the layout and the goal."""

    name = NAME
    min_players = 2
    max_players = 2
    score_name = "points"
    lower_is_better = False

    def __init__(self, players: int = 2, scenario: str | Scenario = DEFAULT_SCENARIO) -> None:
        if type(players) is not int or players != 2:
            raise InvalidParameters(f"{NAME} is for exactly 2 players, not {players!r}: set players to 2")
        self.players = 2
        if isinstance(scenario, Scenario):
            self.scenario = scenario
            self.scenario_spec = scenario.name
        else:
            self.scenario = load_scenario(scenario)
            self.scenario_spec = scenario
        sc = self.scenario
        self.clamps = CLAMPS[sc.capture_diagonal]
        self.axes = AXES[sc.capture_diagonal]
        self.flanks = FLANKS[sc.capture_diagonal]
        self.allowed = sc.allowed

    def new_match(self, seed: bytes = b"") -> Board13State:
        """The scenario's starting position; the seed picks nothing (full information, fixed layout)."""
        return Board13State.start(self, seed)

    def params(self) -> dict[str, Any]:
        return {"players": self.players, "scenario": self.scenario_spec}

    def action_text(self, action: Action) -> str:
        if isinstance(action, int) and not isinstance(action, bool):
            if 0 <= action < MOVE_BASE:
                return f"place {NAMES[action]}"
            if action == PASS:
                return "pass"
            if MOVE_BASE <= action < PASS:
                start, end = divmod(action - MOVE_BASE, FIELDS)
                if (start, end) in LINES:
                    return f"move {NAMES[start]}-{NAMES[end]}"
        raise InvalidActionText(f"{action!r} is not an action id of {NAME}")

    def action_from_text(self, text: str) -> Action:
        words = text.strip().lower().split()
        if words == ["pass"]:
            return PASS
        if len(words) == 2 and words[0] == "place":
            field = parse_field(words[1])
            if field is None:
                raise InvalidActionText(
                    f"{text!r}: {words[1]!r} is not a field; write place F with F from a1 to g7, e.g. place d4"
                )
            return place_action(field)
        if len(words) == 2 and words[0] == "move":
            start_text, dash, end_text = words[1].partition("-")
            start, end = parse_field(start_text), parse_field(end_text)
            if not dash or start is None or end is None:
                raise InvalidActionText(f"{text!r}: write move FROM-TO with fields a1 to g7, e.g. move c3-c6")
            if (start, end) not in LINES:
                raise InvalidActionText(
                    f"{text!r}: a move goes along a row, column or diagonal to another field, e.g. move c3-c6 or move c3-e5"
                )
            return move_action(start, end)
        raise InvalidActionText(f"{text!r} is not a board13 action; write place d4, move c3-c6 or pass")

    def replay(self, record: Mapping[str, Any]) -> Board13State:
        """Re-play a record from the scenario's start; raise GameError on any mismatch."""
        if record.get("game") != NAME:
            raise GameError(f"the record is of {record.get('game')!r}, not {NAME!r}")
        seed = bytes.fromhex(record["seed"])
        if seed_commitment(seed) != record["seed_commitment"]:
            raise GameError("the seed does not match its commitment")
        rounds = record["rounds"]
        if len(rounds) != 1:
            raise GameError(f"a {NAME} record holds exactly one round, not {len(rounds)}")
        state = self.new_match(seed)
        if rounds[0].get("scenario") != self.scenario.to_dict():
            raise GameError(f"the record was played on another layout than scenario {self.scenario.name!r}")
        for number, move in enumerate(rounds[0]["moves"], start=1):
            if move["seat"] != state.current_player():
                raise GameError(f"ply {number}: seat {move['seat']} moved out of turn")
            try:
                state.apply(self.action_from_text(move["move"]))
            except GameError as error:
                raise GameError(f"ply {number}: {error}") from None
        rebuilt = state.record(record["seats"], Termination(record["termination"]))
        for key in ("rounds", "scores"):
            if rebuilt[key] != record[key]:
                raise GameError(f"the record's {key} differ from what the rules give")
        return state


@dataclass(frozen=True, slots=True)
class Board13Observation:
    """The whole position (board13 has no hidden information); `to_dict` gives JSON-ready text.

    `board` holds a piece code per field (see board.py), `reserves`, `toppled` (monuments each
    side has toppled, every kind) and `neutral_toppled` are per side, black first.
    """

    game: str
    scenario: Scenario
    seat: int
    current_player: int
    board: tuple[int, ...]
    reserves: tuple[int, int]
    toppled: tuple[int, int]
    neutral_toppled: tuple[int, int]
    ply: int
    passes: int
    legal_actions: tuple[int, ...]
    moves: tuple[int, ...]
    """Every action since the start (or since the position the state was built from), in order."""
    movers: tuple[int, ...]
    """The seat that made each of `moves`."""
    scores: tuple[int, ...]
    """Points once the match is over, else empty."""

    def to_dict(self) -> dict[str, Any]:
        sides = SIDES
        return {
            "game": self.game,
            "scenario": self.scenario.name,
            "seat": self.seat,
            "side": sides[self.seat] if self.seat >= 0 else None,
            "current_player": self.current_player,
            "ply": self.ply,
            "ply_limit": self.scenario.ply_limit,
            "passes": self.passes,
            "goal": self.scenario.goal,
            "capture_diagonal": self.scenario.capture_diagonal,
            "pieces": {NAMES[f]: PIECE_NAMES[code] for f, code in enumerate(self.board) if code},
            "movable": [NAMES[f] for f, code in enumerate(self.board) if code & MONUMENT and not code & FIXED],
            "rows": diagram_rows(self.board),
            "reserves": dict(zip(sides, self.reserves, strict=True)),
            "toppled": dict(zip(sides, self.toppled, strict=True)),
            "neutral_toppled": dict(zip(sides, self.neutral_toppled, strict=True)),
            "moves": [
                {"seat": seat, "move": _text(action)} for seat, action in zip(self.movers, self.moves, strict=True)
            ],
            "scores": list(self.scores),
        }


def _text(action: Action) -> str:
    if action < MOVE_BASE:
        return f"place {NAMES[action]}"
    if action == PASS:
        return "pass"
    start, end = divmod(action - MOVE_BASE, FIELDS)
    return f"move {NAMES[start]}-{NAMES[end]}"


def diagram_rows(board: Sequence[int]) -> list[str]:
    """The board as 7 rows of glyphs, rank 7 first (`from_diagram` reads them back)."""
    rows = []
    for rank in range(6, -1, -1):
        rows.append(" ".join(GLYPHS[board[rank * 7 + file]].ljust(2) for file in range(7)).rstrip())
    return rows


@dataclass(frozen=True, slots=True)
class _Origin:
    """Where a state's move list starts: the record re-plays the moves from here."""

    board: tuple[int, ...]
    reserves: tuple[int, int]
    turn: int
    ply: int
    toppled: tuple[int, int]
    neutral_toppled: tuple[int, int]


class Board13State(State[Board13]):
    """A board13 match in progress."""

    # `game` is the base class's attribute.
    __slots__ = (
        "seed",
        "origin",
        "board",
        "reserves",
        "turn",
        "ply",
        "passes",
        "toppled",
        "neutral_toppled",
        "monuments_left",
        "moves",
        "movers",
        "ending",
        "winner",
    )

    def __init__(self, game: Board13, seed: bytes, origin: _Origin) -> None:
        self.game = game
        self.seed = seed
        self.origin = origin
        self.board = list(origin.board)
        self.reserves = list(origin.reserves)
        self.turn = origin.turn
        """The seat to move, -1 once the match is over."""
        self.ply = origin.ply
        self.passes = 0
        """Passes in a row just before now."""
        self.toppled = list(origin.toppled)
        self.neutral_toppled = list(origin.neutral_toppled)
        self.monuments_left = [
            sum(1 for code in self.board if code & MONUMENT and code & OWNER == bit) for bit in (1, 2)
        ]
        """Partisan monuments of each side still standing."""
        self.moves: list[Action] = []
        self.movers: list[int] = []
        self.ending = ""
        """One of ENDINGS once the match is over."""
        self.winner = -1
        """The winning seat once the match is over; -1 for a draw (or while it runs)."""

    @classmethod
    def start(cls, game: Board13, seed: bytes = b"") -> Board13State:
        sc = game.scenario
        return cls(game, seed, _Origin(sc.board, sc.reserves, 0, 0, (0, 0), (0, 0)))

    @classmethod
    def from_diagram(
        cls,
        diagram: str | Sequence[str],
        *,
        to_move: str = "black",
        reserves: tuple[int, int] = (0, 0),
        black_fields: Sequence[str] = (),
        white_fields: Sequence[str] = (),
        capture_diagonal: bool = False,
        goal: str | None = None,
        ply_limit: int = 200,
        ply: int = 0,
    ) -> Board13State:
        """A position drawn as 7 rows, rank 7 first, one glyph per field (spaces are ignored).

        Glyphs: `.` empty, `b`/`w` black/white stone, `B`/`W` black/white monument, `N` neutral
        monument, and a `*` right after B or W makes that monument movable. `+` and `-` mark empty
        black-only and white-only fields; `black_fields`/`white_fields` name reserved fields
        that hold a piece. The goal defaults to neutral_monuments when the diagram has a neutral
        monument, else enemy_monuments; `ply` is how many plies count as played already (for
        the ply limit). Used by tests and docs to set up positions by hand.
        """
        rows = diagram.strip().splitlines() if isinstance(diagram, str) else list(diagram)
        rows = [row for row in (r.strip() for r in rows) if row]
        if len(rows) != 7:
            raise ValueError(f"a diagram has 7 rows (rank 7 first), not {len(rows)}")
        codes = {glyph: code for code, glyph in GLYPHS.items()}
        board = [EMPTY] * FIELDS
        kinds = [NEUTRAL_FIELD] * FIELDS
        for rank, row in zip(range(6, -1, -1), rows, strict=True):
            glyphs: list[str] = []
            for char in row.replace(" ", ""):
                if char == "*" and glyphs:
                    glyphs[-1] += char
                else:
                    glyphs.append(char)
            if len(glyphs) != 7:
                raise ValueError(f"diagram rank {rank + 1}: {row!r} has {len(glyphs)} fields, not 7")
            for file, glyph in enumerate(glyphs):
                spot = rank * 7 + file
                if glyph in "+-":
                    kinds[spot] = BLACK_FIELD if glyph == "+" else WHITE_FIELD
                elif glyph in codes:
                    board[spot] = codes[glyph]
                else:
                    raise ValueError(f"diagram rank {rank + 1}: unknown glyph {glyph!r}; use . b w B W N B* W* + -")
        for names, kind in ((black_fields, BLACK_FIELD), (white_fields, WHITE_FIELD)):
            for name in names:
                reserved = parse_field(name)
                if reserved is None:
                    raise ValueError(f"{name!r} is not a field")
                kinds[reserved] = kind
        if goal is None:
            goal = "neutral_monuments" if NEUTRAL_MONUMENT in board else "enemy_monuments"
        scenario = Scenario(
            name="diagram",
            description="a position set up by hand",
            goal=goal,
            board=tuple(board),
            kinds=tuple(kinds),
            reserves=reserves,
            capture_diagonal=capture_diagonal,
            ply_limit=ply_limit,
            source="<diagram>",
        )
        turn = SIDES.index(to_move)
        return cls(Board13(scenario=scenario), b"", _Origin(tuple(board), reserves, turn, ply, (0, 0), (0, 0)))

    @classmethod
    def from_observation(cls, game: Board13, obs: Board13Observation) -> Board13State:
        """The position the observation shows (complete: board13 hides nothing)."""
        origin = _Origin(obs.board, obs.reserves, obs.current_player, obs.ply, obs.toppled, obs.neutral_toppled)
        state = cls(game, b"", origin)
        state.passes = obs.passes
        if obs.current_player < 0:
            state.turn = -1
        return state

    # -- the rules --------------------------------------------------------------------------

    def current_player(self) -> int:
        return self.turn

    def is_terminal(self) -> bool:
        return self.turn < 0

    def legal_actions(self) -> list[Action]:
        actions = self._actions()
        actions.sort()
        return actions

    def _actions(self) -> list[Action]:
        """The legal actions in no particular order: the playouts' hot path."""
        turn = self.turn
        if turn < 0:
            return []
        board = self.board
        landable = list(self.game.allowed[turn])
        enemy = 2 - turn
        flanks = self.game.flanks
        for spot in range(FIELDS):
            if board[spot] & OWNER == enemy:
                for middle, far in flanks[spot]:
                    if board[far] & OWNER == enemy:
                        landable[middle] = False
        if self.reserves[turn]:
            actions = [spot for spot in range(FIELDS) if landable[spot] and not board[spot]]
        else:
            mine = turn + 1
            actions = []
            for start in range(FIELDS):
                code = board[start]
                if code & OWNER != mine or code & FIXED:
                    continue
                base = MOVE_BASE + FIELDS * start
                for ray in RAYS[start]:
                    for end in ray:
                        if board[end]:
                            break
                        if landable[end]:
                            actions.append(base + end)
        return actions or [PASS]

    def _illegal_reason(self, action: Action) -> str | None:
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < ACTION_COUNT:
            return f"{action!r} is not an action id of {NAME}"
        turn = self.turn
        side = SIDES[turn]
        board = self.board
        if action == PASS:
            if self.legal_actions() != [PASS]:
                return f"{side} has a legal placement or move, so it may not pass"
            return None
        if action < MOVE_BASE:
            if not self.reserves[turn]:
                return f"{side} has no stone left in reserve: move a stone (move FROM-TO) instead"
            return self._landing_problem(action, turn)
        start, end = divmod(action - MOVE_BASE, FIELDS)
        if (start, end) not in LINES:
            return f"{action!r} is not an action id of {NAME}"
        text = _text(action)
        if self.reserves[turn]:
            return f"{side} still has {self.reserves[turn]} stones in reserve and must place one (place F)"
        code = board[start]
        if code & OWNER != turn + 1:
            return f"{text}: {NAMES[start]} holds no {side} piece"
        if code & FIXED:
            return f"{text}: the monument on {NAMES[start]} is immovable"
        for spot in between(start, end):
            if board[spot]:
                return f"{text}: the way is blocked on {NAMES[spot]} (no jumping)"
        return self._landing_problem(end, turn)

    def _landing_problem(self, spot: int, turn: int) -> str | None:
        board = self.board
        name = NAMES[spot]
        if board[spot]:
            return f"{name} is not empty"
        if not self.game.allowed[turn][spot]:
            return f"{name} is a {KIND_NAMES[self.game.scenario.kinds[spot]]}-only field"
        enemy = 2 - turn
        for a, b in self.game.axes[spot]:
            if board[a] & OWNER == enemy and board[b] & OWNER == enemy:
                return f"{name} lies between the {SIDES[enemy - 1]} pieces on {NAMES[a]} and {NAMES[b]} (entry ban)"
        return None

    def _apply(self, action: Action) -> None:
        self._step(action)

    def _step(self, action: Action) -> list[int]:
        """Carry out a legal action; returns the fields whose pieces it removed."""
        turn = self.turn
        self.moves.append(action)
        self.movers.append(turn)
        self.ply += 1
        removed: list[int] = []
        if action == PASS:
            self.passes += 1
        else:
            self.passes = 0
            board = self.board
            if action < MOVE_BASE:
                end = action
                board[end] = BLACK_STONE if turn == 0 else WHITE_STONE
                self.reserves[turn] -= 1
            else:
                start, end = divmod(action - MOVE_BASE, FIELDS)
                board[end] = board[start]
                board[start] = EMPTY
            mine = turn + 1
            enemy = 2 - turn
            for near, far in self.game.clamps[end]:
                code = board[near]
                if code and board[far] & OWNER == mine:
                    owner = code & OWNER
                    if owner == enemy:
                        board[near] = EMPTY
                        removed.append(near)
                        if code & MONUMENT:
                            self.toppled[turn] += 1
                            self.monuments_left[enemy - 1] -= 1
                    elif code == NEUTRAL_MONUMENT:
                        board[near] = EMPTY
                        removed.append(near)
                        self.toppled[turn] += 1
                        self.neutral_toppled[turn] += 1
            if removed and self._reached_goal(turn):
                self._finish("goal", turn)
                return removed
        if self.passes >= 2:
            self._finish("passes", self._leader())
        elif self.ply >= self.game.scenario.ply_limit:
            self._finish("ply_limit", self._leader())
        else:
            self.turn = 1 - turn
        return removed

    def _reached_goal(self, seat: int) -> bool:
        scenario = self.game.scenario
        if scenario.goal == "enemy_monuments":
            return self.monuments_left[1 - seat] == 0
        return 2 * self.neutral_toppled[seat] > scenario.neutral_monuments

    def _leader(self) -> int:
        """The tie-breaks: more monuments toppled, then more stones on the board; -1 for a draw."""
        black, white = self.toppled
        if black == white:
            black, white = self.board.count(BLACK_STONE), self.board.count(WHITE_STONE)
        return -1 if black == white else (0 if black > white else 1)

    def _finish(self, ending: str, winner: int) -> None:
        self.ending = ending
        self.winner = winner
        self.turn = -1

    def outcome(self) -> Outcome:
        if self.turn >= 0:
            return Outcome((DRAW, DRAW), (1, 1), Termination.UNFINISHED)
        scores = self.scores()
        return Outcome(scores, ranks_from_scores(scores, lower_is_better=False), Termination.NORMAL)

    def scores(self) -> tuple[int, int]:
        """Points: 2 for the winner, 0 for the loser, 1 each for a draw or an unfinished match."""
        if self.winner < 0:
            return (DRAW, DRAW)
        return (WIN, LOSS) if self.winner == 0 else (LOSS, WIN)

    def default_action(self) -> Action:
        """The action that removes most (monuments first), else the lowest legal action."""
        capture = self.best_capture()
        return capture[2] if capture[2] >= 0 else min(self._actions())

    def gain(self, action: Action) -> tuple[int, int]:
        """(monuments, stones) that a legal `action` would remove, without playing it."""
        if action == PASS:
            return (0, 0)
        return self._gain_at(action if action < MOVE_BASE else (action - MOVE_BASE) % FIELDS)

    def _gain_at(self, end: int) -> tuple[int, int]:
        """(monuments, stones) that a piece of the side to move arriving on `end` would remove.

        Where the piece comes from never matters: a piece coming from beyond an enclosed one
        would have had to jump over it.
        """
        board = self.board
        mine = self.turn + 1
        enemy = 2 - self.turn
        monuments = stones = 0
        for near, far in self.game.clamps[end]:
            code = board[near]
            if code and board[far] & OWNER == mine:
                if code & OWNER == enemy:
                    if code & MONUMENT:
                        monuments += 1
                    else:
                        stones += 1
                elif code == NEUTRAL_MONUMENT:
                    monuments += 1
        return monuments, stones

    def best_capture(self) -> tuple[int, int, Action]:
        """(monuments, stones, action) for the legal action that removes most, monuments first.

        (0, 0, -1) when no action removes anything. Cheaper than trying every action: only the
        empty fields next to something removable are looked at, then whether a piece can get there.
        """
        turn = self.turn
        best: tuple[int, int, Action] = (0, 0, -1)
        if turn < 0:
            return best
        board = self.board
        allowed = self.game.allowed[turn]
        axes = self.game.axes
        placing = self.reserves[turn] > 0
        mine = turn + 1
        enemy = 2 - turn
        for end in range(FIELDS):
            if board[end] or not allowed[end]:
                continue
            monuments, stones = self._gain_at(end)
            if (monuments, stones) <= best[:2]:
                continue
            if any(board[a] & OWNER == enemy and board[b] & OWNER == enemy for a, b in axes[end]):
                continue
            if placing:
                best = (monuments, stones, end)
                continue
            for ray in RAYS[end]:
                for spot in ray:
                    code = board[spot]
                    if code:
                        if code & OWNER == mine and not code & FIXED:
                            best = (monuments, stones, move_action(spot, end))
                        break
                if best[2] >= 0 and best[:2] == (monuments, stones):
                    break
        return best

    def clone(self) -> Self:
        # Not object.__new__: the base class may be compiled (mypyc), which allocates its own part.
        twin = type(self).__new__(type(self))
        twin.game = self.game
        twin.seed = self.seed
        twin.origin = self.origin
        twin.board = self.board[:]
        twin.reserves = self.reserves[:]
        twin.turn = self.turn
        twin.ply = self.ply
        twin.passes = self.passes
        twin.toppled = self.toppled[:]
        twin.neutral_toppled = self.neutral_toppled[:]
        twin.monuments_left = self.monuments_left[:]
        twin.moves = self.moves[:]
        twin.movers = self.movers[:]
        twin.ending = self.ending
        twin.winner = self.winner
        return twin

    def observation(self, seat: int) -> Board13Observation:
        return self._observe(seat)

    def public_observation(self) -> Board13Observation:
        """The spectator's view: everything, as seat -1."""
        return self._observe(-1)

    def _observe(self, seat: int) -> Board13Observation:
        return Board13Observation(
            game=NAME,
            scenario=self.game.scenario,
            seat=seat,
            current_player=self.turn,
            board=tuple(self.board),
            reserves=(self.reserves[0], self.reserves[1]),
            toppled=(self.toppled[0], self.toppled[1]),
            neutral_toppled=(self.neutral_toppled[0], self.neutral_toppled[1]),
            ply=self.ply,
            passes=self.passes,
            legal_actions=tuple(self.legal_actions()) if seat >= 0 and seat == self.turn else (),
            moves=tuple(self.moves),
            movers=tuple(self.movers),
            scores=self.scores() if self.turn < 0 else (),
        )

    def record(self, seats: Sequence[str], termination: Termination = Termination.NORMAL) -> dict[str, Any]:
        origin = self.origin
        # The state keeps only action ids (playouts stay fast); a replica re-plays them from the
        # origin to learn what each move removed.
        replica = type(self)(self.game, self.seed, origin)
        moves = []
        for action in self.moves:
            seat = replica.turn
            before = replica.board[:]
            removed = replica._step(action)
            moves.append(
                {
                    "seat": seat,
                    "move": _text(action),
                    "captured": [NAMES[spot] for spot in removed if not before[spot] & MONUMENT],
                    "toppled": [NAMES[spot] for spot in removed if before[spot] & MONUMENT],
                }
            )
        outcome = self.outcome()
        entry: dict[str, Any] = {
            "first_player": origin.turn,
            "scenario": self.game.scenario.to_dict(),
            "initial": {
                "rows": diagram_rows(origin.board),
                "reserves": dict(zip(SIDES, origin.reserves, strict=True)),
                "ply": origin.ply,
            },
            "moves": moves,
            "end": self.ending or None,
            "toppled": dict(zip(SIDES, self.toppled, strict=True)),
            "stones": {"black": self.board.count(BLACK_STONE), "white": self.board.count(WHITE_STONE)},
        }
        return {
            "format": REPLAY_FORMAT,
            "game": NAME,
            "params": self.game.params(),
            "seats": list(seats),
            "seed": self.seed.hex(),
            "seed_commitment": seed_commitment(self.seed),
            "rounds": [entry],
            "scores": list(outcome.scores),
            "ranks": list(outcome.ranks),
            "termination": termination,
        }

    # -- for search bots and benchmarks -------------------------------------------------------

    def playout(self, rng: random.Random, horizon: int | None = None) -> None:
        """Play uniformly random legal actions to the end, or for at most `horizon` plies."""
        rand = rng.random
        plies = 0
        while self.turn >= 0 and (horizon is None or plies < horizon):
            actions = self._actions()
            self._step(actions[int(rand() * len(actions))])
            plies += 1
