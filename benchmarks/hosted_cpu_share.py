"""Does a hosted bot spinning every core make the other seats' moves late? Per-move latency of a normal bot.

    python benchmarks/hosted_cpu_share.py [--matches 10] [--late-ms 100]

An arena server runs in its own process (this script again, `--serve`; embedded Redis in a
temporary directory) with the hosted bots' CPU quota set per condition. Two hosted bots are
uploaded with SubmitBot: "calm" plays random moves at once; "hog" first forks
`os.cpu_count() * 2` processes that spin until its sandbox dies at match end, then plays random
moves (and reports on its stderr how much CPU its spinners got). A 4-player friday13 table seats
[l0, hosted bot, builtin:random, builtin:random]; l0 is a raw Connect stream in this process
that answers every ActionRequest at once with a random legal action.

The latency is the ARENA's: the matches run with a clock of 1 ms per move and a 120 s bank, and
the server charges the bank (elapsed - per_move) for each move, timing from before it encodes
the ActionRequest to the answer's arrival (arena/match/runner.py). Every ActionRequest carries
`time_left_ms` = per-move limit + bank left, so the drop between two consecutive requests of
one match, plus 1 ms, is how long the server waited for l0's move (1 ms resolution; a move under
1 ms reads as 1 ms). Conditions, `--matches` matches each, one at a time after one warm-up match:
calm bot with the default quota (1 core), hog with it, and hog with no quota (cpu_cores = 4 x
the machine's cores). "late" counts l0 moves over `--late-ms`; "hog cores" is the CPU its
spinners got per second of their life; "busy" is the whole machine's while the matches were
played (l0's first request to the end), in cores, other users of the machine included.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_common import ADMIN, bearer, free_port
from machine import describe

from arena.hosted.package import pack
from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import bot_service_pb2 as bot_pb
from arena.v1 import bot_service_pb2_grpc as bot_grpc
from arena.v1 import messages_pb2 as pb

PER_MOVE_MS = 1
BANK_MS = 120_000
CORES = os.cpu_count() or 1

CALM_BOT = """\
from arena.sdk import BuiltinBot, run


class Calm(BuiltinBot):
    policy = "random"


if __name__ == "__main__":
    run(Calm)
"""

HOG_BOT = """\
import os
import sys
import time
from pathlib import Path

from arena.sdk import BuiltinBot, run


