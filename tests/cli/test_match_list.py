"""`arena match list` pages through the matches newest first, filtered, and says how to ask for the next page;
gRPC's ListMatches pages the same way and refuses a cursor from another list with what to do."""

from __future__ import annotations

import json

import grpc
import pytest

from arena.v1 import arena_service_pb2 as api_pb
from tests.cli.test_layout import fits
from tests.cli.test_people_cli import cli
from tests.server.conftest import Arena

pytestmark = pytest.mark.asyncio


async def test_match_list_pages_back_through_a_bots_matches_and_says_how(arena: Arena) -> None:
    seats = ["builtin:random", "builtin:heuristic", "builtin:random"]
    played = [await arena.create_match("amigo13", seats) for _ in range(5)]
    other = await arena.create_match("board13", ["builtin:random", "builtin:random"])
    for match_id in [*played, other]:
        await arena.finished(match_id)
    newest_first = [
        m.match_id for m in (await arena.api.ListMatches(api_pb.ListMatchesRequest(game="amigo13"))).matches
    ]
    assert sorted(newest_first) == sorted(played)

    code, out, err = await cli(arena, "match", "list", "--game", "amigo13", "--limit", "2")
    assert code == 0, err
    fits(out)
    assert [line.split()[0] for line in out.splitlines() if line.split()[:1] in ([m] for m in played)] == newest_first[
        :2
    ]
    assert other not in out
    assert out.splitlines()[-1] == f"older: arena match list --game amigo13 --before {newest_first[1]}"
    code, out, err = await cli(arena, "match", "list", "--game", "amigo13", "--limit", "2", "--before", newest_first[3])
    assert code == 0, err
    shown = [line.split()[0] for line in out.splitlines() if line.split()[:1] in ([m] for m in played)]
    assert shown == newest_first[4:] and "older:" not in out, "the last page says no more"

    code, out, err = await cli(arena, "match", "list", "--game", "amigo13", "--limit", "3", "--json")
    page = json.loads(out)
    assert [m["match_id"] for m in page["matches"]] == newest_first[:3] and page["older"] == newest_first[2]
    assert all(m["ranks"] and m["termination"] == "normal" for m in page["matches"])


async def test_list_matches_refuses_a_cursor_from_another_list_in_one_line(arena: Arena) -> None:
    board = await arena.create_match("board13", ["builtin:random", "builtin:random"])
    await arena.finished(board)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await arena.api.ListMatches(api_pb.ListMatchesRequest(game="amigo13", before=board))
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
    assert refused.value.details() == f"no match {board!r} in this list to page from; start again at the newest"
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await arena.api.ListMatches(api_pb.ListMatchesRequest(before=board, after=board))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    code, _, err = await cli(arena, "match", "list", "--game", "amigo13", "--before", board)
    assert code == 2 and err.strip().endswith("start again at the newest") and len(err.strip().splitlines()) == 1
