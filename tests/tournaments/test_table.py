"""A tournament's live table: standings with TrueSkill columns and progress."""

from __future__ import annotations

from arena.games import Termination
from arena.ratings import Rating, RatingModel, ResultRecord, recompute
from arena.tournaments import TournamentSpec, plan_round, tournament_table

SPEC = TournamentSpec("cup", "friday13", ("ann", "bob", "cy", "dee", "eve"), table_size=3, rounds=2)


def result(number: int, termination: Termination = Termination.NORMAL) -> ResultRecord:
    """Match `number` of the plan, in which the alphabetically first bot wins, and so on."""
    pairing = plan_round(SPEC, SPEC.round_of(number))[number % SPEC.matches_per_round]
    ranks = tuple(1 + sorted(pairing.seats).index(bot) for bot in pairing.seats)
    return ResultRecord(SPEC.match_id(number), pairing.seats, tuple(5 * rank for rank in ranks), ranks, termination)


def test_empty_table_lists_every_entrant_and_nothing_done() -> None:
    table = tournament_table(SPEC, [])
    assert [row.bot for row in table.rows] == list(SPEC.entrants)
    assert (table.done, table.total, table.finished) == (0, 20, False)
    assert table.to_dict()["standings"][0] == {
        "bot": "ann",
        "games": 0,
        "deals": 0,
        "mean_score": None,
        "ci95": None,
        "wins": 0,
        "mean_rank": None,
    }


def test_table_has_standings_trueskill_and_progress() -> None:
    results = [result(number) for number in range(8)]
    table = tournament_table(SPEC, results)
    rows = {row.bot: row for row in table.rows}
    assert table.done == 8
    assert table.rows[0].bot == "ann"
    assert rows["ann"].wins == rows["ann"].games
    book = recompute(results, RatingModel())
    assert rows["ann"].rating == book.ratings["ann"].rating
    assert rows["ann"].rating is not None and rows["eve"].rating is not None
    assert rows["ann"].rating.mu > rows["eve"].rating.mu
    data = table.to_dict()
    assert data["done"] == 8 and data["total"] == 20
    assert {"mu", "sigma", "conservative"} <= set(data["standings"][0])


def test_aborted_results_other_tournaments_and_repeats_do_not_count() -> None:
    results = [result(0), result(0), result(1, Termination.ABORTED)]
    results.append(ResultRecord("other-0", ("ann", "bob", "cy"), (1, 2, 3), (1, 2, 3)))
    table = tournament_table(SPEC, results)
    assert table.done == 1
    assert sum(row.games for row in table.rows) == 3


def test_given_ratings_fill_the_trueskill_columns() -> None:
    ladder = {"ann": Rating(30.0, 2.0)}
    rows = {row.bot: row for row in tournament_table(SPEC, [result(0)], ratings=ladder).rows}
    assert rows["ann"].rating == Rating(30.0, 2.0)
    assert rows["bob"].rating is None
    assert "mu" not in rows["bob"].to_dict()


def test_all_matches_done_finishes_the_tournament() -> None:
    table = tournament_table(SPEC, [result(number) for number in range(SPEC.total_matches)])
    assert table.finished
    assert all(row.games == 12 for row in table.rows)
