"""The web server under load: South's round trips, hands and games per second; ONE JSON document.

    python benchmarks/server.py [--games 20] [--hands 2] [--clients 8] [--level normal]
                                [--rules varaq] [--seed 1] [--timeout 60] [--against REF]

``--against REF`` (a git ref, e.g. ``v0.1.0`` or a commit) runs the same load, in the same run,
against the server of that version too (checked out in a temporary git worktree), and prints
both side by side with their ratios: before-and-after figures measured on one machine at one
time.

Why this benchmark exists: issue 4's table is authoritative, so every card South plays is an
HTTP request that the server must check, *store* (journal and record, before anything is shown)
and answer, while the computer players of every open table think in threads of the same
process.  What a player feels is the round trip of their own card and how soon the socket shows
it; what an operator needs is how many hands one process plays per second.

What it does, on 127.0.0.1 only:

1. starts ``varaq serve`` as a subprocess on a free port with a fresh SQLite file in a temporary
   directory and ``VARAQ_PACE=0`` (the computer players move as soon as they have decided, so
   the figures measure the server, not the human pace), and waits for ``/healthz``;
2. creates ``--games`` games through ``POST /api/games`` with ``--clients`` requests in flight
   (games per second; the computer players of the games already created start bidding at once,
   so this is creation under load, as it would be on a live server);
3. plays them, ``--clients`` at a time: each client opens the game's WebSocket, waits until
   South is to act, sends a legal action (a seeded random choice among ``view.legal``) through
   ``POST /api/games/{id}/actions`` with the version it has, and ``POST /api/games/{id}/next``
   after each hand, for ``--hands`` hands;
4. stops the server (also on an error or Ctrl-C) and prints the figures.

Figures: South's action round trip (p50/p95/max, ms), the socket's delivery of South's own
event counted from the moment the request was sent, hands and stored events per second across
all games, games created per second, and the server's and this client's CPU seconds (they share
the machine, so both are shown).  Every wait is bounded by ``--timeout``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import ClientConnection, connect

from varaq.stats import percentile

#: The only address this benchmark ever talks to.
HOST = "127.0.0.1"
#: Levels whose players think for milliseconds; Hard thinks for its budget (0.6 s a decision),
#: which would make this a benchmark of the Hard player, not of the server.
LEVELS = ("easy", "normal")
#: Seconds the server may take to answer ``/healthz`` after it is started.
STARTUP_LIMIT = 60.0
#: South's decisions in a hand are at most 13 cards, a bid, blind nil or look, and an exchange:
#: a bound on the loop of one game, so a server that never hands the turn back fails loudly.
STEPS_PER_HAND = 40


#: ``varaq serve`` with this interpreter (no ``python -m varaq``), so the child's pid is the
#: server's own and its CPU time can be read from ``/proc``.
SERVE_SCRIPT = "import sys; from varaq.cli import main; sys.exit(main(sys.argv[1:]))"


class BenchError(Exception):
    """The benchmark cannot go on; ``str()`` is the one-line reason."""


# -- the server subprocess --------------------------------------------------------------------


def free_port() -> int:
    """A port nobody listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process and its threads so far (Linux ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # After the command name: state is field 3, utime and stime are fields 14 and 15.
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def serve_flags(src: Path | None) -> list[str]:
    """The flags this benchmark needs from ``varaq serve``, as far as that version has them:
    test mode (the benchmark chooses seeds) and lifted rate limits (one address plays every
    game)."""
    env = {**os.environ, "PYTHONPATH": str(src)} if src else None
    help_text = subprocess.run(
        [sys.executable, "-c", SERVE_SCRIPT, "serve", "--help"], env=env, capture_output=True,
        text=True, check=False,
    ).stdout
    return [flag for flag in ("--test-mode", "--relaxed-limits") if flag in help_text]


@contextlib.contextmanager
def running_server(
    db_url: str, log_path: Path, src: Path | None = None,
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``varaq serve`` on a free port of 127.0.0.1; stopped on leaving, whatever happened.
    ``src`` runs another version's code (its ``src`` folder) instead of this one."""
    port = free_port()
    command = [
        sys.executable, "-c", SERVE_SCRIPT,
        "serve", "--host", HOST, "--port", str(port), "--db", db_url, *serve_flags(src),
    ]
    env = {**os.environ, "VARAQ_PACE": "0"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    with open(log_path, "wb") as log:
        # A session of its own: a Ctrl-C in the terminal reaches only this script, which then
        # stops the server in order (below) instead of both racing to exit.
        proc = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        yield proc, f"http://{HOST}:{port}"
    finally:
        stop_server(proc)


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (uvicorn shuts down cleanly), then SIGKILL if it has not gone in 15 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def wait_healthy(proc: subprocess.Popen[bytes], base: str, log_path: Path) -> float:
    """Seconds until ``/healthz`` answers; a server that exits or hangs is a BenchError."""
    started = time.perf_counter()
    with httpx2.Client(base_url=base, trust_env=False, timeout=2.0) as client:
        while time.perf_counter() - started < STARTUP_LIMIT:
            if proc.poll() is not None:
                raise BenchError(
                    f"varaq serve exited with status {proc.returncode}: {last_line(log_path)}"
                )
            with contextlib.suppress(httpx2.TransportError):
                if client.get("/healthz").status_code == 200:
                    return time.perf_counter() - started
            time.sleep(0.1)
    raise BenchError(f"varaq serve did not answer /healthz within {STARTUP_LIMIT:.0f} s")


def last_line(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no output)"
    return lines[-1] if lines else "(no output)"


# -- one game, seen from South's chair ----------------------------------------------------------


@dataclass
class Figures:
    """What the clients measured, all games together (seconds, converted to ms on output)."""

    create: list[float] = field(default_factory=list)
    action: list[float] = field(default_factory=list)
    next_hand: list[float] = field(default_factory=list)
    socket_event: list[float] = field(default_factory=list)
    hands: int = 0
    events: int = 0
    stale: int = 0
    socket_missing: int = 0


class GameWatch:
    """The newest state of one game that this client knows, from the socket or an answer.

    Both paths deliver South's view tagged with a version; only a newer version replaces what
    is known, so a late socket message can never take the client back in time.
    """

    def __init__(self, state: dict[str, Any]) -> None:
        self.version: int = state["version"]
        self.view: dict[str, Any] = state["view"]
        self.changed = asyncio.Event()
        #: When the socket delivered each event (``time.perf_counter()``), by version.
        self.arrived: dict[int, float] = {}

    def update(self, version: int, view: dict[str, Any]) -> None:
        if version > self.version:
            self.version, self.view = version, view
            self.changed.set()

    async def settled(self, timeout: float) -> dict[str, Any]:
        """South's view once South may act, the hand is over or the match is over."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (self.view["legal"] or self.view["phase"] in ("deal", "over")):
            self.changed.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise BenchError(
                    f"no turn for South within {timeout:.0f} s (version {self.version}, "
                    f"phase {self.view['phase']}, turn {self.view['turn']})"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)
        return self.view

    async def read(self, ws: ClientConnection) -> None:
        """Feed the socket's messages in until it closes."""
        async for raw in ws:
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "event":
                self.arrived[message["version"]] = time.perf_counter()
                self.update(message["version"], message["view"])
            elif kind == "state":
                self.update(message["version"], message["view"])
            elif kind == "error":
                raise BenchError(f"the socket refused: {message.get('error')}")


async def send(client: httpx2.AsyncClient, method: str, url: str, **kwargs: Any) -> httpx2.Response:
    """One request, sent again once if the connection it went out on was closed under it.

    A keep-alive connection the server closes as idle just as a request leaves on it is a
    race every HTTP client meets (browsers resend too).  Sending an action twice is safe here:
    it carries its version, so a second copy of an action that did land is refused as stale.
    """
    try:
        return await client.request(method, url, **kwargs)
    except (httpx2.ReadError, httpx2.RemoteProtocolError, httpx2.WriteError):
        return await client.request(method, url, **kwargs)


def answer_json(response: httpx2.Response, what: str) -> dict[str, Any]:
    if response.status_code not in (200, 201):
        try:
            reason = response.json().get("error", response.text)
        except ValueError:
            reason = response.text[:200]
        raise BenchError(f"{what} answered {response.status_code}: {reason}")
    doc: dict[str, Any] = response.json()
    return doc


async def play_game(
    client: httpx2.AsyncClient, base: str, game_id: str, hands: int, rng: random.Random,
    figures: Figures, timeout: float,
) -> None:
    """Play South in one game for ``hands`` hands, timing every request."""
    ws_url = base.replace("http://", "ws://", 1) + f"/ws/games/{game_id}"
    async with connect(ws_url, proxy=None, open_timeout=timeout, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "version": 0}))
        first = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if first.get("type") != "state":
            raise BenchError(f"the socket's first message was {first.get('type')!r}, not a state")
        watch = GameWatch(first)
        reader = asyncio.create_task(watch.read(ws))
        sent: dict[int, float] = {}  # South's event version -> when its request was sent
        finished = 0
        try:
            for _ in range(hands * STEPS_PER_HAND):
                view = await _settled_or_reader_failed(watch, reader, timeout)
                if view["phase"] in ("deal", "over"):
                    finished += 1
                    if finished >= hands or view["phase"] == "over":
                        break
                    t0 = time.perf_counter()
                    response = await send(
                        client, "POST", f"/api/games/{game_id}/next",
                        json={"version": watch.version})
                    figures.next_hand.append(time.perf_counter() - t0)
                    if response.status_code == 409:  # dealt already (a resent request)
                        response = await send(client, "GET", f"/api/games/{game_id}")
                    state = answer_json(response, "next")
                    watch.update(state["version"], state["view"])
                    continue
                version = watch.version
                t0 = time.perf_counter()
                response = await send(
                    client, "POST", f"/api/games/{game_id}/actions",
                    json={"action": rng.choice(view["legal"]), "version": version},
                )
                elapsed = time.perf_counter() - t0
                if response.status_code == 409:
                    # Stale: something happened that this client has not seen yet.  Reload.
                    figures.stale += 1
                    state = answer_json(await send(client, "GET", f"/api/games/{game_id}"),
                                        "reload")
                    watch.update(state["version"], state["view"])
                    continue
                state = answer_json(response, "action")
                figures.action.append(elapsed)
                sent[version + 1] = t0  # the server accepted it as the next event
                watch.update(state["version"], state["view"])
            else:
                raise BenchError(f"game {game_id}: {hands} hands took more than "
                                 f"{hands * STEPS_PER_HAND} steps")
            # South's last event may still be on its way: give the socket a moment.
            last = max(sent, default=0)
            for _ in range(100):
                if last in watch.arrived or reader.done():
                    break
                await asyncio.sleep(0.01)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
    figures.hands += finished
    figures.events += watch.version - 1  # every event after the game's first deal
    for version, t0 in sent.items():
        if version in watch.arrived:
            figures.socket_event.append(watch.arrived[version] - t0)
        else:
            figures.socket_missing += 1


async def _settled_or_reader_failed(
    watch: GameWatch, reader: asyncio.Task[None], timeout: float
) -> dict[str, Any]:
    """Wait for South's turn, but fail at once if the socket reader has died."""
    waiting = asyncio.ensure_future(watch.settled(timeout))
    done, _ = await asyncio.wait({waiting, reader}, return_when=asyncio.FIRST_COMPLETED)
    if waiting in done:
        return waiting.result()
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    error = reader.exception() if not reader.cancelled() else None
    raise BenchError(f"the game's socket closed early: {error or 'closed by the server'}")


# -- the load ---------------------------------------------------------------------------------


async def create_games(
    client: httpx2.AsyncClient, args: argparse.Namespace, figures: Figures
) -> tuple[list[str], float]:
    """Create ``--games`` games, ``--clients`` at a time; their ids and the wall time."""
    limit = asyncio.Semaphore(args.clients)

    async def create(i: int) -> str:
        body = {"level": args.level, "rules": args.rules, "seed": args.seed * 100_000 + i}
        async with limit:
            t0 = time.perf_counter()
            response = await send(client, "POST", "/api/games", json=body)
            figures.create.append(time.perf_counter() - t0)
        game_id: str = answer_json(response, "POST /api/games")["id"]
        return game_id

    started = time.perf_counter()
    ids = await asyncio.gather(*(create(i) for i in range(args.games)))
    return list(ids), time.perf_counter() - started


async def play_games(
    base: str, ids: list[str], args: argparse.Namespace, figures: Figures,
) -> float:
    """Play every game, ``--clients`` games at a time; the wall time."""
    queue: asyncio.Queue[tuple[int, str]] = asyncio.Queue()
    for i, game_id in enumerate(ids):
        queue.put_nowait((i, game_id))

    async def player() -> None:
        # Each player has its own connection, as each browser has: one client shared by 32
        # players made httpx's pool scan every connection on every request, and the client,
        # not the server, set the round trips (6 of its 14 CPU seconds went there).
        async with httpx2.AsyncClient(
            base_url=base, trust_env=False, timeout=args.timeout,
            limits=httpx2.Limits(max_connections=2, max_keepalive_connections=1),
        ) as own:
            while not queue.empty():
                i, game_id = queue.get_nowait()
                rng = random.Random(f"{args.seed}:south:{i}")
                await play_game(own, base, game_id, args.hands, rng, figures, args.timeout)

    started = time.perf_counter()
    await asyncio.gather(*(player() for _ in range(min(args.clients, len(ids)))))
    return time.perf_counter() - started


async def measure(
    base: str, args: argparse.Namespace, server_pid: int
) -> dict[str, Any]:
    figures = Figures()
    limits = httpx2.Limits(max_connections=args.clients * 2, max_keepalive_connections=args.clients)
    async with httpx2.AsyncClient(
        base_url=base, trust_env=False, timeout=args.timeout, limits=limits
    ) as client:
        # Warm-up (not measured): the first request imports the bots and opens the database.
        warm = answer_json(await client.post("/api/games", json={"level": args.level}), "warm-up")
        answer_json(await client.get(f"/api/games/{warm['id']}"), "warm-up")
        await asyncio.sleep(0.5)

        cpu_server_0, cpu_client_0 = process_cpu_seconds(server_pid), time.process_time()
        ids, create_seconds = await create_games(client, args, figures)
        play_seconds = await play_games(base, ids, args, figures)
        cpu_server_1, cpu_client_1 = process_cpu_seconds(server_pid), time.process_time()

    server_cpu = (
        None if cpu_server_0 is None or cpu_server_1 is None
        else round(cpu_server_1 - cpu_server_0, 2)
    )
    return {
        "create": {
            "games": len(ids),
            "seconds": round(create_seconds, 3),
            "games_per_second": round(len(ids) / create_seconds, 1),
            "latency_ms": summary(figures.create),
        },
        "play": {
            "seconds": round(play_seconds, 3),
            "hands": figures.hands,
            "hands_per_second": round(figures.hands / play_seconds, 2),
            "events": figures.events,
            "events_per_second": round(figures.events / play_seconds, 1),
            "what": "events: every accepted action (South's and the computer players') and deal",
            "south_actions": len(figures.action),
            "action_round_trip_ms": summary(figures.action),
            "next_hand_round_trip_ms": summary(figures.next_hand),
            "stale_refusals": figures.stale,
        },
        "websocket": {
            "what": "from sending South's action to the socket delivering its event",
            "event_ms": summary(figures.socket_event),
            "missing": figures.socket_missing,
        },
        "cpu_seconds": {
            "server": server_cpu,
            "server_per_hand": (
                None if server_cpu is None or not figures.hands
                else round(server_cpu / figures.hands, 3)
            ),
            "client": round(cpu_client_1 - cpu_client_0, 2),
        },
    }


def summary(seconds: list[float]) -> dict[str, float | int | None]:
    if not seconds:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "max": None}
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50": round(percentile(ms, 50), 2),
        "p95": round(percentile(ms, 95), 2),
        "p99": round(percentile(ms, 99), 2),
        "max": round(max(ms), 2),
    }


