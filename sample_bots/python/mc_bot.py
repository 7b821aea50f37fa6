"""A sample bot: determinized Monte Carlo search with the engine itself (arena.bots' `mc`).

It samples the hidden cards consistently with its observation, plays every legal action out on
each sample and keeps the best. Run it:
python sample_bots/python/mc_bot.py --server 127.0.0.1:50051 --token atb_...
"""

from arena.sdk import BuiltinBot, run


class MonteCarloBot(BuiltinBot):
    """Determinized Monte Carlo search."""

    policy = "mc"


if __name__ == "__main__":
    run(MonteCarloBot)
