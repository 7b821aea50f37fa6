"""A hosted test bot: plays random legal actions, after doing at match start what behaviour.txt says.

`tcp PORT`: try a TCP connection to the arena (it must fail in the sandbox); `hog`: allocate
until the memory limit stops it; `fork`: fork without end; `linger`: start a child in a
session of its own that sleeps, and ignore SIGTERM; `silent`: never answer; `crash`: exit
before connecting; `mute`: never connect; `die N`: exit with code 3 when asked for its move after
N answers. Everything it learns goes to stderr.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from arena.games.base import Action
from arena.sdk import BuiltinBot, Match, Turn, run

BEHAVIOUR = Path(__file__).with_name("behaviour.txt").read_text().split()


class MisbehavingBot(BuiltinBot):
    """Random play, after the misbehaviour."""

    policy = "random"

    def __init__(self, match: Match) -> None:
        super().__init__(match)
        kind = BEHAVIOUR[0]
        if kind == "tcp":
            try:
                socket.create_connection(("127.0.0.1", int(BEHAVIOUR[1])), timeout=2).close()
                print("tcp: connected", file=sys.stderr)
            except OSError as error:
                print(f"tcp: blocked ({error})", file=sys.stderr)
        elif kind == "hog":
            # bytes(n) is calloc'd: untouched pages, so the hoard reaches the address space limit (an rlimit)
            # in microseconds. Zeroing a bytearray's gigabyte took seconds on a loaded machine, and the
            # seat was struck out for late answers before its allocation failed.
            hoard: list[bytes] = []
            while True:
                hoard.append(bytes(64 << 20))
        elif kind == "fork":
            while True:
                os.fork()
        elif kind == "linger":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            child = subprocess.Popen(["sleep", "300"], start_new_session=True)
            print(f"linger: child {child.pid} uid {os.getuid()}", file=sys.stderr)

    answers = 0

    def act(self, turn: Turn) -> Action:
        if BEHAVIOUR[0] == "silent":
            time.sleep(3600)
        if BEHAVIOUR[0] == "die" and MisbehavingBot.answers == int(BEHAVIOUR[1]):
            print(f"die: leaving after {MisbehavingBot.answers} answers", file=sys.stderr, flush=True)
            os._exit(3)
        MisbehavingBot.answers += 1
        return super().act(turn)


if __name__ == "__main__":
    if BEHAVIOUR[0] == "crash":
        sys.exit("crash: no luck today")
    if BEHAVIOUR[0] == "mute":
        time.sleep(3600)
    run(MisbehavingBot)