# -- the report -------------------------------------------------------------------------------


def ratios(now: dict[str, Any], ref: dict[str, Any]) -> dict[str, float | None]:
    """This version against the reference: above 1 is better for rates, below 1 for times."""

    def div(a: float | None, b: float | None) -> float | None:
        return None if not a or not b else round(a / b, 2)

    return {
        "events_per_second": div(now["play"]["events_per_second"],
                                 ref["play"]["events_per_second"]),
        "hands_per_second": div(now["play"]["hands_per_second"], ref["play"]["hands_per_second"]),
        "action_round_trip_p50": div(now["play"]["action_round_trip_ms"]["p50"],
                                     ref["play"]["action_round_trip_ms"]["p50"]),
        "action_round_trip_p99": div(now["play"]["action_round_trip_ms"]["p99"],
                                     ref["play"]["action_round_trip_ms"]["p99"]),
    }



def machine() -> dict[str, Any]:
    """Cores, CPU, Python and how busy the machine was: client and server share it."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {
        "nproc": usable,
        "cpu_model": model,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "load_average": load,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20, help="games to create and play (20)")
    p.add_argument("--hands", type=int, default=2, help="hands per game (2)")
    p.add_argument("--clients", type=int, default=8,
                   help="concurrent clients, each playing one game at a time (8)")
    p.add_argument("--level", choices=LEVELS, default="normal",
                   help="the computer players' level (normal)")
    p.add_argument("--rules", default="varaq", help="a rules preset name (varaq)")
    p.add_argument("--seed", type=int, default=1, help="seeds the deals and South's choices (1)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds any single wait may last before the run fails (60)")
    p.add_argument("--against", metavar="REF", default=None,
                   help="also run the same load against the server of this git ref")
    args = p.parse_args(argv)
    for name in ("games", "hands", "clients"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    if args.timeout <= 0:
        p.error("--timeout must be positive")
    return args


def one_run(args: argparse.Namespace, src: Path | None) -> dict[str, Any]:
    """The load against one server (this checkout's, or ``src``'s); its figures."""
    with tempfile.TemporaryDirectory(prefix="varaq-bench-") as tmp:
        db_path = Path(tmp) / "games.db"
        log_path = Path(tmp) / "server.log"
        with running_server(f"sqlite:///{db_path}", log_path, src) as (proc, base):
            startup = wait_healthy(proc, base, log_path)
            figures = asyncio.run(measure(base, args, proc.pid))
            if proc.poll() is not None:
                raise BenchError(f"varaq serve died during the run: {last_line(log_path)}")
        db_bytes = db_path.stat().st_size if db_path.exists() else None
    return {"startup_seconds": round(startup, 2), "db_bytes": db_bytes, **figures}


@contextlib.contextmanager
def checkout(ref: str) -> Iterator[Path]:
    """The ``src`` folder of ``ref``, in a temporary git worktree removed afterwards."""
    repo = Path(__file__).resolve().parents[1]
    folder = Path(tempfile.mkdtemp(prefix="varaq-ref-"))
    target = folder / "tree"
    made = subprocess.run(
        ["git", "-C", str(repo), "worktree", "add", "--detach", str(target), ref],
        capture_output=True, text=True, check=False,
    )
    if made.returncode:
        raise BenchError(f"cannot check out {ref!r}: {made.stderr.strip().splitlines()[-1]}")
    try:
        yield target / "src"
    finally:
        subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(target)],
                       capture_output=True, check=False)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    before = machine()
    try:
        figures = one_run(args, None)
        reference: dict[str, Any] | None = None
        if args.against:
            with checkout(args.against) as src:
                reference = one_run(args, src)
    except BenchError as e:
        print(f"benchmarks/server.py: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("benchmarks/server.py: interrupted; the server was stopped", file=sys.stderr)
        return 130
    startup, db_bytes = figures.pop("startup_seconds"), figures.pop("db_bytes")
    if reference is not None:
        figures["against"] = {"ref": args.against, **reference, "ratios": ratios(figures,
                                                                                 reference)}
    report = {
        "benchmark": "server",
        "options": {
            "games": args.games, "hands": args.hands, "clients": args.clients,
            "level": args.level, "rules": args.rules, "seed": args.seed,
            "timeout": args.timeout,
        },
        "server": {
            "command": "varaq serve --host 127.0.0.1 --port <free> --db sqlite:///<tmp> "
                       "--test-mode --relaxed-limits",
            "env": {"VARAQ_PACE": "0"},
            "startup_seconds": round(startup, 2),
            "db_bytes": db_bytes,
        },
        **figures,
        "machine": {**before, "load_average_after": machine()["load_average"]},
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
