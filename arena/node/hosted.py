"""The node's hosted bots: a process per launch, started when a match needs the bot, killed when its matches end.

When a match host is about to seat a hosted bot that has no session with room here, the manager
reads the bot's active version from Redis, mints a token for this one launch, and starts the
bot's run command in the sandbox with ARENA_SERVER pointing at the node's Unix socket; the
sandbox's first process unpacks the package (the node never does) and then becomes the bot.
The process is an ordinary SDK bot: it connects, says Hello, and the host seats its session
like any other. A watch loop then follows every launch: a process that exits forfeits
its seats at once (its session is closed without the grace period, and each forfeit says how the
process ended: its exit code or signal, or the sandbox limit it hit where the node can tell), one
that never connects or never gets a match is stopped, and one whose matches all ended is killed
with everything it started. The end of its stderr is stored as a run, for its owner, with the
matches it played: `match_runs` finds the runs of a bot in one match.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shlex
import signal
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field

from arena import metrics
from arena.hosted.sandbox import Sandbox, Sandboxed, SandboxLimits
from arena.match.faults import FaultKind
from arena.match.seats import SeatGone
from arena.node import submissions
from arena.node.matches import BUILTIN_PREFIX, MatchError, SeatUnavailable
from arena.node.sessions import Session, SessionRegistry
from arena.node.submissions import Submitted, UploadLimits, UploadSlots, ValidationConfig
from arena.node.tasks import cancel_and_wait
from arena.store import Store
from arena.store.hosted import HostedRun, HostedStore, NotYourBot
from arena.store.store import BotKind, NotFound, Principal, now_ms
from arena.v1 import arena_service_pb2 as api_pb

log = logging.getLogger(__name__)

KIND_KEPT = 1.0
"""Seconds a bot's kind (hosted or not) is taken as read when seating it; a bot that becomes hosted with
its first upload is launched for the matches that wait for it within this time."""
KINDS_KEPT = 4096
"""At most this many bots' kinds are kept: the expired ones are dropped first, then all."""
EXIT_WAIT = 2.0
"""Seconds a launch whose session's grace ran out has to end by itself, so its end is judged (see `_grace_over`)."""


@dataclass(frozen=True)
class HostedConfig:
    """How this node runs hosted bots."""

    limits: SandboxLimits = field(default_factory=SandboxLimits)
    unsafe_no_sandbox: bool = False
    """Run hosted bots even where the sandbox cannot be made (see `sandbox.detect`), as plain child processes
    (`arena serve --unsafe-no-sandbox`)."""
    connect_timeout: float = 20.0
    """Seconds a started bot has to connect and say Hello."""
    idle_timeout: float = 60.0
    """Seconds a connected bot may wait for its first match before it is stopped."""
    stderr_bytes: int = 64 << 10
    """How much of the end of a run's stderr is kept."""
    poll: float = 0.05
    """Seconds between two looks at the running launches."""
    token_lifetime: float = 24 * 3600.0
    """The most a launch's token lives; it is deleted when the launch stops."""
    validation: ValidationConfig = field(default_factory=ValidationConfig)
    """The validation match of a new version (SubmitBot on this node)."""
    uploads: UploadLimits = field(default_factory=UploadLimits)
    """How many SubmitBot calls (upload, check and validation) run at once on this node."""


@dataclass
class Launch:
    """One started process of a hosted bot."""

    id: str
    bot: str
    version: int
    sandboxed: Sandboxed
    token: str
    exclusive: bool = False
    """Started for one match alone (see Session.exclusive)."""
    started: float = field(default_factory=time.monotonic)
    started_ms: int = field(default_factory=now_ms)
    session: Session | None = None
    connected: float = 0.0
    matches: set[str] = field(default_factory=set)
    stderr: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None
    ending: str = ""
    """Why it stopped; set once, when it does."""


