"""Tournaments: specs, formats as pure schedule generators, and live tables.

The store keeps a `TournamentSpec` as JSON (`to_dict`/`from_dict`), creates the matches that
`plan_round` returns, and rebuilds the live table from the results with `tournament_table`.
"""

from arena.tournaments.formats import (
    finished_matches,
    gauntlet_tables,
    plan_round,
    round_robin_tables,
    standing_tables,
    swiss_tables,
)
from arena.tournaments.spec import FORMATS, MAX_MATCHES, TournamentError, TournamentSpec
from arena.tournaments.table import TournamentTable, tournament_table

__all__ = [
    "FORMATS",
    "MAX_MATCHES",
    "TournamentError",
    "TournamentSpec",
    "TournamentTable",
    "finished_matches",
    "gauntlet_tables",
    "plan_round",
    "round_robin_tables",
    "standing_tables",
    "swiss_tables",
    "tournament_table",
]
