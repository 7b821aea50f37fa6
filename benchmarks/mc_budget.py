"""Does mc play stronger with more playouts a move? The same seat-fair deals at two budgets.

    python benchmarks/mc_budget.py [--games friday13,amigo13] [--deals 16] [--before 700] [--after N]
                                   [--time-limit S] [--seed strength] [--jobs N]

The strength table's company and deals (`benchmarks/strength.py`: `mc,heuristic,random,random`,
every deal in all 24 orders, the same seeds and the same bots' seeds), played twice, deal by deal
alternating: with mc at the `--before` budget and at the `--after` one (default: the bot's own).
For each budget, mc's advantage over the heuristic in penalty points a match, paired on the same
deals (strength.py's figure); then the growth, each deal's advantage after minus before, with its
95% interval over the deals.

At 700 playouts mc makes the moves it made before its engine was compiled
(tests/games/test_pinned_records.py), so the first figure is the bot of then. `--time-limit`
replaces mc's 250 ms safety net, e.g. with 60 s on a busy machine, where the net would cut
searches short by the machine's load rather than by the budget. `--jobs` plays that many deals at
once, each in a process of its own: every bot is seeded, so the moves, and the figures, are those of
one process; "seconds" is then the time the deals took in their processes, added up.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Hashable, Sequence
from concurrent.futures import ProcessPoolExecutor

from machine import describe

from arena.bots.base import Bot
from arena.bots.montecarlo import MonteCarloBot
from arena.compiled import STATUS
from arena.games import make_game
from arena.games.base import Game
from arena.match.local import Pairing, builtin_bot, match_seed, play_out, schedule
from arena.standings import Played, standings
from arena.stats import Interval, mean_interval

ORDER = ("mc", "heuristic", "random1", "random2")
POLICIES = {"mc": "mc", "heuristic": "heuristic", "random1": "random", "random2": "random"}


def play_deal(game: Game, pairings: Sequence[Pairing], seed: str, samples: int, limit: float | None) -> list[Played]:
    """The deal's matches, each bot seeded as `play_series` seeds it; mc at `samples` playouts a move."""
    played = []
    for pairing in pairings:
        bots: list[Bot] = []
        for index, name in enumerate(pairing.seats):
            if name == "mc":
                mc = MonteCarloBot(game, index, seed=pairing.number * 16 + index, samples=samples)
                if limit is not None:
                    mc.time_limit = limit
                bots.append(mc)
            else:
                bots.append(builtin_bot(POLICIES[name], pairing.number, game, index))
        state = game.new_match(match_seed(seed, pairing.deal))
        play_out(state, bots)
        outcome = state.outcome()
        played.append(Played(pairing.seats, outcome.scores, outcome.ranks, pairing.deal))
    return played


def timed_deal(
    game_name: str, pairings: Sequence[Pairing], seed: str, samples: int, limit: float | None
) -> tuple[list[Played], float]:
    """`play_deal` in a worker process, with the seconds it took."""
    started = time.perf_counter()
    played = play_deal(make_game(game_name, players=len(ORDER)), pairings, seed, samples, limit)
    return played, time.perf_counter() - started


def mc_advantage(played: Sequence[Played]) -> dict[Hashable, float]:
    """mc's advantage over the heuristic on each deal, in penalty points a match: the differences
    over which strength.py's paired interval (`arena.standings.head_to_head`) is taken."""
    rows = {row.bot: row for row in standings(played)}
    mc, heuristic = rows["mc"].by_deal, rows["heuristic"].by_deal
    return {deal: statistics.fmean(heuristic[deal]) - statistics.fmean(mc[deal]) for deal in mc}


def shown(interval: Interval) -> str:
    return f"{interval.mean:+.2f} ± {interval.half_width:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="friday13,amigo13")
    parser.add_argument("--deals", type=int, default=16)
    parser.add_argument("--before", type=int, default=700, help="mc's playouts a move before (default 700)")
    parser.add_argument("--after", type=int, help="mc's playouts a move after (default: the bot's own)")
    parser.add_argument("--time-limit", type=float, help="mc's time limit in seconds (default: the bot's own)")
    parser.add_argument("--seed", default="strength")
    parser.add_argument("--jobs", type=int, default=1, help="deals played at once, in processes of their own")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: play at least one deal at a time")
    print(f"Measured on {describe()}, load {os.getloadavg()[0]:.2f}; engine: {STATUS}")
    for game_name in [name for name in args.games.split(",") if name]:
        game = make_game(game_name, players=len(ORDER))
        after = args.after or MonteCarloBot(game, 0).samples
        budgets = (args.before, after)
        pairings = list(schedule(list(ORDER), args.deals * 24, duplicate=True))
        played: dict[int, list[Played]] = {budget: [] for budget in budgets}
        spent = dict.fromkeys(budgets, 0.0)
        tasks = [(deal, budget) for deal in range(args.deals) for budget in budgets]
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [
                pool.submit(
                    timed_deal, game_name, pairings[deal * 24 : deal * 24 + 24], args.seed, budget, args.time_limit
                )
                for deal, budget in tasks
            ]
            for (_, budget), future in zip(tasks, futures, strict=True):
                deal_played, seconds = future.result()
                played[budget] += deal_played
                spent[budget] += seconds
        advantages = {budget: mc_advantage(played[budget]) for budget in budgets}
        deals = sorted(advantages[after], key=repr)
        growth = mean_interval(advantages[after][deal] - advantages[args.before][deal] for deal in deals)
        print(
            f"\n### {game_name}, 4 players, {args.deals} deals x 24 orders at each budget; load {os.getloadavg()[0]:.2f}\n"
        )
        print("| mc playouts a move | mc over heuristic, penalty/match ± 95% | deals | seconds |")
        print("|---:|---:|---:|---:|")
        for budget in budgets:
            edge = mean_interval(advantages[budget][deal] for deal in deals)
            print(f"| {budget} | {shown(edge)} | {edge.n} | {spent[budget]:.0f} |")
        verdict = "established" if growth.low > 0 or growth.high < 0 else "not established"
        print(f"\nthe edge grows by {shown(growth)} points a match from {args.before} to {after} playouts ({verdict})")


if __name__ == "__main__":
    main()
