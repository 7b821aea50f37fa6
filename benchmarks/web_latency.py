"""Page loads of the web UI in headless chromium while a 120-match tournament runs on the same machine:
served in the node's event loop (before) against its own process (after), interleaved.

    python benchmarks/web_latency.py [--rounds 6] [--bots 6] [--tournaments 2] [--idle-loads 2] [--kinds ...]
        [--before-tree DIR] [--browser-shares N]

A redis-server and one `arena serve --web-in-node` node run on loopback (the node's web UI in its
event loop, as before); beside them, on the same Redis, the web UI's own process
(`arena.web.process.WebProcess`, as `arena serve` starts it now). `--bots` random SDK bots
(sample_bots/python/random_bot.py, one process each) connect to the node, a warm-up tournament
gives the pages something to show, and a rated round-robin of friday13 at tables of three is
started: 6 bots and 6 rounds make 20 tables a round, 120 matches, up to the node's 64 at once.

While it runs, chromium (Debian's, headless) loads the main pages four ways (`Reader`): cold, each
load a new document in a fresh browser context (chromium starts a renderer process for it: a first
visit in a new profile); warm, each load a new document in one context kept open with its cache off
(a reader's running browser following a link to the web UI or reloading), so that it fetches the
HTML, scripts, styles and API calls anew; revisit, the same with the cache on, as a browser has it;
in-app, a link followed inside the loaded web UI. A fifth reader loads a bare JSON document the warm
way, for what chromium spends on any navigation. `--kinds` picks some of these.
The web UIs and the ways take turns page by page (which goes first rotates), until the tournament
ends; `--tournaments` such tournaments run one after another, for
more loads. A load is timed from the navigation to the page drawn with its data (`main[data-route]`
set to the route and its heading shown, as tests/web waits for), on the page's own clock: from the
navigation's start to the first frame painted after that, what a reader waits. Idle loads come
first. Prints p50, p95 and max per web UI and way; the same as the test driver saw it (from its
`goto` to its hearing of the drawn page: the round trips between this process, Playwright's driver
and chromium added, which a reader does not pay); the longest wait for the server among each load's
requests (the browser's resource timings); the CPU time of all of chromium's processes a load; and
the size of a replay's JSON as sent with and without gzip.

Chromium runs in a session of its own (Playwright starts it so), and the kernel's autogroup
scheduling shares the cores between sessions before it looks at nice values inside one: chromium
gets its share beside the tournament whatever its nice, so none is set. That is a reader whose
browser runs on the server itself. A reader's browser on a machine of its own never waits for the
server's cores: `--browser-shares N` puts chromium in a cgroup v1 cpu group of weight N (each
session's is 1,024), so that it is served first, and the web UI keeps sharing the machine with the
tournament (with a little less of it than with the browser elsewhere). The phases of each whole
document's load (the document, its scripts, its API calls, the drawing) show which part a slow load
is made of.

`--before-tree DIR` runs the node from another checkout (e.g. a clone of the integration branch
before the web UI had its own process: its web UI is then in the node's loop by default), so that
"before" is that code exactly.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import http.client
import itertools
import os
import statistics
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import grpc
from grpc_common import ADMIN, ROOT, SERVE, bearer, free_port, redis_server, start_bot_processes, wait_connected
from machine import describe
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from arena.v1 import arena_service_pb2 as api_pb
from arena.v1 import arena_service_pb2_grpc as api_grpc
from arena.v1 import messages_pb2 as pb
from arena.web.listener import listen
from arena.web.process import WebProcess, WebSettings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
LOAD_TIMEOUT = 60.0
"""Seconds after which a load counts as failed (and as this long)."""


@contextmanager
def node(redis_url: str, before_tree: Path | None) -> Iterator[tuple[str, str]]:
    """`arena serve` with its web UI in its event loop; yields its gRPC address and web URL."""
    port = free_port()
    env = {**os.environ, "ARENA_ADMIN_TOKEN": ADMIN}
    command = [
        *SERVE,
        "--port",
        str(port),
        "--redis-url",
        redis_url,
    ]
    command += ["--http-port", "0"]
    if before_tree is None:
        command.append("--web-in-node")
    else:
        env["PYTHONPATH"] = str(before_tree)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=before_tree or ROOT)
    try:
        assert process.stdout is not None
        web = ""
        for line in process.stdout:
            if line.startswith("arena: web UI on "):
                web = line.split()[-1]
                break
        if not web:
            raise RuntimeError("arena serve stopped before it served its web UI")
        yield f"127.0.0.1:{port}", web
    finally:
        process.terminate()
        process.wait(timeout=60)


@contextmanager
def web_process(redis_url: str) -> Iterator[str]:
    """The web UI's own process on `redis_url`, kept by a loop in a thread; yields its URL."""
    started: Future[WebProcess] = Future()
    stop = threading.Event()

    async def keep() -> None:
        web = WebProcess(listen("127.0.0.1", 0), WebSettings(redis_url=redis_url))
        await web.start()
        started.set_result(web)
        while not stop.is_set():
            await asyncio.sleep(0.1)
        await web.stop()

    thread = threading.Thread(target=asyncio.run, args=(keep(),), daemon=True)
    thread.start()
    try:
        yield started.result(timeout=120).url
    finally:
        stop.set()
        thread.join(timeout=30)


