"""The trained policy as an arena bot: it plays from the same weights file that train.py writes.

Run it: python sample_bots/python/trained/bot.py --server 127.0.0.1:50051 --token atb_...
(--weights FILE plays other weights; the default is weights.npz beside this script).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from policy import WEIGHTS, LinearPolicy, Player

from arena.sdk import Bot, Match, Turn, run

GAMES = ("friday13", "amigo13")


def bot_class(weights: Path) -> type[Bot]:
    policy = LinearPolicy.load(weights)

    class TrainedBot(Bot):
        """The greedy action of the trained linear policy."""

        def __init__(self, match: Match) -> None:
            super().__init__(match)
            self.player = Player(policy, match.game)

        def act(self, turn: Turn) -> int:
            return self.player.act(turn.observation, turn.legal_actions)

    return TrainedBot


def main() -> None:
    parser = argparse.ArgumentParser(prog="bot.py", add_help=False)
    parser.add_argument("--weights", type=Path, default=WEIGHTS)
    known, rest = parser.parse_known_args()
    if not any(arg == "--games" or arg.startswith("--games=") for arg in rest):
        rest += ["--games", ",".join(GAMES)]  # the card games' encoding is what the weights read
    try:
        trained = bot_class(known.weights)
    except FileNotFoundError:
        parser.error(f"cannot read weights {known.weights}: no such file")
    except (OSError, ValueError, KeyError) as error:
        parser.error(f"cannot read weights {known.weights}: {error}")
    run(trained, rest)


if __name__ == "__main__":
    main()
