"""Bot sessions (arena.node.sessions): resume and grace, what a resuming stream is sent, answers, flood and
session limits, driven on a SessionRegistry of real Sessions and their outboxes."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from prometheus_client import REGISTRY

from arena.match.seats import SeatGone
from arena.node.fds import FdBudget, FdPlan
from arena.node.sessions import Hangup, Limits, Pending, Session, SessionRegistry, SessionsFull
from arena.v1 import bot_service_pb2 as bot_pb
from tests.node.conftest import SLACK, BotDriver, hello
from tests.waiting import until

pytestmark = pytest.mark.asyncio

GRACE = 0.2


def refusals(limit: str) -> float:
    return REGISTRY.get_sample_value("arena_limit_refusals_total", {"limit": limit}) or 0.0


def ask(session: Session, match_id: str, time_left: float = 5.0) -> Pending:
    """Send the session an ActionRequest for `match_id`, as a seat does."""
    body = bot_pb.ActionRequest(match_id=match_id).SerializeToString()
    return session.request(match_id, body, time_left)


async def drain(session: Session, stream: int) -> list[bot_pb.ConnectResponse | Hangup]:
    """What the session's outbox holds for `stream` now, in order."""
    found: list[bot_pb.ConnectResponse | Hangup] = []
    while True:
        try:
            message = await asyncio.wait_for(session.next_message(stream), 0.05)
        except TimeoutError:
            return found
        if message is None:
            return found
        found.append(bot_pb.ConnectResponse.FromString(message) if isinstance(message, bytes) else message)


def kind(message: bot_pb.ConnectResponse | Hangup) -> str:
    return "hangup" if isinstance(message, Hangup) else str(message.WhichOneof("message"))


async def test_a_hello_resumes_only_a_live_session_of_its_own_bot_and_launch() -> None:
    changes: list[str] = []
    registry = SessionRegistry(Limits(grace=60.0))
    registry.on_change = lambda session: changes.append(f"{session.bot}:{'gone' if session.gone else 'open'}")
    first, resumed = registry.open("ann", hello("friday13"))
    assert not resumed and first.bot == "ann" and first.games == {"friday13"}

    again, resumed = registry.open("ann", hello(resume=first.id))
    assert resumed and again is first, "a Hello with its own session id resumes it"
    other, resumed = registry.open("bob", hello(resume=first.id))
    assert not resumed and other is not first, "another bot's token cannot take a session over"
    launched, resumed = registry.open("ann", hello(resume=first.id), launch="launch-1")
    assert not resumed and launched is not first, "a hosted launch's token cannot resume its owner's session"

    registry.expire(first)
    assert first.gone and first.id not in registry.by_id and first not in registry.of_bot("ann")
    later, resumed = registry.open("ann", hello(resume=first.id))
    assert not resumed and later is not first, "a session that ended is not resumed: a new one opens"
    assert changes == ["ann:open", "ann:open", "bob:open", "ann:open", "ann:gone", "ann:open"]


async def test_a_lost_stream_expires_after_the_grace_and_its_pending_requests_fail_with_seat_gone() -> None:
    registry = SessionRegistry(Limits(grace=GRACE))
    expired_at: list[float] = []
    registry.on_change = lambda session: expired_at.append(asyncio.get_running_loop().time()) if session.gone else None
    session, _ = registry.open("ann", hello())
    bot = BotDriver(registry, session, answering=False).connect()
    session.seated("m1")
    pending = ask(session, "m1")
    await bot.received_kind("action_request")
    assert registry.connected() == {"ann"}

    bot.disconnect()
    lost_at = asyncio.get_running_loop().time()
    assert not session.attached and not session.gone and registry.connected() == set()
    assert session.id in registry.by_id, "waiting out its grace, the session is still there to be resumed"

    async def gone() -> bool:
        return session.gone

    await until(gone, "the session expires after its grace", timeout=GRACE + SLACK, every=0.01)
    assert expired_at and expired_at[0] - lost_at >= GRACE - 0.01, "not before the grace is over"
    assert session.id not in registry.by_id and registry.of_bot("ann") == []
    with pytest.raises(SeatGone, match="did not resume within the grace period"):
        pending.answer.result()
    with pytest.raises(SeatGone):
        ask(session, "m1")
    session.send(bot_pb.ConnectResponse(error=bot_pb.Error(message="after the end")))
    assert await drain(session, bot.stream) == [], "nothing is sent to a session that ended"
    await bot.stop()


