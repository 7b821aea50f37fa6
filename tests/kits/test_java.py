"""The Java starter kit (sample_bots/java) against a real server over real gRPC.

It is built by its own build.sh (messages and stub generated from proto/ with Debian's protoc and
grpc-java plugin), then plays friday13, amigo13 and board13 at once on one session against Python
bots; every request it got is re-played against the replay record: it saw exactly its seat's view
and answered with the move its policy gives (the highest safe card; a capture in board13 whenever
one was on offer). It resumes a stream cut mid-match without forfeiting, and it runs as a hosted
bot in the sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.games import make_game
from arena.node.sessions import Hangup, Session
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from arena.wire import convert
from tests.hosted.conftest import submit
from tests.kits.conftest import Programs, errors_sent, register
from tests.server.conftest import Arena, RandomBot
from tests.server.test_mixed_table import wait_connected

pytestmark = pytest.mark.asyncio
Sent = list[tuple[str, bot_pb.ConnectResponse]]
LIMIT = 13


@pytest.fixture
def delivered(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sent]:
    """Every message the server hands to a bot's stream, with the bot's name, in order: the Welcome
    and what a resume sends again included."""
    captured: Sent = []
    original = Session.next_message

    async def next_message(self: Session, stream: int) -> bot_pb.ConnectResponse | bytes | Hangup | None:
        message = await original(self, stream)
        if isinstance(message, bytes):  # an encoded ActionRequest
            captured.append((self.bot, bot_pb.ConnectResponse.FromString(message)))
        elif isinstance(message, bot_pb.ConnectResponse):
            copy = bot_pb.ConnectResponse()
            copy.CopyFrom(message)
            captured.append((self.bot, copy))
        return message

    monkeypatch.setattr(Session, "next_message", next_message)
    yield captured


def highest_safe_card(request: bot_pb.ActionRequest) -> int:
    """What the Java bot must answer in a card game: the highest card keeping its pile at 13 or
    less, else the lowest card; ties by id."""
    totals = {pile.suit: pile.total for pile in request.observation.cards.piles}

    def key(legal: pb.LegalAction) -> tuple[int, int, int]:
        card, _, target = legal.text.partition(">")
        suit, _, value = card.partition(":")
        safe = totals.get(target or suit, 0) + int(value) <= LIMIT
        return (0, -int(value), legal.id) if safe else (1, int(value), legal.id)

    return min(request.legal_actions, key=key).id


def move_text(game: str, move: dict[str, Any]) -> str:
    if game == "board13":
        text: str = move["move"]
        return text
    wild = move["card"].split(":")[0] != move["pile"]
    return f"{move['card']}>{move['pile']}" if wild else str(move["card"])


def requests_to(delivered: Sent, bot: str, match_id: str) -> list[bot_pb.ActionRequest]:
    """The requests the server sent `bot` in the match, each once (a resume re-sends the waiting one)."""
    seen: dict[int, bot_pb.ActionRequest] = {}
    for name, message in delivered:
        if name == bot and message.WhichOneof("message") == "action_request":
            request = message.action_request
            if request.match_id == match_id:
                seen.setdefault(request.request_id, request)
    return [seen[key] for key in sorted(seen)]


def check_against_record(record: dict[str, Any], seat: int, requests: list[bot_pb.ActionRequest]) -> int:
    """Re-play the record: each request to `seat` is the engine's view of that seat at that moment,
    and the move the record holds for it is the one the Java policy gives. Returns the turns checked."""
    game = make_game(record["game"], **record["params"])
    state = game.new_match(bytes.fromhex(record["seed"]))
    pending = list(requests)
    checked = 0
    for entry in record["rounds"]:
        for move in entry["moves"]:
            if state.current_player() == seat:
                request = pending.pop(0)
                legal = [legal.id for legal in request.legal_actions]
                assert legal == state.legal_actions()
                assert convert.observation_from_pb(game, request.observation, legal) == state.observation(seat)
                action = game.action_from_text(move_text(record["game"], move))
                if record["game"] == "board13":
                    offered = state.best_capture()  # type: ignore[attr-defined]
                    if offered[2] >= 0:
                        assert sum(state.gain(action)) > 0, f"ply {state.ply}: a capture was on offer"  # type: ignore[attr-defined]
                else:
                    assert action == highest_safe_card(request), move
                checked += 1
            state.apply_text(move_text(record["game"], move))
    assert pending == [], "requests the record has no move for"
    return checked


async def java_bot(
    programs: Programs, run: Path, server: str, token: str, *, matches: int, max_matches: int
) -> asyncio.subprocess.Process:
    return await programs.start(
        str(run),
        "--server",
        server,
        "--token",
        token,
        "--games",
        "friday13,amigo13,board13",
        "--max-matches",
        str(max_matches),
        "--matches",
        str(matches),
    )


async def test_the_java_bot_plays_all_three_games_at_once_on_one_session(
    arena: Arena, kit: Callable[[str], Path], programs: Programs, delivered: Sent
) -> None:
    run = kit("java")
    tokens = await register(arena, "java-bot", "py-a", "py-b")
    for name in ("py-a", "py-b"):
        await arena.connect(RandomBot, tokens[name], max_matches=3, games=("friday13", "amigo13", "board13"))
    launched = time.monotonic()
    process = await java_bot(programs, run, arena.address, tokens["java-bot"], matches=3, max_matches=3)
    await wait_connected(arena, {"java-bot", "py-a", "py-b"}, [process])
    print(f"the Java bot connected {time.monotonic() - launched:.2f} s after its launch")
    tables = {
        "friday13": await arena.create_match("friday13", ["py-a", "java-bot", "py-b", "builtin:heuristic"]),
        "amigo13": await arena.create_match("amigo13", ["java-bot", "py-a", "py-b"]),
        "board13": await arena.create_match("board13", ["py-b", "java-bot"]),
    }
    results = {game: await arena.finished(match_id, timeout=90) for game, match_id in tables.items()}
    assert await programs.exit_codes() == [0], "the bot stops by itself after its three matches"

    assert errors_sent(delivered) == []
    welcomes = [message.welcome for bot, message in delivered if bot == "java-bot" and message.HasField("welcome")]
    assert len(welcomes) == 1, "one session carried all three matches"
    summaries = [summary for summary, _ in results.values()]
    assert max(summary.started_ms for summary in summaries) < min(summary.ended_ms for summary in summaries), (
        "the three matches ran at the same time"
    )
    for game, (summary, record) in results.items():
        match_id = tables[game]
        assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
        seat = record["seats"].index("java-bot")
        ended = [m.match_ended for bot, m in delivered if bot == "java-bot" and m.match_ended.match_id == match_id]
        assert len(ended) == 1 and list(ended[0].ranks) == record["ranks"]
        requests = requests_to(delivered, "java-bot", match_id)
        assert all(request.observation.WhichOneof("game") == ("board13" if game == "board13" else "cards")
                   for request in requests)  # fmt: skip
        turns = sum(1 for entry in record["rounds"] for move in entry["moves"] if move["seat"] == seat)
        assert check_against_record(record, seat, requests) == turns > 0


class CuttingProxy:
    """A TCP relay between the bot and the arena that can cut every connection at once, as a
    network failure does; it keeps listening, so the bot's reconnection gets through."""

    def __init__(self, upstream: str) -> None:
        host, _, port = upstream.rpartition(":")
        self.upstream = (host, int(port))
        self.writers: list[asyncio.StreamWriter] = []
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"127.0.0.1:{port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        self.writers += [writer, up_writer]

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    async def close(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()


async def test_the_java_bot_resumes_a_cut_stream_without_forfeiting(
    arena: Arena, kit: Callable[[str], Path], programs: Programs, delivered: Sent
) -> None:
    run = kit("java")
    tokens = await register(arena, "java-bot", "py-a")
    await arena.connect(RandomBot, tokens["py-a"], max_matches=2, games=("friday13", "amigo13", "board13"))
    proxy = CuttingProxy(arena.address)
    try:
        process = await java_bot(programs, run, await proxy.start(), tokens["java-bot"], matches=2, max_matches=2)
        await wait_connected(arena, {"java-bot", "py-a"}, [process])
        asked: set[str] = set()

        async def asks(match_id: str) -> None:
            """Until the match asked the bot for a move (a JVM under load may take a while to answer)."""
            deadline = time.monotonic() + 90
            while match_id not in asked:
                asked.update(r.match_id for r in (m.action_request for b, m in delivered if b == "java-bot"))
                assert time.monotonic() < deadline, f"match {match_id} asks the bot within 90 s"
                await asyncio.sleep(0.01)

        # The short board match starts once the card match is under way, and the stream is cut as soon as it
        # asks: started together, it could end while the card match waits for its first move.
        cards = await arena.create_match("amigo13", ["java-bot", "py-a", "builtin:heuristic"])
        await asks(cards)
        board = await arena.create_match("board13", ["java-bot", "py-a"])
        await asks(board)
        proxy.cut()  # mid-match: both matches have asked the bot for moves already
        results = {match_id: await arena.finished(match_id, timeout=90) for match_id in (cards, board)}
        assert await programs.exit_codes() == [0]
    finally:
        await proxy.close()
    welcomes = [m.welcome for b, m in delivered if b == "java-bot" and m.HasField("welcome")]
    assert [w.resumed for w in welcomes] == [False, True] and welcomes[0].session_id == welcomes[1].session_id
    assert proxy.connections == 2
    assert [text for _, text in errors_sent(delivered) if "forfeit" in text.lower()] == []
    for match_id, (summary, record) in results.items():
        assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
        seat = record["seats"].index("java-bot")
        started = [m for b, m in delivered if b == "java-bot" and m.match_started.match_id == match_id]
        assert len(started) == 2, "the resumed session announced the running match again"
        if record["game"] == "board13":
            assert check_against_record(record, seat, requests_to(delivered, "java-bot", match_id)) > 0


async def test_the_java_bot_runs_hosted_in_the_sandbox(
    hosted_arena: Arena, kit: Callable[[str], Path], tmp_path: Path, delivered: Sent
) -> None:
    run = kit("java")
    # The package: the launcher and the built jars (the bot and its libraries); the JVM comes from
    # the node's /usr, which the sandbox binds read-only.
    folder = tmp_path / "java-bot"
    folder.mkdir()
    shutil.copy(run, folder / "run.sh")
    shutil.copytree(run.parent / "build" / "lib", folder / "build" / "lib")
    shutil.copy(run.parent / "build" / "arena-bot.jar", folder / "build" / "arena-bot.jar")
    owner = await hosted_arena.owner()
    await hosted_arena.bot(owner, "java-hosted")
    reply = await submit(hosted_arena, owner, "java-hosted", folder, "sh run.sh")
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, (reply.version.reason, reply.stderr_tail)
    summary, record = await hosted_arena.finished(reply.version.validation_match_id)
    assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
    seat = record["seats"].index("java-hosted")
    requests = requests_to(delivered, "java-hosted", reply.version.validation_match_id)
    turns = sum(1 for entry in record["rounds"] for move in entry["moves"] if move["seat"] == seat)
    assert check_against_record(record, seat, requests) == turns > 0, "it played its own moves, none by default"


async def test_the_java_bot_stops_with_a_one_line_reason_on_a_bad_token(
    arena: Arena, kit: Callable[[str], Path]
) -> None:
    run = kit("java")
    process = await asyncio.create_subprocess_exec(
        str(run), "--server", arena.address, "--token", "atb_not-a-token", stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 2, "UNAUTHENTICATED is final: no reconnecting"
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "the arena refused the bot" in lines[0], lines
