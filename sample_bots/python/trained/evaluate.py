"""How the trained policy does against built-in bots, seated fairly, with paired 95% intervals.

    python evaluate.py --deals 50                       # against three random bots, friday13
    python evaluate.py --deals 20 --opponent heuristic --game amigo13 --players 3

Every deal is played under the arena's seat-fair design (`arena play --duplicate`): the policy
in every seat and after every other bot equally often. The standings and the head-to-head
compare the bots on the deals both played (arena.standings), as `arena play` prints them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from policy import WEIGHTS, LinearPolicy, Player

from arena.bots import Bot, Turn
from arena.games import make_game
from arena.games.base import Action, Game
from arena.match.local import builtin_bot, match_seed, play_out, schedule
from arena.match.results import final_ranks
from arena.match.seating import design_size
from arena.standings import Pair, Played, Standing, head_to_head, standings

NAME = "trained"


class TrainedBot(Bot):
    """The policy as an in-process bot, for the local match loop."""

    name = NAME
    description = "the trained linear policy"
    policy: LinearPolicy

    def __init__(self, game: Game, seat: int, seed: int = 0) -> None:
        super().__init__(game, seat, seed)
        self.player = Player(self.policy, game)

    def act(self, turn: Turn) -> Action:
        return self.player.act(turn.observation, turn.legal_actions)


def evaluate(
    policy: LinearPolicy,
    *,
    game: str = "friday13",
    players: int = 4,
    opponent: str = "random",
    deals: int = 10,
    seed: str = "evaluate",
) -> tuple[list[Standing], list[Pair]]:
    """Standings and head-to-head of the policy against `players - 1` copies of `opponent`."""
    rules = make_game(game, players=players)
    trained = type("Trained", (TrainedBot,), {"policy": policy})
    names = [NAME] + [f"{opponent}{number}" for number in range(1, players)]
    results = []
    for pairing in schedule(names, deals * design_size(players), duplicate=True):
        bots = [
            trained(rules, seat) if name == NAME else builtin_bot(opponent, pairing.number, rules, seat)
            for seat, name in enumerate(pairing.seats)
        ]
        state = rules.new_match(match_seed(seed, pairing.deal))
        play_out(state, bots)
        scores = state.outcome().scores
        ranks = final_ranks(scores, (), lower_is_better=rules.lower_is_better)
        results.append(Played(pairing.seats, scores, ranks, pairing.deal))
    rows = standings(results, lower_is_better=rules.lower_is_better)
    return rows, head_to_head(rows, lower_is_better=rules.lower_is_better)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="friday13", choices=["friday13", "amigo13"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--opponent", default="random", help="the built-in bot in the other seats")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--weights", type=Path, default=WEIGHTS)
    args = parser.parse_args(argv)
    try:
        rows, pairs = evaluate(
            LinearPolicy.load(args.weights),
            game=args.game,
            players=args.players,
            opponent=args.opponent,
            deals=args.deals,
        )
    except (ValueError, OSError) as error:
        parser.error(str(error))
    for row in rows:
        print(
            f"{row.bot:12s} {row.games:5d} games  {row.mean_score:6.2f} ± {row.ci95:4.2f} penalty  mean rank {row.mean_rank:.2f}"
        )
    for pair in pairs:
        if NAME in (pair.first, pair.second):
            verdict = "established" if pair.established else "not established"
            print(
                f"{pair.first} over {pair.second}: {pair.advantage.mean:+.2f} ± {pair.advantage.half_width:.2f} per match over {pair.deals} deals, {verdict}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
