"""`arena match show` explains a loss in plain words: each forfeit and strike with its seat, bot, kind, move
and detail, and how many debug texts the record holds."""

from __future__ import annotations

import json

import pytest

from arena.sdk import Bot, Turn
from tests.cli.test_layout import fits
from tests.cli.test_people_cli import cli
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio


class Cheater(Bot):
    """Answers with an id that is no action at all, and says so."""

    def act(self, turn: Turn) -> int:
        turn.debug("trying an action that does not exist")
        return 10_000


async def test_match_show_names_the_forfeit_and_every_strike_in_plain_words(arena: Arena) -> None:
    tokens = await arena.bots("cheater")
    await arena.connect(Cheater, tokens["cheater"])
    match_id = await arena.create_match("friday13", ["cheater", "builtin:random", "builtin:heuristic"])
    _, record = await arena.finished(match_id)
    moves = [strike["move"] for strike in record["strikes"]]

    code, out, err = await cli(arena, "match", "show", match_id)
    assert code == 0, err
    fits(out)
    words = " ".join(out.split())  # the lines are wrapped to the terminal's 80 columns
    illegal = ", ".join(f"illegal at move {move}" for move in moves)
    assert f"forfeits and strikes: seat 0 (cheater) forfeited at move {moves[-1]}: three strikes: {illegal} " in words
    for move in moves:
        assert (
            f"seat 0 (cheater) got a strike at move {move}: illegal action: "
            "10000 is not an action id of friday13" in words
        ), out
    assert f"debug output: 3 texts of seat 0 (cheater) (arena match export {match_id})" in words

    code, out, err = await cli(arena, "match", "show", match_id, "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert [entry["kind"] for entry in shown["forfeits"]] == ["strikes"]
    assert [(entry["seat"], entry["bot"], entry["kind"], entry["move"]) for entry in shown["strikes"]] == [
        (0, "cheater", "illegal", move) for move in moves
    ]


async def test_match_show_of_a_clean_match_has_nothing_to_explain(arena: Arena) -> None:
    match_id = await arena.create_match("amigo13", ["builtin:random", "builtin:random", "builtin:heuristic"])
    await arena.finished(match_id)
    code, out, err = await cli(arena, "match", "show", match_id)
    assert code == 0, err
    assert "forfeits and strikes" not in out and "debug output" not in out
    code, out, err = await cli(arena, "match", "show", match_id, "--json")
    assert json.loads(out)["forfeits"] == [] and json.loads(out)["strikes"] == []
