"""A sample bot: safe high cards first, then the cheapest pile to take (arena.bots' `heuristic`).

Each move it says what it played in its debug text (`turn.debug`): the replay shows it at that
move, to the bot's owner while the match runs and to everyone after; no other seat ever sees it.

Run it: python sample_bots/python/heuristic_bot.py --server 127.0.0.1:50051 --token atb_...
"""

from arena.games.base import Action
from arena.sdk import BuiltinBot, Turn, run


class HeuristicBot(BuiltinBot):
    """Safe high cards first, then the cheapest pile to take."""

    policy = "heuristic"

    def act(self, turn: Turn) -> Action:
        action = super().act(turn)
        turn.debug(f"{turn.action_text(action)}: the heuristic's pick of {len(turn.legal_actions)} legal actions")
        return action


if __name__ == "__main__":
    run(HeuristicBot)
