"""A rolling restart of two ``varaq serve`` processes under the online load; ONE JSON document.

    python benchmarks/rolling_restart.py [--tables 100] [--think 2.0] [--warm 15]
                                         [--before 20] [--after 5] [--seed 1]
                                         [--redis-pool N] [--keep-logs DIR]
                                         [--client-nice 10] [--client-processes 2]

Why: issue 19 asks that restarting every process of a cluster in turn, while people play,
loses no acknowledged action, gives every socket every event once, and keeps no table waiting
more than a second.  This measures the three.

What it does, on 127.0.0.1 only:

1. starts a throwaway PostgreSQL and Redis (``tests/servers.py``), makes the people's accounts
   and sessions in the database, and starts two processes with ``--pid-file RUN/a.pid`` and
   ``RUN/b.pid``;
2. opens ``--tables`` private tables of four people (on the first process, so it owns them
   all); each person holds a WebSocket, two of a table on each process, kept the way the
   browser's ``connection.js`` keeps it: when it closes it is opened again after a pause
   (0.3 s after a 1012 "restarting" close, else 0.5 s, doubling up to 8 s) on the other
   process, as a proxy that tries the next server would, with a hello naming the newest
   version it holds;
3. each person, on their turn, thinks ``--think`` seconds (±25 %) and POSTs the action to
   ``/api/games/{id}/actions`` through the process their socket is on, or the other one if that
   refuses the connection; a 503 (the table is moving between processes) is retried every
   0.1 s; after each hand everyone asks for the next one the same way;
4. after ``--warm`` seconds, measures ``--before`` seconds of normal play, then runs
   ``scripts/rolling-restart.sh RUN`` while the load goes on, plays ``--after`` seconds more,
   stops acting, lets the sockets catch up and checks:

   * acknowledged actions lost: every action answered 200 must be in ``entries`` at its
     version, for its seat;
   * events: per person, the versions of the events their socket was given (alone, or inside
     the ``state`` that answers a hello) must be 1, 2, 3, … across every reconnection — each
     duplicate, gap or "resync" state is a violation;
   * waiting: round trips of actions (sent → its event on the person's socket, or → the 200
     answer if sooner) sent before the restart, during it and after it; and at each table the
     gap between consecutive events (first seen on any of its sockets) less the think time of
     the person whose action ended it, for gaps that overlap the restart.

To say where the time went, it also reports the slowest round trips with every try (which
process, what it answered, when), how long sockets took to reopen and their close codes, when
each process handed its tables on and took others over (from the servers' logs, which
``--keep-logs`` keeps), the servers' warnings that redis-py's pool of connections was full,
and each server's share of a core and of time spent waiting for one (``/proc``).

The clients run in ``--client-processes`` (2) processes of their own, each with a share of the
tables, on the same cores as the servers, PostgreSQL, Redis and whatever else the machine is
doing (the load average is in the report).  They stand for browsers on other machines, so they
run at ``--client-nice`` (10) and yield the CPU to the servers, which run at 0 (the restart
script is started at 0 too, so the restarted processes are; the report's ``nice`` gives what
each had at the end).  Their clocks agree: ``time.perf_counter`` is the system's monotonic
clock, the same in every process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy import create_engine, text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from online import SECRET, make_people, open_tables
from server import (
    HOST,
    SERVE_SCRIPT,
    BenchError,
    free_port,
    machine,
    process_cpu_seconds,
    wait_healthy,
)
from servers import RedisServer, have_servers, postgres_server
from varaq.stats import percentile

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "rolling-restart.sh"
#: The browser's pauses before reopening a socket (connection.js): after a 1012 close, else,
#: and the most it doubles to.
RESTART_PAUSE, FIRST_PAUSE, MOST_PAUSE = 0.3, 0.5, 8.0
#: After a 1012 close the pause is spread over RESTART_PAUSE + [0, RESTART_SPREAD) seconds, as
#: connection.js spreads it, so the pages of a stopping process do not all knock at once.
RESTART_SPREAD = 0.9
#: The code this client gives a socket it closed itself after opening the next (a move).
MOVED = 1000
#: Seconds between retries of a request refused with 503 while its table moves.
MOVING_RETRY = 0.1
#: The goal: no table waits longer than this (seconds) beyond its people's thinking.
GOAL = 1.0


def now() -> float:
    return time.perf_counter()


@dataclass
class TableLog:
    """What was seen of one table: when each version first reached any of its sockets, and
    how long the person whose action made a version thought before sending it."""

    id: str
    first_seen: dict[int, float] = field(default_factory=dict)
    think: dict[int, float] = field(default_factory=dict)


@dataclass
class Totals:
    """Counts over every person."""

    accepted: list[tuple[str, int, str, str]] = field(default_factory=list)
    #: (sent, seconds, how it ended, what happened: table, version, each try, the answer).
    trips: list[tuple[float, float, str, dict[str, Any]]] = field(default_factory=list)
    moving_retries: int = 0
    stale: int = 0
    unknown: int = 0
    errors: list[str] = field(default_factory=list)
    #: (closed at, seconds until open again, the close code, the failed tries between).
    reconnects: list[tuple[float, float, int | None, int]] = field(default_factory=list)
    acting: bool = True
    #: Sockets moved to the other process before the old one closed (make before break).
    moves: int = 0
    #: Each HTTP try that was answered: (sent, seconds until answered, the app's own seconds
    #: from its Server-Timing header).
    http: list[tuple[float, float, float]] = field(default_factory=list)

    def export(self) -> dict[str, Any]:
        """What a client process sends back (JSON: its tuples arrive as lists)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "acting"}

    def absorb(self, doc: dict[str, Any]) -> None:
        """Add a client process's counts to these."""
        for name, value in doc.items():
            if isinstance(value, list):
                getattr(self, name).extend(value)
            else:
                setattr(self, name, getattr(self, name) + value)


