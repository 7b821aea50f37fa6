"""A sample bot: safe high cards first, then the cheapest pile to take (arena.bots' `heuristic`).

Run it: python sample_bots/python/heuristic_bot.py --server 127.0.0.1:50051 --token atb_...
"""

from arena.sdk import BuiltinBot, run


class HeuristicBot(BuiltinBot):
    """Safe high cards first, then the cheapest pile to take."""

    policy = "heuristic"


if __name__ == "__main__":
    run(HeuristicBot)
