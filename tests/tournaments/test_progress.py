"""What became of a tournament's matches: attempts and re-runs, aborted for good, cancelled, the status."""

from __future__ import annotations

import pytest

from arena.games import Termination
from arena.ratings import ResultRecord
from arena.tournaments import (
    MAX_MATCH_ATTEMPTS,
    AbortNote,
    TournamentFormat,
    TournamentSpec,
    TournamentStatus,
    plan_round,
    seats_due,
    seats_of,
    tournament_progress,
    tournament_table,
)

SPEC = TournamentSpec("cup", "friday13", ("ann", "bob", "cy", "dee"), table_size=3)
"""Four matches, one round: 0 (ann, bob, cy), 1 (ann, bob, dee), 2 (ann, cy, dee), 3 (bob, cy, dee)."""


def seats(number: int) -> tuple[str, ...]:
    return plan_round(SPEC, 0)[number].seats


def played(match_id: str, termination: Termination = Termination.NORMAL) -> ResultRecord:
    number = SPEC.match_number(match_id)
    assert number is not None
    table = seats(number)
    if termination == Termination.ABORTED:
        return ResultRecord(match_id, table, (0,) * 3, (1,) * 3, Termination.ABORTED)
    return ResultRecord(match_id, table, (1, 2, 3), (1, 2, 3), termination)


def by_id(*results: ResultRecord) -> dict[str, ResultRecord]:
    return {result.match_id: result for result in results}


def test_attempt_ids_name_the_match_and_the_attempt() -> None:
    assert [SPEC.attempt_id(2, attempt) for attempt in (1, 2, 3)] == ["cup-2", "cup-2-try2", "cup-2-try3"]
    assert SPEC.attempt_of("cup-2-try3") == (2, 3) and SPEC.attempt_of("cup-2") == (2, 1)
    assert SPEC.match_number("cup-2-try2") == 2
    for foreign in ("cup-4", "cup-2-try1", "cup-2-tryx", "cupola-2", "other-1", "cup-", "cup-2-try2-try3"):
        assert SPEC.attempt_of(foreign) is None, foreign
    # A re-run that finished counts for its match in the table.
    table = tournament_table(SPEC, [played("cup-0", Termination.ABORTED), played("cup-0-try2")])
    assert table.done == 1


def test_nothing_played_is_all_due_and_running() -> None:
    progress = tournament_progress(SPEC, rounds_planned=1, results={}, aborts={})
    assert (progress.due, progress.done, progress.status, progress.describe()) == (
        4,
        0,
        TournamentStatus.RUNNING,
        "running",
    )
    assert progress.current == {n: f"cup-{n}" for n in range(4)}
    assert seats_due(SPEC, progress, []) == {"ann", "bob", "cy", "dee"}


def test_an_aborted_match_is_re_running_until_its_re_run_finishes() -> None:
    results = by_id(played("cup-0", Termination.ABORTED), played("cup-1"), played("cup-2"), played("cup-3"))
    noted = {"cup-0": AbortNote("never started: ann not connected to any node", "cup-0-try2")}
    progress = tournament_progress(SPEC, rounds_planned=1, results=results, aborts=noted)
    assert (progress.done, progress.rerunning, progress.aborted, progress.status) == (3, 1, 0, TournamentStatus.RUNNING)
    assert progress.current == {0: "cup-0-try2"}
    assert [a.to_dict() for a in progress.aborted_attempts] == [
        {
            "number": 0,
            "match_id": "cup-0",
            "attempt": 1,
            "reason": "never started: ann not connected to any node",
            "rerun": "cup-0-try2",
        }
    ]
    assert seats_due(SPEC, progress, results.values()) == set(seats(0))
    results |= by_id(played("cup-0-try2"))
    progress = tournament_progress(SPEC, rounds_planned=1, results=results, aborts=noted)
    assert (progress.done, progress.rerunning, progress.status, progress.describe()) == (
        4,
        0,
        TournamentStatus.FINISHED,
        "finished",
    )
    assert seats_due(SPEC, progress, results.values()) == set()


