"""One and two ``varaq serve`` processes on one PostgreSQL and one Redis; ONE JSON document.

    python benchmarks/cluster.py [--steps 50,100,200,300] [--think 2.0] [--warm 8]
                                 [--window 20] [--failovers 5]

Why: issue 9 spreads tables over processes.  This runs the human-pace load of
``benchmarks/online.py`` (private tables of four people, each acting about every two seconds
on their turn) against one process and then against two, both on the same throwaway
PostgreSQL and Redis (started here from Debian's packages, on free ports of 127.0.0.1, and
stopped at the end), and reports the tables each held with the p99 round trip under 100 ms.
With two processes the people of a table hold their sockets two on each, so every table has
an owner and a follower, and half the actions are forwarded.

Then it measures failover ``--failovers`` times: a table owned by one process, its people on
the other; the owner is SIGKILLed and the clock runs until the survivor accepts the next
action.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from online import SECRET, make_people, rss_bytes, run
from server import HOST, SERVE_SCRIPT, BenchError, free_port, machine, wait_healthy
from servers import RedisServer, have_servers, postgres_server
from varaq.stats import percentile


class Process:
    """One ``varaq serve`` on the shared database and Redis."""

    def __init__(self, db: str, redis: str, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://{HOST}:{self.port}"
        self.log = log
        command = [sys.executable, "-c", SERVE_SCRIPT, "serve", "--host", HOST, "--port",
                   str(self.port), "--db", db, "--redis", redis, "--test-mode",
                   "--relaxed-limits", "--secret", SECRET]
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(command, env={**os.environ, "VARAQ_PACE": "0"},
                                         stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    def wait(self) -> None:
        wait_healthy(self.proc, self.base, self.log)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


def load(args: argparse.Namespace, db: str, redis: RedisServer, processes: int,
         folder: Path, cookies: list[str]) -> dict[str, Any]:
    """The stepped load against ``processes`` processes; its steps and the tables held."""
    servers = [Process(db, redis.url, folder / f"serve-{processes}-{i}.log")
               for i in range(processes)]
    try:
        for server in servers:
            server.wait()
        idle = sum(rss_bytes(s.proc.pid) or 0 for s in servers)
        steps = asyncio.run(run(args, [s.base for s in servers], [s.proc.pid for s in servers],
                                cookies))
    finally:
        for server in servers:
            server.stop()
    held = [s["tables"] for s in steps if s["holds"]]
    return {"processes": processes, "steps": steps, "tables_held": max(held, default=0),
            "idle_rss_mb": round(idle / 2**20, 1)}


def failovers(db: str, redis: RedisServer, folder: Path, count: int,
              cookies: list[str]) -> dict[str, Any]:
    """Kill a table's owner ``count`` times; seconds until the survivor accepts an action."""
    times = []
    for i in range(count):
        owner = Process(db, redis.url, folder / f"owner-{i}.log")
        survivor = Process(db, redis.url, folder / f"survivor-{i}.log")
        try:
            owner.wait()
            survivor.wait()
            times.append(_one_failover(owner, survivor, cookies[i * 4:i * 4 + 4]))
        finally:
            owner.stop()
            survivor.stop()
    return {
        "what": "SIGKILL of the owner to the survivor answering 200 to the next action",
        "runs": len(times),
        "seconds": {"p50": round(percentile(times, 50), 3), "max": round(max(times), 3)},
        "all": [round(t, 3) for t in times],
    }


def _one_failover(owner: Process, survivor: Process, four: list[str]) -> float:
    headers = [{"Cookie": f"varaq_session={c}"} for c in four]
    with httpx2.Client(timeout=30, trust_env=False) as client:
        opened = client.post(f"{owner.base}/api/tables", headers=headers[0],
                             json={"level": "easy", "fill_bots": False}).json()
        for h in headers[1:]:
            client.post(f"{owner.base}/api/tables/join", headers=h, json={"code": opened["code"]})
        client.post(f"{owner.base}/api/games/{opened['id']}/start", headers=headers[0])
        table = opened["id"]
        # The survivor follows the table (a reader there), then the owner dies.
        client.get(f"{survivor.base}/api/games/{table}", headers=headers[0])
        owner.kill()
        killed = time.perf_counter()
        deadline = killed + 60
        while time.perf_counter() < deadline:
            for h in headers:
                try:
                    st = client.get(f"{survivor.base}/api/games/{table}", headers=h).json()
                    if not st["view"]["legal"]:
                        continue
                    choice = "bid 3" if "bid 3" in st["view"]["legal"] else st["view"]["legal"][0]
                    done = client.post(f"{survivor.base}/api/games/{table}/actions", headers=h,
                                       json={"action": choice, "version": st["version"]})
                    if done.status_code == 200:
                        return time.perf_counter() - killed
                except (httpx2.HTTPError, KeyError, ValueError):
                    pass
            time.sleep(0.01)
    raise BenchError("the survivor never accepted an action after the owner was killed")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", default="50,100,200,300")
    p.add_argument("--think", type=float, default=2.0)
    p.add_argument("--warm", type=float, default=8.0)
    p.add_argument("--window", type=float, default=20.0)
    p.add_argument("--failovers", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stop-at-first-miss", action="store_true")
    args = p.parse_args(argv)
    args.steps = [int(x) for x in args.steps.split(",")]
    if not have_servers():
        print("benchmarks/cluster.py: needs Debian's postgresql and redis-server",
              file=sys.stderr)
        return 1
    before = machine()
    people = args.steps[-1] * 4
    redis = RedisServer()
    redis.start()
    try:
        with postgres_server() as db, tempfile.TemporaryDirectory(prefix="varaq-c-") as tmp:
            folder = Path(tmp)
            try:
                cookies = make_people(db, people * 2 + args.failovers * 4)
                one = load(args, db, redis, 1, folder, cookies[:people])
                two = load(args, db, redis, 2, folder, cookies[people:people * 2])
                failover = failovers(db, redis, folder, args.failovers, cookies[people * 2:])
            except BenchError as e:
                print(f"benchmarks/cluster.py: {e}", file=sys.stderr)
                for log in sorted(folder.glob("*.log")):  # what the servers said, before
                    tail = log.read_text(errors="replace").splitlines()[-15:]  # it is gone
                    print(f"--- {log.name}", *tail, sep="\n", file=sys.stderr)
                return 1
    finally:
        redis.stop()
    print(json.dumps({
        "benchmark": "cluster",
        "options": {"steps": args.steps, "think": args.think, "warm": args.warm,
                    "window": args.window, "failovers": args.failovers},
        "servers": "varaq serve --db postgresql+psycopg://… --redis redis://… (throwaway "
                   "PostgreSQL 15 with fsync off, Redis 7, on this machine)",
        "one_process": one,
        "two_processes": two,
        "failover": failover,
        "hold_rule": "p99 round trip under 100 ms",
        "machine": {**before, "load_average_after": machine()["load_average"]},
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
