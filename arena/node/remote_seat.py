"""A seat played by a bot over its session: requests go out as ActionRequest, answers come back."""

from __future__ import annotations

from arena import protowire as wire
from arena.games.base import Action, Game
from arena.match import MAX_STRIKES, MatchEnd, MatchInfo, MoveRequest, Seat
from arena.node.sessions import Session
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from arena.wire import convert


class RemoteSeat(Seat):
    """One seat of one match, played by the bot behind `session`."""

    timed = True

    def __init__(self, session: Session, match_id: str, game: Game, encoder: convert.Encoder) -> None:
        self.name = session.bot
        self.session = session
        self.match_id = match_id
        self.encoder = encoder
        """Shared by every seat and watcher of the match: the public part is encoded once."""
        self.legal = legal_actions_of(game)
        self._match_field = match_field(match_id)
        self.strikes = 0
        self._move: MoveRequest | None = None
        self._answered = False

    async def start(self, info: MatchInfo) -> None:
        started = bot_pb.MatchStarted(
            match_id=self.match_id,
            game=convert.spec_from_game(info.game),
            seat=info.seat,
            seats=info.seats,
            seed_commitment=info.seed_commitment,
            clock=convert.clock_to_pb(info.clock),
        )
        self.session.started[self.match_id] = started
        self.session.send(bot_pb.ConnectResponse(match_started=started))

    async def request(self, move: MoveRequest) -> Action:
        self._move, self._answered = move, False
        body = request_body(self._match_field, self.encoder, move, self.legal)
        pending = self.session.request(self.match_id, body, move.time_left)
        try:
            action = await pending.answer
        finally:
            self.session.pending.pop(pending.request_id, None)
        self._answered = True
        move.debug = pending.debug
        return action

    async def reject(self, move: MoveRequest, reason: str) -> None:
        """Tell the bot about its strike; the third forfeits the match."""
        self.strikes += 1
        illegal = self._move is move and self._answered
        code = bot_pb.ERROR_CODE_ILLEGAL_ACTION if illegal else bot_pb.ERROR_CODE_LATE
        self.session.error(code, reason, self.match_id)
        if self.strikes >= MAX_STRIKES:
            self.session.error(
                bot_pb.ERROR_CODE_FORFEIT,
                f"{MAX_STRIKES} strikes: you forfeit match {self.match_id}; your seat plays on with default moves "
                "and is ranked last",
                self.match_id,
            )

    async def end(self, result: MatchEnd) -> None:
        self.session.matches.discard(self.match_id)
        self.session.started.pop(self.match_id, None)
        self.session.send(
            bot_pb.ConnectResponse(
                match_ended=bot_pb.MatchEnded(
                    match_id=self.match_id,
                    scores=result.scores,
                    ranks=result.ranks,
                    termination=convert.termination_to_pb(result.termination),
                    seed=result.seed.hex(),
                    forfeited=result.forfeited,
                )
            )
        )


_REQUEST = bot_pb.ActionRequest
_OBSERVATION = wire.number_of(_REQUEST, "observation")


def match_field(match_id: str) -> bytes:
    """`ActionRequest.match_id` set to `match_id`, encoded (once per seat)."""
    return wire.embedded(wire.number_of(_REQUEST, "match_id"), match_id.encode())


def request_body(match: bytes, encoder: convert.Encoder, move: MoveRequest, legal: LegalActions) -> bytes:
    """The fields of the ActionRequest for `move` that the seat knows, encoded: its match (`match_field`), the
    observation and the legal actions. The session adds the request id and the time left (`Session.request`)."""
    return b"".join(
        [
            match,
            wire.embedded(_OBSERVATION, move.encoded_observation(encoder)),
            *[legal[action] for action in move.legal_actions],
        ]
    )


class LegalActions(dict[int, bytes]):
    """Every action of one game as an element of `ActionRequest.legal_actions`, encoded on first use."""

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.game = game

    def __missing__(self, action: int) -> bytes:
        encoded = bot_pb.ActionRequest(
            legal_actions=[pb.LegalAction(id=action, text=self.game.action_text(action))]
        ).SerializeToString()
        self[action] = encoded
        return encoded


_TABLES: dict[str, LegalActions] = {}


def legal_actions_of(game: Game) -> LegalActions:
    """The table of `game` (per name and parameters), shared by every match of it."""
    key = repr(game)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = LegalActions(game)
    return table
