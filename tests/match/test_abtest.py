"""`arena test A B`: SPRT A/B tests of built-in bots on seat-fair deals, as a user runs them."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from arena.games import make_game
from arena.match.abtest import ABTest, Hypotheses, play_deals


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_a_real_gap_is_found_and_the_exit_code_says_h1() -> None:
    done = arena("test", "heuristic", "random", "--game", "friday13", "--seatings", "4", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "H1"
    assert report["interval"]["low"] > 1, "heuristic beats random by far more than the margin"
    assert report["matches"] == report["n"] * 4
    assert report["n"] < 200


def test_identical_bots_are_not_found_different() -> None:
    done = arena(
        "test",
        "heuristic",
        "heuristic",
        "--game",
        "amigo13",
        "--field",
        "random",
        "--seatings",
        "4",
        "--max-deals",
        "400",
        "--json",
    )
    assert done.returncode in (1, 3), done.stdout
    report = json.loads(done.stdout)
    assert report["verdict"] != "H1"
    assert report["interval"]["low"] < 0 < report["interval"]["high"] or report["verdict"] == "H0"


def test_elo_bounds_test_the_head_to_head_share() -> None:
    game = make_game("amigo13", players=3)
    test = ABTest(game, "random", "heuristic", Hypotheses(elo0=0, elo1=100), field_bot="random", seatings=3)
    asyncio.run(play_deals(test, 300))
    # random ranks below heuristic far more often than not: H0 (0 Elo) is accepted over H1 (+100).
    assert test.sprt.verdict == "H0"
    assert test.sprt.mean < 0.5


def test_the_progress_line_and_the_verdict_for_people() -> None:
    done = arena("test", "heuristic", "random", "--game", "amigo13", "--players", "3", "--margin", "2")
    assert done.returncode == 0, done.stderr
    assert "A = heuristic, B = random, field heuristic" in done.stdout
    assert "H1: A is 2 penalty per match better" in done.stdout
    assert "LLR" in done.stdout and "(-2.94, +2.94)" in done.stdout
    assert "H1 accepted: A (heuristic) is better than B (random)" in done.stdout


def test_running_out_of_deals_exits_3() -> None:
    done = arena("test", "heuristic", "heuristic", "--game", "friday13", "--max-deals", "2", "--seatings", "4")
    assert done.returncode == 3, done.stderr
    assert "no verdict after 2 deals" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--elo0", "0"], "give both --elo0 and --elo1"),
        (["--elo0", "0", "--elo1", "5", "--margin", "1"], "either --margin or --elo0/--elo1"),
        (["--margin", "0"], "--margin must not be 0"),
        (["--elo0", "5", "--elo1", "5"], "--elo0 and --elo1 must differ"),
        (["--seatings", "3"], "with 4 players choose one of 4, 8"),
        (["--field", "deep-blue"], "unknown bot 'deep-blue'"),
        (["--players", "9"], "friday13 is for 3 to 6 players, not 9"),
        (["--alpha", "1.5"], "--alpha"),
    ],
)
def test_bad_arguments_end_with_one_line_and_exit_code_2(args: list[str], message: str) -> None:
    done = arena("test", "heuristic", "random", "--game", "friday13", *args)
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