class HostedManager:
    """Starts, follows and stops this node's hosted bot processes."""

    def __init__(
        self,
        store: Store,
        sessions: SessionRegistry,
        socket_path: str,
        sandbox: Sandbox,
        config: HostedConfig,
        node: str,
    ) -> None:
        self.store = store
        self.hosted = HostedStore(store.redis)
        self.sessions = sessions
        self.socket_path = socket_path
        self.sandbox = sandbox
        self.config = config
        self.node = node
        self.launches: dict[str, Launch] = {}
        self._hosted_kept: dict[str, tuple[float, bool]] = {}
        """Whether each bot looked up lately is hosted, and when that was read (`_is_hosted`)."""
        self._watch: asyncio.Task[None] | None = None
        self._launched = asyncio.Event()
        """Set when a launch starts: the watch loop sleeps on it while there is none to follow."""
        self._judging: set[asyncio.Task[None]] = set()
        self.uploads = UploadSlots(config.uploads)
        sessions.launch_lost = self._grace_over

    @property
    def refusal(self) -> str:
        """Why this node refuses hosted bots ("" when it runs them)."""
        if self.sandbox.confined or self.config.unsafe_no_sandbox:
            return ""
        return f"this node runs no hosted bots: {self.sandbox.problem}; start it with --unsafe-no-sandbox to run them anyway"

    def start(self) -> None:
        self._watch = asyncio.create_task(self._watch_loop(), name="hosted bots")

    async def stop(self) -> None:
        """Stop every launch (the server is stopping) and the watch loop."""
        if self._watch is not None:
            await cancel_and_wait([self._watch], "hosted bots")
        for launch in list(self.launches.values()):
            await self._finish(launch, "stopped with the server")
        await cancel_and_wait(list(self._judging), "hosted bots' ends")

    async def submit(self, owner: str, messages: AsyncIterator[api_pb.SubmitBotRequest]) -> Submitted:
        """SubmitBot: take one of the owner's upload slots, read the upload, check it in the sandbox, store and
        validate it; TooManyUploads at once when the owner (or this node) has no slot free."""
        async with self.uploads.slot(owner):
            first, package = await submissions.read_upload(messages)
            return await submissions.submit(
                self.store,
                owner,
                first.name,
                first.game,
                first.run,
                package,
                self.config.validation,
                self.sandbox.check,
            )

    # -- seating ----------------------------------------------------------------------------

    async def start_seats(self, names: Sequence[str], game: str, versions: Mapping[str, int]) -> dict[str, Session]:
        """Make every hosted bot among `names` connected here with room for a match; MatchError when one cannot be.

        A bot that `versions` names gets a process of that version started for one match alone (a
        validation), and its session is returned: no other session of the bot may take that seat.
        """
        pinned: dict[str, Session] = {}
        for name in names:
            if name.startswith(BUILTIN_PREFIX):
                continue
            if name in versions:
                launch = next(
                    (
                        one
                        for one in self.launches.values()
                        if one.exclusive
                        and one.bot == name
                        and one.version == versions[name]
                        and not one.matches
                        and not one.ending
                    ),
                    None,
                )
                pinned[name] = await self._connected(launch or await self._launch(name, versions[name]))
                continue
            # A session with room here is enough, whatever the bot's kind: no Redis look-up per seat.
            if any(
                s.attached and not s.exclusive and s.plays(game) and s.has_room() for s in self.sessions.of_bot(name)
            ):
                continue
            if not await self._is_hosted(name):
                continue
            launch = next(
                (
                    one
                    for one in self.launches.values()
                    if one.bot == name and one.session is None and not one.exclusive
                ),
                None,
            )
            await self._connected(launch or await self._launch(name))
        return pinned

    async def _is_hosted(self, bot: str) -> bool:
        """Whether `bot` is a hosted one, as read from Redis at most once in `KIND_KEPT` seconds: a match
        that waits for a busy bot looks again each time a seat comes free, so with many matches waiting
        the bot's record would otherwise be read many times a move."""
        now = time.monotonic()
        kept = self._hosted_kept.get(bot)
        if kept is not None and now - kept[0] < KIND_KEPT:
            return kept[1]
        record = await self.store.get_bot(bot)
        hosted = record is not None and record.kind == BotKind.HOSTED
        if len(self._hosted_kept) >= KINDS_KEPT:
            fresh = {name: one for name, one in self._hosted_kept.items() if now - one[0] < KIND_KEPT}
            self._hosted_kept = fresh if len(fresh) < KINDS_KEPT else {}
        self._hosted_kept[bot] = (now, hosted)
        return hosted

    async def _launch(self, bot: str, exclusive_version: int = 0) -> Launch:
        """Start the bot's active version, or `exclusive_version` for one match alone."""
        if self.refusal:
            # Unavailable here, not unplayable: the work host gives the order back for a node that runs hosted bots.
            raise SeatUnavailable(self.refusal)
        if exclusive_version:
            version = await self.hosted.version(bot, exclusive_version)
            if version is None:
                raise MatchError(f"hosted bot {bot!r} has no version {exclusive_version}")
        else:
            version = await self.hosted.active(bot)
            if version is None:
                raise MatchError(f"hosted bot {bot!r} has no working version (see arena bot logs {bot})")
        launch_id = secrets.token_urlsafe(9)
        if exclusive_version:
            self.sessions.exclusive_launches.add(launch_id)
        try:
            argv = shlex.split(version.run)
            package = await self.hosted.package(bot, version.version)
            token = await self.hosted.mint_token(bot, launch_id, self.config.token_lifetime)
            sandboxed = await self.sandbox.start(argv, package, self.socket_path, token)
        except (OSError, ValueError) as error:  # ValueError: StoreError (its package is gone) and shlex's
            self.sessions.exclusive_launches.discard(launch_id)
            metrics.HOSTED_LAUNCHES.labels("failed").inc()
            metrics.SANDBOX_FAILURES.labels("start").inc()
            raise MatchError(f"hosted bot {bot!r} version {version.version} could not be started: {error}") from None
        launch = Launch(
            launch_id,
            bot,
            version.version,
            sandboxed,
            token,
            exclusive=bool(exclusive_version),
        )
        launch.reader = asyncio.create_task(self._read_stderr(launch), name=f"stderr of {bot}")
        self.launches[launch_id] = launch
        self._launched.set()
        metrics.HOSTED_LAUNCHES.labels("started").inc()
        log.info("started hosted bot %s version %d (launch %s)", bot, version.version, launch_id)
        return launch

    async def _connected(self, launch: Launch) -> Session:
        """Wait until the launch's session is there; MatchError when the process stops first."""
        while launch.session is None:
            if launch.ending:
                raise MatchError(f"hosted bot {launch.bot!r} did not connect: {launch.ending}")
            await asyncio.sleep(self.config.poll)
        return launch.session

    async def _read_stderr(self, launch: Launch) -> None:
        stream = launch.sandboxed.process.stderr
        assert stream is not None, "the sandbox pipes stderr"
        while chunk := await stream.read(1 << 16):
            launch.stderr += chunk
            del launch.stderr[: -self.config.stderr_bytes]

    # -- following --------------------------------------------------------------------------

    async def _watch_loop(self) -> None:
        while True:
            if not self.launches:
                # Most nodes run no hosted bot most of the time: no look 20 times a second at nothing.
                self._launched.clear()
                await self._launched.wait()
            await asyncio.sleep(self.config.poll)
            for launch in list(self.launches.values()):
                try:
                    ending = self._ending(launch)
                    if ending:
                        await self._finish(launch, ending)
                except Exception:
                    log.exception("following hosted bot %s", launch.bot)

    def _ending(self, launch: Launch) -> str:
        """Why the launch should stop now, or ""."""
        now = time.monotonic()
        if launch.session is None:
            launch.session = next((s for s in self.sessions.by_id.values() if s.launch == launch.id), None)
            if launch.session is not None:
                launch.connected = now
        code = launch.sandboxed.process.returncode
        if code is not None:
            return f"exited with code {code}" if code >= 0 else f"killed by signal {-code}"
        session = launch.session
        if session is None:
            return "never connected" if now - launch.started > self.config.connect_timeout else ""
        if session.gone:
            return "its session ended"
        # `played`, not `matches`: a match of quick bots may start and end between two looks.
        launch.matches |= session.played
        if launch.matches and not session.matches:
            return "stopped at the end of its matches"
        if not launch.matches and now - launch.connected > self.config.idle_timeout:
            return "no match came"
        return ""

    def _grace_over(self, session: Session) -> bool:
        """A launch's session lost its stream for good: finish the launch, which judges how its process ended.

        Its stream often ends because the process died (out of memory, a crash); under load the grace may run out
        before the watch loop sees the exit, and the seats would forfeit as `disconnected` rather than `limit`."""
        launch = self.launches.get(session.launch)
        if launch is None or launch.ending:
            return False
        launch.session = session
        task = asyncio.create_task(self._lost(launch), name=f"judging hosted bot {launch.bot}")
        self._judging.add(task)
        task.add_done_callback(self._judging.discard)
        return True

    async def _lost(self, launch: Launch) -> None:
        process = launch.sandboxed.process
        with contextlib.suppress(TimeoutError):
            # A process that lost its stream and is still running after this is stopped as a lost one.
            await asyncio.wait_for(process.wait(), EXIT_WAIT)
        try:
            await self._finish(launch, self._ending(launch) or "its stream was lost and it did not resume")
        except Exception:
            log.exception("finishing hosted bot %s", launch.bot)
            if launch.session is not None and not launch.session.gone:
                self.sessions.expire(launch.session)

    async def _finish(self, launch: Launch, ending: str) -> None:
        """Kill the launch with all it started, forfeit what it still plays, keep its stderr as a run."""
        if launch.ending:
            return
        launch.ending = ending
        code = launch.sandboxed.process.returncode
        group = launch.sandboxed.group
        events = group.limit_events() if group is not None else {}  # before the kill, which removes the group
        failure = _failure(code, launch.session is None)
        if failure:
            metrics.SANDBOX_FAILURES.labels(failure).inc()
        await launch.sandboxed.kill()
        if launch.reader is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(launch.reader, 2.0)
        # Only a process that ended by itself is judged (`code` was read before the kill), on all its stderr.
        lost = lost_process(code, events, launch.stderr, self.sandbox.limits)
        if lost is not None and lost.kind is FaultKind.LIMIT:
            launch.ending = str(lost)
        elif lost is None and (hit := limits_hit(events, launch.stderr, self.sandbox.limits)):
            launch.ending = f"{ending}; it had hit the {hit}"  # stopped by the node, but its owner should know
        if launch.session is not None:
            launch.matches |= launch.session.played
            if not launch.session.gone:
                self.sessions.expire(launch.session, lost)
        self.launches.pop(launch.id, None)
        self.sessions.exclusive_launches.discard(launch.id)
        stderr = launch.stderr.decode(errors="replace")
        run = HostedRun(
            launch.version, tuple(sorted(launch.matches)), launch.started_ms, now_ms(), launch.ending, stderr, self.node
        )
        try:
            await self.hosted.drop_token(launch.token)
            await self.hosted.add_run(launch.bot, run)
        except Exception:
            log.exception("storing the run of hosted bot %s", launch.bot)
        log.info("hosted bot %s (launch %s): %s", launch.bot, launch.id, launch.ending)


