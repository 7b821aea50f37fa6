"""benchmarks/request_encoding.py runs as its docstring says and times what it names: both ways make the
same bytes' message for every request it times."""

from __future__ import annotations

import re

from arena.games import make_game
from arena.games.cards import CardGame
from arena.node.remote_seat import legal_actions_of, match_field, request_body
from arena.node.sessions import Pending
from arena.v1 import bot_service_pb2 as bot_pb
from arena.wire import convert
from tests.benchmarks.scripts import benchmark_module, run_script


def test_both_ways_make_the_same_message_for_every_request_the_benchmark_times() -> None:
    game = make_game("friday13", players=3)
    assert isinstance(game, CardGame)
    with benchmark_module("request_encoding") as bench:
        matches = bench.played(game, 2)
        legal = legal_actions_of(game)
        for number, moves in enumerate(matches):
            encoder, match = convert.encoder_for(game), match_field(f"m{number:06d}")
            for request_id, move in enumerate(moves, 1):
                body = request_body(match, encoder, move, legal)
                sent = Pending("", request_id, body, 0.0, None).encoded(bench.TIME_LEFT)  # type: ignore[arg-type]
                assert bot_pb.ConnectResponse.FromString(sent) == bench.whole_request(
                    game, f"m{number:06d}", request_id, move
                )
    assert sum(len(moves) for moves in matches) > 0


def test_the_benchmark_prints_each_way_and_their_ratio() -> None:
    printed = run_script("request_encoding", "--matches", "2", "--repeats", "1")
    for name in ("pieces", "library"):
        assert re.search(rf"^{name}: \d+\.\d µs a request \(best of 1\)$", printed, re.M), printed
    assert re.search(r"^pieces / library: \d+\.\d\d of the time$", printed, re.M), printed