def api(address: str) -> api_grpc.ArenaServiceStub:
    return api_grpc.ArenaServiceStub(grpc.insecure_channel(address))


def register(address: str, names: list[str]) -> dict[str, str]:
    stub = api(address)
    owner = stub.CreateOwner(api_pb.CreateOwnerRequest(name="latency"), metadata=bearer(ADMIN)).token
    request = api_pb.RegisterBotRequest
    return {
        name: stub.RegisterBot(request(name=name, games=["friday13"]), metadata=bearer(owner)).token for name in names
    }


def start_tournament(address: str, name: str, entrants: list[str], rounds: int) -> int:
    """A rated round-robin of friday13 at tables of three; its number of matches."""
    spec = api_pb.TournamentSpec(
        name=name,
        game=pb.GameSpec(game="friday13"),
        entrants=entrants,
        table_size=3,
        rounds=rounds,
        rated=True,
        format=api_pb.TOURNAMENT_FORMAT_ROUND_ROBIN,
        seed=name,
    )
    api(address).CreateTournament(api_pb.CreateTournamentRequest(spec=spec), metadata=bearer(ADMIN))
    return int(api(address).GetTournament(api_pb.GetTournamentRequest(name=name)).tournament.total)


def finished(address: str, name: str) -> bool:
    return bool(api(address).GetTournament(api_pb.GetTournamentRequest(name=name)).tournament.finished_ms)


class Load(NamedTuple):
    seconds: float
    """From the navigation's start to the first frame painted with the page's data, on the page's own
    clock (LOAD_TIMEOUT if never): what the person at the browser waits."""
    driven: float
    """From the test driver's `goto` to its hearing that the page is drawn: `seconds`, plus the round
    trips between this process, Playwright's driver process and chromium, which no reader pays."""
    waited: float
    """The longest the page waited for the server to start answering one of its requests (the
    document, scripts, styles, API calls), from the browser's resource timings: the server's part."""
    browser_cpu: float
    """CPU seconds all of chromium's processes spent from the load's start to its end (a cold load's
    context made and closed included)."""
    phases: tuple[float, float, float, float]
    """Where a whole document's load went, on the page's clock, in seconds: the document answered in
    full; from there until the page's first API request left (its scripts read and run); until the
    last API answer arrived; until the page was drawn. Zeros for other kinds of load."""


WAITS = """() => performance.getEntries()
    .filter(entry => entry.entryType === "navigation" || entry.entryType === "resource")
    .map(entry => entry.responseStart - entry.requestStart)"""
RESOURCE_WAITS = WAITS.replace('entry.entryType === "navigation" || ', "")

PHASES = """() => {
    const document_ = performance.getEntriesByType("navigation")[0];
    const calls = performance.getEntriesByType("resource").filter(entry => new URL(entry.name).pathname.startsWith("/api/"));
    const asked = Math.min(...calls.map(entry => entry.startTime));
    const answered = Math.max(...calls.map(entry => entry.responseEnd));
    return [document_.responseEnd, asked - document_.responseEnd, answered - asked, window.arenaDrawn - answered];
}"""
"""A whole document's load in four phases (milliseconds): see `Load.phases`."""


DRAWN = """new MutationObserver((_, observer) => {
    const main = document.querySelector("main[data-route]");
    if (!main || main.dataset.route !== location.hash || !main.querySelector("h1")) return;
    observer.disconnect();
    // The frame that shows it: a timer set in the frame's animation callback runs once it is painted.
    requestAnimationFrame(() => setTimeout(() => { window.arenaDrawn = performance.now(); }));
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-route"] });"""
"""Run in each page before its own scripts, so that it times any version of the web UI the same way."""


