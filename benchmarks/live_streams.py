"""Do many live-page streams (no token needed) of one match slow the other matches of its node?

    python benchmarks/live_streams.py [--before DIR] [--streams 1000] [--matches 3]

Starts `arena serve` as benchmarks/builtin_isolation.py does, with three SDK bots and a match that
stays running (its bot never answers within an hour's clock), and times honest matches between
the SDK bots alone, then while this process holds `--streams` Server-Sent Events streams of the
running match open from one address (127.0.0.1), reading what they send as a browser would. The
node is as `arena serve` starts it: past an address's share, a stream is refused at once (429),
and what is refused is counted. With `--before DIR`, the same first with the server's code from DIR.
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import urllib.parse

import grpc
from builtin_isolation import HONEST, honest_match, server
from grpc_common import ADMIN, bearer, register_bots, start_bot_processes, wait_connected
from machine import describe

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb


async def open_streams(
    web: str, path: str, count: int
) -> tuple[list[tuple[asyncio.StreamWriter, asyncio.Task[None]]], int]:
    """`count` streams of `path`, each read until it closes; returns them (a stream writer dropped closes its
    connection) and how many were refused."""
    url = urllib.parse.urlsplit(web)
    assert url.hostname is not None and url.port is not None
    readers: list[tuple[asyncio.StreamWriter, asyncio.Task[None]]] = []
    refused = 0
    for _ in range(count):
        reader, writer = await asyncio.open_connection(url.hostname, url.port)
        writer.write(f"GET {path} HTTP/1.1\r\nhost: arena\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        if not head.startswith(b"HTTP/1.1 200"):
            refused += 1
            writer.close()
            continue

        async def drain(reader: asyncio.StreamReader = reader) -> None:
            while await reader.read(65536):
                pass

        readers.append((writer, asyncio.create_task(drain())))
    return readers, refused


async def measure(code: str | None, streams: int, matches: int) -> tuple[float, float, int, int]:
    """Median seconds of an honest match alone and beside the streams, the streams refused and those still open."""
    with server(code) as (address, web):
        tokens = register_bots(address, [*HONEST, "slow"])
        bots = start_bot_processes(address, {name: tokens[name] for name in HONEST}, max_matches=4)
        channel = grpc.aio.insecure_channel(address)
        slow = bot_grpc.BotServiceStub(channel).Connect(metadata=bearer(tokens["slow"]))
        try:
            await slow.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(max_matches=1)))
            await slow.read()
            wait_connected(address, [*HONEST, "slow"])
            api = api_grpc.ArenaServiceStub(channel)
            request = api_pb.CreateMatchRequest(
                game=pb.GameSpec(game="friday13"),
                seats=["slow", "builtin:random", "builtin:heuristic"],
                clock=pb.Clock(per_move_ms=3_600_000, bank_ms=0),
            )
            watched = (await api.CreateMatch(request, metadata=bearer(ADMIN))).match_id
            with grpc.insecure_channel(address) as sync_channel:
                sync_api = api_grpc.ArenaServiceStub(sync_channel)
                honest_match(sync_api)  # warms every process up
                alone = statistics.median([await asyncio.to_thread(honest_match, sync_api) for _ in range(matches)])
                readers, refused = await open_streams(web, f"/api/matches/{watched}/stream", streams)
                beside = statistics.median([await asyncio.to_thread(honest_match, sync_api) for _ in range(matches)])
                open_still = sum(not drain.done() for _, drain in readers)
                for writer, drain in readers:
                    writer.close()
                    drain.cancel()
                await asyncio.gather(*(drain for _, drain in readers), return_exceptions=True)
            return alone, beside, refused, open_still
        finally:
            slow.cancel()
            await channel.close()
            for bot in bots:
                bot.terminate()
            for bot in bots:
                bot.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="a checkout whose server code to measure first (e.g. the main branch)")
    parser.add_argument("--streams", type=int, default=1000, help="streams opened from one address (1000)")
    parser.add_argument("--matches", type=int, default=3, help="honest matches timed alone and beside (3)")
    options = parser.parse_args()
    runs = ([("before", options.before)] if options.before else []) + [("this checkout", None)]
    print(describe())
    print()
    head = f"| server code | honest match alone s | beside {options.streams} streams s | ratio | refused | open at the end |"
    print(head)
    print("|---|---|---|---|---|---|")
    for label, code in runs:
        alone, beside, refused, still = asyncio.run(measure(code, options.streams, options.matches))
        print(f"| {label} | {alone:.3f} | {beside:.3f} | {beside / alone:.1f}x | {refused} | {still} |", flush=True)


if __name__ == "__main__":
    main()