async def match_runs(store: Store, caller: Principal, bot: str, match_id: str) -> list[HostedRun]:
    """The runs of hosted bot `bot` that played match `match_id` (its stderr for that match), newest first,
    for the bot's owner or an admin; NotFound for an unknown bot, NotYourBot for anyone else.

    Without gRPC, for the web layer as for the API: `caller` is whoever presented a valid token (or cookie)."""
    record = await store.get_bot(bot)
    if record is None:
        raise NotFound(f"no bot named {bot!r}")
    if caller.kind != "admin" and record.owner != caller.name:
        raise NotYourBot(f"bot {bot!r} belongs to another owner; only its owner and admins see its logs")
    return await HostedStore(store.redis).runs_of_match(bot, match_id)


OUT_OF_MEMORY = ("MemoryError", "std::bad_alloc", "OutOfMemoryError", "heap out of memory", "out of memory")
"""What the end of a process's stderr says when an allocation failed at its address space limit (an rlimit,
which the kernel reports to no one but the process)."""
NO_PROCESS = ("Resource temporarily unavailable",)
"""... when a fork or a new thread was refused: the processes rlimit (the same number as pids.max) is checked
first, so the cgroup's own count stays 0."""
NO_SPACE = ("No space left on device", "Disk quota exceeded")
FILE_TOO_LARGE = ("File too large",)
STDERR_LOOKED_AT = 4096
"""How much of the end of stderr is searched for those words."""