def chromium_pids() -> Iterator[str]:
    """Every chromium process on the machine (this benchmark runs one)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if b"chromium" in Path(f"/proc/{pid}/cmdline").read_bytes():
                yield pid
        except OSError:  # gone meanwhile
            continue


def chromium_cpu() -> float:
    """CPU seconds used so far by every chromium process on the machine."""
    ticks = 0
    for pid in chromium_pids():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(value) for value in fields[11:15])  # utime, stime and those of reaped children
    return ticks / os.sysconf("SC_CLK_TCK")


CPU_CGROUPS = Path("/sys/fs/cgroup/cpu")


@contextmanager
def browser_weight(shares: int | None, pids: Iterable[str]) -> Iterator[None]:
    """With `shares`, the processes `pids` (chromium's; the renderers it starts later inherit it) in a
    cgroup v1 cpu group of that weight, against 1,024 for each session of the tournament's processes:
    a reader whose browser runs on a machine of its own, so that its page is not kept waiting for a core
    while the server still shares the machine with the tournament (and, with chromium first in line,
    gets less of it than with the browser elsewhere)."""
    if shares is None:
        yield
        return
    group = CPU_CGROUPS / f"web-latency-reader-{os.getpid()}"
    group.mkdir()
    try:
        (group / "cpu.shares").write_text(str(shares))
        for pid in pids:
            try:
                (group / "cgroup.procs").write_text(pid)
            except OSError:  # gone meanwhile
                continue
        yield
    finally:
        # Processes that are exiting (chromium reaps its renderers in its own time) keep the group busy a while.
        deadline = time.monotonic() + 10
        while True:
            for pid in (group / "cgroup.procs").read_text().split():
                try:
                    (CPU_CGROUPS / "cgroup.procs").write_text(pid)
                except OSError:
                    continue
            try:
                group.rmdir()
                break
            except OSError:
                if time.monotonic() > deadline:
                    print(f"left {group} behind: its processes did not leave it")
                    break
                time.sleep(0.1)


IN_APP = """(route) => new Promise((resolve) => {
    const target = "#/" + route;
    performance.clearResourceTimings();
    const asked = performance.now();
    const observer = new MutationObserver(() => {
        const main = document.querySelector("main[data-route]");
        if (!main || main.dataset.route !== target || !main.querySelector("h1")) return;
        observer.disconnect();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - asked)));
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-route"] });
    location.hash = target;
})"""
"""A reader's click on a link inside the web UI: the route changes in the loaded page, which asks the
server only for the new page's data; resolves with the milliseconds until its page is drawn."""

LOADED = "() => performance.getEntriesByType('navigation')[0].loadEventEnd"
"""When a document without the web UI's scripts has loaded, on the page's own clock."""

KINDS = ("cold", "warm", "revisit", "in-app", "bare")


class Reader:
    """Loads pages of one web UI in chromium and times each load, one of five ways:

    - cold: a whole document (HTML, scripts, styles, API calls) in a fresh browser context, so chromium
      starts a renderer process for it: a first visit in a new browser profile.
    - warm: a whole document fetched anew in one context kept open with its HTTP cache off (DevTools'
      "Disable cache"), `?load=N` making each URL new (the server ignores it): a reader whose browser
      is running, opening a link to the web UI or reloading. The tab is left on about:blank between
      loads, so that the page does not keep polling meanwhile.
    - revisit: as warm, but with the HTTP cache on, as a browser has it: the scripts and styles it kept
      from the loads before (the web UI names them under their version, for ever cacheable) are not
      asked for again; the page and its API calls are.
    - in-app: a link followed inside the web UI already loaded (its route changes, and the page asks
      the server for its data): a reader going from page to page.
    - bare: as warm, but the document is the JSON of `/api/games` (timed to its load event), whatever
      the route: what chromium spends on any navigation, beside which a warm load shows the web UI's
      own share.
    """

    def __init__(self, browser: Browser, web: str, kind: str) -> None:
        self.browser, self.web, self.kind, self.loads = browser, web, kind, 0
        self.context: BrowserContext | None = None
        self.page: Page | None = None

    def open(self) -> tuple[BrowserContext, Page]:
        if self.context is not None and self.page is not None:
            return self.context, self.page
        context = self.browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script(DRAWN)
        page = context.new_page()
        if self.kind in ("warm", "bare"):
            devtools = context.new_cdp_session(page)
            devtools.send("Network.enable")
            devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
        if self.kind == "in-app":  # the web UI loaded once, untimed, on a page no load asks for
            page.goto(f"{self.web}#/api", timeout=LOAD_TIMEOUT * 1000)
            page.wait_for_function("window.arenaDrawn !== undefined", timeout=LOAD_TIMEOUT * 1000)
        if self.kind != "cold":
            self.context, self.page = context, page
        return context, page

    def load(self, route: str) -> Load:
        cpu = chromium_cpu()
        self.loads += 1
        context: BrowserContext | None = None
        try:
            context, page = self.open()
            began = time.perf_counter()
            if self.kind == "in-app":
                seconds = page.evaluate(IN_APP, route) / 1000
            elif self.kind == "bare":
                page.goto(f"{self.web}api/games?load={self.loads}", timeout=LOAD_TIMEOUT * 1000)
                seconds = page.evaluate(LOADED) / 1000
            else:
                page.goto(f"{self.web}?load={self.loads}#/{route}", timeout=LOAD_TIMEOUT * 1000)
                page.wait_for_function("window.arenaDrawn !== undefined", timeout=LOAD_TIMEOUT * 1000)
                seconds = page.evaluate("window.arenaDrawn") / 1000
            driven = time.perf_counter() - began
            # In the app the navigation entry is the untimed first load's; its resources were cleared.
            waits = page.evaluate(RESOURCE_WAITS if self.kind == "in-app" else WAITS)
            waited = max(waits, default=0.0) / 1000
            phases = (0.0, 0.0, 0.0, 0.0)
            if self.kind in ("cold", "warm", "revisit"):
                answered, scripts, calls, drawing = (value / 1000 for value in page.evaluate(PHASES))
                phases = (answered, scripts, calls, drawing)
            if self.kind in ("warm", "revisit", "bare"):
                page.goto("about:blank")
        except Exception:  # a timeout or a refused connection: the worst a person sees
            seconds = driven = waited = LOAD_TIMEOUT
            phases = (0.0, 0.0, 0.0, 0.0)
            self.close()  # a kept context starts again
        finally:
            if self.kind == "cold" and context is not None:
                context.close()
        return Load(seconds, driven, waited, chromium_cpu() - cpu, phases)

    def close(self) -> None:
        if self.context is not None:
            self.context.close()
        self.context = self.page = None


