"""A hosted test bot: reports on stderr what its sandbox lets it write and keep, then plays random legal actions.

Each report is a line `BOX <what> <value>`: `writable PATH` for every place it could create a file in,
`mode NAME OCTAL` for the files of its package, `inodes COUNT ERROR` for how many empty files it could
make in /tmp (it stops at 20,000), `nofile SOFT HARD` for its open files limit.
"""

import os
import resource
import stat
import sys
from pathlib import Path

from arena.sdk import BuiltinBot, run

MOST_FILES = 20_000


def report(line: str) -> None:
    print(f"BOX {line}", file=sys.stderr, flush=True)


mounts = {line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()}
for place in sorted(mounts | {"/", "/run", "/run/arena", "/etc", "/dev", "/dev/shm", "/var", "/home", "/opt"}):
    probe = Path(place) / f".box-probe-{os.getpid()}"
    try:
        probe.write_text("x")
        probe.unlink()
        report(f"writable {place}")
    except OSError:
        pass
for path in sorted(Path(".").iterdir()):
    report(f"mode {path.name} {stat.S_IMODE(path.stat().st_mode):o}")
folder = Path("/tmp/inodes")
folder.mkdir()
made, error = 0, "none"
try:
    while made < MOST_FILES:
        (folder / str(made)).touch()
        made += 1
except OSError as stopped:
    error = os.strerror(stopped.errno or 0).replace(" ", "_")
report(f"inodes {made} {error}")
for number in range(made):
    (folder / str(number)).unlink()
report("nofile {} {}".format(*resource.getrlimit(resource.RLIMIT_NOFILE)))


class RandomBot(BuiltinBot):
    policy = "random"


if __name__ == "__main__":
    run(RandomBot)
