"""The node's own CPU a move, without gRPC: what a remote seat costs beyond the match runner.

    python benchmarks/move_path.py [--matches 32] [--batches 4] [--repeats 5]

`--matches` 4-player friday13 matches run at once in this process, `--batches` times over, in two ways,
repeats alternating:
- `remote`: each seat a RemoteSeat on one of four Sessions, as a node seats a connected bot: the
  request encoded and queued in the session's outbox, its answer awaited under the move's clock. A
  task per session plays the bot: it takes each request from the outbox, parses it and answers with
  a random legal action through `Session.answer`, as the stream reader does with a bot's Action;
  the bot's own part (parsing the request, choosing, making the Action) is timed and left out.
- `in-process`: the same matches with built-in random bots (BotSeat): the runner and the engine
  alone, the reference.
Prints the CPU microseconds a move of each (the best repeat) and their difference. A move through
the arena (benchmarks/grpc_throughput.py) adds gRPC's read and write, the storing of results and
the event streams to `remote`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable

from machine import describe

from arena.bots import Bot, make_bot
from arena.games import make_game
from arena.games.base import Game
from arena.match import BotSeat, Clock, MatchRunner, Seat
from arena.node.remote_seat import RemoteSeat
from arena.node.sessions import Limits, Session, SessionRegistry
from arena.v1 import bot_service_pb2 as bot_pb
from arena.wire import convert

GAME = make_game("friday13", players=4)
CLOCK = Clock(per_move=5.0, bank=10.0)


class Bots:
    """The bots' side of the sessions, and the CPU seconds of their own part (parsing, choosing)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    async def answer_requests(self, session: Session, stream: int, seed: int) -> None:
        """Answer every request of `session` with a random legal action."""
        rng = random.Random(seed)
        while (message := await session.next_message(stream)) is not None:
            if isinstance(message, bytes):
                started = time.process_time()
                request = bot_pb.ConnectResponse.FromString(message).action_request
                legal = request.legal_actions
                choice = legal[int(rng.random() * len(legal))].id
                action = bot_pb.Action(match_id=request.match_id, request_id=request.request_id, action_id=choice)
                self.seconds += time.process_time() - started
                session.answer(action)


async def play(matches: int, batches: int, remote: bool) -> tuple[int, float]:
    """Moves played and the CPU seconds they took, less the bots' own part."""
    registry = SessionRegistry(Limits(max_sessions_per_bot=4))
    sessions = []
    bots = []
    answering = Bots()
    for index in range(GAME.players):
        hello = bot_pb.Hello(games=["friday13"], max_matches=matches * batches, client="benchmarks/move_path")
        session, _ = registry.open(f"bot{index}", hello)
        stream = session.attach(bot_pb.Welcome(session_id=session.id))
        sessions.append(session)
        bots.append(asyncio.create_task(answering.answer_requests(session, stream, index)))
    moves = 0
    started = time.process_time()
    for batch in range(batches):
        runners = []
        for number in range(matches):
            match_id = f"m{batch:03d}-{number:03d}"
            seats: list[Seat]
            if remote:
                encoder = convert.encoder_for(GAME)
                for session in sessions:
                    session.seated(match_id)
                seats = [RemoteSeat(session, match_id, GAME, encoder) for session in sessions]
            else:
                seats = [BotSeat(f"random{index}", _random(number)) for index in range(GAME.players)]
            runners.append(MatchRunner(GAME, seats, match_id.encode(), match_id=match_id, clock=CLOCK))
        for result in await asyncio.gather(*(runner.run() for runner in runners)):
            moves += sum(record.moves for record in result.seat_records)
    used = time.process_time() - started - answering.seconds
    for bot in bots:
        bot.cancel()
    registry.close_all()
    return moves, used


def _random(seed: int) -> Callable[[Game, int], Bot]:
    return lambda game, seat: make_bot("random", game, seat, seed=seed * 10 + seat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(describe())
    best = {"remote": float("inf"), "in-process": float("inf")}
    for _ in range(args.repeats):
        for way in best:
            moves, used = asyncio.run(play(args.matches, args.batches, way == "remote"))
            best[way] = min(best[way], used / moves)
    for way, seconds in best.items():
        print(f"{way}: {seconds * 1e6:.1f} µs of CPU a move (best of {args.repeats})")
    print(f"a remote seat's cost beyond the runner: {(best['remote'] - best['in-process']) * 1e6:.1f} µs a move")


if __name__ == "__main__":
    main()
