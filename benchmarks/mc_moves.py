"""How long the mc bot takes a move, and whether its time limit ever cuts a search short.

    python benchmarks/mc_moves.py [--games friday13,amigo13] [--deals 6] [--players 4]

mc plays seat 0 against the heuristic and two random bots (the strength table's company) over
whole matches; every decision with more than one legal move is timed. The search is bound by
its playout cap; the time limit is a safety net, so "cut short" should read 0.
"""

from __future__ import annotations

import argparse
import statistics
import time

from machine import describe

from arena.bots import make_bot
from arena.bots.base import StaticTurn
from arena.bots.montecarlo import MonteCarloBot
from arena.games import make_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="friday13,amigo13")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(describe())
    print("\n| game | decisions | median ms | 90th ms | 99th ms | max ms | cut short |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.games.split(","):
        game = make_game(name, players=args.players)
        times: list[float] = []
        cut = 0
        for deal in range(args.deals):
            mc = MonteCarloBot(game, 0, seed=deal)
            others = ["heuristic", "random", "random"][: args.players - 1]
            bots = [mc, *(make_bot(other, game, seat, seed=deal) for seat, other in enumerate(others, start=1))]
            state = game.new_match(bytes([deal, 77]))
            while not state.is_terminal():
                seat = state.current_player()
                turn = StaticTurn(seat, state.legal_actions(), state.observation(seat))
                started = time.perf_counter()
                action = bots[seat].act(turn)
                elapsed = time.perf_counter() - started
                if seat == 0 and len(turn.legal_actions) > 1:
                    times.append(elapsed * 1000)
                    cut += elapsed >= mc.time_limit
                state.apply(action)
        cuts = statistics.quantiles(times, n=100)
        print(
            f"| {name} | {len(times)} | {statistics.median(times):.0f} | {cuts[89]:.0f} | {cuts[98]:.0f} "
            f"| {max(times):.0f} | {cut} |"
        )


if __name__ == "__main__":
    main()
