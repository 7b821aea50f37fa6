"""The node's log lines: time, level, node, incarnation and match on each, as JSON objects or as text."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from redis.asyncio import Redis

from arena import logs
from arena.node.work import submit_match
from arena.store import Store
from tests.conftest import free_port

log = logging.getLogger("arena.test")


@pytest.fixture
def captured() -> Iterator[tuple[io.StringIO, logging.Handler]]:
    stream = io.StringIO()
    handler = logs.configure(logs.LogFormat.JSON, "node-a", "c0ffee", stream=stream)
    yield stream, handler
    logging.getLogger().removeHandler(handler)


@pytest.mark.asyncio
async def test_a_line_logged_under_a_match_names_it_and_others_do_not(
    captured: tuple[io.StringIO, logging.Handler],
) -> None:
    stream, _ = captured

    async def play() -> None:
        logs.MATCH.set("m-7")
        log.warning("a seat is late")

    await asyncio.create_task(play())
    log.info("between matches")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["match"] == "m-7" and "match" not in second
    assert (first["level"], first["node"], first["incarnation"], first["message"]) == (
        "WARNING", "node-a", "c0ffee", "a seat is late",
    )  # fmt: skip
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", first["time"])


def test_text_lines_carry_the_same_fields() -> None:
    stream = io.StringIO()
    handler = logs.configure(logs.LogFormat.TEXT, "node-a", "c0ffee", stream=stream)
    try:
        log.warning("no bots came")
    finally:
        logging.getLogger().removeHandler(handler)
    assert re.fullmatch(r"\S+Z WARNING node-a#c0ffee: no bots came\n", stream.getvalue())


@pytest.mark.asyncio
async def test_arena_serve_writes_one_json_object_a_line(redis_url: str) -> None:
    port = free_port()
    command = [sys.executable, "-m", "arena.cli", "serve", "--port", str(port), "--http-port", "0",
               "--redis-url", redis_url, "--log-format", "json", "--node-name", "logger"]  # fmt: skip
    env = {**os.environ, "ARENA_ADMIN_TOKEN": "ata_logs-test"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    redis = Redis.from_url(redis_url)
    try:
        assert process.stdout is not None and "serving on" in process.stdout.readline()
        # An order the node cannot play: it logs why, under the match.
        order = await submit_match(Store(redis), "friday13", ["builtin:nobody", "builtin:random", "builtin:random"])
        deadline = time.monotonic() + 60
        while not await redis.hexists("arena:work:results", order.match_id):
            assert time.monotonic() < deadline and process.poll() is None, "the node never refused the order"
            await asyncio.sleep(0.05)
    finally:
        await redis.aclose()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    lines = [json.loads(line) for line in stderr.splitlines()]  # every line is one JSON object
    refusal = [line for line in lines if line.get("match") == order.match_id]
    assert refusal and refusal[0]["level"] == "WARNING" and "no built-in bot" in refusal[0]["message"]
    assert {line["node"] for line in lines} == {"logger"}
    assert len({line["incarnation"] for line in lines}) == 1 and lines[0]["incarnation"]
