"""What a stored replay costs with the bots' debug texts and the explained strikes and forfeits.

    python benchmarks/replay_extras.py [--matches 50]

Plays `--matches` real 4-player friday13 matches in this process through the match runner, with
seat 0 a timed in-process bot that talks like the starter kits' sample bots (one line a move
such as "cat:5: highest safe card, cat to 12", about 40 bytes) and the other seats built-in
bots; every tenth match its bot also answers three moves with an illegal action, so that it
collects three strikes and forfeits. Each record is then stored as `arena/store/replays.py`
encodes it, and its size compared with the same record without the added keys ("debug",
"strikes", "forfeits"), and with the clock of a node's timed seat ("clock": what the runner
measured here). Reports the mean stored bytes of each, and what the texts cost per move.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import statistics
from dataclasses import dataclass
from typing import Any

from machine import describe

from arena.bots import Bot, make_bot
from arena.games import make_game
from arena.games.base import Action, Game
from arena.match import BotSeat, Clock, MatchRunner, MoveRequest, Seat
from arena.store.replays import REPLAY_FORM, encode_replay

EXTRAS = ("debug", "strikes", "forfeits")


@dataclass
class Explaining(Seat):
    """The heuristic policy, saying what it played; with `cheat`, three illegal answers first."""

    name: str
    cheat: bool
    bot: Any = None
    asked: int = 0

    async def start(self, info: Any) -> None:
        self.bot = make_bot("heuristic", info.game, info.seat, seed=7)
        self.game = info.game

    async def request(self, move: MoveRequest) -> Action:
        self.asked += 1
        if self.cheat and self.asked in (3, 9, 14):
            move.debug = "trying an action that is not in my hand"
            return 10_000
        action: Action = self.bot.act(move)
        move.debug = f"{self.game.action_text(action)}: highest safe card, {len(move.legal_actions)} choices"
        return action


def builtin(name: str) -> BotSeat:
    """A built-in bot in the runner's process, seeded by its seat."""

    def make(game: Game, seat: int) -> Bot:
        return make_bot(name, game, seat, seed=seat)

    return BotSeat(name, make)


async def play(number: int) -> dict[str, Any]:
    game = make_game("friday13", players=4)
    seats: list[Seat] = [Explaining("talker", cheat=number % 10 == 0)]
    seats += [builtin(name) for name in ("heuristic", "random", "mc")]
    seed = hashlib.sha256(f"extras-{number}".encode()).digest()[:16]
    return (await MatchRunner(game, seats, seed, clock=Clock(1.0, 10.0)).run()).record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=50, help="matches played (default 50)")
    options = parser.parse_args()
    records = [asyncio.run(play(number)) for number in range(options.matches)]
    full = [encode_replay(record) for record in records]
    bare = [encode_replay({key: value for key, value in record.items() if key not in EXTRAS}) for record in records]
    moves = statistics.mean(len(record["debug"]) for record in records)
    text = statistics.mean(sum(len(entry[2].encode()) for entry in record["debug"]) for record in records)
    print(describe())
    print(f"{options.matches} matches, seat 0 talking at each of its {moves:.0f} moves ({text:.0f} bytes of text)")
    print(f"stored in the re-play form: {sum(data[:1] == REPLAY_FORM for data in full)} of {len(full)}")
    print(f"stored replay with clock, no extras: {statistics.mean(map(len, bare)):.0f} B")
    print(f"stored replay with debug, strikes and forfeits: {statistics.mean(map(len, full)):.0f} B")
    added = statistics.mean(len(a) - len(b) for a, b in zip(full, bare, strict=True))
    print(f"added: {added:.0f} B a match, {added / moves:.1f} B a talking move (its text: {text / moves:.0f} B)")


if __name__ == "__main__":
    main()
