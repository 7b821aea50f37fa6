"""A sample bot: determinized Monte Carlo search with the engine itself (arena.bots' `mc`).

It samples the hidden cards consistently with its observation, plays every legal action out on
each sample and keeps the best. Run it:
python sample_bots/python/mc_bot.py --server 127.0.0.1:50051 --token atb_... [--playouts N]

`--playouts N` caps its playouts a move (the built-in budget, its strongest in the arena's time,
by default): fewer play weaker and faster.
"""

import argparse
import sys

from arena.bots.montecarlo import MonteCarloBot as Search
from arena.sdk import BuiltinBot, Match, run


class MonteCarloBot(BuiltinBot):
    """Determinized Monte Carlo search (--playouts N caps its playouts a move)."""

    policy = "mc"
    playouts: int | None = None
    """Playouts a move at most; None keeps the built-in bot's budget."""

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        if self.playouts is not None and isinstance(self.player, Search):
            self.player.samples = self.playouts


if __name__ == "__main__":
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--playouts", type=int)
    options, rest = own.parse_known_args()
    if options.playouts is not None and options.playouts < 1:
        sys.exit(f"mc_bot.py: --playouts must be at least 1, not {options.playouts}")
    MonteCarloBot.playouts = options.playouts
    run(MonteCarloBot, rest)
