"""Many matches in this process between built-in bots: `arena play` and the strength benchmark."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from arena.bots import Bot, make_bot
from arena.games.base import Game
from arena.match.runner import MatchResult, MatchRunner
from arena.match.seating import check_seatings_per_deal, deal_seatings, describe_design, design_size, seat
from arena.match.seats import BotSeat


def match_seed(base: str, deal: int) -> bytes:
    """The seed of deal number `deal` in a series started with the seed text `base`."""
    return hashlib.sha256(f"{base}/{deal}".encode()).digest()[:16]


@dataclass(frozen=True)
class Pairing:
    """One match of a series: which deal, and which bot sits in each seat."""

    number: int
    deal: int
    seats: tuple[str, ...]


def rotation(bots: Sequence[str], shift: int) -> tuple[str, ...]:
    """The seats turned by `shift`: seat s goes to the bot given for seat (s + shift) mod n."""
    players = len(bots)
    return tuple(bots[(seat + shift) % players] for seat in range(players))


def schedule(bots: Sequence[str], games: int, *, duplicate: bool, seatings: int | None = None) -> Iterator[Pairing]:
    """The series: `games` matches, seats in the order given.

    With `duplicate`, every deal is played under the seat-fair design (`arena.match.seating`):
    each bot in each seat, and after each other bot, equally often. `seatings` plays each deal
    fewer times, taking consecutive slices of the design; `games` must be a multiple of the
    seatings per deal.
    """
    players = len(bots)
    if not duplicate:
        if seatings is not None:
            raise ValueError("--seatings chooses how often --duplicate plays each deal: add --duplicate")
        for number in range(games):
            yield Pairing(number, number, tuple(bots))
        return
    per_deal = design_size(players) if seatings is None else seatings
    check_seatings_per_deal(players, per_deal)
    if games % per_deal:
        raise ValueError(
            f"--duplicate plays every deal {per_deal} times ({describe_design(players, per_deal)}): "
            f"--games must be a multiple of {per_deal}"
        )
    for deal in range(games // per_deal):
        for offset, seating in enumerate(deal_seatings(players, deal, per_deal)):
            yield Pairing(deal * per_deal + offset, deal, seat(bots, seating))


def _builtin(name: str, number: int, game: Game, seat: int) -> Bot:
    """A built-in bot whose random choices depend on the match number and the seat."""
    return make_bot(name, game, seat, seed=number * 16 + seat)


async def play_series(
    game: Game,
    pairings: Iterable[Pairing],
    seed: str,
    *,
    replays: Path | None = None,
    on_result: Callable[[MatchResult], None] | None = None,
    policy: Callable[[str], str] | None = None,
) -> list[MatchResult]:
    """Play the matches in this process, one after another, and return every result.

    Seats name built-in bots, or with `policy` entries that it maps to built-in bots (so that two
    entries can play the same bot under different names).
    """
    if replays is not None:
        replays.mkdir(parents=True, exist_ok=True)
    results = []
    for pairing in pairings:
        seats = [
            BotSeat(name, partial(_builtin, policy(name) if policy else name, pairing.number)) for name in pairing.seats
        ]
        runner = MatchRunner(game, seats, match_seed(seed, pairing.deal), match_id=f"{seed}-{pairing.number}")
        result = await runner.run()
        if replays is not None:
            path = replays / f"{game.name}-{pairing.number:05d}.json"
            path.write_text(json.dumps(result.record, indent=1) + "\n")
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