async def test_a_resume_within_the_grace_keeps_the_session_and_sends_what_the_bot_missed_once() -> None:
    registry = SessionRegistry(Limits(grace=GRACE))
    session, _ = registry.open("ann", hello())
    old = session.attach(bot_pb.Welcome(session_id=session.id))
    assert await drain(session, old) != []
    started = bot_pb.MatchStarted(match_id="m1", seat=1, seats=["bob", "ann"])
    session.seated("m1")
    session.started["m1"] = started
    session.send(bot_pb.ConnectResponse(match_started=started))
    pending = ask(session, "m1", time_left=5.0)
    session.error(bot_pb.ERROR_CODE_LATE, "strike 1 of 3", "m1")
    session.hang_up(old, "closed for flooding")
    session.detach(old, registry.expire)

    resumed, was_resumed = registry.open("ann", hello(resume=session.id))
    assert was_resumed and resumed is session
    stream = session.attach(bot_pb.Welcome(session_id=session.id, resumed=True))
    assert stream != old and await session.next_message(old) is None, "the old stream is sent nothing more"
    sent = await drain(session, stream)
    # Welcome, the running match, what waited to be sent, then the pending request again: each once,
    # and no hang-up meant for the lost stream.
    assert [kind(m) for m in sent] == ["welcome", "match_started", "error", "action_request"]
    assert isinstance(sent[3], bot_pb.ConnectResponse)
    again = sent[3].action_request
    assert again.request_id == pending.request_id and again.match_id == "m1" and 0 < again.time_left_ms <= 5000

    # The grace timer was cancelled: a timer due after it finds the session alive (timers run in order).
    await asyncio.sleep(2 * GRACE)
    assert not session.gone and session.attached
    session.answer(bot_pb.Action(match_id="m1", request_id=again.request_id, action_id=3))
    assert pending.answer.result() == 3


async def test_answers_to_unknown_matches_and_requests_are_refused_with_a_reason_and_ignored() -> None:
    registry = SessionRegistry(Limits())
    session, _ = registry.open("ann", hello())
    stream = session.attach(bot_pb.Welcome(session_id=session.id))
    await drain(session, stream)
    session.seated("m1")
    session.seated("m2")
    pending = ask(session, "m1")
    request_id = pending.request_id
    await drain(session, stream)

    def action(match_id: str, request: int, action_id: int = 0) -> bot_pb.Action:
        return bot_pb.Action(match_id=match_id, request_id=request, action_id=action_id)

    assert session.is_answer(action("m1", request_id))
    assert not session.is_answer(action("m2", request_id)), "the right request id of the wrong match"

    session.answer(action("m9", request_id))
    session.answer(action("m2", request_id))
    session.answer(action("m1", request_id + 40))
    assert not pending.answer.done(), "no wrong answer reaches the waiting seat"
    session.answer(action("m1", request_id, 5))
    session.answer(action("m1", request_id, 6))
    assert pending.answer.result() == 5, "the first answer counts, a second is refused"
    assert not session.is_answer(action("m1", request_id)), "answered: no longer spared the flood limit"

    errors = [m.error for m in await drain(session, stream) if isinstance(m, bot_pb.ConnectResponse)]
    assert [(e.code, e.match_id, e.request_id) for e in errors] == [
        (bot_pb.ERROR_CODE_UNKNOWN_MATCH, "m9", request_id),
        (bot_pb.ERROR_CODE_UNKNOWN_MATCH, "m2", request_id),
        (bot_pb.ERROR_CODE_UNKNOWN_REQUEST, "m1", request_id + 40),
        (bot_pb.ERROR_CODE_UNKNOWN_REQUEST, "m1", request_id),
    ]
    assert "not one of your running matches" in errors[0].message
    assert "belongs to match m1, not m2" in errors[1].message
    assert all("action ignored" in e.message and "\n" not in e.message for e in errors)