@dataclass
class Heard:
    """What one person's sockets were given, across reconnections: the versions in order,
    how each came (connection number, "state" or "event", process), and the resync states."""

    table: str
    versions: list[int]
    origins: list[tuple[int, str, str]]
    resyncs: int


class Person:
    """One person at one table: a socket kept like the browser's, actions over HTTP."""

    def __init__(self, cookie: str, table: TableLog, home: int, bases: list[str],
                 client: httpx2.AsyncClient, rng: random.Random, think: float,
                 totals: Totals) -> None:
        self.cookie, self.table, self.bases, self.client = cookie, table, bases, client
        self.rng, self.think, self.totals = rng, think, totals
        self.headers = {"Cookie": f"varaq_session={cookie}"}
        #: The process the socket is on (or trying); requests go there first.
        self.at = home
        #: Event versions the socket was given, in order, across reconnections.
        self.versions: list[int] = []
        #: For each of those: (connection number, "state" or "event", process) it came in.
        self.origins: list[tuple[int, str, str]] = []
        self.version = 0
        self.resyncs = 0
        self.connections = 0
        #: The close code of each connection that ended (None: it never opened or broke).
        self.codes: list[int | None] = []
        self.seat: str | None = None
        self.decided = -1
        self.asked_next = -1
        #: The action in flight: (the version it was decided at, when it was sent).
        self.pending: tuple[int, float] | None = None
        #: The tries of the request under way: (seconds since sent, process, outcome).
        self.tries: list[tuple[float, str, str]] = []
        self.tasks: set[asyncio.Task[None]] = set()

    # -- the socket ------------------------------------------------------------------------------

    def socket_url(self, at: int) -> str:
        return self.bases[at].replace("http://", "ws://", 1) + f"/ws/games/{self.table.id}"

    async def dial(self, at: int) -> Any:
        # No pings from this side: a browser sends none (the server's pings keep it alive).
        return await connect(self.socket_url(at), additional_headers=self.headers, proxy=None,
                             compression=None, open_timeout=20, max_size=2**22,
                             ping_interval=None)

    async def hold_socket(self) -> None:
        """Keep one socket open as connection.js does: reopen after a pause when it drops
        (on the other process, as a proxy would), and when the server says ``moving``, open
        the next socket on the other process while this one still delivers, then close this
        one and say hello on the next (make before break)."""
        pause = FIRST_PAUSE
        #: When the last connection ended, its close code, and the tries since.
        closed_at: float | None = None
        closed_code: int | None = None
        tries = 0
        #: A socket already open on the other process (a move), to use next.
        moved_to: Any = None
        while True:
            code: int | None = None
            opened = False
            try:
                if moved_to is not None:
                    ws, moved_to = moved_to, None
                else:
                    ws = await self.dial(self.at)
                async with ws:
                    opened = True
                    self.connections += 1
                    if closed_at is not None:
                        self.totals.reconnects.append((closed_at, now() - closed_at,
                                                       closed_code, tries))
                        closed_at, tries = None, 0
                    pause = FIRST_PAUSE
                    await ws.send(json.dumps({"type": "hello", "version": self.version}))
                    moving: asyncio.Future[float] = (
                        asyncio.get_running_loop().create_future())
                    reader = asyncio.ensure_future(self.read(ws, moving))
                    try:
                        await asyncio.wait({reader, moving},
                                           return_when=asyncio.FIRST_COMPLETED)
                    except asyncio.CancelledError:
                        reader.cancel()  # the run is over: no reader left behind
                        raise
                    if moving.done() and not reader.done():
                        moved_to = await self.move(moving.result(), reader)
                    if moved_to is not None:
                        reader.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await reader
                        code = MOVED
                        await ws.close()
                    else:
                        await reader
                        code = ws.close_code
            except asyncio.CancelledError:
                raise
            except ConnectionClosed as e:
                code = e.rcvd.code if e.rcvd is not None else None
            except Exception:  # refused, reset: the browser retries, so do we
                code = None
            tries += 1
            if opened:
                self.codes.append(code)
                closed_at, closed_code, tries = now(), code, 0
            if code == MOVED:
                self.at = 1 - self.at
                continue
            if code == 1012:
                pause = RESTART_PAUSE + random.uniform(0, RESTART_SPREAD)
            await asyncio.sleep(pause)
            pause = min(pause * 2, MOST_PAUSE)
            self.at = 1 - self.at  # the proxy sends the retry to the other process

    async def read(self, ws: Any, moving: asyncio.Future[float]) -> None:
        async for raw in ws:
            message = json.loads(raw)
            if message.get("type") == "moving":
                if not moving.done():
                    moving.set_result(float(message.get("within") or 0))
                continue
            self.take(message)

    async def move(self, within: float, reader: asyncio.Future[None]) -> Any:
        """The next socket, opened on the other process after connection.js's spread pause
        while ``reader`` goes on reading the old one; None if the old one closed first or
        the next could not be opened (the old one's close then decides, as before)."""
        await asyncio.sleep(random.uniform(0, within))
        if reader.done():
            return None
        try:
            ws = await self.dial(1 - self.at)
        except Exception:
            return None
        self.totals.moves += 1
        return ws

    def take(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "state":
            if message.get("resync"):
                self.resyncs += 1
            self.seat = message.get("you") or self.seat
            for event in message.get("events", []):
                self.seen(event["version"], event, "state")
            self.version = max(self.version, message["version"])
            self.consider(message["view"], message["version"])
        elif kind == "event":
            self.seen(message["version"], message.get("event") or {}, "event")
            self.version = max(self.version, message["version"])
            self.consider(message["view"], message["version"])

    def seen(self, version: int, event: dict[str, Any], how: str) -> None:
        self.versions.append(version)
        self.origins.append((self.connections, how, "ab"[self.at]))
        self.table.first_seen.setdefault(version, now())
        if (self.pending is not None and version == self.pending[0] + 1
                and event.get("seat") == self.seat):
            self.finish("event")

    def finish(self, how: str) -> None:
        if self.pending is not None:
            decided, sent = self.pending
            self.totals.trips.append((sent, now() - sent, how, {
                "table": self.table.id, "version": decided, "socket_on": "ab"[self.at],
                "tries": self.tries}))
            self.pending = None

    def consider(self, view: dict[str, Any], version: int) -> None:
        if not self.totals.acting:
            return
        if view.get("phase") == "deal" and self.asked_next < version:
            self.asked_next = version
            self.spawn(self.ask_next(version))
        if view.get("legal") and self.decided < version:
            self.decided = version
            self.spawn(self.act(list(view["legal"]), version))

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- requests ---------------------------------------------------------------------------------

    async def post(self, path: str, body: dict[str, Any]) -> httpx2.Response | None:
        """POST through the process the socket is on, else the other (a proxy's next
        upstream); a 503 is retried.  None: the outcome is unknown (the connection broke
        after the request went out) or nobody answered for 30 s."""
        sent = now()
        self.tries = tries = []
        deadline = sent + 30
        while now() < deadline:
            answer = None
            for at in (self.at, 1 - self.at):
                try:
                    began = now()
                    answer = await self.client.post(self.bases[at] + path, json=body,
                                                    headers=self.headers)
                    app = app_seconds(answer)
                    self.totals.http.append((began, now() - began, app))
                    said = "" if answer.status_code == 200 else f" {answer.text[:80]}"
                    tries.append((round(now() - sent, 3), "ab"[at],
                                  f"{answer.status_code}{said} (app {app * 1000:.0f} ms)"))
                    break
                except httpx2.ConnectError:
                    tries.append((round(now() - sent, 3), "ab"[at], "refused"))
                    continue  # nobody listens there: the proxy tries the next
                except httpx2.TransportError as e:
                    tries.append((round(now() - sent, 3), "ab"[at], type(e).__name__))
                    return None
            if answer is None:
                await asyncio.sleep(MOVING_RETRY)
                continue
            if answer.status_code == 503:
                self.totals.moving_retries += 1
                await asyncio.sleep(MOVING_RETRY)
                continue
            return answer
        return None

    async def act(self, legal: list[str], version: int) -> None:
        think = self.think * self.rng.uniform(0.75, 1.25)
        await asyncio.sleep(think)
        if not self.totals.acting:
            return
        choice = "bid 3" if "bid 3" in legal else self.rng.choice(legal)
        if choice == "blind nil":
            choice = "look"
        self.table.think[version + 1] = think
        self.pending = (version, now())
        answer = await self.post(f"/api/games/{self.table.id}/actions",
                                 {"action": choice, "version": version})
        if answer is None:
            self.totals.unknown += 1
            return
        if answer.status_code == 200:
            doc = answer.json()
            self.totals.accepted.append((self.table.id, version + 1, doc["you"], choice))
            if self.pending is not None and self.pending[0] == version:
                self.finish("answer")
            self.consider(doc["view"], doc["version"])
        elif answer.status_code == 409:
            self.totals.stale += 1
            self.pending = None
        else:
            self.totals.errors.append(f"{answer.status_code}: {answer.text[:120]}")
            self.pending = None

    async def ask_next(self, version: int) -> None:
        answer = await self.post(f"/api/games/{self.table.id}/next", {"version": version})
        if answer is not None and answer.status_code not in (200, 409):
            self.totals.errors.append(f"next {answer.status_code}: {answer.text[:120]}")


# -- the processes ----------------------------------------------------------------------------


def start(name: str, run_dir: Path, db: str, redis: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-c", SERVE_SCRIPT, "serve", "--host", HOST, "--port",
               str(port), "--db", db, "--redis", redis, "--test-mode", "--relaxed-limits",
               "--secret", SECRET, "--pid-file", str(run_dir / f"{name}.pid")]
    with open(run_dir / f"{name}.log", "ab") as log:
        proc = subprocess.Popen(command, env={**os.environ, "VARAQ_PACE": "0"}, cwd=ROOT,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://{HOST}:{port}"
    wait_healthy(proc, base, run_dir / f"{name}.log")
    return proc, base


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def stop_all(run_dir: Path, procs: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM the processes named by the pid files (the restarted ones are not our
    children), then the ones started here; SIGKILL whatever is left after 20 s."""
    pids = set()
    for pid_file in run_dir.glob("*.pid"):
        with contextlib.suppress(OSError, ValueError):
            pids.add(int(pid_file.read_text()))
    pids |= {p.pid for p in procs if p.poll() is None}
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        for p in procs:
            p.poll()
        time.sleep(0.1)
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=10)


# -- the run ----------------------------------------------------------------------------------


def server_priority() -> None:
    """In the restart script's child, before it runs: the niceness the servers were started
    with (0), not the clients' (only root may lower it; otherwise it stays as it is, and the
    report's ``nice`` says so)."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, 0, 0)


def nice_of(pid: int) -> int | None:
    """A process's niceness (``/proc/PID/stat``, field 19)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    except (OSError, IndexError, ValueError):
        return None


async def play(args: argparse.Namespace, bases: list[str], cookies: list[str],
               run_dir: Path) -> dict[str, Any]:
    """Open the tables, hand them to ``--client-processes`` worker processes (each holds the
    sockets and plays the people of its share of the tables), run the restart script while
    they play, then tell them to stop and gather what they saw."""
    async with httpx2.AsyncClient(base_url=bases[0], trust_env=False, timeout=120) as first:
        opened = await open_tables(first, cookies, 0, args.tables)
    rng = random.Random(args.seed)
    shares = [opened[k::args.client_processes] for k in range(args.client_processes)]
    workers = []
    for k, share in enumerate(shares):
        if not share:
            continue
        worker = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--worker", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, limit=2**28)
        assert worker.stdin is not None
        worker.stdin.write((json.dumps({
            "bases": bases, "tables": share, "think": args.think, "nice": args.client_nice,
            "seed": rng.random(), "first_home": k}) + "\n").encode())
        await worker.stdin.drain()
        workers.append(worker)
    samples: list[tuple[float, str, int, float, float]] = []
    sampler = asyncio.create_task(sample_cpu(run_dir, samples))
    await asyncio.sleep(args.warm)
    before_start = now()
    await asyncio.sleep(args.before)
    restart_start = now()
    restart_wall = time.time()
    script = await asyncio.create_subprocess_exec(
        "bash", str(SCRIPT), str(run_dir), "60", stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, preexec_fn=server_priority)
    lines: list[dict[str, Any]] = []
    assert script.stdout is not None
    async for raw in script.stdout:
        lines.append({"at_s": round(now() - restart_start, 2),
                      "line": raw.decode(errors="replace").strip()})
    status = await script.wait()
    restart_end = now()
    await asyncio.sleep(args.after)
    play_end = now()
    # Publishes refused by redis-py's pool of connections (a server-side warning).
    pool_errors = sum(log.read_text(errors="replace").count("Too many connections")
                      for log in run_dir.glob("*.log"))
    seen = []
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write(b"stop\n")
        await worker.stdin.drain()
    for worker in workers:
        out, _ = await worker.communicate()
        if worker.returncode != 0 or not out:
            raise BenchError(f"a client process ended with {worker.returncode}")
        seen.append(json.loads(out))
    nice = {"clients": seen[0]["nice"],
            **{f.stem: nice_of(int(f.read_text())) for f in run_dir.glob("*.pid")}}
    sampler.cancel()
    totals = Totals()
    for doc in seen:
        totals.absorb(doc["totals"])
    lags = [tuple(lag) for doc in seen for lag in doc["lags"]]
    return {
        "totals": totals, "people": [Heard(*h) for doc in seen for h in doc["people"]],
        "tables": [TableLog(t["id"], {int(v): at for v, at in t["first_seen"].items()},
                            {int(v): at for v, at in t["think"].items()})
                   for doc in seen for t in doc["tables"]],
        "script": lines, "client_processes": len(workers),
        "script_status": status, "before_start": before_start, "restart_start": restart_start,
        "restart_end": restart_end, "play_end": play_end, "restart_wall": restart_wall,
        "sockets_behind_at_end": sum(doc["behind"] for doc in seen),
        "pool_errors": pool_errors, "nice": nice,
        "logs": log_times(run_dir, restart_wall),
        "cpu": cpu_during(samples, restart_start, restart_end + args.after),
        "cpu_before": cpu_during(samples, before_start, restart_start),
        "client_lag_before": [lag for at, lag in lags if before_start <= at < restart_start],
        "client_lag_during": [lag for at, lag in lags
                              if restart_start <= at <= restart_end + args.after],
    }


async def clients(config: dict[str, Any]) -> dict[str, Any]:
    """One client process (``--worker``): the people of its tables, from the configuration
    line on standard input until ``stop`` arrives there; what they saw, as JSON-ready data.

    The clients stand for people's browsers on other machines: on these two cores they yield
    to the servers (threads started from here on inherit the niceness).  Several processes
    share the people so that no one client's event loop is what makes a table wait."""
    if config["nice"]:
        os.setpriority(os.PRIO_PROCESS, 0, config["nice"])
    totals = Totals()
    rng = random.Random(config["seed"])
    bases = config["bases"]
    opened = config["tables"]
    # No cap on connections: each person is a browser with connections of its own, and a
    # shared cap would make requests wait here for one another, not for the servers.
    limits = httpx2.Limits(max_connections=None, max_keepalive_connections=len(opened) * 4)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with httpx2.AsyncClient(trust_env=False, timeout=30, limits=limits) as client:
        tables = [TableLog(table_id) for table_id, _ in opened]
        people = [Person(cookie, log, (k + config["first_home"]) % 2, bases, client,
                         random.Random(rng.random()), config["think"], totals)
                  for log, (_, four) in zip(tables, opened, strict=True)
                  for k, cookie in enumerate(four)]
        sockets = [asyncio.create_task(p.hold_socket()) for p in people]
        lags: list[tuple[float, float]] = []
        lagger = asyncio.create_task(watch_lag(lags))
        while (await reader.readline()).strip() not in (b"stop", b""):
            pass
        totals.acting = False
        # Every action in flight is answered, then every socket catches up with its table.
        in_flight = [t for p in people for t in p.tasks]
        await asyncio.wait_for(asyncio.gather(*in_flight, return_exceptions=True), 60)
        finals = {t.id: max(t.first_seen, default=0) for t in tables}
        deadline = now() + 30
        while now() < deadline and any(p.version < finals[p.table.id] for p in people):
            await asyncio.sleep(0.2)
        behind = sum(p.version < finals[p.table.id] for p in people)
        lagger.cancel()
        for task in sockets:
            task.cancel()
        await asyncio.gather(*sockets, return_exceptions=True)
    return {"totals": totals.export(), "lags": lags, "behind": behind,
            "nice": nice_of(os.getpid()),
            "people": [(p.table.id, p.versions, p.origins, p.resyncs) for p in people],
            "tables": [{"id": t.id, "first_seen": t.first_seen, "think": t.think}
                       for t in tables]}


#: How often the clients' own event loop is checked for lateness (seconds).
LAG_TICK = 0.05


async def watch_lag(lags: list[tuple[float, float]]) -> None:
    """How late the clients' event loop wakes from a short sleep: a late client reads its
    socket and sends its action late, and every figure measured here includes that."""
    while True:
        before = now()
        await asyncio.sleep(LAG_TICK)
        lags.append((before, now() - before - LAG_TICK))


def log_times(run_dir: Path, since: float) -> dict[str, dict[str, Any]]:
    """From each process's log, after ``since`` (wall clock): when it took tables over ("owned
    here now", with how long the new owner spent on each), when it began to hand its tables
    on and how long each phase took, and its slowest forwarded commands with their tries (the
    servers log any over half a second), in seconds after ``since``."""
    out = {}
    for log in sorted(run_dir.glob("*.log")):
        taken, handed, become, slow = [], [], [], []
        for line in log.read_text(errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            try:
                doc = json.loads(line)
                at = datetime.fromisoformat(doc["ts"].replace("Z", "+00:00")).timestamp()
            except (ValueError, KeyError):
                continue
            if at < since:
                continue
            msg = doc.get("msg", "")
            if "owned here now" in msg:
                taken.append(at - since)
                become.append(float(doc.get("become_s", 0.0)))
            elif msg.startswith(("handing", "handed", "asked")):
                handed.append({"at_s": round(at - since, 2), "msg": msg, **{
                    k: doc[k] for k in ("prepare_s", "release_s", "peer_ready") if k in doc}})
            elif "command took" in msg:
                slow.append({"at_s": round(at - since, 2), "seconds": doc.get("seconds"),
                             "what": msg.split(": ", 1)[-1], "tries": doc.get("tries")})
        slow.sort(key=lambda d: -(d["seconds"] or 0))
        out[log.stem] = {"took_over": len(taken),
                         "first_take_s": round(min(taken), 2) if taken else None,
                         "last_take_s": round(max(taken), 2) if taken else None,
                         "become_owner_ms": dist(become),
                         "handed": handed,
                         "slow_commands": len(slow), "slowest_commands": slow[:4]}
    return out


def run_delay(pid: int) -> float:
    """Seconds the process's main thread (its event loop) has waited for a CPU while runnable
    (``/proc/PID/schedstat``): how much the machine's other work held it back."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def sample_cpu(run_dir: Path,
                     samples: list[tuple[float, str, int, float, float]]) -> None:
    """Every 0.25 s, the CPU seconds and run-queue wait of each process named by a pid file."""
    while True:
        for pid_file in run_dir.glob("*.pid"):
            with contextlib.suppress(OSError, ValueError):
                pid = int(pid_file.read_text())
                cpu = process_cpu_seconds(pid)
                if cpu is not None:
                    samples.append((now(), pid_file.stem, pid, cpu, run_delay(pid)))
        await asyncio.sleep(0.25)


def cpu_during(samples: list[tuple[float, str, int, float, float]], start: float,
               end: float) -> list[dict[str, Any]]:
    """Each server process's share of a core while it ran inside [start, end], and the share
    of that time its event loop waited, runnable, for a CPU."""
    by_pid: dict[int, list[tuple[float, str, float, float]]] = {}
    for at, name, pid, cpu, wait in samples:
        if start <= at <= end:
            by_pid.setdefault(pid, []).append((at, name, cpu, wait))
    out = []
    for pid, rows in by_pid.items():
        if len(rows) < 2:
            continue
        (t0, name, c0, w0), (t1, _, c1, w1) = rows[0], rows[-1]
        out.append({"process": name, "pid": pid, "from_s": round(t0 - start, 2),
                    "to_s": round(t1 - start, 2), "core_share": round((c1 - c0) / (t1 - t0), 2),
                    "waiting_for_cpu_share": round((w1 - w0) / (t1 - t0), 2)})
    return out


def lost_actions(db: str, accepted: list[tuple[str, int, str, str]]) -> list[str]:
    engine = create_engine(db)
    try:
        with engine.connect() as c:
            rows = c.execute(text("select table_id, version, entry from entries")).all()
    finally:
        engine.dispose()
    stored = {(r[0], r[1]): r[2] for r in rows}
    return [f"{t} v{v}: {seat} {action} (stored: {stored.get((t, v))})"
            for t, v, seat, action in accepted if stored.get((t, v)) != f"{seat} {action}"]


def event_violations(people: list[Heard]) -> dict[str, Any]:
    """Per socket, versions must run 1, 2, 3, …: a version at or below the last one given is a
    duplicate, one that skips ahead a gap; a state that gave up and resent is a resync.  The
    first few, with the versions around them and how each came (connection, state or event,
    process)."""
    duplicates = gaps = 0
    samples = []
    for p in people:
        last = 0
        for i, v in enumerate(p.versions):
            bad = v <= last or v > last + 1
            duplicates += v <= last
            gaps += v > last + 1
            if bad and len(samples) < 4:
                samples.append({"table": p.table, "around": [
                    [p.versions[j], *p.origins[j]] for j in range(max(0, i - 3), i + 2)
                    if j < len(p.versions)]})
            last = max(last, v)
    return {"duplicates": duplicates, "gaps": gaps,
            "resync_states": sum(p.resyncs for p in people), "samples": samples}


def dist(values: list[float]) -> dict[str, Any]:
    """p50/p90/p99/max in milliseconds."""
    if not values:
        return {"n": 0}
    ms = [v * 1000 for v in values]
    return {"n": len(ms), "p50": round(percentile(ms, 50), 1),
            "p90": round(percentile(ms, 90), 1), "p99": round(percentile(ms, 99), 1),
            "max": round(max(ms), 1)}


def table_waits(tables: list[TableLog], start: float, end: float, origin: float,
                overlapping: bool = True) -> dict[str, Any]:
    """Per gap between consecutive events at a table that overlaps [start, end] (or, not
    ``overlapping``, that starts inside it): the gap less the think time of the action that
    ended it (what the table waited beyond thinking)."""
    waits: list[tuple[float, str, int, float]] = []
    for t in tables:
        versions = sorted(t.first_seen)
        for v0, v1 in itertools.pairwise(versions):
            a, b = t.first_seen[v0], t.first_seen[v1]
            if b < start or a > end or (not overlapping and a < start):
                continue
            waits.append((b - a - t.think.get(v1, 0.0), t.id, v1, a - origin))
    waits.sort(reverse=True)
    excess = [w for w, _, _, _ in waits]
    return {
        "gaps": len(waits),
        "beyond_think_ms": dist([max(0.0, w) for w in excess]),
        "over_1s": sum(w > GOAL for w in excess),
        "tables_over_1s": len({t for w, t, _, _ in waits if w > GOAL}),
        "worst": [{"table": t, "version": v, "beyond_think_s": round(w, 3),
                   "gap_from_s": round(at, 2)} for w, t, v, at in waits[:5]],
    }


def app_seconds(answer: httpx2.Response) -> float:
    """The app's own time for a request (its ``Server-Timing: app;dur=MS``), 0 if absent."""
    _, _, ms = answer.headers.get("server-timing", "").partition("dur=")
    try:
        return float(ms) / 1000
    except ValueError:
        return 0.0


def by_second(trips: list[tuple[float, float]]) -> list[dict[str, Any]]:
    """Round trips by the second (since the restart began) they were sent in: how many, their
    median and their longest (ms), to show which moment of the restart the waits come from."""
    bins: dict[int, list[float]] = {}
    for at, seconds in trips:
        bins.setdefault(int(at // 1), []).append(seconds * 1000)
    return [{"second": k, "n": len(v), "p50": round(percentile(v, 50)), "max": round(max(v))}
            for k, v in sorted(bins.items())]


def report(args: argparse.Namespace, db: str, run: dict[str, Any]) -> dict[str, Any]:
    totals: Totals = run["totals"]
    t0, r0, r1 = run["before_start"], run["restart_start"], run["restart_end"]
    before = [s for sent, s, _, _ in totals.trips if t0 <= sent < r0]
    during = [s for sent, s, _, _ in totals.trips if r0 <= sent <= r1]
    after = [s for sent, s, _, _ in totals.trips if r1 < sent <= run["play_end"]]
    lost = lost_actions(db, totals.accepted)
    reconnect_times = [s for at, s, _, _ in totals.reconnects if r0 <= at <= r1]
    codes: dict[str, int] = {}
    for at, _, code, _ in totals.reconnects:
        if r0 <= at <= r1:
            codes[str(code)] = codes.get(str(code), 0) + 1
    failed_tries = sum(n for at, _, _, n in totals.reconnects if r0 <= at <= r1)
    slow = sorted(((s, sent, how, d) for sent, s, how, d in totals.trips if r0 <= sent <= r1),
                  key=lambda x: x[0], reverse=True)[:6]
    return {
        "acknowledged_actions": len(totals.accepted),
        "acknowledged_lost": len(lost),
        "lost_samples": lost[:5],
        "event_violations": event_violations(run["people"]),
        "sockets_behind_at_end": run["sockets_behind_at_end"],
        "round_trip_ms": {"before_restart": dist(before), "during_restart": dist(during),
                          "after_restart": dist(after)},
        "round_trips_over_1s_during": sum(s > GOAL for s in during),
        "http_tries_during_restart_ms": {
            "answered": dist([t for sent, t, _ in totals.http if r0 <= sent <= r1]),
            "in_the_app": dist([a for sent, _, a in totals.http if r0 <= sent <= r1]),
            "outside_the_app": dist([t - a for sent, t, a in totals.http if r0 <= sent <= r1]),
        },
        "round_trip_by_second_of_restart": by_second(
            [(sent - r0, s) for sent, s, _, _ in totals.trips if r0 - 2 <= sent <= r1 + 2]),
        "table_waits_during_restart": table_waits(run["tables"], r0, r1, r0),
        "table_waits_before_restart": table_waits(run["tables"], t0, r0, r0, overlapping=False),
        "restart": {"seconds": round(r1 - r0, 2), "script_status": run["script_status"],
                    "started_utc": time.strftime("%H:%M:%S", time.gmtime(run["restart_wall"]))
                    + f"{run['restart_wall'] % 1:.3f}"[1:],
                    "script_output": run["script"]},
        "slowest_round_trips_during": [
            {"sent_s": round(sent - r0, 2), "seconds": round(sec, 3), "ended_by": how, **d}
            for sec, sent, how, d in slow],
        "socket_reopen_ms_during_restart": dist(reconnect_times),
        "socket_close_codes_during_restart": codes,
        "socket_failed_tries_during_restart": failed_tries,
        "sockets_moved_before_closing": totals.moves,
        "client_loop_lag_ms": {"before_restart": dist(run["client_lag_before"]),
                               "during_restart": dist(run["client_lag_during"])},
        "server_warnings_redis_pool_full": run["pool_errors"],
        "nice": run["nice"],
        "server_logs_after_restart_start": run["logs"],
        "server_cpu_share_before": run["cpu_before"],
        "server_cpu_share_during_and_after": run["cpu"],
        "moving_503_retries": totals.moving_retries,
        "stale_409": totals.stale,
        "unknown_outcome": totals.unknown,
        "errors": len(totals.errors),
        "error_samples": sorted(set(totals.errors))[:5],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100, help="tables of four people (100)")
    p.add_argument("--think", type=float, default=2.0, help="seconds a person thinks (2.0)")
    p.add_argument("--warm", type=float, default=15.0, help="seconds before measuring")
    p.add_argument("--before", type=float, default=20.0,
                   help="seconds of normal play measured before the restart")
    p.add_argument("--after", type=float, default=5.0,
                   help="seconds of play after the restart script ends")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep-logs", metavar="DIR", help="copy the servers' logs to DIR")
    p.add_argument("--client-nice", type=int, default=10, metavar="N",
                   help="run the clients at this niceness, the servers at 0 (10; 0: as "
                        "started)")
    p.add_argument("--redis-pool", type=int, default=None, metavar="N",
                   help="give the processes a Redis URL with ?max_connections=N (redis-py's "
                        "pool of connections; its default is 100)")
    p.add_argument("--client-processes", type=int, default=2, metavar="N",
                   help="processes the clients are spread over (2), so that no one client "
                        "event loop is what makes a table wait")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.client_processes < 1:
        p.error("--client-processes must be at least 1")
    if args.worker:  # one client process: configuration in on stdin, what it saw out
        config = json.loads(sys.stdin.readline())
        print(json.dumps(asyncio.run(clients(config))))
        return 0
    if not have_servers():
        print("benchmarks/rolling_restart.py: needs Debian's postgresql and redis-server",
              file=sys.stderr)
        return 1
    before = machine()
    redis = RedisServer()
    redis.start()
    procs: list[subprocess.Popen[bytes]] = []
    run_dir = Path(tempfile.mkdtemp(prefix="varaq-rr-"))
    try:
        with postgres_server() as db:
            try:
                cookies = make_people(db, args.tables * 4)
                redis_url = redis.url if args.redis_pool is None \
                    else f"{redis.url}?max_connections={args.redis_pool}"
                bases = []
                for name in ("a", "b"):
                    proc, base = start(name, run_dir, db, redis_url)
                    procs.append(proc)
                    bases.append(base)
                run = asyncio.run(play(args, bases, cookies, run_dir))
                result = report(args, db, run)
            except BenchError as e:
                print(f"benchmarks/rolling_restart.py: {e}", file=sys.stderr)
                return 1
            finally:
                stop_all(run_dir, procs)
                if args.keep_logs:  # the servers' logs, for a look at what they did
                    Path(args.keep_logs).mkdir(parents=True, exist_ok=True)
                    for log in run_dir.glob("*.log"):
                        (Path(args.keep_logs) / log.name).write_bytes(log.read_bytes())
    finally:
        redis.stop()
        shutil.rmtree(run_dir, ignore_errors=True)
    print(json.dumps({
        "benchmark": "rolling_restart",
        "options": {"tables": args.tables, "think": args.think, "warm": args.warm,
                    "before": args.before, "after": args.after, "seed": args.seed,
                    "redis_pool": args.redis_pool, "client_nice": args.client_nice,
                    "client_processes": args.client_processes},
        "servers": "two varaq serve --db postgresql+psycopg://… --redis redis://… --pid-file "
                   "RUN/{a,b}.pid (throwaway PostgreSQL with fsync off, Redis, this machine); "
                   "scripts/rolling-restart.sh RUN while the tables play",
        "clients": "one socket per person (two of a table on each process), reopened like "
                   "connection.js on the other process; actions by HTTP POST via whichever "
                   "process is up, 503 retried every 0.1 s",
        **result,
        "goal": "no acknowledged action lost, every event once, no table waits over 1 s",
        "machine": {**before, "load_average_after": machine()["load_average"]},
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