def sizes(web: str, path: str) -> tuple[int, int]:
    """The bytes of `path`'s response as sent without and with Accept-Encoding: gzip."""
    where = urllib.parse.urlsplit(web)
    found = []
    for headers in ({}, {"Accept-Encoding": "gzip"}):
        connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=LOAD_TIMEOUT)
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        connection.close()
        if response.getheader("Content-Encoding") == "gzip":
            assert gzip.decompress(body)[:1] == b"{"
        found.append(len(body))
    return found[0], found[1]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def row(name: str, loads: list[Load]) -> str:
    if not loads:
        return f"| {name} | 0 | | | | | | | | |"
    values = [one.seconds for one in loads]
    driven = [one.driven for one in loads]
    waits = [one.waited for one in loads]
    failed = sum(value >= LOAD_TIMEOUT for value in values)
    tail = f" ({failed} over {LOAD_TIMEOUT:.0f} s)" if failed else ""
    return (
        f"| {name} | {len(values)}{tail} | {statistics.median(values):.2f} s | "
        f"{percentile(values, 0.95):.2f} s | {max(values):.2f} s | "
        f"{statistics.median(driven):.2f} s | {percentile(driven, 0.95):.2f} s | "
        f"{statistics.median(waits):.3f} s | {percentile(waits, 0.95):.3f} s | "
        f"{statistics.median(one.browser_cpu for one in loads):.2f} s |"
    )