async def test_the_flood_bucket_allows_its_burst_then_its_rate() -> None:
    limits = Limits(flood_rate=50.0, flood_burst=5.0)
    registry = SessionRegistry(limits)
    session, _ = registry.open("ann", hello())
    bucket = session.bucket
    assert bucket.full() and bucket.wait() == 0.0
    assert [bucket.take() for _ in range(5)] == [True] * 5
    assert not bucket.take(), "past the burst at once: flooding"
    assert 0 < bucket.wait() <= 1 / limits.flood_rate
    assert not bucket.full()

    async def refilled_one() -> bool:
        return bucket.wait() == 0.0

    await until(refilled_one, "one message's worth refills", timeout=1 / limits.flood_rate + SLACK, every=0.005)
    assert bucket.take()

    async def full() -> bool:
        return bucket.full()

    await until(full, "the bucket refills to its burst", timeout=limits.flood_burst / limits.flood_rate + SLACK)
    assert [bucket.take() for _ in range(5)] == [True] * 5, "refilled to the burst, and no further"
    assert not bucket.take()
    assert "more than 50 unsolicited messages a second (bursts of 5)" in limits.flood_text()


async def test_a_bot_holds_at_most_its_share_of_sessions_and_a_resume_always_gets_through() -> None:
    limits = Limits(grace=60.0, max_sessions=5, max_sessions_per_bot=2, max_sessions_per_launch=1)
    registry = SessionRegistry(limits)
    before = {kind: refusals(kind) for kind in ("sessions_bot", "sessions_launch", "sessions_node", "fds")}
    first, _ = registry.open("ann", hello())
    BotDriver(registry, first).connect().disconnect()  # waiting out its grace: it still counts
    registry.open("ann", hello())
    with pytest.raises(SessionsFull) as full:
        registry.open("ann", hello())
    assert full.value.kind == "sessions_bot" and str(full.value) == limits.bot_full_text("ann")
    assert "bot 'ann' holds its maximum of 2 sessions" in str(full.value)
    resumed, was_resumed = registry.open("ann", hello(resume=first.id))
    assert was_resumed and resumed is first, "a resume gets through whatever the limits"

    registry.open("bob", hello())
    registry.open("ann", hello(), launch="launch-1")  # a hosted launch's token counts apart from its owner's bot
    with pytest.raises(SessionsFull) as full:
        registry.open("ann", hello(), launch="launch-1")
    assert full.value.kind == "sessions_launch" and "this launch of hosted bot 'ann'" in str(full.value)
    registry.open("cy", hello())
    with pytest.raises(SessionsFull) as full:
        registry.open("dan", hello())
    assert full.value.kind == "sessions_node" and "its maximum of 5 bot sessions" in str(full.value)

    registry.expire(first)
    again, _ = registry.open("ann", hello())
    assert again in registry.of_bot("ann"), "an ended session makes room"
    after = {kind: refusals(kind) for kind in before}
    assert {kind: after[kind] - before[kind] for kind in before} == {
        "sessions_bot": 1,
        "sessions_launch": 1,
        "sessions_node": 1,
        "fds": 0,
    }


