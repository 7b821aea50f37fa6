"""Many matches in this process between built-in bots: `arena play`, `arena test` and the benchmarks.

Every seat is a built-in bot in this process, so none of the match runner's machinery is needed:
no clock, no strikes (a built-in bot only chooses among the legal actions it is given), no
awaits. `play_matches` plays each match in a plain loop and keeps only what standings need. The
same seeds give the same matches as `MatchRunner` with `BotSeat`s (tests/match/test_local.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import Bot, make_bot
from arena.games.base import Action, Game, State, Termination
from arena.match.results import MatchResult, SeatRecord, final_ranks
from arena.match.seating import check_seatings_per_deal, deal_seatings, describe_design, design_size, seat
from arena.match.seats import Clock


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


def builtin_bot(name: str, number: int, game: Game, seat: int) -> Bot:
    """A built-in bot whose random choices depend on the match number and the seat."""
    return make_bot(name, game, seat, seed=number * 16 + seat)


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """What a local match leaves behind: enough for standings and A/B tests, not its final state."""

    match_id: str
    game: str
    seats: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    termination: Termination
    forfeited: tuple[int, ...] = ()


class LocalTurn:
    """The `Turn` of an in-process seat; one per match, updated before every move."""

    __slots__ = ("_observation", "_state", "legal_actions", "seat")

    def __init__(self, state: State[Any]) -> None:
        self._state = state
        self.seat = -1
        self.legal_actions: list[Action] = []
        self._observation: Any = None

    @property
    def observation(self) -> Any:
        if self._observation is None:
            self._observation = self._state.observation(self.seat)
        return self._observation


def play_out(state: State[Any], bots: Sequence[Bot]) -> list[int]:
    """Play `state` to its end, each seat moved by its bot; returns the moves of each seat.

    The bots are built-in and choose among the legal actions they are given, so their actions
    are applied unchecked (`State.apply_trusted`), as the match runner does for in-process seats.
    """
    turn = LocalTurn(state)
    acts = [bot.act for bot in bots]
    current_player, legal_actions, apply = state.current_player, state.legal_actions, state.apply_trusted
    moves = [0] * len(bots)
    seat = current_player()
    while seat >= 0:  # -1 once the match is over
        turn.seat = seat
        turn.legal_actions = legal_actions()
        turn._observation = None
        apply(acts[seat](turn))
        moves[seat] += 1
        seat = current_player()
    return moves


def play_matches(
    game: Game,
    pairings: Iterable[Pairing],
    seed: str,
    *,
    replays: Path | None = None,
    on_result: Callable[[PlayedMatch], None] | None = None,
    policy: Callable[[str], str] | None = None,
) -> list[PlayedMatch]:
    """Play the matches in this process, one after another, and return every result.

    Seats name built-in bots, or with `policy` entries that it maps to built-in bots (so that two
    entries can play the same bot under different names). With `replays`, each match's
    `arena-replay/1` record is written there as it ends.
    """
    if replays is not None:
        replays.mkdir(parents=True, exist_ok=True)
    results = []
    lower_is_better = game.lower_is_better
    for pairing in pairings:
        names = pairing.seats
        number = pairing.number
        bots = [builtin_bot(policy(name) if policy else name, number, game, index) for index, name in enumerate(names)]
        state = game.new_match(match_seed(seed, pairing.deal))
        play_out(state, bots)
        outcome = state.outcome()
        ranks = final_ranks(outcome.scores, (), lower_is_better=lower_is_better)
        result = PlayedMatch(f"{seed}-{number}", game.name, names, outcome.scores, ranks, outcome.termination)
        if replays is not None:
            record = state.record(names, result.termination)
            record["ranks"] = list(ranks)
            record["forfeited"] = []
            path = replays / f"{game.name}-{number:05d}.json"
            path.write_text(json.dumps(record, indent=1) + "\n")
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


async def play_series(
    game: Game,
    pairings: Iterable[Pairing],
    seed: str,
    *,
    policy: Callable[[str], str] | None = None,
) -> list[MatchResult]:
    """The same matches as `play_matches`, each result with its final state and seat records, as
    `MatchRunner` gives them: for callers that study how matches ended (it holds every state)."""
    results = []
    clock = Clock()
    for pairing in pairings:
        names, number = pairing.seats, pairing.number
        bots = [builtin_bot(policy(name) if policy else name, number, game, index) for index, name in enumerate(names)]
        state = game.new_match(match_seed(seed, pairing.deal))
        moves = play_out(state, bots)
        outcome = state.outcome()
        results.append(
            MatchResult(
                match_id=f"{seed}-{number}",
                game=game.name,
                seats=names,
                scores=outcome.scores,
                ranks=final_ranks(outcome.scores, (), lower_is_better=game.lower_is_better),
                termination=outcome.termination,
                forfeited=(),
                seat_records=tuple(SeatRecord(moves=count, bank=clock.bank) for count in moves),
                state=state,
            )
        )
    return results
