"""`arena play` as a user runs it: a real process, its output and its exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import make_game


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_play_prints_standings_as_json_and_writes_replays_that_verify(tmp_path: Path) -> None:
    done = arena(
        "play",
        "friday13",
        "--bots",
        "heuristic,random,random",
        "--games",
        "12",
        "--duplicate",
        "--seed",
        "cli",
        "--replays",
        str(tmp_path),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["matches"] == 12
    assert report["seating"].startswith("all 6 orders of 3 bots")
    rows = {row["bot"]: row for row in report["standings"]}
    assert rows["heuristic"]["games"] == 12 and rows["heuristic"]["deals"] == 2
    assert rows["random"]["games"] == 24
    assert set(rows["random"]) == {"bot", "games", "deals", "mean_score", "ci95", "wins", "mean_rank"}
    (pair,) = report["head_to_head"]
    assert {pair["first"], pair["second"]} == {"heuristic", "random"} and pair["deals"] == 2
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 12
    game = make_game("friday13", players=3)
    records = [json.loads(path.read_text()) for path in files]
    for record in records:
        game.replay(record)
    assert len({record["seed"] for record in records}) == 2, "twelve duplicate matches play two deals"
    heuristic_seats = {record["seats"].index("heuristic") for record in records}
    assert heuristic_seats == {0, 1, 2}


def test_named_copies_of_one_bot_get_rows_and_a_head_to_head_of_their_own() -> None:
    done = arena(
        "play", "friday13", "--bots", "h1=heuristic,h2=heuristic,h3=heuristic", "--games", "12", "--duplicate", "--json"
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {row["bot"] for row in report["standings"]} == {"h1", "h2", "h3"}
    assert len(report["head_to_head"]) == 3
    for pair in report["head_to_head"]:
        # A deterministic policy against itself under every order of the table: equal on every deal,
        # so no order among the copies is established.
        assert pair["advantage"] == 0 and pair["deals"] == 2 and not pair["established"]
    assert len(report["unsettled"]) == 2


def test_the_table_for_people_shows_the_head_to_head_and_what_is_not_yet_established() -> None:
    done = arena("play", "friday13", "--bots", "h1=heuristic,h2=heuristic,random", "--games", "12", "--duplicate")
    assert done.returncode == 0, done.stderr
    assert "head to head" in done.stdout
    assert "not yet established: h1 above h2" in done.stdout or "not yet established: h2 above h1" in done.stdout
    assert "seating: all 6 orders of 3 bots" in done.stdout


def test_play_is_repeatable_for_a_seed() -> None:
    runs = [
        arena("play", "amigo13", "--bots", "random,heuristic,random", "--games", "3", "--seed", "x", "--json")
        for _ in range(2)
    ]
    first, second = (json.loads(run.stdout)["standings"] for run in runs)
    assert first == second


def test_play_prints_a_table_for_people() -> None:
    done = arena("play", "friday13", "--bots", "random,random,random,random", "--games", "4")
    assert done.returncode == 0, done.stderr
    assert "mean penalty ± 95% CI" in done.stdout
    assert "4 matches in" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "--bots", "random,random,random"], "unknown game 'chess'"),
        (["play", "friday13", "--bots", "random,deep-blue,random"], "unknown bot 'deep-blue'"),
        (["play", "friday13", "--bots", "random,random,random,random", "--players", "3"], "--bots names 4 bots"),
        (["play", "friday13", "--bots", "random,random"], "friday13 is for 3 to 6 players, not 2"),
        (["play", "friday13", "--bots", ",".join(["random"] * 7)], "friday13 is for 3 to 6 players, not 7"),
        (["play", "friday13", "--bots", "random,random,random", "--edition", "fr"], "editions en and de, not 'fr'"),
        (
            ["play", "amigo13", "--bots", "random,random,random", "--edition", "de"],
            "amigo13 has no parameter 'edition'",
        ),
        (["play", "friday13", "--bots", "random,random,random", "--games", "4", "--duplicate"], "multiple of 6"),
        (
            ["play", "friday13", "--bots", "random,random,random", "--duplicate", "--seatings", "4"],
            "with 3 players choose one of 3, 6",
        ),
        (["play", "friday13", "--bots", "random,random,random", "--seatings", "3"], "add --duplicate"),
        (["play", "friday13", "--bots", "h=random,h=heuristic,random"], "gives one NAME to two seats"),
        (["play", "friday13", "--bots", "h=deep-blue,random,random"], "unknown bot 'deep-blue'"),
        (["play", "friday13", "--bots", "random,random,random", "--games", "zero"], "--games"),
        (["play", "friday13"], "--bots"),
    ],
)
def test_bad_arguments_end_with_one_line_and_exit_code_2(args: list[str], message: str) -> None:
    done = arena(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("arena: error: ")
    assert message in lines[0]


def test_scenarios_lists_the_shipped_ones_and_draws_a_starting_board(tmp_path: Path) -> None:
    listing = arena("scenarios")
    assert listing.returncode == 0, listing.stderr
    for name in ("duel", "temple", "gardens"):
        assert name in listing.stdout
    board = arena("scenarios", "gardens")
    assert board.returncode == 0, board.stderr
    assert "board13 gardens: ply 0/200, black to move" in board.stdout
    assert " 2  .  b  b  B  b  b  .  2" in board.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n')
    refused = arena("scenarios", str(bad))
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "bad.toml" in refused.stderr
