"""How sure the leaderboard is, as the gRPC GetLeaderboard and `arena leaderboard` show it: provisional
bots, each neighbour pair's order (established since when, or not), the active version; and
`arena ratings versions`, the rating each earlier version reached."""

from __future__ import annotations

import itertools
import json

import pytest

from arena.ratings import PROVISIONAL_MATCHES, ResultRecord
from arena.store.ratings import RatingStore
from arena.v1 import arena_service_pb2 as api_pb
from tests.cli.test_people_cli import cli
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio

GAME = "friday13"
SEATS = ("top", "twin1", "twin2", "low")
# The twins' places mirror each other (neither is better); top always wins, low mostly loses.
ORDERS = [(1, 2, 3, 4), (1, 3, 2, 4), (1, 2, 4, 3), (1, 4, 2, 3), (1, 3, 4, 2), (1, 4, 3, 2)]
MATCHES = 42


def ratings_of(arena: Arena) -> RatingStore:
    ratings = arena.server.ratings
    assert ratings is not None
    return ratings


async def rated_board(ratings: RatingStore) -> None:
    for number in range(MATCHES):
        ranks = ORDERS[number % len(ORDERS)]
        await ratings.apply(GAME, ResultRecord(f"m{number}", SEATS, (0,) * 4, ranks, finished_at=1000.0 + number))
    await ratings.apply(GAME, ResultRecord("late", ("late", "twin1"), (0, 0), (2, 1), finished_at=2000.0))
    await ratings.widen(GAME, "top", "7")


async def test_grpc_and_cli_leaderboards_mark_provisional_bots_established_neighbours_and_the_version(
    arena: Arena,
) -> None:
    await rated_board(ratings_of(arena))

    reply = await arena.api.GetLeaderboard(api_pb.GetLeaderboardRequest(game=GAME))
    names = [row.bot for row in reply.rows]
    assert {row.bot for row in reply.rows if row.provisional} == {"late", "top"}, "too few matches; a new version"
    assert {row.bot: row.version for row in reply.rows} == {bot: "7" if bot == "top" else "" for bot in names}
    assert [(order.upper, order.lower) for order in reply.neighbours] == list(itertools.pairwise(names))
    orders = {frozenset((order.upper, order.lower)): order for order in reply.neighbours}
    twins = orders.get(frozenset(("twin1", "twin2")))
    assert twins is not None and not twins.established and twins.since_games == 0
    established = [order for order in reply.neighbours if order.established]
    assert established, "top's lead over the twins and theirs over low are 42 matches strong"
    assert all(0 < order.since_games <= MATCHES + 1 for order in established)

    code, out, err = await cli(arena, "leaderboard", GAME)
    assert code == 0, err
    assert f"provisional (under {PROVISIONAL_MATCHES} rated matches, or a new version): " in out, out
    provisional_line = next(line for line in out.splitlines() if line.startswith("provisional"))
    assert set(provisional_line.split(": ")[1].split(", ")) == {"late", "top"}
    for order in reply.neighbours:
        marker = (
            f"established since {order.since_games} matches"
            if order.established
            else f"not established (z {order.z:.2f})"
        )
        assert f"  {order.upper} > {order.lower}: {marker}" in out.splitlines(), out
    top_row = next(line.split() for line in out.splitlines() if line.split()[1:2] == ["top"])
    assert top_row[2] == "7", out

    code, out, err = await cli(arena, "leaderboard", GAME, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [row["bot"] for row in rows] == names
    assert rows[0]["order_below"]["lower"] == names[1] and "order_below" not in rows[-1]
    assert {row["bot"] for row in rows if row.get("provisional")} == {"late", "top"}


async def test_the_owner_sees_each_versions_rating_and_the_active_one(arena: Arena) -> None:
    await rated_board(ratings_of(arena))
    before = (await ratings_of(arena).history(GAME, "top"))[MATCHES - 1]
    await ratings_of(arena).apply(GAME, ResultRecord("after", SEATS, (0,) * 4, (2, 1, 3, 4), finished_at=3000.0))

    code, out, err = await cli(arena, "ratings", "versions", "top", GAME, "--json")
    assert code == 0, err
    versions = json.loads(out)
    assert [(one["version"], one["matches"], one["active"]) for one in versions] == [
        ("", MATCHES, False),
        ("7", 1, True),
    ]
    assert (versions[0]["mu"], versions[0]["sigma"]) == (before.mu, before.sigma), "the earlier version's last rating"
    (row,) = [row for row in await ratings_of(arena).leaderboard(GAME) if row.bot == "top"]
    assert (versions[1]["mu"], versions[1]["sigma"], row.version) == (row.mu, row.sigma, "7")

    code, out, err = await cli(arena, "ratings", "versions", "top", GAME)
    assert code == 0, err
    assert "(none)" in out and "7 (active)" in out, out