def ticks(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


class Hog(BuiltinBot):
    # Spins every core twice over from match start, then plays random moves.

    policy = "random"

    def __init__(self, match):
        super().__init__(match)
        self.spinners = []
        for _ in range((os.cpu_count() or 1) * 2):
            pid = os.fork()
            if pid == 0:
                while True:
                    pass
            self.spinners.append(pid)
        self.started = time.monotonic()

    def act(self, turn):
        used = sum(map(ticks, self.spinners)) / os.sysconf("SC_CLK_TCK")
        print(f"hog: {len(self.spinners)} spinners {used:.3f} cpu-s in {time.monotonic() - self.started:.3f} s",
              file=sys.stderr, flush=True)
        return super().act(turn)


if __name__ == "__main__":
    run(Hog)
"""


@dataclass
class Condition:
    label: str
    hosted: str
    cpu_cores: float


@dataclass
class Figures:
    latencies_ms: list[int]
    match_seconds: list[float]
    hog_cores: float | None
    busy_cores: float
    errors: int


def serve(port: int, data_dir: str, cpu_cores: float) -> None:
    """The arena server of one condition (runs in its own process)."""
    from arena.app import ServerConfig
    from arena.app import serve as run_server
    from arena.hosted.sandbox import SandboxLimits
    from arena.node.hosted import HostedConfig

    config = ServerConfig(
        port=port,
        data_dir=Path(data_dir),
        admin_token=ADMIN,
        http_port=None,
        hosted=HostedConfig(limits=SandboxLimits(cpu_cores=cpu_cores)),
    )
    asyncio.run(run_server(config, announce=lambda line: print(line, flush=True)))


class ArenaProcess:
    """`--serve` in a subprocess; its log goes to a file, shown if it fails to start."""

    def __init__(self, scratch: Path, cpu_cores: float) -> None:
        self.port = free_port()
        data = scratch / f"data-{cpu_cores:g}"
        self.log = scratch / f"server-{cpu_cores:g}.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, __file__, "--serve", str(self.port), str(data), str(cpu_cores)],
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "serving" not in line:
            self.stop()
            raise RuntimeError(f"the arena did not start: {line!r}\n{self.log.read_text()[-3000:]}")
        self.address = f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def bot_folders(scratch: Path) -> dict[str, Path]:
    folders = {}
    for name, source in (("calm", CALM_BOT), ("hog", HOG_BOT)):
        folder = scratch / name
        folder.mkdir()
        (folder / "bot.py").write_text(source)
        folders[name] = folder
    return folders


def submit_requests(name: str, folder: Path) -> Iterator[api_pb.SubmitBotRequest]:
    data = pack(folder).data
    yield api_pb.SubmitBotRequest(name=name, game="friday13", run="python bot.py")
    for at in range(0, len(data), 100_000):
        yield api_pb.SubmitBotRequest(chunk=data[at : at + 100_000])


async def set_up(api: Any, hosted: dict[str, Path]) -> tuple[str, str]:
    """Owner, l0 and the hosted bots (uploaded and validated); returns the owner's and l0's tokens."""
    owner: str = (await api.CreateOwner(api_pb.CreateOwnerRequest(name="bench"), metadata=bearer(ADMIN))).token
    l0 = ""
    for name in ("l0", *hosted):
        register = api_pb.RegisterBotRequest(name=name, games=["friday13"], language="python")
        token: str = (await api.RegisterBot(register, metadata=bearer(owner))).token
        l0 = l0 or token
    for name, folder in hosted.items():
        reply = await api.SubmitBot(submit_requests(name, folder), metadata=bearer(owner))
        if reply.version.status != api_pb.HOSTED_VERSION_STATUS_OK:
            raise RuntimeError(f"{name} failed validation: {reply.version.reason}\n{reply.stderr_tail}")
    return owner, l0


def cpu_times() -> tuple[float, float]:
    """(busy, total) seconds of all cores, from /proc/stat."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    idle = values[3] + values[4]
    return (sum(values) - idle) / ticks, sum(values) / ticks


async def run_run_ended(api: Any, owner: str, bot: str, match_id: str) -> api_pb.HostedRun:
    """The hosted bot's run of `match_id`, once stopped (so the next match starts without it)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        reply = await api.GetBotLogs(api_pb.GetBotLogsRequest(name=bot, limit=5), metadata=bearer(owner))
        for run in reply.runs:
            if match_id in run.match_ids and run.ended_ms:
                found: api_pb.HostedRun = run
                return found
        await asyncio.sleep(0.05)
    raise TimeoutError(f"the run of {bot} in {match_id} did not stop")


def hog_usage(stderr: str) -> tuple[float, float] | None:
    """The last (cpu-s, s) the hog reported, if any."""
    for line in reversed(stderr.splitlines()):
        words = line.split()
        if line.startswith("hog:") and len(words) == 8:
            return float(words[3]), float(words[6])
    return None


async def measure(address: str, owner: str, l0: str, hosted: str, matches: int) -> Figures:
    rng = random.Random(1)
    time_left: dict[str, list[int]] = {}
    play_cpu: dict[str, tuple[float, float]] = {}
    """Per match, cpu_times() at l0's first request, then the (busy, total) from there to the end."""
    errors = 0
    ended: asyncio.Queue[str] = asyncio.Queue()
    async with grpc.aio.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        call = bot_grpc.BotServiceStub(channel).Connect(metadata=bearer(l0))
        await call.write(bot_pb.ConnectRequest(hello=bot_pb.Hello(max_matches=1)))
        await call.read()

        async def play() -> None:
            nonlocal errors
            while True:
                message = await call.read()
                kind = message.WhichOneof("message")
                if kind == "action_request":
                    request = message.action_request
                    if request.match_id not in time_left:
                        play_cpu[request.match_id] = cpu_times()
                    time_left.setdefault(request.match_id, []).append(request.time_left_ms)
                    legal = request.legal_actions
                    action = bot_pb.Action(
                        match_id=request.match_id,
                        request_id=request.request_id,
                        action_id=legal[int(rng.random() * len(legal))].id,
                    )
                    await call.write(bot_pb.ConnectRequest(action=action))
                elif kind == "error":
                    errors += 1
                elif kind == "match_ended":
                    start, end = play_cpu.pop(message.match_ended.match_id), cpu_times()
                    play_cpu[message.match_ended.match_id] = (end[0] - start[0], end[1] - start[1])
                    await ended.put(message.match_ended.match_id)

        player = asyncio.create_task(play())
        create = api_pb.CreateMatchRequest(
            game=pb.GameSpec(game="friday13", players=4),
            seats=["l0", hosted, "builtin:random", "builtin:random"],
            clock=pb.Clock(per_move_ms=PER_MOVE_MS, bank_ms=BANK_MS),
        )
        latencies: list[int] = []
        seconds: list[float] = []
        spun = [0.0, 0.0]
        busy = [0.0, 0.0]
        for number in range(matches + 1):  # the first one warms up
            errors_before = errors
            started = time.perf_counter()
            match_id = (await api.CreateMatch(create, metadata=bearer(ADMIN))).match_id
            while await ended.get() != match_id:
                pass
            took = time.perf_counter() - started
            run = await run_run_ended(api, owner, hosted, match_id)
            if number == 0:
                errors = errors_before
                continue
            seconds.append(took)
            busy[0] += play_cpu[match_id][0]
            busy[1] += play_cpu.pop(match_id)[1]
            left = time_left.pop(match_id)
            latencies.extend(before - after + PER_MOVE_MS for before, after in itertools.pairwise(left))
            usage = hog_usage(run.stderr)
            if usage is not None:
                spun[0] += usage[0]
                spun[1] += usage[1]
        player.cancel()
        call.cancel()
    return Figures(latencies, seconds, spun[0] / spun[1] if spun[1] else None, busy[0] / busy[1] * CORES, errors)


def percentile(values: list[int], fraction: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def run_server_conditions(
    address: str, folders: dict[str, Path], conditions: list[Condition], matches: int
) -> list[Figures]:
    async with grpc.aio.insecure_channel(address) as channel:
        api = api_grpc.ArenaServiceStub(channel)
        owner, l0 = await set_up(api, {c.hosted: folders[c.hosted] for c in conditions})
    return [await measure(address, owner, l0, c.hosted, matches) for c in conditions]


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        serve(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10, help="measured matches per condition (~50 l0 moves each)")
    parser.add_argument("--late-ms", type=int, default=100, help="an l0 move longer than this counts as late")
    args = parser.parse_args()
    print(describe())
    unlimited = float(CORES * 4)
    conditions = [
        Condition("calm hosted bot, quota 1 core", "calm", 1.0),
        Condition("hog hosted bot, quota 1 core", "hog", 1.0),
        Condition(f"hog hosted bot, no quota ({unlimited:g} cores)", "hog", unlimited),
    ]
    results: list[tuple[Condition, Figures]] = []
    with tempfile.TemporaryDirectory(prefix="arena-cpu-share-") as scratch_dir:
        scratch = Path(scratch_dir)
        folders = bot_folders(scratch)
        for cores in dict.fromkeys(c.cpu_cores for c in conditions):
            group = [c for c in conditions if c.cpu_cores == cores]
            arena = ArenaProcess(scratch, cores)
            try:
                figures = asyncio.run(run_server_conditions(arena.address, folders, group, args.matches))
            finally:
                arena.stop()
            results.extend(zip(group, figures, strict=True))
    late = f"> {args.late_ms} ms"
    print(f"l0's per-move latency as the arena timed it, 4-player friday13, {args.matches} matches per condition")
    print(
        f"{'condition':<38} {'moves':>5} {'median':>6} {'p95':>5} {'max':>5} {late:>8} "
        f"{'s/match':>7} {'hog cores':>9} {'busy':>5}"
    )
    for condition, f in results:
        hog = f"{f.hog_cores:.2f}" if f.hog_cores is not None else "-"
        print(
            f"{condition.label:<38} {len(f.latencies_ms):>5} {statistics.median(f.latencies_ms):>6.0f} "
            f"{percentile(f.latencies_ms, 0.95):>5} {max(f.latencies_ms):>5} "
            f"{sum(ms > args.late_ms for ms in f.latencies_ms):>8} {statistics.mean(f.match_seconds):>7.2f} "
            f"{hog:>9} {f.busy_cores:>5.2f}"
        )
        if f.errors:
            print(f"  ({f.errors} error messages to l0)")
    print("latencies in ms (1 ms resolution); busy: the whole machine's cores in use during play")


if __name__ == "__main__":
    main()