def tail_phases(name: str, loads: list[Load]) -> str:
    """The four phases of a whole document's load, medians over all its loads and over its slowest
    tenth: which part the tail is made of."""
    timed = sorted((one for one in loads if any(one.phases)), key=lambda one: one.seconds)
    if not timed:
        return ""
    slowest = timed[-max(1, len(timed) // 10) :]

    def medians(chosen: list[Load]) -> str:
        return " / ".join(f"{statistics.median(one.phases[i] for one in chosen):.2f}" for i in range(4))

    return f"  {name}: all {medians(timed)} s; slowest {len(slowest)} {medians(slowest)} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=6, help="rounds of the tournament (6 bots: 20 matches each)")
    parser.add_argument("--bots", type=int, default=6, help="random SDK bots, one process each")
    parser.add_argument("--tournaments", type=int, default=2, help="tournaments played one after another")
    parser.add_argument("--idle-loads", type=int, default=2, help="loads of each page before the tournament")
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help=f"ways of loading, comma-separated, of {', '.join(KINDS)}"
    )
    parser.add_argument("--before-tree", type=Path, help="run the node from this checkout (its web UI in its loop)")
    parser.add_argument(
        "--browser-shares",
        type=int,
        help="chromium in a cpu cgroup of this weight (1,024 is one session's): a reader's browser on its own machine",
    )
    args = parser.parse_args()
    kinds = [kind for kind in args.kinds.split(",") if kind]
    if not kinds or set(kinds) - set(KINDS):
        parser.error(f"--kinds: give some of {', '.join(KINDS)}, comma-separated")
    if args.browser_shares is not None and not 2 <= args.browser_shares <= 262144:
        parser.error("--browser-shares: give a cgroup v1 cpu.shares weight from 2 to 262144")
    if args.browser_shares is not None and not os.access(CPU_CGROUPS, os.W_OK):
        parser.error(f"--browser-shares: {CPU_CGROUPS} is not writable here (cgroup v1 and root are needed)")
    print(f"Machine: {describe()}; load average {os.getloadavg()[0]:.1f} at start")
    names = [f"r{i}" for i in range(args.bots)]
    with (
        redis_server() as redis_url,
        node(redis_url, args.before_tree) as (address, before),
        web_process(redis_url) as after,
    ):
        tokens = register(address, names)
        bots = start_bot_processes(address, tokens, max_matches=64)
        try:
            wait_connected(address, names)
            start_tournament(address, "warm-up", names[:3], 1)
            while not finished(address, "warm-up"):
                time.sleep(0.2)
            pages = ["", "matches", "bots", f"bots/{names[0]}", "tournaments", "tournaments/main", "matches/warm-up-0"]
            first = f"before ({args.before_tree.name}'s node)" if args.before_tree else "before (in the node's loop)"
            webs = {first: before, "after (own process)": after}
            idle: dict[tuple[str, str], list[Load]] = {(name, kind): [] for name in webs for kind in kinds}
            busy: dict[tuple[str, str], list[Load]] = {(name, kind): [] for name in webs for kind in kinds}
            by_page: dict[tuple[str, str, str], list[float]] = {}
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                with browser_weight(args.browser_shares, chromium_pids()):
                    readers = {(name, kind): Reader(browser, url, kind) for name, url in webs.items() for kind in kinds}
                    # Which web UI and way of loading goes first rotates from one page to the next.
                    order = list(readers)
                    turn = 0
                    for _ in range(args.idle_loads):
                        for route in pages:
                            for key in order[turn % len(order) :] + order[: turn % len(order)]:
                                idle[key].append(
                                    readers[key].load(route.replace("tournaments/main", "tournaments/warm-up"))
                                )
                            turn += 1
                    took = []
                    upcoming = itertools.cycle(pages)  # taken up where the last tournament left off
                    for number in range(args.tournaments):
                        tournament = f"main-{number}"
                        total = start_tournament(address, tournament, names, args.rounds)
                        began = time.monotonic()
                        while not finished(address, tournament):
                            page = next(upcoming)
                            route = page.replace("tournaments/main", f"tournaments/{tournament}")
                            for key in order[turn % len(order) :] + order[: turn % len(order)]:
                                busy[key].append(readers[key].load(route))
                                by_page.setdefault((*key, page), []).append(busy[key][-1].seconds)
                            turn += 1
                        took.append(time.monotonic() - began)
                    for reader in readers.values():
                        reader.close()
                    browser.close()
            plain, packed = sizes(after, "/api/matches/warm-up-0")
        finally:
            for bot in bots:
                bot.terminate()
            for bot in bots:
                bot.wait(timeout=30)
    print(
        f"Tournaments: {args.tournaments} of {total} matches of {args.bots} random SDK bots, in "
        f"{', '.join(f'{seconds:.0f}' for seconds in took)} s; load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(f"Pages: {', '.join('#/' + page for page in pages)}")
    print(
        "| web UI, load, while | loads | p50 | p95 | max | as the driver saw it p50 | p95 | "
        "server's part p50 | p95 | chromium's CPU a load p50 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for when, loads in (("idle", idle), ("under the tournament", busy)):
        for (name, kind), measured in loads.items():
            print(row(f"{name}, {kind}, {when}", measured))
    print("Under the tournament, page by page (p50 / max):")
    for name, kind in readers:
        shown = (
            f"#/{page}: {statistics.median(v):.2f} / {max(v):.2f} s"
            for (web, how, page), v in by_page.items()
            if (web, how) == (name, kind)
        )
        print(f"  {name}, {kind}: {'; '.join(shown)}")
    print(
        "Under the tournament, a whole document's load in phases (medians): document answered / its scripts run "
        "until the first API request / API answers / drawn"
    )
    for (name, kind), measured in busy.items():
        if line := tail_phases(f"{name}, {kind}", measured):
            print(line)
    print(f"A replay's JSON (/api/matches/warm-up-0): {plain / 1000:.1f} kB, gzip {packed / 1000:.1f} kB")


if __name__ == "__main__":
    main()
