"""What a friday13 ActionRequest costs to put on the wire, as a node sends one every move.

    python benchmarks/request_encoding.py [--matches 30] [--players 4] [--repeats 7]

Random matches are played first and, at every move, a copy of the state is kept. Then, repeats
alternating, each move's whole ConnectResponse is made into bytes
- `state`: as the node does (`arena.node.remote_seat.request_body`, `Session.request`): the move's
  `MoveRequest`, one encoder per match, in match order, reading the seat's view from the state
  (`CardEncoder.encode_seat`) and joining each part's kept encoding (arena.protowire);
- `observation`: the same, with the seat's `CardObservation` made first and encoded
  (`encode_bytes`), as the node did before;
- `library`: the message built whole from protobuf objects and serialized by the library, the
  plain way (`whole_request`), the reference.
All three give the same message (tests/benchmarks/test_request_encoding.py,
tests/protocol/test_wire_encoding.py). Prints microseconds a request, the best repeat of each, and
the ratios.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from machine import describe

from arena.games import make_game
from arena.games.cards import CardGame, CardObservation, CardState
from arena.match import MoveRequest
from arena.node.remote_seat import legal_actions_of, match_field, request_body
from arena.node.sessions import Pending
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from arena.wire import convert

TIME_LEFT = 1.0


class Move(NamedTuple):
    """One move of a played match: the state before it (a copy) and the seat to move."""

    state: CardState
    seat: int

    def request(self, request_id: int) -> MoveRequest:
        """The request the node's runner makes for this move."""
        return MoveRequest(request_id, self.state, self.seat, TIME_LEFT)


def whole_observation(obs: CardObservation) -> pb.Observation:
    """The observation's message built whole from protobuf objects."""
    message = pb.Observation()
    view = message.cards

    def card(code: int) -> pb.Card:
        return pb.Card(suit=obs.suits[code >> 3], value=code & 7)

    view.round, view.rounds, view.first_player, view.dealer = obs.round, obs.rounds, obs.first_player, obs.dealer
    if obs.current_player >= 0:
        view.current_player = obs.current_player
    view.hand.extend(card(code) for code in obs.hand)
    for index, pile in enumerate(obs.piles):
        view.piles.add(suit=obs.suits[index], cards=[card(code) for code in pile], total=obs.totals[index])
    view.hand_sizes.extend(obs.hand_sizes)
    view.draw_pile_size, view.dummy_size = obs.draw_pile_size, obs.dummy_size
    for taken in obs.collected:
        view.collected.add(cards=[card(code) for code in taken])
    for index, action in enumerate(obs.moves):
        seat = (obs.first_player + index) % obs.players
        view.moves.add(seat=seat, card=card(action // 3), pile=obs.suits[action % 3])
    view.scores.extend(obs.scores)
    for penalties in obs.round_penalties:
        view.round_penalties.add(penalties=penalties)
    view.seat = obs.seat
    return message


def whole_request(
    game: CardGame, match_id: str, request_id: int, state: CardState, seat: int
) -> bot_pb.ConnectResponse:
    """The request to `seat` at `state`, its whole message built from protobuf objects."""
    return bot_pb.ConnectResponse(
        action_request=bot_pb.ActionRequest(
            match_id=match_id,
            request_id=request_id,
            observation=whole_observation(state.observation(seat)),
            legal_actions=[
                pb.LegalAction(id=action, text=game.action_text(action)) for action in state.legal_actions()
            ],
            time_left_ms=int(TIME_LEFT * 1000),
        )
    )


def played(game: CardGame, matches: int) -> list[list[Move]]:
    """Every move of `matches` random matches."""
    out = []
    for number in range(matches):
        rng = random.Random(number)
        state = game.new_match(number.to_bytes(8, "big"))
        moves = []
        while not state.is_terminal():
            moves.append(Move(state.clone(), state.current_player()))
            state.apply(rng.choice(state.legal_actions()))
        out.append(moves)
    return out


def encoded(game: CardGame, matches: Sequence[Sequence[Move]], observed: bool) -> Iterator[bytes]:
    """Each move's ConnectResponse as the node makes it; `observed`: with its observation made first."""
    legal = legal_actions_of(game)
    for number, moves in enumerate(matches):
        encoder, match = convert.encoder_for(game), match_field(f"m{number:06d}")
        for request_id, move in enumerate(moves, 1):
            request = move.request(request_id)
            if observed:
                request.observation  # noqa: B018 (made, as the node made it before)
            body = request_body(match, encoder, request, legal)
            yield Pending("", request_id, body, 0.0, None).encoded(TIME_LEFT)  # type: ignore[arg-type]


def node(game: CardGame, matches: Sequence[Sequence[Move]], observed: bool) -> float:
    """Seconds to make every request as the node does (`encoded`)."""
    started = time.perf_counter()
    for _ in encoded(game, matches, observed):
        pass
    return time.perf_counter() - started


def library(game: CardGame, matches: Sequence[Sequence[Move]]) -> float:
    started = time.perf_counter()
    for number, moves in enumerate(matches):
        for request_id, move in enumerate(moves, 1):
            whole_request(game, f"m{number:06d}", request_id, move.state, move.seat).SerializeToString()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    game = make_game("friday13", players=args.players)
    assert isinstance(game, CardGame)
    matches = played(game, args.matches)
    count = sum(len(moves) for moves in matches)
    print(describe())
    print(f"{args.matches} random {args.players}-player friday13 matches, {count} requests")
    ways: dict[str, Callable[[], float]] = {
        "state": lambda: node(game, matches, observed=False),
        "observation": lambda: node(game, matches, observed=True),
        "library": lambda: library(game, matches),
    }
    best = dict.fromkeys(ways, float("inf"))
    for _ in range(args.repeats):
        for name, way in ways.items():
            best[name] = min(best[name], way())
    for name, seconds in best.items():
        print(f"{name}: {seconds / count * 1e6:.1f} µs a request (best of {args.repeats})")
    print(f"state / observation: {best['state'] / best['observation']:.2f} of the time")
    print(f"state / library: {best['state'] / best['library']:.2f} of the time")


if __name__ == "__main__":
    main()