async def test_no_new_session_while_the_nodes_file_descriptors_run_short() -> None:
    # A plan whose low-water mark (limit less half the reserve) this process is already past.
    short = FdBudget(FdPlan(limit=4, reserve=2, grpc=16, web=16))
    registry = SessionRegistry(Limits(), fds=short)
    counted = refusals("fds")
    with pytest.raises(SessionsFull) as full:
        registry.open("ann", hello())
    assert full.value.kind == "fds" and "short of file descriptors" in str(full.value)
    assert refusals("fds") == counted + 1 and registry.by_id == {}


async def test_a_hang_up_closes_only_the_stream_it_names_after_what_is_queued() -> None:
    registry = SessionRegistry(Limits())
    session, _ = registry.open("ann", hello())
    stream = session.attach(bot_pb.Welcome(session_id=session.id))
    session.hang_up(stream + 1, "meant for another stream")
    session.error(bot_pb.ERROR_CODE_FLOOD, "too many")
    session.hang_up(stream, "closed for flooding")
    sent = await drain(session, stream)
    assert [kind(m) for m in sent] == ["welcome", "error", "hangup"]
    assert sent[2] == Hangup("closed for flooding", grpc.StatusCode.RESOURCE_EXHAUSTED)


async def test_exclusive_launches_and_the_registry_listing_and_closing_every_session() -> None:
    registry = SessionRegistry(Limits(grace=60.0), exclusive_launches={"launch-v2"})
    validating, _ = registry.open("ann", hello(), launch="launch-v2")
    hosted, _ = registry.open("ann", hello(), launch="launch-v1")
    own, _ = registry.open("bob", hello("amigo13", max_matches=1))
    assert validating.exclusive and not hosted.exclusive and not own.exclusive
    assert own.plays("amigo13") and not own.plays("friday13") and hosted.plays("board13")
    assert own.max_matches == 1 and own.has_room()
    own.seated("m1")
    assert not own.has_room() and own.played == {"m1"}
    BotDriver(registry, own).connect()
    assert registry.connected() == {"bob"}, "only sessions with a stream count as connected"
    pending = ask(own, "m1")

    registry.close_all()
    assert registry.by_id == {} and all(s.gone for s in (validating, hosted, own))
    assert isinstance(pending.answer.exception(), SeatGone)
    assert not own.has_room()


async def test_requests_waiting_together_go_in_one_message_to_a_bot_that_reads_batches() -> None:
    registry = SessionRegistry()
    batched, _ = registry.open("ann", hello("friday13", batches=True))
    single, _ = registry.open("bob", hello("friday13"))
    for session in (batched, single):
        stream = session.attach(bot_pb.Welcome(session_id=session.id))
        await drain(session, stream)
        for match_id in ("m1", "m2", "m3"):
            session.seated(match_id)
            ask(session, match_id, time_left=2.0)
        session.error(bot_pb.ERROR_CODE_BAD_MESSAGE, "between the requests")
        ask(session, "m1")
        sent = await drain(session, stream)
        if session is batched:
            assert [kind(m) for m in sent] == ["action_requests", "error", "action_request"]
            first = sent[0]
            assert isinstance(first, bot_pb.ConnectResponse)
            requests = first.action_requests.requests
            assert [r.match_id for r in requests] == ["m1", "m2", "m3"], "in the order they were asked"
            assert [r.request_id for r in requests] == [1, 2, 3]
            assert all(1900 <= r.time_left_ms <= 2000 for r in requests)
        else:
            assert [kind(m) for m in sent] == ["action_request"] * 3 + ["error", "action_request"]


async def test_requests_made_in_the_pass_that_woke_the_writer_go_with_the_first() -> None:
    """A bot's answers wake one match after another: the match woken after the writer asks in the same
    pass of the loop, and its request joins the first one's message."""
    registry = SessionRegistry()
    session, _ = registry.open("ann", hello("friday13", batches=True))
    stream = session.attach(bot_pb.Welcome(session_id=session.id))
    await drain(session, stream)
    writer = asyncio.create_task(session.next_message(stream))
    answered = asyncio.get_running_loop().create_future()

    async def second_match() -> None:
        await answered
        ask(session, "m2")

    other = asyncio.create_task(second_match())
    await asyncio.sleep(0)  # both wait: the writer for a request, the second match for its answer
    ask(session, "m1")  # wakes the writer
    answered.set_result(None)  # and then the second match, in the same pass
    sent = await writer
    await other
    assert isinstance(sent, bytes)
    assert [r.match_id for r in bot_pb.ConnectResponse.FromString(sent).action_requests.requests] == ["m1", "m2"]


