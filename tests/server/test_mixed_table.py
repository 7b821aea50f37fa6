"""Full friday13 and amigo13 matches over real gRPC with Python and JavaScript bots at one table.

Every message the server sent is captured on its way out and checked against the replay record:
each ActionRequest carries exactly the seat's own view (its hand, never another's, nor the
dummy, the draw pile's order or the seed), and the seed revealed at the end fits the commitment.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.games import make_game
from arena.node.sessions import Session
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import bot_service_pb2 as bot_pb
from arena.wire import convert
from tests.conftest import npm_installed
from tests.server.conftest import Arena, RandomBot


@pytest.fixture(scope="session")
def node_bot(repo_root: Path) -> Path:
    """sample_bots/node with its packages installed (`npm ci`, as CI on a fresh machine needs)."""
    directory = npm_installed(repo_root / "sample_bots" / "node", "the JavaScript bot")
    return directory / "bot.js"


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, bot_pb.ConnectResponse]]]:
    """Every message the server sends to a bot, with the bot's name, in order."""
    captured: list[tuple[str, bot_pb.ConnectResponse]] = []
    original = Session.send

    def send(self: Session, message: bot_pb.ConnectResponse | bytes) -> None:
        # As the bot reads it (a request goes out encoded), and as it was then: a message may change later.
        copy = bot_pb.ConnectResponse()
        if isinstance(message, bytes):
            copy.ParseFromString(message)
        else:
            copy.CopyFrom(message)
        captured.append((self.bot, copy))
        original(self, message)

    monkeypatch.setattr(Session, "send", send)
    yield captured


async def wait_connected(arena: Arena, names: set[str], processes: list[asyncio.subprocess.Process]) -> None:
    for _ in range(300):
        listed = await arena.api.ListBots(api_pb.ListBotsRequest())
        if names <= {bot.name for bot in listed.bots if bot.connected}:
            return
        for process in processes:
            assert process.returncode is None, f"a bot program stopped early with exit code {process.returncode}"
        await asyncio.sleep(0.05)
    raise TimeoutError(f"bots {sorted(names)} did not connect")


def check_observations(record: dict[str, Any], requests: dict[int, list[bot_pb.ActionRequest]]) -> int:
    """Re-play the record; each request must equal what the engine shows that seat at that moment."""
    game = make_game(record["game"], **record["params"])
    seed = bytes.fromhex(record["seed"])
    state = game.new_match(seed)
    checked = 0
    for entry in record["rounds"]:
        for move in entry["moves"]:
            seat = state.current_player()
            if seat in requests:
                request = requests[seat].pop(0)
                received = convert.observation_from_pb(game, request.observation, [a.id for a in request.legal_actions])
                assert received == state.observation(seat)
                assert sorted(received.hand) == sorted(state.hands[seat])  # type: ignore[attr-defined]
                assert [a.id for a in request.legal_actions] == state.legal_actions()
                wire = request.SerializeToString()
                assert seed not in wire and record["seed"].encode() not in wire
                checked += 1
            wild = move["card"].split(":")[0] != move["pile"]
            state.apply_text(f"{move['card']}>{move['pile']}" if wild else move["card"])
    assert all(not left for left in requests.values()), "requests the record has no move for"
    return checked


@pytest.mark.asyncio
async def test_python_and_javascript_bots_play_full_matches_and_see_only_their_own_view(
    arena: Arena, node_bot: Path, repo_root: Path, sent: list[tuple[str, bot_pb.ConnectResponse]]
) -> None:
    tokens = await arena.bots("py-sdk", "py-script", "js-bot")
    await arena.connect(RandomBot, tokens["py-sdk"], max_matches=2)
    programs = [
        ["node", str(node_bot), "--token", tokens["js-bot"]],
        [
            sys.executable,
            str(repo_root / "sample_bots" / "python" / "heuristic_bot.py"),
            "--token",
            tokens["py-script"],
        ],
    ]
    processes = [
        await asyncio.create_subprocess_exec(
            *program, "--server", arena.address, "--max-matches", "2", "--matches", "2"
        )
        for program in programs
    ]
    try:
        await wait_connected(arena, {"py-sdk", "py-script", "js-bot"}, processes)
        tables = {
            await arena.create_match("friday13", ["py-sdk", "js-bot", "py-script", "builtin:heuristic"]): "friday13",
            await arena.create_match("amigo13", ["js-bot", "py-script", "py-sdk"]): "amigo13",
        }
        results = {match_id: await arena.finished(match_id, timeout=60) for match_id in tables}
        codes = [await asyncio.wait_for(process.wait(), 30) for process in processes]
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert codes == [0, 0]
    for match_id, (summary, record) in results.items():
        assert summary.termination == 1 and record["forfeited"] == []
        seats = record["seats"]
        requests: dict[int, list[bot_pb.ActionRequest]] = {}
        started = {}
        ended = {}
        for bot, message in sent:
            kind = message.WhichOneof("message")
            if kind == "action_request" and message.action_request.match_id == match_id:
                seat = seats.index(bot)
                assert message.action_request.observation.cards.seat == seat
                requests.setdefault(seat, []).append(message.action_request)
            elif kind == "match_started" and message.match_started.match_id == match_id:
                assert record["seed"] not in message.SerializeToString().decode("latin-1")
                started[bot] = message.match_started
            elif kind == "match_ended" and message.match_ended.match_id == match_id:
                ended[bot] = message.match_ended
            elif kind == "error":
                raise AssertionError(f"{bot} got an error: {message.error}")
        remote = {name for name in seats if not name.startswith("builtin:")}
        assert set(started) == set(ended) == remote
        for bot in remote:
            assert started[bot].seed_commitment == record["seed_commitment"]
            assert hashlib.sha256(bytes.fromhex(ended[bot].seed)).hexdigest() == started[bot].seed_commitment
            assert list(ended[bot].ranks) == record["ranks"]
        moves = sum(len(entry["moves"]) for entry in record["rounds"])
        remote_moves = sum(1 for entry in record["rounds"] for move in entry["moves"] if seats[move["seat"]] in remote)
        assert check_observations(record, requests) == remote_moves
        assert moves == (200 if tables[match_id] == "friday13" else 6 * 50)