def test_an_abort_not_noted_yet_counts_as_re_running_and_uses_the_nodes_reason() -> None:
    results = by_id(played("cup-0", Termination.ABORTED), played("cup-1"), played("cup-2"), played("cup-3"))
    progress = tournament_progress(SPEC, rounds_planned=1, results=results, aborts={}, reasons={"cup-0": "boom"})
    assert (progress.rerunning, progress.status) == (1, TournamentStatus.RUNNING)
    assert progress.aborted_attempts[0].reason == "boom" and progress.current == {0: "cup-0-try2"}
    # A tournament that ended before aborts were noted (stored by an older arena): aborted for good.
    ended = tournament_progress(SPEC, rounds_planned=1, results=results, aborts={}, ended=True)
    assert (ended.aborted, ended.status, ended.describe()) == (
        1,
        TournamentStatus.FINISHED_WITH_ABORTS,
        "finished with 1 aborted",
    )


def test_the_last_attempt_aborted_is_aborted_for_good_and_the_status_says_so() -> None:
    ids = [SPEC.attempt_id(1, attempt) for attempt in range(1, MAX_MATCH_ATTEMPTS + 1)]
    results = by_id(played("cup-0"), played("cup-2"), played("cup-3"), *(played(i, Termination.ABORTED) for i in ids))
    noted = {i: AbortNote(f"reason {n}", ids[n + 1] if n + 1 < len(ids) else "") for n, i in enumerate(ids)}
    progress = tournament_progress(SPEC, rounds_planned=1, results=results, aborts=noted)
    assert (progress.done, progress.aborted, progress.rerunning, progress.due) == (3, 1, 0, 0)
    assert progress.status == TournamentStatus.FINISHED_WITH_ABORTS and progress.describe() == "finished with 1 aborted"
    assert [(a.match_id, a.attempt, a.reason, a.rerun) for a in progress.aborted_attempts] == [
        ("cup-1", 1, "reason 0", "cup-1-try2"),
        ("cup-1-try2", 2, "reason 1", "cup-1-try3"),
        ("cup-1-try3", 3, "reason 2", ""),
    ]
    assert [a.match_id for a in progress.last_attempts()] == ["cup-1-try3"]
    assert progress.counts() == "3 done, 0 due, 0 re-running, 1 aborted, 0 cancelled of 4"
    assert tournament_table(SPEC, results.values()).done == progress.done


def test_a_cancelled_tournament_counts_its_unstarted_matches_cancelled_and_its_running_ones_due() -> None:
    cancelled = by_id(played("cup-1", Termination.ABORTED), played("cup-2", Termination.ABORTED))
    results = by_id(played("cup-0"), *cancelled.values())
    progress = tournament_progress(
        SPEC, rounds_planned=1, results=results, aborts={}, cancelled_ids=set(cancelled), cancelled_ms=5
    )
    assert (progress.done, progress.cancelled, progress.due, progress.aborted) == (1, 2, 1, 0)
    assert progress.status == TournamentStatus.CANCELLED and progress.describe() == "cancelled (1 still running)"
    assert progress.aborted_attempts == ()
    assert seats_due(SPEC, progress, results.values()) == set(), "a cancelled tournament waits for nobody"
    results |= by_id(played("cup-3"))
    progress = tournament_progress(
        SPEC, rounds_planned=1, results=results, aborts={}, cancelled_ids=set(cancelled), cancelled_ms=5
    )
    assert (progress.done, progress.unsettled, progress.describe()) == (2, 0, "cancelled")


@pytest.mark.parametrize("cancelled_ms", [0, 7])
def test_swiss_rounds_not_planned_are_due_or_cancelled_and_wait_for_every_entrant(cancelled_ms: int) -> None:
    swiss = TournamentSpec(
        "sw", "friday13", ("ann", "bob", "cy"), format=TournamentFormat.SWISS, table_size=3, rounds=3
    )
    results = by_id(ResultRecord("sw-0", ("ann", "bob", "cy"), (1, 2, 3), (1, 2, 3)))
    progress = tournament_progress(swiss, rounds_planned=1, results=results, aborts={}, cancelled_ms=cancelled_ms)
    assert progress.done == 1
    if cancelled_ms:
        assert (progress.cancelled, progress.due, progress.status) == (2, 0, TournamentStatus.CANCELLED)
    else:
        assert (progress.cancelled, progress.due, progress.status) == (0, 2, TournamentStatus.RUNNING)
        assert progress.current == {} and seats_due(swiss, progress, results.values()) == {"ann", "bob", "cy"}


def test_seats_of_planned_matches_follow_the_plan() -> None:
    assert seats_of(SPEC, [3, 1], []) == {1: seats(1), 3: seats(3)}
