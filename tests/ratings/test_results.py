"""Results applied to ratings: policy, exactly once, recompute, history, stored forms."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import Termination, make_game
from arena.match.runner import MatchResult
from arena.ratings import (
    BotRating,
    HistoryEntry,
    LogEntry,
    NewVersion,
    RatingBook,
    RatingError,
    RatingModel,
    ResultRecord,
    apply_entry,
    apply_result,
    entry_from_dict,
    recompute,
)

MODEL = RatingModel()


def result(match_id: str, seats: tuple[str, ...], ranks: tuple[int, ...], **extra: object) -> ResultRecord:
    return ResultRecord(match_id, seats, scores=tuple(10 * rank for rank in ranks), ranks=ranks, **extra)  # type: ignore[arg-type]


def test_first_result_rates_newcomers_from_the_initial_rating() -> None:
    update = apply_result({}, result("m1", ("a", "b", "c"), (1, 2, 3)), MODEL)
    rows = {row.bot: row for row in update.ratings}
    assert update.rated
    assert rows["a"].mu > MODEL.mu > rows["c"].mu
    assert all(row.games == 1 and row.sigma < MODEL.sigma for row in rows.values())
    assert [entry.bot for entry in update.history] == ["a", "b", "c"]
    assert update.history[0].mu == rows["a"].mu


def test_aborted_match_is_not_rated_but_is_marked_applied() -> None:
    book = RatingBook(MODEL)
    update = book.apply(result("m1", ("a", "b"), (1, 2), termination=Termination.ABORTED))
    assert update is not None
    assert not update.rated and "aborted" in update.skipped
    assert update.ratings == () and update.history == ()
    assert book.ratings == {} and book.applied == {"m1"}


def test_forfeiter_ranked_last_loses_mu() -> None:
    update = apply_result(
        {}, result("m1", ("a", "b", "c"), (1, 2, 3), termination=Termination.FORFEIT, forfeited=(2,)), MODEL
    )
    rows = {row.bot: row for row in update.ratings}
    assert rows["c"].mu < MODEL.mu


def test_forfeiter_must_be_ranked_below_the_finishers() -> None:
    with pytest.raises(RatingError, match="forfeited seat must be ranked below"):
        result("m1", ("a", "b", "c"), (1, 3, 2), termination=Termination.FORFEIT, forfeited=(0,))


def test_same_result_delivered_twice_changes_ratings_once() -> None:
    book = RatingBook(MODEL)
    first = result("m1", ("a", "b", "c", "d"), (1, 2, 3, 4))
    assert book.apply(first) is not None
    after_once = dict(book.ratings)
    assert book.apply(first) is None
    assert book.ratings == after_once
    assert len(book.history) == 4


def test_node_dying_between_computing_and_writing_loses_nothing_and_counts_once() -> None:
    """A node computes an update and dies before its transaction; another node gets the result again."""
    book = RatingBook(MODEL)
    book.apply(result("m0", ("a", "b"), (2, 1)))
    pending = result("m1", ("a", "b"), (1, 2))
    lost = apply_result(book.ratings, pending, MODEL)  # computed, never written
    assert book.ratings["a"].games == 1
    redelivered = book.apply(pending)
    assert redelivered == lost
    assert book.apply(pending) is None
    assert book.ratings["a"].games == 2


def test_bot_in_two_seats_gets_one_game_and_the_mean_change() -> None:
    update = apply_result({}, result("m1", ("a", "b", "a"), (1, 2, 3)), MODEL)
    rows = {row.bot: row for row in update.ratings}
    separate = MODEL.rate([MODEL.initial()] * 3, [1, 2, 3])
    assert rows["a"].games == 1
    assert rows["a"].mu == pytest.approx((separate[0].mu + separate[2].mu) / 2)
    assert rows["a"].sigma == pytest.approx((separate[0].sigma + separate[2].sigma) / 2)
    assert len(update.history) == 2


def test_bot_playing_only_itself_is_not_rated() -> None:
    assert not apply_result({}, result("m1", ("a", "a"), (1, 2)), MODEL).rated


names = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "fay"])


@st.composite
def results(draw: st.DrawFn) -> list[LogEntry]:
    """A rating log: results, aborted ones among them, and now and then a bot's new version."""
    out: list[LogEntry] = []
    for number in range(draw(st.integers(1, 12))):
        if draw(st.integers(0, 5)) == 0:
            out.append(NewVersion(draw(names), f"v{number}", finished_at=float(number)))
            continue
        seats = tuple(draw(st.lists(names, min_size=2, max_size=5, unique=True)))
        ranks = tuple(draw(st.lists(st.integers(1, len(seats)), min_size=len(seats), max_size=len(seats))))
        termination = draw(st.sampled_from([Termination.NORMAL, Termination.NORMAL, Termination.ABORTED]))
        out.append(result(f"m{number}", seats, ranks, termination=termination, finished_at=float(number)))
    return out


@settings(max_examples=40, deadline=None)
@given(results())
def test_recompute_equals_sequential_application(stored: list[LogEntry]) -> None:
    current: dict[str, BotRating] = {}
    history: list[HistoryEntry] = []
    for entry in stored:
        update = apply_entry(current, entry, MODEL)
        current.update((row.bot, row) for row in update.ratings)
        history.extend(update.history)
    book = recompute(stored + stored[:3], MODEL)
    assert book.ratings == current
    assert book.history == history
    assert book.applied == {entry.match_id for entry in stored}


