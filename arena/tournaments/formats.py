"""The formats as schedule generators: which bots sit where in every match of a round.

A round's matches come as `arena.match.local.Pairing`s (number, deal, seats), numbered across the
whole tournament, so `arena.match.local.play_series` can play them in process and the server can
create them as `spec.match_id(number)` with the seed `arena.match.local.match_seed(spec.seed,
deal)`. Every table of a round has its own deal; with `duplicate` the table plays that deal under
the seat-fair design (`arena.match.seating`, which makes the format's seat order irrelevant),
otherwise once in the seat order its format gives, which moves bots through the seats from round
to round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from arena.games.base import Termination
from arena.match.local import Pairing, rotation
from arena.match.seating import deal_seatings, seat
from arena.ratings import ResultRecord
from arena.standings import Played, standings
from arena.tournaments.spec import TournamentError, TournamentFormat, TournamentSpec

Table = tuple[str, ...]


def plan_round(spec: TournamentSpec, round_number: int, results: Iterable[ResultRecord] = ()) -> list[Pairing]:
    """The matches of round `round_number` (0-based).

    Round-robin and gauntlet rounds ignore `results`; a Swiss round is formed from the results
    of the earlier rounds (results of other tournaments and of later rounds are ignored).
    """
    if not isinstance(round_number, int) or not 0 <= round_number < spec.rounds:
        raise TournamentError(f"{spec.name} has rounds 0 to {spec.rounds - 1}, not {round_number!r}")
    size = spec.table_size
    if spec.format == TournamentFormat.ROUND_ROBIN:
        tables = round_robin_tables(spec.entrants, size, round_number)
    elif spec.format == TournamentFormat.GAUNTLET:
        tables = gauntlet_tables(spec.hero, [bot for bot in spec.entrants if bot != spec.hero], size, round_number)
    else:
        tables = swiss_tables(spec, round_number, finished_matches(spec, results))
    first_number = round_number * spec.matches_per_round
    first_deal = round_number * spec.tables_per_round
    place = {bot: index for index, bot in enumerate(spec.entrants)}

    def seatings_of(index: int, table: Table) -> list[Table]:
        if not spec.duplicate:
            return [table]
        # The design seats the table's bots in one fixed order, and a table met again next round
        # takes the next slice of it: with fewer seatings per deal, the slices then add up to the
        # whole design over the rounds.
        bots = sorted(table, key=place.__getitem__)
        return [seat(bots, seating) for seating in deal_seatings(size, round_number + index, spec.seatings_per_deal)]

    plays = [(first_deal + index, seats) for index, table in enumerate(tables) for seats in seatings_of(index, table)]
    return [Pairing(number, deal, seats) for number, (deal, seats) in enumerate(plays, first_number)]


def round_robin_tables(entrants: Sequence[str], size: int, round_number: int = 0) -> list[Table]:
    """Every combination of `size` entrants, in the entrants' order turned by the round number."""
    return [rotation(table, round_number) for table in combinations(entrants, size)]


def gauntlet_tables(hero: str, field: Sequence[str], size: int, round_number: int = 0) -> list[Table]:
    """One table per field bot: the hero and the `size - 1` field bots from there on, wrapping round.

    Every field bot plays the hero `size - 1` times a round. The hero's seat moves on by one
    with every table of the tournament, so it holds each seat equally often whenever the
    number of tables so far is a multiple of the table size.
    """
    count = len(field)
    first = round_number * count
    return [
        rotation((hero, *(field[(index + offset) % count] for offset in range(size - 1))), -(first + index))
        for index in range(count)
    ]


def swiss_tables(spec: TournamentSpec, round_number: int, finished: Mapping[int, ResultRecord]) -> list[Table]:
    """Neighbours in the standing after the earlier rounds share a table, best first, seats turned by the round.

    `finished` maps match numbers to results (`finished_matches`). When the entrants do not
    divide into full tables, the bots that have sat out least, lowest standing first, sit out;
    who sat out before is re-derived from the earlier rounds' plans. The first round takes the
    entrants in the order given (list them strongest first).
    """
    byes: Counter[str] = Counter()
    lower_is_better = spec.build_game().lower_is_better
    for current in range(round_number + 1):
        earlier = [result for number, result in finished.items() if spec.round_of(number) < current]
        table = standings(
            (Played(r.seats, r.scores, r.ranks) for r in earlier),
            lower_is_better=lower_is_better,
            entrants=spec.entrants,
        )
        tables, out = standing_tables([row.bot for row in table], spec.table_size, byes)
        byes.update(out)
    return [rotation(table, round_number) for table in tables]


def standing_tables(order: Sequence[str], size: int, byes: Mapping[str, int]) -> tuple[list[Table], list[str]]:
    """Consecutive blocks of `order`, and the bots left out so that every block is full."""
    place = {bot: index for index, bot in enumerate(order)}
    out = sorted(order, key=lambda bot: (byes.get(bot, 0), -place[bot]))[: len(order) % size]
    seated = [bot for bot in order if bot not in out]
    return [tuple(seated[start : start + size]) for start in range(0, len(seated), size)], out


def finished_matches(spec: TournamentSpec, results: Iterable[ResultRecord]) -> dict[int, ResultRecord]:
    """This tournament's finished matches by number: aborted ones left out, a result delivered twice kept once."""
    finished: dict[int, ResultRecord] = {}
    for result in results:
        number = spec.match_number(result.match_id)
        if number is not None and result.termination != Termination.ABORTED:
            finished.setdefault(number, result)
    return finished
