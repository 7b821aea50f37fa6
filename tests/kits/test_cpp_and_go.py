"""The C++ and Go starter kits against a real server: they resume a cut stream without losing a
move, play several matches on one session at once, and run as hosted bots in the sandbox."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.node.sessions import Session
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import messages_pb2 as pb
from tests.hosted.conftest import submit
from tests.kits.conftest import BUILD_TIMEOUT, Programs, errors_sent, register
from tests.server.conftest import Arena
from tests.server.test_mixed_table import wait_connected

# A kit's first build happens inside the first test that needs it: minutes on a fresh machine.
pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(BUILD_TIMEOUT + 300)]
COMPILED = ("cpp", "go")


@pytest.mark.parametrize("language", COMPILED)
async def test_the_kit_resumes_its_session_after_cut_streams_and_finishes_without_forfeit(
    language: str,
    kit: Callable[[str], Path],
    arena: Arena,
    programs: Programs,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = kit(language)
    name = f"{language}-steady"
    tokens = await register(arena, name)
    cut: set[int] = set()
    attached: list[tuple[str, bool, int]] = []
    errors: list[bot_pb.Error] = []
    send, attach = Session.send, Session.attach

    def cutting_send(self: Session, message: bot_pb.ConnectResponse | bytes) -> None:
        send(self, message)
        kind = _kind(message)
        if kind == "error":
            assert isinstance(message, bot_pb.ConnectResponse)
            errors.append(message.error)
        # Cut the stream right behind a request, three streams once each: the bot can hardly
        # answer the request on the stream it came by.
        if self.bot == name and self.attached and kind == "action_request" and self.stream not in cut and len(cut) < 3:
            cut.add(self.stream)
            self.hang_up(self.stream, "cut by the test")

    def recording_attach(self: Session, welcome: bot_pb.Welcome) -> int:
        attached.append((self.id, welcome.resumed, len(self.pending)))
        return attach(self, welcome)

    monkeypatch.setattr(Session, "send", cutting_send)
    monkeypatch.setattr(Session, "attach", recording_attach)
    process = await programs.start(str(run), "--server", arena.address, "--token", tokens[name], "--matches", "1")
    await wait_connected(arena, {name}, [process])
    match_id = await arena.create_match("friday13", [name, "builtin:random", "builtin:heuristic"])
    summary, record = await arena.finished(match_id, timeout=60)
    assert await programs.exit_codes() == [0]
    assert len(cut) == 3
    assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
    assert errors == [], "no move was late or illegal"
    assert len(attached) == 4, attached
    assert len({session for session, _, _ in attached}) == 1, "every stream resumed the one session"
    assert [resumed for _, resumed, _ in attached] == [False, True, True, True]
    assert sum(pending for _, _, pending in attached) >= 1, "some request waited for the resumed stream"


@pytest.mark.parametrize("language", COMPILED)
async def test_the_kit_plays_matches_of_all_three_games_at_once_on_one_session(
    language: str,
    kit: Callable[[str], Path],
    arena: Arena,
    programs: Programs,
    sent: list[tuple[str, bot_pb.ConnectResponse]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = kit(language)
    name = f"{language}-busy"
    tokens = await register(arena, name)
    # The bot's first request of each match is held back until all three matches have one: it
    # then holds three requests of three matches at once, and must answer them all.
    held: list[tuple[Session, bot_pb.ConnectResponse | bytes]] = []
    sessions: set[str] = set()
    send = Session.send

    def holding_send(self: Session, message: bot_pb.ConnectResponse | bytes) -> None:
        if self.bot == name and _kind(message) == "action_request":
            sessions.add(self.id)
            if len(held) < 3:
                held.append((self, message))
                if len(held) == 3:
                    for session, waiting in held:
                        send(session, waiting)
                return
        send(self, message)

    monkeypatch.setattr(Session, "send", holding_send)
    process = await programs.start(
        str(run), "--server", arena.address, "--token", tokens[name], "--max-matches", "3", "--matches", "3"
    )
    await wait_connected(arena, {name}, [process])
    matches = [
        await arena.create_match("friday13", [name, "builtin:heuristic", "builtin:random", "builtin:random"]),
        await arena.create_match("amigo13", ["builtin:random", name, "builtin:heuristic"]),
        await arena.create_match("board13", ["builtin:random", name]),
    ]
    results = [await arena.finished(match_id, timeout=60) for match_id in matches]
    assert await programs.exit_codes() == [0]
    assert errors_sent(sent) == []
    for summary, record in results:
        assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
    assert len(sessions) == 1, "one session carried the three matches"
    order = [
        message.action_request.match_id for bot, message in sent if message.WhichOneof("message") == "action_request"
    ]
    assert set(order[:3]) == set(matches), "the bot held a request of each match at once"
    assert max(summary.started_ms for summary, _ in results) < min(summary.ended_ms for summary, _ in results)


@pytest.mark.parametrize("language", COMPILED)
async def test_the_kit_runs_as_a_hosted_bot_with_its_built_binary(
    language: str, kit: Callable[[str], Path], hosted_arena: Arena, tmp_path: Path
) -> None:
    run = kit(language)
    # The package carries the built binary; the sandbox binds /usr, so Debian's shared
    # libraries (libgrpc++ for C++) are there when it starts.
    folder = tmp_path / f"{language}-bot"
    folder.mkdir()
    shutil.copy2(run.parent / "build" / "bot", folder / "bot")
    owner = await hosted_arena.owner()
    await hosted_arena.bot(owner, f"{language}-hosted")
    reply = await submit(hosted_arena, owner, f"{language}-hosted", folder, "./bot")
    assert reply.version.status == api_pb.HOSTED_VERSION_STATUS_OK, (reply.version.reason, reply.stderr_tail)
    summary, record = await hosted_arena.finished(reply.version.validation_match_id)
    assert summary.termination == pb.TERMINATION_NORMAL and record["forfeited"] == []
    assert f"{language}-hosted" in record["seats"]


@pytest.mark.parametrize("language", COMPILED)
async def test_the_kit_stops_with_exit_code_2_when_the_arena_refuses_its_token(
    language: str, kit: Callable[[str], Path], arena: Arena
) -> None:
    run = kit(language)
    process = await asyncio.create_subprocess_exec(
        str(run), "--server", arena.address, "--token", "atb_not-a-token", stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 20)
    assert process.returncode == 2
    assert "the arena refused the bot" in stderr.decode()


@pytest.mark.parametrize("language", COMPILED)
async def test_the_kit_plays_sensible_board13_moves_and_beats_random_play(
    language: str, kit: Callable[[str], Path], arena: Arena, programs: Programs
) -> None:
    run = kit(language)
    name = f"{language}-board"
    tokens = await register(arena, name)
    process = await programs.start(
        str(run), "--server", arena.address, "--token", tokens[name], "--max-matches", "8", "--matches", "8"
    )
    await wait_connected(arena, {name}, [process])
    tables = [[name, "builtin:random"] if game % 2 == 0 else ["builtin:random", name] for game in range(8)]
    matches = [(await arena.create_match("board13", seats), seats.index(name)) for seats in tables]
    points = [(await arena.finished(match_id, timeout=60))[1]["scores"][seat] for match_id, seat in matches]
    assert await programs.exit_codes() == [0]
    # 2 points for a win, 1 for a draw: capturing first and holding the centre wins nearly always
    # (8 of 8 in the runs measured), with either colour.
    assert points.count(2) >= 6, points


def _kind(message: bot_pb.ConnectResponse | bytes) -> str | None:
    """The kind of a message a session sends (an ActionRequest goes out encoded, as bytes)."""
    decoded = bot_pb.ConnectResponse.FromString(message) if isinstance(message, bytes) else message
    kind: str | None = decoded.WhichOneof("message")
    return kind
