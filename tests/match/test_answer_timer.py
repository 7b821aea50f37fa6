"""The match's answer timer: one timer for every move's deadline, with asyncio.timeout's meaning."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.match.answer_timer import AnswerTimer

pytestmark = pytest.mark.asyncio


async def wait(timer: AnswerTimer, seconds: float, answer: asyncio.Future[int]) -> int:
    """An answer awaited as the match runner awaits one."""
    timer.start(seconds)
    try:
        return await answer
    except asyncio.CancelledError:
        if timer.stop(cancelled=True):
            raise TimeoutError from None
        raise
    finally:
        timer.stop(cancelled=False)


async def test_an_answer_in_time_is_returned_and_a_late_one_times_out() -> None:
    loop = asyncio.get_running_loop()
    timer = AnswerTimer()
    answer = loop.create_future()
    loop.call_later(0.01, answer.set_result, 7)
    assert await wait(timer, 5.0, answer) == 7
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await wait(timer, 0.05, loop.create_future())
    assert time.monotonic() - started >= 0.05
    timer.close()


async def test_an_earlier_deadline_than_the_timer_is_set_for_is_kept() -> None:
    """A bank run low: the next deadline is earlier than the last answer's, which the timer was set for."""
    loop = asyncio.get_running_loop()
    timer = AnswerTimer()
    answered = loop.create_future()
    answered.set_result(1)
    await wait(timer, 30.0, answered)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await wait(timer, 0.05, loop.create_future())
    assert time.monotonic() - started < 20.0  # the 30 s timer would still be waiting
    timer.close()


async def test_the_timer_set_for_an_answered_move_waits_on_for_the_running_one() -> None:
    """The timer fires at the first move's deadline, after that move was answered: the second move, whose
    deadline is later, is not timed out then but at its own deadline."""
    loop = asyncio.get_running_loop()
    timer = AnswerTimer()
    answered = loop.create_future()
    answered.set_result(1)
    await wait(timer, 0.05, answered)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await wait(timer, 0.3, loop.create_future())
    assert time.monotonic() - started >= 0.3
    timer.close()


async def test_extend_moves_the_running_deadline_later() -> None:
    loop = asyncio.get_running_loop()
    timer = AnswerTimer()
    answer = loop.create_future()
    loop.call_later(0.1, timer.extend, 2.0)  # a pause of the answer's clock, told while it runs
    loop.call_later(0.3, answer.set_result, 5)  # past the first deadline, well before the moved one
    assert await wait(timer, 0.2, answer) == 5
    timer.close()


async def test_extend_between_answers_changes_nothing() -> None:
    loop = asyncio.get_running_loop()
    timer = AnswerTimer()
    timer.extend(10.0)  # no answer is running
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await wait(timer, 0.05, loop.create_future())
    timer.extend(10.0)  # the last answer's deadline is settled
    with pytest.raises(TimeoutError):
        await wait(timer, 0.05, loop.create_future())
    assert time.monotonic() - started < 5.0
    timer.close()


async def test_another_cancel_is_not_a_timeout() -> None:
    """A node stopping cancels the match's task: that goes on as CancelledError, never as a late answer."""
    timer = AnswerTimer()
    task = asyncio.create_task(wait(timer, 5.0, asyncio.get_running_loop().create_future()))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    timer.close()


async def test_a_cancel_as_the_deadline_passes_stays_a_cancel() -> None:
    """As with asyncio.timeout: when the task is cancelled by someone else too, the CancelledError goes on."""
    timer = AnswerTimer()
    loop = asyncio.get_running_loop()
    task = asyncio.create_task(wait(timer, 0.05, loop.create_future()))
    await asyncio.sleep(0)  # the task is waiting, its deadline set
    loop.call_later(0.06, task.cancel)
    time.sleep(0.1)  # holds the loop: the deadline and the other cancel then come in one pass, in that order
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    timer.close()


async def test_a_closed_timer_times_nothing_out() -> None:
    loop = asyncio.get_running_loop()
    timer = AnswerTimer()
    timer.start(0.02)
    timer.close()
    answer = loop.create_future()
    loop.call_later(0.1, answer.set_result, 3)
    assert await answer == 3  # the deadline passed, but the timer was closed: nothing was cancelled


async def test_start_needs_a_task() -> None:
    timer = AnswerTimer()
    errors: list[BaseException] = []

    def outside_a_task() -> None:
        try:
            timer.start(1.0)
        except RuntimeError as error:
            errors.append(error)

    asyncio.get_running_loop().call_soon(outside_a_task)
    await asyncio.sleep(0.01)
    assert [str(error) for error in errors] == ["an answer's deadline needs a running task"]
