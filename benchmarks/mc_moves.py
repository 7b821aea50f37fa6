"""How long the mc bot takes a move, and whether its time limit ever cuts a search short.

    python benchmarks/mc_moves.py [--games friday13,amigo13] [--deals 6] [--players 4] [--samples N]
                                  [--time-limit S] [--versus DIR] [--versus-samples N]

mc plays seat 0 against the heuristic and two random bots (the strength table's company) over
whole matches; every decision with more than one legal move is timed by the wall clock, as its
time limit counts, and by the CPU time of its process, which the load of a shared machine changes
far less (the 90th, 99th percentile and max of each). The search is bound by its playout cap (`--samples`, default the bot's own);
the time limit is a safety net, so "cut short" should read 0 or nearly. On a busy machine a
longer `--time-limit` lets the budget alone bound every search, so that the CPU times compare
the work two versions do for a move.

`--versus DIR` compares with another version of the project, a checkout in DIR (for one before a
change: `git archive COMMIT | tar -x -C DIR`): every deal is played by both, each in a fresh
process, one right after the other, so that the load of a shared machine falls on both alike.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TypedDict, cast

from machine import describe


class Match(TypedDict):
    """mc's decisions in one match, in milliseconds, with its budget, its limit and the engine that ran."""

    times: list[float]
    cpu: list[float]
    samples: int
    limit_ms: float
    engine: str


def decisions(game_name: str, players: int, deal: int, samples: int | None, limit: float | None) -> Match:
    """One match of deal number `deal`."""
    import arena
    from arena.bots import make_bot
    from arena.bots.base import StaticTurn
    from arena.bots.montecarlo import MonteCarloBot
    from arena.games import make_game

    # A version from before the engine could be compiled has no arena/compiled.py. Importing it
    # there could find another checkout's (an editable install's finder answers for any module
    # of `arena` the checkout lacks), which would speak of that checkout's build.
    STATUS = "plain Python"
    if (Path(arena.__file__).parent / "compiled.py").exists():
        from arena.compiled import STATUS
    game = make_game(game_name, players=players)
    mc = MonteCarloBot(game, 0, seed=deal) if samples is None else MonteCarloBot(game, 0, seed=deal, samples=samples)
    if limit is not None:
        mc.time_limit = limit
    others = ["heuristic", "random", "random"][: players - 1]
    bots = [mc, *(make_bot(other, game, seat, seed=deal) for seat, other in enumerate(others, start=1))]
    state = game.new_match(bytes([deal, 77]))
    times: list[float] = []
    cpu: list[float] = []
    while not state.is_terminal():
        seat = state.current_player()
        turn = StaticTurn(seat, state.legal_actions(), state.observation(seat))
        started, used = time.perf_counter(), time.process_time()
        action = bots[seat].act(turn)
        elapsed, work = time.perf_counter() - started, time.process_time() - used
        if seat == 0 and len(turn.legal_actions) > 1:
            times.append(elapsed * 1000)
            cpu.append(work * 1000)
        state.apply(action)
    return {"times": times, "cpu": cpu, "samples": mc.samples, "limit_ms": mc.time_limit * 1000, "engine": STATUS}


def in_process(
    checkout: Path | None, game_name: str, players: int, deal: int, samples: int | None, limit: float | None
) -> Match:
    """`decisions` in a new process, importing `arena` from `checkout` (None: as this process does)."""
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    command = [sys.executable, __file__, "--one", game_name, str(players), str(deal)]
    if samples is not None:
        command += ["--samples", str(samples)]
    if limit is not None:
        command += ["--time-limit", str(limit)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return cast(Match, json.loads(done.stdout))


def row(label: str, game_name: str, runs: list[Match]) -> str:
    cells = []
    for key in ("times", "cpu"):
        spent = [ms for run in runs for ms in run[key]]
        cuts = statistics.quantiles(spent, n=100)
        cells.append(f"{statistics.median(spent):.0f} | {cuts[89]:.0f} | {cuts[98]:.0f} | {max(spent):.0f}")
    times = [ms for run in runs for ms in run["times"]]
    cut = sum(ms >= runs[0]["limit_ms"] for ms in times)
    return f"| {label} | {game_name} | {runs[0]['samples']} | {len(times)} | {cells[0]} | {cut} | {cells[1]} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="friday13,amigo13")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--samples", type=int, help="mc's playouts a move (default: the bot's own)")
    parser.add_argument("--time-limit", type=float, help="mc's time limit in seconds (default: the bot's own)")
    parser.add_argument("--versus", type=Path, help="a checkout of another version to compare with, deal by deal")
    parser.add_argument("--versus-samples", type=int, help="that version's playouts a move (default: its own)")
    parser.add_argument("--one", nargs=3, metavar=("GAME", "PLAYERS", "DEAL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        game_name, players, deal = args.one
        print(json.dumps(decisions(game_name, int(players), int(deal), args.samples, args.time_limit)))
        return
    contenders: list[tuple[str, Path | None, int | None]] = [("this", None, args.samples)]
    if args.versus is not None:
        contenders.append((f"versus {args.versus}", args.versus.resolve(), args.versus_samples))
    print(f"{describe()}, load {os.getloadavg()[0]:.2f}")
    rows = []
    for game_name in args.games.split(","):
        runs: dict[str, list[Match]] = {label: [] for label, _, _ in contenders}
        for deal in range(args.deals):
            for label, checkout, samples in contenders:
                runs[label].append(in_process(checkout, game_name, args.players, deal, samples, args.time_limit))
        for label, _, _ in contenders:
            print(f"{label}: {runs[label][0]['engine']}")
            rows.append(row(label, game_name, runs[label]))
    print(f"load {os.getloadavg()[0]:.2f}\n")
    print(
        "| version | game | playouts | decisions | median ms | 90th ms | 99th ms | max ms | cut short "
        "| CPU median ms | 90th | 99th | max |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
