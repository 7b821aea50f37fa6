"""The board13 rules of CLARIFICATIONS.md, each pinned on a position set up by hand."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import GameError, IllegalAction, InvalidActionText, InvalidParameters, make_game
from arena.games.base import ranks_from_scores
from arena.games.board13 import PASS, Board13, Board13State, move_action, parse_field, place_action, scenario_names
from arena.games.board13.rules import diagram_rows


def diagram(pieces: Mapping[str, str]) -> list[str]:
    """Seven diagram rows (rank 7 first) with the given glyph on each named field."""
    grid = [["."] * 7 for _ in range(7)]
    for name, glyph in pieces.items():
        grid[7 - int(name[1])]["abcdefg".index(name[0])] = glyph
    return [" ".join(row) for row in grid]


def position(pieces: Mapping[str, str] | str, **options: Any) -> Board13State:
    rows = pieces if isinstance(pieces, str) else diagram(pieces)
    return Board13State.from_diagram(rows, **options)


def board13(scenario: str = "duel") -> Board13:
    game = make_game("board13", scenario=scenario)
    assert isinstance(game, Board13)
    return game


def at(state: Board13State, name: str) -> str:
    """The glyph on a field: `.` when empty."""
    spot = parse_field(name)
    assert spot is not None
    return diagram_rows(state.board)[6 - spot // 7].split()[spot % 7]


def last_move(state: Board13State) -> dict[str, Any]:
    move: dict[str, Any] = state.record(["black", "white"])["rounds"][0]["moves"][-1]
    return move


def play(state: Board13State, *moves: str) -> Board13State:
    for text in moves:
        state.apply_text(text)
    return state


def refusal(state: Board13State, text: str) -> str:
    action = state.game.action_from_text(text)
    assert action not in state.legal_actions()
    with pytest.raises(IllegalAction) as refused:
        state.apply(action)
    return str(refused.value)


D4 = place_action(3 * 7 + 3)
"""The id of `place d4`."""
SPARE = {"g7": "w", "a7": "b"}
"""A stone for each side far from the action, so that nobody runs out of moves."""

# -- custodial capture ------------------------------------------------------------------------

ORTHOGONAL = {"north": ("d5", "d6"), "east": ("e4", "f4"), "south": ("d3", "d2"), "west": ("c4", "b4")}
DIAGONAL = {
    "north-east": ("e5", "f6"),
    "south-east": ("e3", "f2"),
    "south-west": ("c3", "b2"),
    "north-west": ("c5", "b6"),
}


@pytest.mark.parametrize("direction", ORTHOGONAL)
def test_a_placed_stone_captures_along_each_orthogonal_direction(direction: str) -> None:
    near, far = ORTHOGONAL[direction]
    state = play(position({near: "w", far: "b", **SPARE}, reserves=(1, 0)), "place d4")
    assert at(state, near) == "."
    assert at(state, far) == "b"
    assert last_move(state)["captured"] == [near]


@pytest.mark.parametrize("direction", ORTHOGONAL)
def test_a_moved_stone_captures_along_each_orthogonal_direction(direction: str) -> None:
    near, far = ORTHOGONAL[direction]
    state = play(position({near: "w", far: "b", "a1": "b", "g7": "w"}), "move a1-d4")
    assert at(state, near) == "."
    assert last_move(state) == {"seat": 0, "move": "move a1-d4", "captured": [near], "toppled": []}


@pytest.mark.parametrize("direction", DIAGONAL)
def test_diagonal_capture_only_where_the_scenario_allows_it(direction: str) -> None:
    near, far = DIAGONAL[direction]
    straight = play(position({near: "w", far: "b", **SPARE}, reserves=(1, 0)), "place d4")
    assert at(straight, near) == "w"
    slanted = play(position({near: "w", far: "b", **SPARE}, reserves=(1, 0), capture_diagonal=True), "place d4")
    assert at(slanted, near) == "."
    assert last_move(slanted)["captured"] == [near]


def test_white_captures_the_same_way() -> None:
    state = position({"d5": "b", "d6": "w", "a1": "b", "g1": "w"}, to_move="white")
    play(state, "move g1-d4")
    assert at(state, "d5") == "."
    assert last_move(state)["seat"] == 1


def test_one_move_captures_two_stones_in_different_directions() -> None:
    state = play(position({"d5": "w", "d6": "b", "e4": "w", "f4": "b", **SPARE}, reserves=(1, 0)), "place d4")
    assert sorted(last_move(state)["captured"]) == ["d5", "e4"]


def test_one_move_captures_three_stones_where_diagonal_capture_is_on() -> None:
    pieces = {"d5": "w", "d6": "b", "e5": "w", "f6": "b", "e4": "w", "f4": "b", **SPARE}
    state = play(position(pieces, reserves=(1, 0), capture_diagonal=True), "place d4")
    assert sorted(last_move(state)["captured"]) == ["d5", "e4", "e5"]
    assert state.board.count(2) == 1, "only the spare white stone is left"


def test_a_third_orthogonal_capture_would_need_entering_between_two_enemies() -> None:
    # Three of the four orthogonal directions include an opposite pair, so the arriving stone
    # would stand between two white stones: the entry ban allows at most two at once.
    pieces = {"d5": "w", "d6": "b", "e4": "w", "f4": "b", "c4": "w", "b4": "b", **SPARE}
    assert "entry ban" in refusal(position(pieces, reserves=(1, 0)), "place d4")


def test_with_diagonal_capture_one_stone_can_take_four() -> None:
    pieces: dict[str, str] = {**SPARE}
    for near, far in (ORTHOGONAL["north"], DIAGONAL["north-east"], ORTHOGONAL["east"], DIAGONAL["south-east"]):
        pieces[near], pieces[far] = "w", "b"
    state = play(position(pieces, reserves=(1, 0), capture_diagonal=True), "place d4")
    assert sorted(last_move(state)["captured"]) == ["d5", "e3", "e4", "e5"]


def test_a_stone_enclosed_before_the_move_stays_when_another_stone_moves() -> None:
    state = position({"d3": "b", "d4": "w", "d5": "b", "a1": "b", "g7": "w"})
    play(state, "move a1-a2")
    assert at(state, "d4") == "w", "only the moving stone captures"


def test_the_stone_that_encloses_must_be_the_one_that_moved() -> None:
    # d5 becomes enclosed between d4 and d6 because the white stone on d6 arrives: that is
    # white's capture. Black's own later move elsewhere captures nothing around it.
    state = position({"d4": "w", "d5": "b", "g6": "w", "a1": "b"}, to_move="white")
    play(state, "move g6-d6")
    assert at(state, "d5") == ".", "white moved in and captured"
    state = position({"d4": "w", "d5": "b", "d6": "w", "a1": "b", "g1": "w"})
    play(state, "move a1-a2")
    assert at(state, "d5") == "b", "a black stone between two white stones that did not move stays"


def test_two_stones_in_a_row_are_not_captured() -> None:
    state = play(position({"d5": "w", "d6": "w", "d7": "b", **SPARE}, reserves=(1, 0)), "place d4")
    assert (at(state, "d5"), at(state, "d6")) == ("w", "w")
    assert last_move(state)["captured"] == []


def test_the_board_edge_and_empty_fields_enclose_nothing() -> None:
    state = play(position({"a2": "w", "c6": "w", **SPARE}, reserves=(2, 0)), "place a3")
    assert at(state, "a2") == "w", "a1 is empty"
    state = position({"a1": "w", "g1": "b", "g7": "w", "a7": "b"}, reserves=(1, 0))
    play(state, "place a2")
    assert at(state, "a1") == "w", "nothing lies beyond a1"


# -- the entry ban ------------------------------------------------------------------------------


def test_the_entry_ban_forbids_placing_between_two_enemy_stones() -> None:
    state = position({"c4": "w", "e4": "w", **SPARE}, reserves=(1, 0))
    assert D4 not in state.legal_actions()
    assert "entry ban" in refusal(state, "place d4")
    vertical = position({"d3": "w", "d5": "w", **SPARE}, reserves=(1, 0))
    assert "entry ban" in refusal(vertical, "place d4")


def test_the_entry_ban_counts_enemy_monuments_but_not_neutral_ones() -> None:
    with_monument = position({"c4": "w", "e4": "W", "a1": "B", **SPARE}, reserves=(1, 0))
    assert "entry ban" in refusal(with_monument, "place d4")
    with_neutral = position({"c4": "w", "e4": "N", **SPARE}, reserves=(1, 0))
    play(with_neutral, "place d4")
    assert at(with_neutral, "d4") == "b"


def test_the_entry_ban_does_not_concern_mixed_or_own_neighbours() -> None:
    state = position({"c4": "w", "e4": "b", **SPARE}, reserves=(1, 0))
    assert D4 in state.legal_actions()
    own = position({"c4": "w", "e4": "w", "g1": "w", "a1": "b"}, to_move="white", reserves=(0, 1))
    play(own, "place d4")
    assert at(own, "d4") == "w"


def test_the_diagonal_entry_ban_holds_only_with_diagonal_capture() -> None:
    pieces = {"c3": "w", "e5": "w", **SPARE}
    assert D4 in position(pieces, reserves=(1, 0)).legal_actions()
    assert "entry ban" in refusal(position(pieces, reserves=(1, 0), capture_diagonal=True), "place d4")


def test_the_entry_ban_forbids_moving_there_but_not_passing_through() -> None:
    state = position({"c4": "w", "e4": "w", "d1": "b", "g7": "w"})
    assert "entry ban" in refusal(state, "move d1-d4")
    play(state, "move d1-d6")
    assert at(state, "d6") == "b"


def test_a_banned_field_stays_banned_even_where_the_move_would_capture() -> None:
    state = position({"c4": "w", "e4": "w", "d5": "w", "d6": "b", "d1": "b", "g7": "w"})
    assert "entry ban" in refusal(state, "move d1-d4")


# -- reserved fields ----------------------------------------------------------------------------


def test_nobody_places_on_the_other_colours_fields() -> None:
    state = position(SPARE, reserves=(1, 1), black_fields=["a1"], white_fields=["g1"])
    assert "g1 is a white-only field" in refusal(state, "place g1")
    play(state, "place a1")
    assert at(state, "a1") == "b", "black may place on its own field"
    assert "a2" in [state.game.action_text(action)[-2:] for action in state.legal_actions()]
    assert "a1 is not empty" in refusal(state, "place a1")
    state = position(SPARE, reserves=(1, 1), black_fields=["b1"], white_fields=["g1"])
    play(state, "place c3")
    assert "b1 is a black-only field" in refusal(state, "place b1")
    play(state, "place g1")
    assert at(state, "g1") == "w"


def test_nobody_moves_onto_the_other_colours_fields_but_may_pass_over_them() -> None:
    state = position({"a1": "b", "g7": "w"}, white_fields=["a3"])
    assert "white-only" in refusal(state, "move a1-a3")
    play(state, "move a1-a5")
    assert at(state, "a5") == "b"


def test_a_side_may_use_its_own_reserved_fields() -> None:
    state = position({"a1": "b", "g7": "w"}, black_fields=["a3"])
    play(state, "move a1-a3")
    assert at(state, "a3") == "b"


# -- placing, then moving; blocked lines ---------------------------------------------------------


def test_while_a_side_has_reserve_it_must_place() -> None:
    state = position({"a1": "b", "g7": "w"}, reserves=(1, 0))
    assert all(action < 49 for action in state.legal_actions())
    assert "must place" in refusal(state, "move a1-a2")
    play(state, "place d4")
    assert state.reserves == [0, 0]
    play(state, "move g7-g6")
    assert "no stone left in reserve" in refusal(state, "place e4")


def test_a_move_goes_any_distance_in_eight_directions_and_stops_at_the_first_piece() -> None:
    state = position({"d4": "b", "d6": "w", "b4": "b", "f2": "w", "g7": "w"})
    ends = {
        state.game.action_text(action).split("-")[1]
        for action in state.legal_actions()
        if state.game.action_text(action).startswith("move d4-")
    }
    expected = {
        "d5",  # north, stopped by d6
        "e4",
        "f4",
        "g4",  # east
        "d3",
        "d2",
        "d1",  # south
        "c4",  # west, stopped by b4
        "e5",
        "f6",
        "g7",  # north-east ... g7 is taken
        "e3",  # south-east, stopped by f2
        "c3",
        "b2",
        "a1",  # south-west
        "c5",
        "b6",
        "a7",  # north-west
    }
    expected.discard("g7")
    assert ends == expected


def test_no_jumping_over_any_piece() -> None:
    state = position({"d1": "b", "d3": "b", "d5": "N", "g7": "w"})
    assert "blocked on d3" in refusal(state, "move d1-d4")
    assert "blocked on d5" in refusal(state, "move d3-d7")


def test_a_move_must_start_from_an_own_piece() -> None:
    state = position({"a1": "b", "g7": "w"})
    assert "holds no black piece" in refusal(state, "move g7-g6")
    assert "holds no black piece" in refusal(state, "move b1-b2")


# -- monuments --------------------------------------------------------------------------------


def test_an_enemy_monument_is_toppled_like_a_stone_and_credited() -> None:
    state = position({"d5": "W", "d6": "b", "g6": "W", **SPARE}, reserves=(1, 0))
    play(state, "place d4")
    assert at(state, "d5") == "."
    assert last_move(state)["toppled"] == ["d5"]
    assert last_move(state)["captured"] == []
    assert state.toppled == [1, 0]
    assert not state.is_terminal(), "white still has its monument on g6"


def test_toppling_the_last_enemy_monument_wins_at_once() -> None:
    state = position({"d5": "W", "d6": "b", "a1": "B", **SPARE}, reserves=(1, 5))
    play(state, "place d4")
    assert state.is_terminal()
    assert state.ending == "goal"
    assert state.outcome().scores == (2, 0)
    assert state.outcome().ranks == (1, 2)


def test_an_own_monument_helps_capture() -> None:
    state = play(position({"d5": "w", "d6": "B", "g6": "W", **SPARE}, reserves=(1, 0)), "place d4")
    assert last_move(state)["captured"] == ["d5"]


def test_a_neutral_monument_helps_nobody_capture() -> None:
    state = play(position({"d5": "w", "d6": "N", "g1": "N", **SPARE}, reserves=(1, 0)), "place d4")
    assert at(state, "d5") == "w"


def test_a_neutral_monument_falls_to_two_stones_of_one_side_who_is_credited() -> None:
    state = position(
        {"d5": "N", "d6": "w", "a1": "N", "a4": "N", "b7": "b", "g1": "w"}, to_move="white", reserves=(0, 1)
    )
    play(state, "place d4")
    assert at(state, "d5") == "."
    assert last_move(state)["toppled"] == ["d5"]
    assert state.toppled == [0, 1]
    assert state.neutral_toppled == [0, 1]
    assert not state.is_terminal(), "one of three is no majority"


def test_a_majority_of_the_neutral_monuments_wins() -> None:
    pieces = {"c5": "N", "c6": "b", "e5": "N", "e6": "b", "g1": "N", "a1": "b", "g7": "w", "a6": "w"}
    state = position(pieces, reserves=(2, 0))
    play(state, "place c4", "move a6-a5", "place e4")
    assert state.neutral_toppled == [2, 0]
    assert state.is_terminal()
    assert state.ending == "goal"
    assert state.winner == 0


def test_monuments_block_lines_and_are_immovable_unless_the_scenario_says_so() -> None:
    state = position({"d1": "B", "d2": "b", "g7": "w"})
    assert "immovable" in refusal(state, "move d1-e1")
    movable = position({"d1": "B*", "d2": "b", "g7": "w"})
    play(movable, "move d1-a1")
    assert at(movable, "a1") == "B*"


def test_a_movable_monument_captures_when_it_moves() -> None:
    state = play(position({"d5": "w", "d6": "b", "a1": "B*", "g7": "w"}), "move a1-d4")
    assert last_move(state)["captured"] == ["d5"]


def test_a_movable_monument_obeys_the_entry_ban() -> None:
    state = position({"c4": "w", "e4": "w", "d1": "B*", "g7": "w"})
    assert "entry ban" in refusal(state, "move d1-d4")


# -- passes, the ply limit and its tie-breaks ------------------------------------------------------


def test_a_side_without_a_legal_action_passes() -> None:
    state = position({"a1": "b", "a2": "w", "b1": "w", "b2": "w", "d4": "B", "g7": "W"})
    assert state.legal_actions() == [PASS]
    play(state, "pass")
    assert state.current_player() == 1
    assert state.passes == 1


def test_a_side_with_reserve_but_no_legal_field_passes() -> None:
    rows = ["- - - - - - -"] * 6 + ["b - - - - - w"]
    state = position("\n".join(rows), reserves=(1, 1))
    assert state.legal_actions() == [PASS]


def test_passing_is_refused_while_a_move_exists() -> None:
    state = position({"a1": "b", "g7": "w"})
    assert "may not pass" in refusal(state, "pass")


def test_two_passes_in_a_row_end_the_match_with_the_tie_breaks() -> None:
    state = position({"a1": "b", "a2": "N", "b1": "N", "b2": "N", "d4": "B", "g7": "W"}, goal="enemy_monuments")
    play(state, "pass")
    assert not state.is_terminal()
    play(state, "pass")
    assert state.is_terminal()
    assert state.ending == "passes"
    assert state.outcome().scores == (2, 0), "no monument toppled; black has one stone on the board, white none"


def test_a_move_between_two_passes_keeps_the_match_going() -> None:
    state = position({"a1": "b", "a2": "w", "b1": "w", "b2": "w", "d4": "B", "g7": "W"})
    play(state, "pass", "move b2-c3")
    assert state.passes == 0
    assert not state.is_terminal()


def test_the_ply_limit_ends_the_match() -> None:
    state = position({"a1": "b", "g7": "w", "d1": "B", "d7": "W"}, ply_limit=10, ply=9)
    play(state, "move a1-a2")
    assert state.is_terminal()
    assert state.ending == "ply_limit"
    assert state.outcome().scores == (1, 1), "equal monuments, equal stones: a draw"
    assert state.outcome().ranks == (1, 1)


def test_first_tie_break_more_monuments_toppled() -> None:
    pieces = {"d5": "W", "d6": "b", "a7": "W", "a1": "B", "g1": "w", "g2": "w", "g3": "w"}
    state = position(pieces, reserves=(1, 0), ply_limit=1)
    play(state, "place d4")
    assert state.ending == "ply_limit"
    assert state.outcome().scores == (2, 0), "one monument beats three stones to two"


def test_second_tie_break_more_stones_on_the_board() -> None:
    state = position({"a1": "b", "g1": "w", "g2": "w", "d1": "B", "d7": "W"}, ply_limit=1)
    play(state, "move a1-a2")
    assert state.outcome().scores == (0, 2)
    assert state.winner == 1


def test_stones_in_reserve_do_not_count_for_the_tie_break() -> None:
    state = position({"a1": "b", "g1": "w", "g2": "w", "d1": "B", "d7": "W"}, reserves=(3, 0), ply_limit=1)
    play(state, "place c3")
    assert state.outcome().scores == (1, 1), "two stones each on the board; black's reserve does not count"


def test_a_capture_on_the_last_ply_counts_for_the_tie_break() -> None:
    state = position({"d5": "w", "d6": "b", "g1": "w", "d1": "B", "d7": "W"}, reserves=(1, 0), ply_limit=1)
    play(state, "place d4")
    assert state.outcome().scores == (2, 0)


def test_reaching_the_goal_on_the_last_ply_is_a_goal_win() -> None:
    state = position({"d5": "W", "d6": "b", "a1": "B", "g1": "w", "g2": "w"}, reserves=(1, 0), ply_limit=1)
    play(state, "place d4")
    assert state.ending == "goal"


def test_scores_give_the_winner_rank_one_and_a_draw_shared_ranks() -> None:
    game = make_game("board13")
    assert game.score_name == "points"
    assert game.lower_is_better is False
    assert ranks_from_scores((2, 0), lower_is_better=False) == (1, 2)
    assert ranks_from_scores((0, 2), lower_is_better=False) == (2, 1)
    assert ranks_from_scores((1, 1), lower_is_better=False) == (1, 1)


# -- classic capture positions of Hasami Shogi and Tablut, where the rules coincide -------------


def test_hasami_shogi_sandwich_by_a_long_slide_along_a_file() -> None:
    # Hasami Shogi: a piece moves any distance like a rook and captures the enemy piece it
    # sandwiches against a friend on the far side: black slides g1-g5, white g6 falls to g7.
    state = play(position({"g1": "b", "g6": "w", "g7": "b", "a4": "w"}), "move g1-g5")
    assert at(state, "g6") == "."


def test_hasami_shogi_capture_along_the_edge() -> None:
    # Pieces on the edge are sandwiched along the edge: white c1 between b1 and the arriving d1.
    state = play(position({"b1": "b", "c1": "w", "d7": "b", "g7": "w"}), "move d7-d1")
    assert at(state, "c1") == "."


def test_hasami_shogi_no_diagonal_sandwich() -> None:
    # Standard Hasami Shogi captures only orthogonally: a diagonal sandwich takes nothing.
    state = play(position({"c3": "w", "b2": "b", "d1": "b", "g7": "w"}), "move d1-d4")
    assert at(state, "c3") == "w"


def test_hasami_shogi_corner_piece_is_safe_in_a_line() -> None:
    # A corner piece has nothing beyond it on any line, so no sandwich can form around it
    # (Hasami Shogi's extra corner rule has no counterpart here).
    state = play(position({"a1": "w", "a2": "b", "c1": "b", "g7": "w"}), "move c1-b1")
    assert at(state, "a1") == "w"


def test_tablut_fork_captures_two_pieces_at_once() -> None:
    # Tablut: one move can take pieces on two sides at once. The straight fork (arriving
    # between two enemies) is what the entry ban forbids here; the corner fork holds in both.
    state = play(position({"d5": "w", "d6": "b", "e4": "w", "f4": "b", "a1": "b", "g7": "w"}), "move a1-d4")
    assert sorted(last_move(state)["captured"]) == ["d5", "e4"]
    straight = position({"c4": "w", "b4": "b", "e4": "w", "f4": "b", "d7": "b", "g7": "w"})
    assert "entry ban" in refusal(straight, "move d7-d4")


def test_tablut_a_fortress_square_acts_as_an_anvil() -> None:
    # Tablut: the empty throne is hostile and serves as the second jaw; here the own
    # partisan monument plays that part for its side, and only for its side.
    black = play(position({"d5": "w", "d4": "B", "a6": "b", "g7": "w"}), "move a6-d6")
    assert at(black, "d5") == "."
    white = play(position({"d5": "w", "d4": "W", "a6": "b", "g7": "w", "a1": "B"}), "move a6-d6")
    assert at(white, "d5") == "w", "white's monument does not help black"


def test_tablut_the_king_is_taken_by_two_when_armed_like_a_soldier() -> None:
    # In the Linnaeus variants where the king away from the throne is taken like any piece,
    # two enemies on opposite sides suffice: a partisan monument falls the same way.
    state = play(position({"e5": "W*", "e6": "b", "a4": "b", "a1": "B", "g1": "w"}), "move a4-e4")
    assert state.is_terminal()
    assert state.winner == 0


# -- action ids and text ---------------------------------------------------------------------------


def test_action_text_round_trips_and_ids_are_stable() -> None:
    game = make_game("board13")
    assert game.action_from_text("place d4") == 3 * 7 + 3
    assert game.action_from_text("move c3-c6") == move_action(2 * 7 + 2, 5 * 7 + 2)
    assert game.action_from_text("pass") == PASS
    for text in ("place a1", "place g7", "move a1-g7", "move g1-a7", "move c3-c6", "pass"):
        assert game.action_text(game.action_from_text(text)) == text
    assert game.action_from_text("  MOVE C3-C6 ") == game.action_from_text("move c3-c6")


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("place h9", "write place F with F from a1 to g7"),
        ("move c3", "write move FROM-TO"),
        ("move c3-d5", "along a row, column or diagonal"),
        ("move c3-c3", "along a row, column or diagonal"),
        ("jump c3-c5", "write place d4, move c3-c6 or pass"),
        ("", "write place d4, move c3-c6 or pass"),
    ],
)
def test_bad_action_text_says_what_to_write(text: str, hint: str) -> None:
    with pytest.raises(InvalidActionText, match=hint) as bad:
        make_game("board13").action_from_text(text)
    assert "\n" not in str(bad.value)


def test_action_ids_that_are_no_action_are_refused() -> None:
    game = make_game("board13")
    state = game.new_match(b"")
    for bad in (-1, PASS + 1, move_action(0, 0), move_action(0, 9)):
        with pytest.raises(InvalidActionText):
            game.action_text(bad)
        with pytest.raises(IllegalAction, match="not an action id"):
            state.clone().apply(bad)


def test_only_two_players() -> None:
    with pytest.raises(InvalidParameters, match="exactly 2 players, not 3"):
        make_game("board13", players=3)
    assert isinstance(make_game("board13"), Board13)


# -- observation and replay record -------------------------------------------------------------------


def test_the_observation_is_the_full_position_for_every_seat() -> None:
    state = board13("duel").new_match(b"obs")
    play(state, "place d4")
    seen = state.observation(1).to_dict()
    json.dumps(seen)
    assert seen["pieces"]["d4"] == "black"
    assert seen["pieces"]["d7"] == "white_monument"
    assert seen["reserves"] == {"black": 3, "white": 4}
    assert seen["moves"] == [{"seat": 0, "move": "place d4"}]
    public = state.public_observation().to_dict()
    assert {k: v for k, v in public.items() if k not in ("seat", "side")} == {
        k: v for k, v in seen.items() if k not in ("seat", "side")
    }
    assert state.observation(1).legal_actions == tuple(state.legal_actions())
    assert state.observation(0).legal_actions == ()


def test_a_state_rebuilt_from_an_observation_plays_on_identically() -> None:
    game = board13("gardens")
    assert isinstance(game, Board13)
    state = game.new_match(b"")
    state.playout(random.Random(3), horizon=17)
    twin = Board13State.from_observation(game, state.observation(state.current_player()))
    assert twin.board == state.board
    assert twin.legal_actions() == state.legal_actions()
    rng_a, rng_b = random.Random(9), random.Random(9)
    state.playout(rng_a)
    twin.playout(rng_b)
    assert (twin.board, twin.winner, twin.ending) == (state.board, state.winner, state.ending)


def test_the_record_lists_moves_captures_and_toppled_monuments_and_replays() -> None:
    game = board13("duel")
    state = game.new_match(bytes.fromhex("00ff"))
    state.playout(random.Random(1))
    record = state.record(["alice", "bob"])
    json.dumps(record)
    assert record["format"] == "arena-replay/1"
    assert record["params"] == {"players": 2, "scenario": "duel"}
    assert record["seed"] == "00ff"
    (entry,) = record["rounds"]
    assert entry["initial"]["reserves"] == {"black": 4, "white": 4}
    assert entry["moves"][0]["move"].startswith("place ")
    assert all(set(move) == {"seat", "move", "captured", "toppled"} for move in entry["moves"])
    assert entry["end"] == state.ending
    assert game.replay(record).outcome() == state.outcome()


def test_a_tampered_record_is_refused() -> None:
    game = board13("duel")
    state = game.new_match(b"tamper")
    state.playout(random.Random(2))
    record = state.record(["a", "b"])
    moved = json.loads(json.dumps(record))
    moved["rounds"][0]["moves"][0]["move"] = "place a7"
    moved["rounds"][0]["moves"][1]["move"] = "place a7"
    with pytest.raises(GameError, match="ply 2"):
        game.replay(moved)
    lied = json.loads(json.dumps(record))
    captures = [move for move in lied["rounds"][0]["moves"] if move["captured"]]
    captures[0]["captured"] = []
    with pytest.raises(GameError, match="rounds differ"):
        game.replay(lied)
    other = board13("temple")
    with pytest.raises(GameError, match="another layout"):
        other.replay(record)


# -- property: random play keeps every rule -----------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(scenario_names()), seed=st.integers(0, 2**32 - 1))
def test_random_play_ends_with_legal_moves_round_tripping_text_and_a_record_that_replays(name: str, seed: int) -> None:
    game = board13(name)
    state = game.new_match(seed.to_bytes(4, "big"))
    rng = random.Random(seed)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == sorted(set(legal))
        for action in legal:
            assert game.action_from_text(game.action_text(action)) == action
            assert state._illegal_reason(action) is None
        probe = rng.randrange(PASS + 1)
        if probe not in legal:
            with pytest.raises(IllegalAction):
                state.clone().apply(probe)
        state.apply(rng.choice(legal))
        assert state.ply <= game.scenario.ply_limit
    assert state.ending in ("goal", "passes", "ply_limit")
    assert sum(state.outcome().scores) == 2
    record = state.record(["x", "y"])
    assert game.replay(json.loads(json.dumps(record))).outcome() == state.outcome()
