"""`arena challenge` against a real server: the match id and where to follow it, or one line saying why not."""

from __future__ import annotations

import json
import re

import pytest

from tests.cli.test_people_cli import cli
from tests.server.conftest import Arena, RandomBot

pytestmark = pytest.mark.asyncio


async def test_an_owner_challenges_from_the_command_line_and_follows_the_match(arena: Arena) -> None:
    alice = await arena.owner("alice")
    await arena.connect(RandomBot, await arena.bot(alice, "mine", ("friday13", "amigo13", "board13")))
    code, out, err = await cli(arena, "challenge", "mine", "--against", "builtin:mc,builtin:heuristic", token=alice)
    assert code == 0, err
    found = re.fullmatch(
        r"challenge (\S+): friday13, mine vs builtin:mc vs builtin:heuristic \(unrated\)\n"
        rf"follow it: arena match show (\S+) --server {re.escape(arena.address)}   \(web UI: /#/matches/(\S+)\)\n",
        out,
    )
    assert found and found.group(1) == found.group(2) == found.group(3), out
    summary, _ = await arena.finished(found.group(1))
    assert list(summary.seats) == ["mine", "builtin:mc", "builtin:heuristic"]

    code, out, err = await cli(
        arena,
        "challenge",
        "mine",
        "--against",
        "builtin:random",
        "--game",
        "board13",
        "--param",
        "scenario=duel",
        "--json",
        token=alice,
    )
    assert code == 0, err
    reply = json.loads(out)
    assert reply["game"]["game"] == "board13" and reply["game"]["params"]["scenario"] == "duel"
    assert reply["seats"] == ["mine", "builtin:random"] and reply["match_id"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("challenge", "mine", "--against", ","),
            "arena: error: --against names no bot: e.g. --against builtin:mc,builtin:heuristic\n",
        ),
        (
            ("challenge", "mine", "--against", "builtin:mc", "--param", "scenario=duel"),
            "arena: error: --param sets a parameter of the game named by --game: add --game\n",
        ),
        (
            ("challenge", "mine", "--against", "ghost,builtin:mc"),
            "arena: error: no bot named 'ghost' is registered (arena bot list shows them)\n",
        ),
        (
            ("challenge", "mine", "--against", "builtin:mc", "--game", "friday13"),
            "arena: error: friday13 is for 3 to 6 players, not 2\n",
        ),
    ],
    ids=["no opponent", "param without game", "unknown bot", "too few seats"],
)
async def test_a_challenge_refused_is_one_line_and_exit_code_2(
    arena: Arena, args: tuple[str, ...], message: str
) -> None:
    alice = await arena.owner("alice")
    await arena.connect(RandomBot, await arena.bot(alice, "mine"))
    code, out, err = await cli(arena, *args, token=alice)
    assert (code, out, err) == (2, "", message)


async def test_a_challenge_needs_an_owner_token(arena: Arena) -> None:
    code, out, err = await cli(arena, "challenge", "mine", "--against", "builtin:mc,builtin:random")
    assert (code, out) == (2, "")
    assert err == "arena: error: this needs an owner token: pass --token or set ARENA_TOKEN or ARENA_ADMIN_TOKEN\n"


async def test_a_bot_that_accepts_no_invitations_or_plays_another_game_is_refused_in_one_line(arena: Arena) -> None:
    alice, bob = await arena.owner("alice"), await arena.owner("bob")
    await arena.connect(RandomBot, await arena.bot(alice, "mine"))
    await arena.connect(RandomBot, await arena.bot(bob, "bobs"))
    cases = [
        (
            ("--against", "bobs,builtin:mc"),
            "arena: error: bot 'bobs' belongs to bob, who has not let other owners enter it (its owner can: "
            "arena bot set bobs --accept-invitations)\n",
        ),
        (
            ("--against", "builtin:mc", "--game", "board13"),
            "arena: error: bot 'mine' does not play board13 (it plays friday13, amigo13)\n",
        ),
    ]
    for args, message in cases:
        code, out, err = await cli(arena, "challenge", "mine", *args, token=alice)
        assert (code, out, err) == (2, "", message)
