"""Tournament specs: bad input gives one clear line; good specs survive JSON."""

from __future__ import annotations

import json

import pytest

from arena.tournaments import TournamentError, TournamentSpec

GOOD = {"name": "spring-cup", "game": "friday13", "entrants": ["a", "b", "c", "d", "e"], "table_size": 4}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": "knockout"}, "unknown format 'knockout'; choose one of: round-robin, gauntlet, swiss"),
        ({"table_size": 7}, "table size 7 does not fit friday13, which is for 3 to 6 players"),
        ({"game": "board13", "table_size": 3}, "table size 3 does not fit board13, which is for 2 players"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"entrants": ["a", "b", "c"]}, "3 entrants cannot fill a table of 4"),
        ({"entrants": ["a", "b", "a", "d"]}, "'a' is entered twice"),
        ({"format": "gauntlet", "hero": "zed"}, "the gauntlet's hero 'zed' must be one of the entrants"),
        ({"format": "gauntlet"}, "the gauntlet's hero '' must be one of the entrants"),
        ({"hero": "a"}, "only a gauntlet has a hero"),
        ({"rounds": 0}, "rounds must be a whole number of at least 1, not 0"),
        ({"table_size": "4"}, "table size must be a whole number"),
        ({"duplicate": "yes"}, "duplicate must be true or false"),
        ({"name": "spring cup!"}, "tournament name 'spring cup!' must be"),
        ({"params": {"players": 4}}, "give the number of players as the table size"),
        ({"params": {"edition": "xx"}}, "edition"),
        ({"seed": ""}, "the seed must be non-empty text"),
        (
            {"entrants": [f"b{i}" for i in range(40)], "table_size": 6},
            "would play 3,838,380 matches; the limit is 100,000",
        ),
        ({"colour": "red"}, "unknown tournament field 'colour'"),
        ({"entrants": "abcd"}, "entrants must be a list of bot names"),
    ],
)
def test_bad_specs_give_one_line_errors(changes: dict[str, object], message: str) -> None:
    with pytest.raises(TournamentError) as error:
        TournamentSpec.from_dict({**GOOD, **changes})
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_missing_field_is_named() -> None:
    with pytest.raises(TournamentError, match="a tournament needs 'entrants'"):
        TournamentSpec.from_dict({"name": "x", "game": "friday13"})


def test_spec_round_trips_through_json() -> None:
    spec = TournamentSpec.from_dict(
        {
            **GOOD,
            "format": "gauntlet",
            "hero": "c",
            "rounds": 3,
            "duplicate": True,
            "seatings": 8,
            "rated": True,
            "params": {"edition": "de"},
        }
    )
    again = TournamentSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
    assert again == spec
    assert again.build_game().params() == {"players": 4, "edition": "de"}
    # 3 rounds of 4 tables (one per field bot), each deal played in 8 of the 24 orders of 4 bots.
    assert spec.total_matches == 3 * 4 * 8


def test_totals_per_format() -> None:
    base = TournamentSpec.from_dict(GOOD)
    assert base.total_matches == 5
    swiss = TournamentSpec.from_dict({**GOOD, "format": "swiss", "rounds": 4, "duplicate": True})
    assert swiss.tables_per_round == 1
    assert swiss.total_matches == 4 * 24
