"""The trained sample bot: training improves the policy, the committed weights beat `random` with
a 95% interval on seat-fair deals, and the SDK script plays a real match from the same weights."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from arena.games import make_game
from tests.server.conftest import Arena
from tests.server.test_mixed_table import wait_connected

EXAMPLE = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "trained"


@pytest.fixture(scope="module")
def example() -> Iterator[dict[str, ModuleType]]:
    """The example's modules, imported as its scripts import one another (from their folder)."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        yield {name: importlib.import_module(name) for name in ("policy", "train", "evaluate")}
    finally:
        sys.path.remove(str(EXAMPLE))


def test_a_short_training_run_improves_on_its_start(example: dict[str, ModuleType]) -> None:
    policy_module, train = example["policy"], example["train"]
    policy = policy_module.LinearPolicy.zeros(*_shape("friday13"))
    before = train.against_random(policy, deals=4)
    train.train(policy, matches=120, batch=4, lr=0.05, seed=1)  # about 4 s of CPU
    after = train.against_random(policy, deals=4)
    assert after < before - 4, f"penalty against random went from {before:.2f} to {after:.2f}"


def _shape(game: str) -> tuple[int, int]:
    from arena.envs.encoding import encoding_for

    encoding = encoding_for(make_game(game))
    return encoding.size, encoding.actions


def test_the_committed_weights_beat_random_with_a_95_percent_interval(example: dict[str, ModuleType]) -> None:
    policy = example["policy"].LinearPolicy.load()
    rows, pairs = example["evaluate"].evaluate(policy, deals=6, seed="test-trained")
    assert rows[0].bot == "trained"
    against_random = [pair for pair in pairs if pair.first == "trained"]
    assert len(against_random) == 3
    for pair in against_random:
        assert pair.established and pair.advantage.low > 5, f"{pair.second}: {pair.advantage}"


def test_the_weights_refuse_a_game_of_another_shape(example: dict[str, ModuleType]) -> None:
    policy = example["policy"].LinearPolicy.load()
    with pytest.raises(ValueError, match="board13 has 451 and 2451") as raised:
        example["policy"].Player(policy, make_game("board13"))
    assert "\n" not in str(raised.value)


def test_the_bot_script_names_a_missing_weights_file_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "none.npz"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "bot.py"), "--weights", str(missing), "--token", "atb_x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == f"bot.py: error: cannot read weights {missing}: no such file"


@pytest.mark.asyncio
async def test_the_sdk_bot_plays_a_real_match_with_the_committed_weights(
    arena: Arena, example: dict[str, ModuleType]
) -> None:
    tokens = await arena.bots("trained")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLE / "bot.py"),
        "--server",
        arena.address,
        "--token",
        tokens["trained"],
        "--matches",
        "1",
    )
    try:
        await wait_connected(arena, {"trained"}, [process])
        match_id = await arena.create_match(
            "friday13", ["builtin:random", "trained", "builtin:random", "builtin:random"]
        )
        summary, record = await arena.finished(match_id, timeout=120)
        code = await asyncio.wait_for(process.wait(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert code == 0
    assert summary.termination == 1 and record["forfeited"] == []
    # Re-play the record: every move of seat 1 is the policy's choice from the committed weights.
    game = make_game("friday13", **record["params"])
    player = example["policy"].Player(example["policy"].LinearPolicy.load(), game)
    state = game.new_match(bytes.fromhex(record["seed"]))
    checked = 0
    for entry in record["rounds"]:
        for move in entry["moves"]:
            seat = state.current_player()
            wild = move["card"].split(":")[0] != move["pile"]
            action = game.action_from_text(f"{move['card']}>{move['pile']}" if wild else move["card"])
            if seat == 1:
                assert action == player.act(state.observation(1), state.legal_actions())
                checked += 1
            state.apply(action)
    assert checked >= 48


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "2"], "friday13 is for 3 to 6 players, not 2"),
        (["--players", "four"], "--players is a comma-separated list of numbers, not 'four'"),
    ],
)
def test_train_refuses_bad_parameters_in_one_line(args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "train.py"), *args], capture_output=True, text=True, timeout=60, cwd=EXAMPLE
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith(f"error: {message}")
