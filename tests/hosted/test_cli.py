"""`arena bot submit` and `arena bot logs`, run as processes against a real server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_people_cli import cli
from tests.hosted.conftest import misbehaving
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio
REPO = Path(__file__).resolve().parents[2]


async def test_submit_and_logs_from_the_command_line(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "clibot")
    submit = ("bot", "submit", "clibot", "--game", "friday13", "--dir", str(REPO / "sample_bots" / "python"))

    code, out, err = await cli(arena, *submit, "--run", "python random_bot.py", token=owner)
    assert code == 0, err
    assert out.startswith("bot clibot version 1 (") and out.rstrip().endswith(": ok")

    code, out, err = await cli(arena, "bot", "logs", "clibot", "--json", token=owner)
    assert code == 0, err
    shown = json.loads(out)
    assert [(v["version"], v["status"], v["run"]) for v in shown["versions"]] == [(1, "ok", "python random_bot.py")]
    assert shown["runs"] and shown["runs"][0]["match_ids"], "the validation match is among its runs"

    crashing = misbehaving(tmp_path / "crash", "crash")
    code, out, _ = await cli(
        arena,
        "bot",
        "submit",
        "clibot",
        "--game",
        "friday13",
        "--dir",
        str(crashing),
        "--run",
        "python bot.py",
        token=owner,
    )
    assert code == 1, "a version that fails its validation match fails the command"
    assert "clibot version 2" in out and "failed" in out and "the end of its stderr:" in out


async def test_submit_explains_what_is_wrong_in_one_line(arena: Arena, tmp_path: Path) -> None:
    owner = await arena.owner()
    await arena.bot(owner, "mine")
    other = await arena.owner("bob")
    folder = REPO / "sample_bots" / "python"

    code, _, err = await cli(
        arena,
        "bot",
        "submit",
        "mine",
        "--game",
        "friday13",
        "--dir",
        str(tmp_path / "none"),
        "--run",
        "python bot.py",
        token=owner,
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "none is not a folder" in err

    code, _, err = await cli(
        arena,
        "bot",
        "submit",
        "mine",
        "--game",
        "friday13",
        "--dir",
        str(folder),
        "--run",
        "python random_bot.py",
        token=other,
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "mine" in err, err

    code, _, err = await cli(arena, "bot", "logs", "mine", token=other)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
