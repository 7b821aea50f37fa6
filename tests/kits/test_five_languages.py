"""Python, JavaScript, C++, Go and Java bots at one table: every starter kit builds from proto/
and plays real friday13, amigo13 and board13 matches, and every message the server sent each bot
is checked against the replay record (each request shows exactly the seat's own view; the seed
revealed at the end fits the commitment sent at the start). Every kit's sample bot explains each
move in its debug text: the record keeps it at that move, and no message to any bot holds it."""

from __future__ import annotations

import asyncio
import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.games import make_game
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from arena.wire import convert
from tests.kits.conftest import BUILD_TIMEOUT, KITS, REPO, Programs, errors_sent, register
from tests.server.conftest import Arena
from tests.server.test_mixed_table import check_observations

# The kits' first builds happen inside this test when it runs alone: minutes on a fresh machine.
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(3 * BUILD_TIMEOUT)]
BOTS = {"python": "py-bot", "node": "js-bot", "cpp": "cpp-bot", "go": "go-bot", "java": "java-bot"}
P, JS, CPP, GO, JAVA = BOTS.values()
# The card games take 3 to 6 players: all five at one table, in two seat orders. board13 is for
# two: three pairings give every language a board13 match.
TABLES = [
    ("friday13", [P, JS, CPP, GO, JAVA]),
    ("amigo13", [JAVA, GO, CPP, JS, P]),
    ("board13", [CPP, JAVA]),
    ("board13", [GO, P]),
    ("board13", [JS, CPP]),
]


def check_board13(record: dict[str, Any], requests: dict[int, list[bot_pb.ActionRequest]]) -> int:
    """Re-play a board13 record; each request must equal the engine's view for that seat then."""
    game = make_game(record["game"], **record["params"])
    state = game.new_match(bytes.fromhex(record["seed"]))
    checked = 0
    for move in record["rounds"][0]["moves"]:
        seat = state.current_player()
        assert seat == move["seat"]
        if seat in requests:
            request = requests[seat].pop(0)
            legal = [action.id for action in request.legal_actions]
            assert convert.observation_from_pb(game, request.observation, legal) == state.observation(seat)
            assert legal == state.legal_actions()
            checked += 1
        state.apply(game.action_from_text(move["move"]))
    assert state.is_terminal()
    assert all(not left for left in requests.values()), "requests the record has no move for"
    return checked


def highest_safe_card(request: bot_pb.ActionRequest) -> str:
    """The C++ and Go kits' card policy: the highest card that keeps its pile at 13 or less, else
    the lowest card; the lower id breaks ties."""
    totals = {pile.suit: pile.total for pile in request.observation.cards.piles}

    def key(action: pb.LegalAction) -> tuple[int, int, int]:
        card, _, target = action.text.partition(">")
        suit, _, value = card.partition(":")
        safe = totals.get(target or suit, 0) + int(value) <= 13
        return (0, -int(value), action.id) if safe else (1, int(value), action.id)

    return min(request.legal_actions, key=key).text


def played_texts(record: dict[str, Any], seat: int) -> list[str]:
    """A card seat's moves in the record, in the legal actions' text form."""
    moves = [move for entry in record["rounds"] for move in entry["moves"] if move["seat"] == seat]
    return [
        move["card"] if move["card"].split(":")[0] == move["pile"] else f"{move['card']}>{move['pile']}"
        for move in moves
    ]


def check_debug(record: dict[str, Any], sent: list[tuple[str, bot_pb.ConnectResponse]]) -> None:
    """Each seat explained each of its moves, beginning with the move's text; no bot was sent any of it."""
    moves = [move for entry in record["rounds"] for move in entry["moves"]]
    debug = record["debug"]
    assert [move for move, _, _ in debug] == list(range(len(moves))), "a text at every move"
    for move, seat, text in debug:
        assert moves[move]["seat"] == seat
        played = moves[move].get("move") or moves[move]["card"]  # board13 names the move, the card games the card
        assert text.startswith(played), (record["seats"][seat], text, moves[move])
    texts = {text for _, _, text in debug}
    leaked = [bot for bot, message in sent if any(text.encode() in message.SerializeToString() for text in texts)]
    assert leaked == [], "the debug texts reach no bot"