def lost_process(
    code: int | None, events: Mapping[str, int], stderr: bytes | bytearray, limits: SandboxLimits
) -> SeatGone | None:
    """How a hosted process that ended by itself (`code`, from the process) lost its seats: a sandbox limit where
    the node can tell (its cgroup's `events`, the signal, the end of its `stderr`), else a crash; None while it runs.
    """
    if code is None:
        return None
    ended = f"exited with code {code}" if code >= 0 else f"killed by signal {_signal_name(-code)}"
    if code == -signal.SIGXCPU:
        return SeatGone(f"CPU time limit of {limits.cpu_seconds} s a process hit ({ended})", FaultKind.LIMIT)
    if code == -signal.SIGXFSZ:
        return SeatGone(f"file size limit of {limits.file_bytes >> 20} MiB hit ({ended})", FaultKind.LIMIT)
    # A process that exited with 0 ended as it meant to, whatever its stderr says.
    hit = limits_hit(events, stderr if code else b"", limits)
    return SeatGone(f"{hit} ({ended})", FaultKind.LIMIT) if hit else SeatGone(ended, FaultKind.CRASHED)


def limits_hit(events: Mapping[str, int], stderr: bytes | bytearray, limits: SandboxLimits) -> str:
    """The sandbox limits a launch hit, in words ("" for none): from its cgroup's `events`, else from what the
    end of its `stderr` says."""
    tail = bytes(stderr[-STDERR_LOOKED_AT:]).decode(errors="replace")
    said = " as its stderr says"
    if events.get("memory"):
        return (
            f"memory limit of {limits.memory_bytes >> 20} MiB hit: the kernel's OOM killer ended "
            f"{events['memory']} of its processes"
        )
    if events.get("pids"):
        return f"process limit of {limits.processes} hit: {events['pids']} forks or threads refused"
    if any(words in tail for words in NO_PROCESS):
        return f"process limit of {limits.processes} hit: a fork or a thread was refused,{said}"
    if any(words in tail for words in OUT_OF_MEMORY):
        return f"memory limit of {limits.memory_bytes >> 20} MiB a process hit: an allocation failed,{said}"
    if any(words in tail for words in NO_SPACE):
        return f"disk limit of {limits.disk_bytes >> 20} MiB (/bot and /tmp together) hit,{said}"
    if any(words in tail for words in FILE_TOO_LARGE):
        return f"file size limit of {limits.file_bytes >> 20} MiB hit,{said}"
    return ""


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} ({number})"
    except ValueError:
        return str(number)


def _failure(code: int | None, never_connected: bool) -> str:
    """The metrics' word for a launch that ended badly, or "" for one that ended as bots do."""
    if code is not None and code < 0:
        return "killed"  # by a signal: a limit of its sandbox (memory, CPU time) or the kernel
    if code:
        return "exit_error"
    return "never_connected" if never_connected else ""
