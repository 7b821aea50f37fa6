"""benchmarks/request_encoding.py runs as its docstring says and times what it names: all three ways make
the same bytes' message for every request it times."""

from __future__ import annotations

import re

from arena.games import make_game
from arena.games.cards import CardGame
from arena.v1 import bot_service_pb2 as bot_pb
from tests.benchmarks.scripts import benchmark_module, run_script


def test_every_way_makes_the_same_message_for_every_request_the_benchmark_times() -> None:
    game = make_game("friday13", players=3)
    assert isinstance(game, CardGame)
    with benchmark_module("request_encoding") as bench:
        matches = bench.played(game, 2)
        from_state = list(bench.encoded(game, matches, observed=False))
        from_observation = list(bench.encoded(game, matches, observed=True))
        whole = [
            bench.whole_request(game, f"m{number:06d}", request_id, move.state, move.seat)
            for number, moves in enumerate(matches)
            for request_id, move in enumerate(moves, 1)
        ]
    assert len(from_state) == sum(len(moves) for moves in matches) > 0
    assert from_state == from_observation
    assert [bot_pb.ConnectResponse.FromString(sent) for sent in from_state] == whole


def test_the_benchmark_prints_each_way_and_their_ratios() -> None:
    printed = run_script("request_encoding", "--matches", "2", "--repeats", "1")
    for name in ("state", "observation", "library"):
        assert re.search(rf"^{name}: \d+\.\d µs a request \(best of 1\)$", printed, re.M), printed
    for ratio in ("state / observation", "state / library"):
        assert re.search(rf"^{ratio}: \d+\.\d\d of the time$", printed, re.M), printed