def test_a_new_version_widens_sigma_once_from_the_predecessors_mu_and_learns_faster() -> None:
    book = RatingBook(MODEL)
    orders = [(1, 2, 3), (2, 1, 3), (3, 1, 2), (1, 3, 2), (2, 3, 1)]
    for number in range(100):
        book.apply(result(f"m{number}", ("a", "b", "c"), orders[number % 5], finished_at=float(number)))
    settled = book.ratings["a"]
    update = book.apply(NewVersion("a", "2", finished_at=50.0))
    assert update is not None and update.rated
    (row,) = update.ratings
    assert (row.mu, row.games) == (settled.mu, settled.games)
    assert row.sigma >= MODEL.sigma / 2 > 4 * settled.sigma
    assert update.history == (HistoryEntry("a", "version:a:2", row.mu, row.sigma, row.games, 50.0),)
    assert not update.history[0].played
    assert book.apply(NewVersion("a", "2", finished_at=60.0)) is None, "a label counts once"
    # The new version now loses: its rating follows much faster than its predecessor's would have.
    before = apply_result({**book.ratings, "a": settled}, result("x", ("a", "b", "c"), (3, 2, 1)), MODEL)
    after = book.apply(result("x", ("a", "b", "c"), (3, 2, 1)))
    assert after is not None
    drop = {row.bot: row.mu for row in after.ratings}["a"] - row.mu
    assert drop < 5 * ({r.bot: r.mu for r in before.ratings}["a"] - settled.mu) < 0


def test_a_bot_without_a_rating_has_no_version_to_widen() -> None:
    update = apply_entry({}, NewVersion("new", "1"), MODEL)
    assert not update.rated and update.ratings == () and "no rating" in update.skipped


def test_log_entries_round_trip_through_json_and_bad_ones_give_one_line_errors() -> None:
    version = NewVersion("a", "3", finished_at=12.5)
    assert entry_from_dict(json.loads(json.dumps(version.to_dict()))) == version
    record = result("m1", ("a", "b"), (1, 2))
    assert entry_from_dict(json.loads(json.dumps(record.to_dict()))) == record
    with pytest.raises(RatingError, match="unknown kind 'rematch'"):
        entry_from_dict({"kind": "rematch", "match_id": "x"})
    with pytest.raises(RatingError, match="lacks 'label'"):
        entry_from_dict({"kind": "version", "bot": "a"})
    with pytest.raises(RatingError, match="kept for new versions"):
        result("version:a:1", ("a", "b"), (1, 2))


def test_recompute_with_other_parameters_changes_the_ratings() -> None:
    stored = [result(f"m{i}", ("a", "b", "c"), (1, 2, 3)) for i in range(5)]
    default = recompute(stored, MODEL)
    wide = recompute(stored, RatingModel(beta=8.0))
    assert wide.ratings["a"].mu != default.ratings["a"].mu
    assert [row.bot for row in default.leaderboard()] == ["a", "b", "c"]


def test_result_record_round_trips_through_json_and_from_a_match_result() -> None:
    record = result("m1", ("a", "b", "c"), (1, 3, 2), termination=Termination.FORFEIT, forfeited=(1,), finished_at=12.5)
    assert ResultRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record
    game = make_game("friday13", players=3)
    match = MatchResult(
        "m1", "friday13", ("a", "b", "c"), (10, 30, 20), (1, 3, 2), Termination.FORFEIT, (1,), (), game.new_match(b"s")
    )
    assert ResultRecord.from_match(match, finished_at=12.5) == record


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"seats": ["a"], "scores": [1], "ranks": [1]}, "lacks 'match_id'"),
        ({"match_id": "m", "seats": ["a", "b"], "scores": [1], "ranks": [1, 2]}, "2 seats need 2 scores"),
        ({"match_id": "m", "seats": ["a", "b"], "scores": [1, 2], "ranks": [1, 3]}, "ranks must be whole numbers"),
        (
            {"match_id": "m", "seats": ["a", "b"], "scores": [1, 2], "ranks": [1, 2], "termination": "x"},
            "unknown termination",
        ),
        (
            {"match_id": "m", "seats": ["a", "b"], "scores": [1, 2], "ranks": [1, 2], "termination": "forfeit"},
            "must name",
        ),
        ({"match_id": "m", "seats": 5, "scores": [1, 2], "ranks": [1, 2]}, "malformed"),
    ],
)
def test_bad_stored_results_give_one_line_errors(data: dict[str, object], message: str) -> None:
    with pytest.raises(RatingError, match=message) as error:
        ResultRecord.from_dict(data)
    assert "\n" not in str(error.value)


def test_bot_rating_reads_redis_text_fields() -> None:
    row = BotRating.from_dict("a", {"mu": "26.5", "sigma": "3.0", "games": "7"})
    assert row == BotRating("a", 26.5, 3.0, 7)
    assert row.conservative == 17.5
    assert BotRating.from_dict("a", row.to_dict()) == row
    with pytest.raises(RatingError, match="lacks 'sigma'"):
        BotRating.from_dict("a", {"mu": "1"})