async def wait_connected(arena: Arena, names: set[str], programs: Programs, timeout: float = 60) -> None:
    """Until every bot is connected (a JVM on two busy cores takes seconds to start)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        listed = await arena.api.ListBots(api_pb.ListBotsRequest())
        if names <= {bot.name for bot in listed.bots if bot.connected}:
            return
        stopped = [process.returncode for process in programs.processes if process.returncode is not None]
        assert not stopped, f"a bot program stopped early with exit codes {stopped}"
        await asyncio.sleep(0.1)
    raise TimeoutError(f"bots {sorted(names)} did not connect in {timeout} s")


async def test_five_languages_play_all_three_games_at_one_table_checked_against_the_replay(
    arena: Arena,
    kit: Callable[[str], Path],
    node_bot: Path,
    programs: Programs,
    sent: list[tuple[str, bot_pb.ConnectResponse]],
) -> None:
    runs = {language: kit(language) for language in KITS}  # fails, never skips, when a kit does not build
    tokens = await register(arena, *BOTS.values())
    commands = {
        P: [sys.executable, str(REPO / "sample_bots" / "python" / "heuristic_bot.py")],
        JS: ["node", str(node_bot)],
        **{BOTS[language]: [str(run)] for language, run in runs.items()},
    }
    for name, command in commands.items():
        matches = sum(name in seats for _, seats in TABLES)
        await programs.start(
            *command,
            "--server",
            arena.address,
            "--token",
            tokens[name],
            "--max-matches",
            "4",
            "--matches",
            str(matches),
        )
    await wait_connected(arena, set(BOTS.values()), programs)
    tables = {await arena.create_match(game, seats): game for game, seats in TABLES}
    results = {match_id: await arena.finished(match_id, timeout=120) for match_id in tables}
    assert await programs.exit_codes() == [0] * len(BOTS)
    assert errors_sent(sent) == [], "no answer was late, illegal or malformed"
    played: dict[str, set[str]] = {name: set() for name in BOTS.values()}
    for match_id, (summary, record) in results.items():
        game = tables[match_id]
        assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
        seats = record["seats"]
        requests: dict[int, list[bot_pb.ActionRequest]] = {}
        started: dict[str, bot_pb.MatchStarted] = {}
        ended: dict[str, bot_pb.MatchEnded] = {}
        for bot, message in sent:
            kind = message.WhichOneof("message")
            if kind == "action_request" and message.action_request.match_id == match_id:
                seat = seats.index(bot)
                observation = message.action_request.observation
                assert observation.WhichOneof("game") == ("board13" if game == "board13" else "cards")
                assert (observation.board13 if game == "board13" else observation.cards).seat == seat
                requests.setdefault(seat, []).append(message.action_request)
            elif kind == "match_started" and message.match_started.match_id == match_id:
                assert record["seed"] not in message.SerializeToString().decode("latin-1")
                assert message.match_started.seat == seats.index(bot)
                started[bot] = message.match_started
            elif kind == "match_ended" and message.match_ended.match_id == match_id:
                ended[bot] = message.match_ended
        assert set(started) == set(ended) == set(seats)
        for bot in seats:
            played[bot].add(game)
            assert started[bot].seed_commitment == record["seed_commitment"]
            assert hashlib.sha256(bytes.fromhex(ended[bot].seed)).hexdigest() == started[bot].seed_commitment
            assert list(ended[bot].ranks) == record["ranks"]
            assert list(ended[bot].scores) == record["scores"]
        if game != "board13":
            for bot in (CPP, GO):
                seat = seats.index(bot)
                assert played_texts(record, seat) == [highest_safe_card(r) for r in requests[seat]], bot
        check_debug(record, sent)
        moves = sum(len(entry["moves"]) for entry in record["rounds"])
        check = check_board13 if game == "board13" else check_observations
        assert check(record, requests) == moves, "every move of the match was a bot's answer to a request"
    assert all(games == {"friday13", "amigo13", "board13"} for games in played.values()), played
