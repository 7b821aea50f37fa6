"""The Python SDK for arena bots: subclass `Bot`, implement `act(turn)`, and call `run(YourBot)`.

    from arena.sdk import Bot, run

    class FirstBot(Bot):
        def act(self, turn):
            return turn.legal_actions[0]

    if __name__ == "__main__":
        run(FirstBot)   # --server HOST:PORT --token T

`turn.observation` is the engine's own observation type (e.g. `CardObservation`), so the
policies of arena.bots work unchanged; `BuiltinBot` wraps one of them by name. `turn.debug(text)`
says something about the move, kept in the replay record (never shown to the other seats while
the match runs).
"""

from arena.sdk.client import Bot, BotGaveUp, BotRejected, BuiltinBot, Client, Match, Turn, run

__all__ = ["Bot", "BotGaveUp", "BotRejected", "BuiltinBot", "Client", "Match", "Turn", "run"]
