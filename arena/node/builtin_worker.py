"""A worker process of the built-in bots' pool (arena.node.builtin_pool): it holds the bots of the
seats given to it and answers their moves, one at a time, outside the node's event loop.

It is started as `python -m arena.node.builtin_worker FD NICE THREADS` (FD: its end of a socket pair
with the node) and imports only the games and the bots, so that it starts fast and holds nothing of
the node's. It answers up to THREADS moves at once, in threads: they share its core (and its GIL),
each search bounded by its own wall time, so that one match's bots never queue behind another's
whole searches. Messages are pickles framed by a 4-byte length:

- ("start", key, policy, game, seat, seed): make the bot of seat `key` (a new match's seat, or
  again after this worker was restarted);
- ("act", key, seat, legal_actions, observation): the bot's action, answered as ("action", key,
  action), or ("error", key, text) when the bot failed or is unknown here;
- ("end", key): the seat's match is over; the bot is dropped.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import socket
import struct
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from arena.bots import Bot, StaticTurn, make_bot

HEADER = struct.Struct("!I")


def read_message(sock: socket.socket) -> Any:
    """The next message, or None when the node closed its end."""
    head = _read_exactly(sock, HEADER.size)
    if head is None:
        return None
    body = _read_exactly(sock, HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def frame(message: Any) -> bytes:
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


def serve(sock: socket.socket, nice: int, threads: int) -> None:
    """The worker's life: answer the node until it closes the socket (or dies: the socket closes with it)."""
    # Ctrl-C reaches the whole process group; the node stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(nice)
    bots: dict[int, Bot] = {}
    sending = threading.Lock()

    def answer(key: int, seat: int, legal: list[int], observation: Any) -> None:
        reply = frame(_act(bots.get(key), key, seat, legal, observation))
        with sending, contextlib.suppress(OSError):
            sock.sendall(reply)

    # A seat asks one move at a time, so no bot is ever used by two threads at once.
    with sock, ThreadPoolExecutor(threads, thread_name_prefix="builtin") as pool:
        while (message := read_message(sock)) is not None:
            kind, key = message[0], message[1]
            if kind == "start":
                _, _, policy, game, seat, seed = message
                bots[key] = make_bot(policy, game, seat, seed=seed)
            elif kind == "act":
                _, _, seat, legal, observation = message
                pool.submit(answer, key, seat, legal, observation)
            elif kind == "end":
                bots.pop(key, None)
        pool.shutdown(wait=False, cancel_futures=True)


def _act(bot: Bot | None, key: int, seat: int, legal: list[int], observation: Any) -> tuple[Any, ...]:
    if bot is None:
        return ("error", key, "this worker holds no bot for the seat (it was never started here)")
    try:
        return ("action", key, bot.act(StaticTurn(seat, legal, observation)))
    except Exception as error:  # a bot's bug fails its own move, never the worker
        return ("error", key, f"{type(error).__name__}: {error}")


def main(argv: list[str]) -> None:
    fd, nice, threads = (int(value) for value in argv)
    serve(socket.socket(fileno=fd), nice, threads)


if __name__ == "__main__":
    main(sys.argv[1:])
