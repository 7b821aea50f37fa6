"""Tournaments: specs, formats as pure schedule generators, and live tables.

The store keeps a `TournamentSpec` as JSON (`to_dict`/`from_dict`), creates the matches that
`plan_round` returns, and rebuilds the live table from the results with `tournament_table` and
what became of every match (done, due, re-running, aborted, cancelled) with `tournament_progress`.
"""

from arena.tournaments.formats import (
    finished_matches,
    gauntlet_tables,
    plan_round,
    round_robin_tables,
    standing_tables,
    swiss_tables,
)
from arena.tournaments.progress import (
    AbortedAttempt,
    AbortNote,
    Progress,
    TournamentStatus,
    seats_due,
    seats_of,
    tournament_progress,
)
from arena.tournaments.spec import (
    MAX_MATCH_ATTEMPTS,
    MAX_MATCHES,
    TournamentError,
    TournamentFormat,
    TournamentSpec,
    secret_seed,
    seed_commitment,
)
from arena.tournaments.table import TournamentTable, tournament_table

__all__ = [
    "MAX_MATCHES",
    "MAX_MATCH_ATTEMPTS",
    "AbortNote",
    "AbortedAttempt",
    "Progress",
    "TournamentError",
    "TournamentFormat",
    "TournamentSpec",
    "TournamentStatus",
    "TournamentTable",
    "finished_matches",
    "gauntlet_tables",
    "plan_round",
    "round_robin_tables",
    "seats_due",
    "seats_of",
    "secret_seed",
    "seed_commitment",
    "standing_tables",
    "swiss_tables",
    "tournament_progress",
    "tournament_table",
]
