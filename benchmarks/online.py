"""Online tables at a human pace: how many one ``varaq serve`` process holds; ONE JSON document.

    python benchmarks/online.py [--steps 50,100,200,300,400,500] [--think 2.0]
                                [--warm 8] [--window 20] [--seed 1] [--db URL]

Why: issue 8's tables are four people, each acting about once every two seconds when it is
their turn, each on a WebSocket that gets every event of the table with a view built for that
person.  What limits a process is then not one table's speed but how many tables it can serve
at once while every person still sees their own card come back quickly.

What it does, on 127.0.0.1 only:

1. makes the database and the people's accounts directly (argon2 sign-ins are not what this
   measures), starts ``varaq serve --test-mode --relaxed-limits --secret …`` as a subprocess,
   and signs each person's session cookie with the same secret;
2. for each step of ``--steps``, opens private tables until there are that many: the host opens
   one, three people join by its code, the host starts; every person then holds a WebSocket
   and, whenever it is their turn, thinks ``--think`` seconds (±25%) and sends a legal action;
   after each hand everyone asks for the next one;
3. after ``--warm`` seconds at a step, measures ``--window`` seconds: each person's round trip
   (from sending an action to receiving its event on the socket), actions per second, the
   server's resident memory and CPU.

A step "holds" when the p99 round trip is under 100 ms.  The report lists every step and the
largest that held, and memory per table.  The clients run in this process and share the
machine with the server: their CPU is reported too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from itsdangerous import TimestampSigner
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).parent))
from server import (
    HOST,
    SERVE_SCRIPT,
    BenchError,
    free_port,
    machine,
    process_cpu_seconds,
    stop_server,
    summary,
    wait_healthy,
)
from varaq.service.store import Store

#: The round trip a step must keep at p99 to count as held.
HOLD_MS = 100.0
SECRET = "benchmark-secret-not-for-real-servers"


def rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@dataclass
class Meter:
    """Round trips and actions, counted only while a window is open."""

    open: bool = False
    trips: list[float] = field(default_factory=list)
    actions: int = 0
    errors: list[str] = field(default_factory=list)


class Person:
    """One person at one table, on one WebSocket: acts at a human pace on their turns."""

    def __init__(self, cookie: str, rng: random.Random, think: float) -> None:
        self.cookie = cookie
        self.rng = rng
        self.think = think
        #: When the action in flight was sent (None: none in flight).
        self.sent_at: float | None = None
        #: The version this person last decided at (so one turn gets one action).
        self.decided = -1

    async def play(self, base: str, table_id: str, meter: Meter, stop: asyncio.Event) -> None:
        url = base.replace("http://", "ws://", 1) + f"/ws/games/{table_id}"
        headers = {"Cookie": f"varaq_session={self.cookie}"}
        async with connect(url, additional_headers=headers, proxy=None, compression=None,
                           open_timeout=60, max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "hello", "version": 0}))
            await self._loop(ws, meter, stop)

    async def _loop(self, ws: ClientConnection, meter: Meter, stop: asyncio.Event) -> None:
        asked_next = -1
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "error":
                meter.errors.append(message.get("error", "?"))
                self.sent_at = None
                continue
            if kind not in ("state", "event"):
                continue
            version, view = message["version"], message["view"]
            event = message.get("event") or {}
            if kind == "event" and self.sent_at is not None and event.get("seat") == view["seat"]:
                if meter.open:
                    meter.trips.append(time.perf_counter() - self.sent_at)
                    meter.actions += 1
                self.sent_at = None
            if view["phase"] == "deal" and asked_next != version:
                asked_next = version
                await ws.send(json.dumps({"type": "next"}))
            if view["legal"] and self.decided != version:
                self.decided = version
                asyncio.get_running_loop().create_task(self._act(ws, view["legal"], version))

    async def _act(self, ws: ClientConnection, legal: list[str], version: int) -> None:
        await asyncio.sleep(self.think * self.rng.uniform(0.75, 1.25))
        choice = "bid 3" if "bid 3" in legal else self.rng.choice(legal)
        if choice == "blind nil":
            choice = "look"
        self.sent_at = time.perf_counter()
        with contextlib.suppress(Exception):
            await ws.send(json.dumps({"type": "action", "action": choice, "version": version}))


def make_people(db_url: str, count: int) -> list[str]:
    """``count`` accounts, each signed in once: their session cookies, in order.

    Made directly in the database (argon2 sign-ins are not what this measures): a user row and
    a session row each, the cookie being the session id signed with the server's secret, as
    ``varaq.web.sessions`` makes it at a sign-in."""
    from datetime import UTC, datetime, timedelta

    from varaq.web.sessions import session_hash

    store = Store(db_url)
    signer = TimestampSigner(SECRET.encode(), salt="varaq.session")
    now = datetime.now(UTC)
    cookies = []
    for i in range(count):
        # Any hash: nobody signs in with a password here.
        user_id = store.create_user(f"P{i + 1}", f"p{i + 1}", "$argon2id$unused")
        session_id = secrets.token_urlsafe(32)
        store.create_session(session_hash(session_id), user_id, now=now,
                             expires=now + timedelta(days=1))
        cookies.append(signer.sign(session_id.encode()).decode())
    store.close()
    return cookies


async def open_tables(
    client: httpx2.AsyncClient, cookies: list[str], first: int, count: int,
) -> list[tuple[str, list[str]]]:
    """Open ``count`` tables for people ``first*4`` on; each (table id, its four cookies)."""
    out = []
    limit = asyncio.Semaphore(16)

    async def one(i: int) -> tuple[str, list[str]]:
        four = cookies[(first + i) * 4:(first + i) * 4 + 4]
        async with limit:
            answer = await client.post(
                "/api/tables", json={"level": "easy", "fill_bots": False, "rules": "varaq"},
                headers={"Cookie": f"varaq_session={four[0]}"})
            if answer.status_code != 201:
                raise BenchError(f"opening a table answered {answer.status_code}: {answer.text}")
            doc = answer.json()
            for cookie in four[1:]:
                joined = await client.post("/api/tables/join", json={"code": doc["code"]},
                                           headers={"Cookie": f"varaq_session={cookie}"})
                if joined.status_code != 200:
                    raise BenchError(f"joining answered {joined.status_code}: {joined.text}")
            started = await client.post(f"/api/games/{doc['id']}/start",
                                        headers={"Cookie": f"varaq_session={four[0]}"})
            if started.status_code != 200:
                raise BenchError(f"starting answered {started.status_code}: {started.text}")
            return doc["id"], four

    out = await asyncio.gather(*(one(i) for i in range(count)))
    return list(out)


async def run(
    args: argparse.Namespace, bases: list[str], pids: list[int], cookies: list[str],
) -> list[dict[str, Any]]:
    """The steps of ``args.steps`` against the servers at ``bases``: tables are opened on the
    first; the four people of each table hold their sockets on the servers in turn (two on
    each of two servers), so every table is watched from every process."""
    base = bases[0]
    steps = []
    meter = Meter()
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    opened = 0
    rng = random.Random(args.seed)
    async with httpx2.AsyncClient(base_url=base, trust_env=False, timeout=120) as client:
        for target in args.steps:
            fresh = await open_tables(client, cookies, opened, target - opened)
            opened = target
            for table_id, four in fresh:
                for k, cookie in enumerate(four):
                    person = Person(cookie, random.Random(rng.random()), args.think)
                    where = bases[k % len(bases)]
                    tasks.append(asyncio.create_task(_guarded(person.play(where, table_id, meter,
                                                                          stop), meter)))
            await asyncio.sleep(args.warm)
            # The clients' own cycle collector must not be measured as the server's latency:
            # thousands of people's sockets make a large heap in this process, and its full
            # collections stopped the clients for up to 0.2 s, which showed up as p99 round
            # trips.  The clients' long-lived objects are frozen and the collector is off
            # while a window is measured (the server keeps its own collector as it is).
            gc.collect()
            gc.freeze()
            gc.disable()
            cpu0, client0 = cpu_of(pids), time.process_time()
            meter.trips.clear()
            meter.actions = 0
            meter.open = True
            started = time.perf_counter()
            await asyncio.sleep(args.window)
            meter.open = False
            seconds = time.perf_counter() - started
            gc.enable()
            cpu1, client1 = cpu_of(pids), time.process_time()
            rss1 = sum(rss_bytes(pid) or 0 for pid in pids) or None
            trips = summary(meter.trips)
            steps.append({
                "tables": target,
                "people": target * 4,
                "round_trip_ms": trips,
                "holds": trips["p99"] is not None and trips["p99"] < HOLD_MS,
                "actions_per_second": round(meter.actions / seconds, 1),
                "server_cpu_share": None if cpu0 is None or cpu1 is None
                else round((cpu1 - cpu0) / seconds, 2),
                "client_cpu_share": round((client1 - client0) / seconds, 2),
                "server_rss_mb": None if rss1 is None else round(rss1 / 2**20, 1),
                "errors": len(meter.errors),  # since the start, not only in this window
                "error_samples": sorted(set(meter.errors))[:3],
            })
            print(json.dumps(steps[-1]), file=sys.stderr, flush=True)
            if not steps[-1]["holds"] and args.stop_at_first_miss:
                break
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
    return steps


def cpu_of(pids: list[int]) -> float | None:
    """CPU seconds of the servers, together."""
    seconds = [process_cpu_seconds(pid) for pid in pids]
    return None if None in seconds else sum(s for s in seconds if s is not None)


async def _guarded(coroutine: Any, meter: Meter) -> None:
    try:
        await coroutine
    except Exception as e:  # a dropped socket is reported, not fatal
        meter.errors.append(f"{type(e).__name__}: {e}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", default="50,100,200,300,400,500",
                   help="table counts to measure at, increasing (50,100,200,300,400,500)")
    p.add_argument("--think", type=float, default=2.0, help="seconds a person thinks (2.0)")
    p.add_argument("--warm", type=float, default=8.0, help="seconds before measuring a step")
    p.add_argument("--window", type=float, default=20.0, help="seconds measured per step")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stop-at-first-miss", action="store_true",
                   help="stop after the first step whose p99 is 100 ms or more")
    args = p.parse_args(argv)
    try:
        args.steps = [int(x) for x in args.steps.split(",")]
    except ValueError:
        p.error("--steps is a comma-separated list of numbers")
    if args.steps != sorted(args.steps) or args.steps[0] < 1:
        p.error("--steps must increase from at least 1")
    before = machine()
    with tempfile.TemporaryDirectory(prefix="varaq-online-") as tmp:
        db_url = f"sqlite:///{Path(tmp) / 'online.db'}"
        cookies = make_people(db_url, args.steps[-1] * 4)
        port = free_port()
        log_path = Path(tmp) / "server.log"
        command = [sys.executable, "-c", SERVE_SCRIPT, "serve", "--host", HOST, "--port",
                   str(port), "--db", db_url, "--test-mode", "--relaxed-limits",
                   "--secret", SECRET]
        env = {**os.environ, "VARAQ_PACE": "0"}
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        try:
            base = f"http://{HOST}:{port}"
            wait_healthy(proc, base, log_path)
            idle_rss = rss_bytes(proc.pid)
            steps = asyncio.run(run(args, [base], [proc.pid], cookies))
        except BenchError as e:
            print(f"benchmarks/online.py: {e}", file=sys.stderr)
            return 1
        finally:
            stop_server(proc)
    held = [s for s in steps if s["holds"]]
    top = steps[-1]
    per_table = None
    if idle_rss and top["server_rss_mb"]:
        per_table = round((top["server_rss_mb"] * 2**20 - idle_rss) / top["tables"] / 1024, 1)
    print(json.dumps({
        "benchmark": "online",
        "options": {"steps": args.steps, "think": args.think, "warm": args.warm,
                    "window": args.window, "seed": args.seed},
        "server": {"command": "varaq serve --test-mode --relaxed-limits --secret …",
                   "env": {"VARAQ_PACE": "0"}, "idle_rss_mb": None if idle_rss is None
                   else round(idle_rss / 2**20, 1)},
        "steps": steps,
        "tables_held": max((s["tables"] for s in held), default=0),
        "hold_rule": f"p99 round trip under {HOLD_MS:g} ms",
        "memory_per_table_kb": per_table,
        "machine": {**before, "load_average_after": machine()["load_average"]},
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
