"""A sample bot: plays a uniformly random legal action (arena.bots' `random` policy).

Run it: python sample_bots/python/random_bot.py --server 127.0.0.1:50051 --token atb_...
"""

from arena.sdk import BuiltinBot, run


class RandomBot(BuiltinBot):
    """Plays a uniformly random legal action."""

    policy = "random"


if __name__ == "__main__":
    run(RandomBot)