async def test_requests_made_in_the_writers_passes_join_it_and_later_ones_wait_for_the_next_message() -> None:
    """Answers that arrived from other bots are taken in over the next passes of the loop (a read, then its
    reader, then the match): the requests they cause join the first one's message; one made after the
    writer sent goes in the next."""
    registry = SessionRegistry()
    session, _ = registry.open("ann", hello("friday13", batches=True))
    stream = session.attach(bot_pb.Welcome(session_id=session.id))
    await drain(session, stream)
    writer = asyncio.create_task(session.next_message(stream))
    await asyncio.sleep(0)  # the writer waits for a request

    async def after_passes(passes: int, match_id: str) -> None:
        for _ in range(passes):
            await asyncio.sleep(0)
        ask(session, match_id)

    ask(session, "m1")  # wakes the writer
    chained = asyncio.create_task(after_passes(2, "m2"))
    sent = await writer
    late = asyncio.create_task(after_passes(0, "m3"))
    await asyncio.gather(chained, late)
    assert isinstance(sent, bytes)
    assert [r.match_id for r in bot_pb.ConnectResponse.FromString(sent).action_requests.requests] == ["m1", "m2"]
    following = await session.next_message(stream)
    assert isinstance(following, bytes)
    assert bot_pb.ConnectResponse.FromString(following).action_request.match_id == "m3"


async def test_a_batch_stops_growing_at_its_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = SessionRegistry()
    session, _ = registry.open("ann", hello("friday13", batches=True))
    stream = session.attach(bot_pb.Welcome(session_id=session.id))
    await drain(session, stream)
    one = len(ask(session, "m0").encoded(5.0))
    monkeypatch.setattr("arena.node.sessions.MAX_BATCH_BYTES", 2 * one)
    for number in range(1, 5):
        ask(session, f"m{number}")
    sent = await drain(session, stream)
    sizes = [
        len(m.action_requests.requests) if isinstance(m, bot_pb.ConnectResponse) and m.action_requests.requests else 1
        for m in sent
    ]
    assert sizes == [2, 2, 1], [kind(m) for m in sent]


@pytest.mark.parametrize("batches", [True, False])
async def test_a_resumed_stream_gets_the_waiting_requests_again_as_its_hello_asks(batches: bool) -> None:
    registry = SessionRegistry(Limits(grace=60.0))
    session, _ = registry.open("ann", hello("friday13", batches=True))
    stream = session.attach(bot_pb.Welcome(session_id=session.id))
    await drain(session, stream)
    for match_id in ("m1", "m2"):
        session.seated(match_id)
        ask(session, match_id)
    await drain(session, stream)  # sent, then the stream is lost before the bot answers
    session.detach(stream, registry.grace_over)
    # The resuming process may be another client: its own Hello says whether it reads batches.
    again, resumed = registry.open("ann", hello("friday13", resume=session.id, batches=batches))
    assert resumed and again is session
    sent = await drain(session, session.attach(bot_pb.Welcome(session_id=session.id, resumed=True)))
    if batches:
        assert [kind(m) for m in sent] == ["welcome", "action_requests"]
        batch = sent[1]
        assert isinstance(batch, bot_pb.ConnectResponse)
        assert [r.match_id for r in batch.action_requests.requests] == ["m1", "m2"]
    else:
        assert [kind(m) for m in sent] == ["welcome", "action_request", "action_request"]
    registry.close_all()
