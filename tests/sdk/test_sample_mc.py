"""The Monte Carlo sample bot's `--playouts N`: the cap reaches the search, and a bad value is one line."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from arena.bots.montecarlo import MonteCarloBot as Search
from arena.games import make_game
from arena.match import Clock, MatchInfo

SCRIPT = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "mc_bot.py"


def sample() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mc_bot", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cap_reaches_the_search_and_its_absence_keeps_the_builtin_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    bot = sample().MonteCarloBot
    game = make_game("friday13", players=3)
    match = MatchInfo("m1", game, 0, ("ann", "bob", "cy"), "c0ffee", Clock(per_move=5.0, bank=10.0))
    builtin = bot(match).player
    assert isinstance(builtin, Search) and builtin.samples == builtin.model.playouts > 7
    monkeypatch.setattr(bot, "playouts", 7)
    assert bot(match).player.samples == 7


@pytest.mark.parametrize(
    ("value", "error"),
    [("0", "mc_bot.py: --playouts must be at least 1, not 0"), ("many", "argument --playouts: invalid int value")],
)
def test_a_bad_cap_is_one_line(value: str, error: str) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--playouts", value, "--token", "atb_x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and error in done.stderr.strip().splitlines()[-1], done.stderr
