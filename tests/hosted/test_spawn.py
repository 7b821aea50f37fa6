"""Hosted processes start with CPython's subprocess code on either event loop (arena/hosted/spawn.py).

On uvloop, `asyncio.create_subprocess_exec` forks through libuv, and a child forked while gRPC's
threads are busy can crash before its exec: here about one start in eight ended "killed by
signal 11" beside eight busy streams. The node runs hosted bots beside busy bot streams, so
the first test starts processes in exactly that company.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Coroutine
from typing import Any

import grpc
import pytest
import uvloop

from arena.hosted import spawn

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}
SHELL = {"PATH": "/usr/bin:/bin"}


def run(loop: str, main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(main())


async def echo(requests: Any, context: grpc.aio.ServicerContext) -> Any:
    async for request in requests:
        yield request


def test_processes_started_beside_busy_grpc_streams_on_uvloop_all_reach_their_program() -> None:
    async def main() -> None:
        assert "uvloop" in type(asyncio.get_running_loop()).__module__
        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler(
            "test.Echo", {"Echo": grpc.stream_stream_rpc_method_handler(echo)}
        )
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        busy = True

        async def stream() -> None:
            call = channel.stream_stream("/test.Echo/Echo")()
            while busy:
                await call.write(b"x" * 100)
                await call.read()
            await call.done_writing()

        streams = [asyncio.create_task(stream()) for _ in range(8)]
        codes = []
        try:
            for _ in range(200):
                process = await spawn.start(["/bin/sh", "-c", "exit 3"], "/", SHELL)
                await process.stderr.read()
                codes.append(await process.wait())
        finally:
            busy = False
            await asyncio.gather(*streams, return_exceptions=True)
            await channel.close()
            await server.stop(None)
        assert {code: codes.count(code) for code in set(codes)} == {3: 200}

    run("uvloop", main)


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_a_started_process_gives_its_stderr_its_exit_status_and_the_signal_that_ended_it(loop: str) -> None:
    async def main() -> None:
        talker = await spawn.start(["/bin/sh", "-c", "echo oops >&2; exit 5"], "/", SHELL)
        assert await talker.stderr.read() == b"oops\n"
        assert await talker.wait() == 5 and talker.returncode == 5

        sleeper = await spawn.start(["/bin/sh", "-c", "sleep 30"], "/", SHELL)
        assert sleeper.returncode is None
        # Its own session: the process group the sandbox kills is the process's own.
        assert os.getpgid(sleeper.pid) == sleeper.pid
        os.killpg(sleeper.pid, signal.SIGKILL)
        assert await asyncio.wait_for(sleeper.wait(), 10) == -signal.SIGKILL
        assert sleeper.returncode == -signal.SIGKILL

        with pytest.raises(FileNotFoundError):
            await spawn.start(["/no/such/program"], "/", SHELL)

    run(loop, main)
