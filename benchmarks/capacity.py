"""What one accepted action costs each part of a cluster, and what one table holds; ONE JSON
document.

    python benchmarks/capacity.py [--levels 100,300] [--processes 1,2] [--think 2.0]
                                  [--warm 10] [--window 30] [--seed 1]

Why: issue 19 asks how many tables one core, one process, one PostgreSQL and one Redis carry,
and what 10,000 or 100,000 concurrent tables need.  Those are extrapolations, but from
measured costs: this measures them on a throwaway PostgreSQL and Redis (``tests/servers.py``)
under the human-pace load of ``benchmarks/online.py`` (private tables of four people, each
thinking ``--think`` s on their turn, every person on a WebSocket; with two processes the
people of a table hold their sockets two on each, so half the actions are forwarded).

For each number of processes, and each number of tables in ``--levels`` (tables are added to
reach the next level), after ``--warm`` seconds it reads counters before and after a
``--window`` of seconds:

* the accepted actions: rows added to ``entries`` (one per accepted input, deals included);
* CPU seconds of the ``varaq serve`` processes, of every PostgreSQL process and of Redis
  (``/proc``);
* PostgreSQL: transactions committed, rows inserted and updated (``pg_stat_database``) and WAL
  bytes written (``pg_current_wal_lsn()``);
* Redis: commands processed and bytes in and out (``INFO stats``), publishes
  (``INFO commandstats``);
* each process's ``/metrics`` (scraped with a token): the commit latency's mean;
* resident memory of the processes, from which memory per table is the growth between
  levels divided by the tables added.

Everything is divided by the accepted actions (and tables).  The clients run in this process
on the same cores; only the servers' own CPU seconds are counted, so the costs do not depend on
how busy the machine is (the latencies do: the load average is in the report).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy import create_engine, text

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from online import SECRET, Meter, Person, _guarded, make_people, open_tables, rss_bytes
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
from servers import RedisServer, have_servers, postgres_server

TOKEN = secrets.token_urlsafe(24)


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (PostgreSQL's backends and workers)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def postgres_cpu(postmaster: int) -> float:
    """CPU seconds of PostgreSQL: the postmaster, its live children, and (from the
    postmaster's cutime/cstime) the children that already exited."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    try:
        fields = Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(x) for x in fields[11:15]) / tick
    except OSError:
        return 0.0
    for pid in children_of(postmaster):
        total += process_cpu_seconds(pid) or 0.0
    return total


def redis_info(port: int, section: str) -> dict[str, str]:
    """``INFO section`` of the Redis on ``port``, as key → value."""
    import redis as redis_client

    client = redis_client.Redis(host="127.0.0.1", port=port)
    try:
        raw = client.execute_command("INFO", section)
    finally:
        client.close()
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    out = {}
    for line in raw.decode().splitlines() if isinstance(raw, bytes) else str(raw).splitlines():
        if ":" in line and not line.startswith("#"):
            key, value = line.split(":", 1)
            out[key] = value
    return out


class Counters:
    """Every counter this benchmark reads, at one moment."""

    def __init__(self, engine: Any, postmaster: int, redis: RedisServer, pids: list[int],
                 bases: list[str]) -> None:
        self.at = time.perf_counter()
        with engine.connect() as c:
            self.entries = c.execute(text("select count(*) from entries")).scalar_one()
            row = c.execute(text(
                "select xact_commit, tup_inserted, tup_updated from pg_stat_database "
                "where datname = current_database()")).one()
            self.commits, self.inserted, self.updated = (int(x) for x in row)
            self.wal = c.execute(text(
                "select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')")).scalar_one()
        self.pg_cpu = postgres_cpu(postmaster)
        stats = redis_info(redis.port, "stats")
        self.redis_commands = int(stats["total_commands_processed"])
        self.redis_in = int(stats["total_net_input_bytes"])
        self.redis_out = int(stats["total_net_output_bytes"])
        commands = redis_info(redis.port, "commandstats")
        # "calls=5,usec=…" as Redis sends it, or {'calls': 5, …} as redis-py parses it.
        match = re.search(r"calls'?[=:]\s*(\d+)", commands.get("cmdstat_publish", ""))
        self.redis_publishes = int(match.group(1)) if match else 0
        cpu = redis_info(redis.port, "cpu")
        self.redis_cpu = float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])
        self.server_cpu = sum(process_cpu_seconds(pid) or 0.0 for pid in pids)
        self.rss = sum(rss_bytes(pid) or 0 for pid in pids)
        self.commit_sum, self.commit_count = scrape_commits(bases)


def scrape_commits(bases: list[str]) -> tuple[float, float]:
    """The commit latency histogram's sum and count over every process's ``/metrics``."""
    total = count = 0.0
    for base in bases:
        try:
            page = httpx2.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"},
                             timeout=10, trust_env=False).text
        except httpx2.HTTPError:
            continue
        for line in page.splitlines():
            if line.startswith("varaq_commit_duration_seconds_sum"):
                total += float(line.rsplit(" ", 1)[1])
            elif line.startswith("varaq_commit_duration_seconds_count"):
                count += float(line.rsplit(" ", 1)[1])
    return total, count


def per(value: float, actions: int, digits: int = 1) -> float | None:
    return None if actions <= 0 else round(value / actions, digits)


def costs(a: Counters, b: Counters, meter: Meter, tables: int, processes: int) -> dict[str, Any]:
    seconds = b.at - a.at
    actions = b.entries - a.entries
    server_cpu = b.server_cpu - a.server_cpu
    pg_cpu = b.pg_cpu - a.pg_cpu
    redis_cpu = b.redis_cpu - a.redis_cpu
    per_table_rate = actions / seconds / tables if tables else 0.0
    commits = b.commit_count - a.commit_count

    def tables_per_core(cpu_seconds: float) -> int | None:
        if actions <= 0 or cpu_seconds <= 0 or per_table_rate <= 0:
            return None
        return int(1 / (cpu_seconds / actions * per_table_rate))

    return {
        "tables": tables,
        "processes": processes,
        "seconds": round(seconds, 1),
        "accepted_actions": actions,
        "actions_per_second": round(actions / seconds, 1),
        "actions_per_table_per_second": round(per_table_rate, 3),
        "round_trip_ms": summary(meter.trips),
        "errors": len(meter.errors),  # since the start, not only in this window
        "error_samples": sorted(set(meter.errors))[:3],
        "per_action": {
            "server_cpu_ms": per(server_cpu * 1000, actions, 3),
            "postgres_cpu_ms": per(pg_cpu * 1000, actions, 3),
            "redis_cpu_ms": per(redis_cpu * 1000, actions, 3),
            "postgres_commits": per(b.commits - a.commits, actions, 2),
            "postgres_rows_inserted": per(b.inserted - a.inserted, actions, 2),
            "postgres_rows_updated": per(b.updated - a.updated, actions, 2),
            "postgres_wal_bytes": per(float(b.wal - a.wal), actions, 0),
            "redis_commands": per(b.redis_commands - a.redis_commands, actions, 2),
            "redis_publishes": per(b.redis_publishes - a.redis_publishes, actions, 2),
            "redis_bytes_in": per(b.redis_in - a.redis_in, actions, 0),
            "redis_bytes_out": per(b.redis_out - a.redis_out, actions, 0),
        },
        "commit_ms_mean": None if commits <= 0
        else round((b.commit_sum - a.commit_sum) / commits * 1000, 2),
        "cpu_share": {"servers": round(server_cpu / seconds, 3),
                      "postgres": round(pg_cpu / seconds, 3),
                      "redis": round(redis_cpu / seconds, 3)},
        "tables_per_core": {"server": tables_per_core(server_cpu),
                            "postgres": tables_per_core(pg_cpu),
                            "redis": tables_per_core(redis_cpu)},
        "server_rss_mb": round(b.rss / 2**20, 1),
    }


class Process:
    def __init__(self, db: str, redis: str, log: Path) -> None:
        self.port = free_port()
        self.base = f"http://{HOST}:{self.port}"
        self.log = log
        command = [sys.executable, "-c", SERVE_SCRIPT, "serve", "--host", HOST, "--port",
                   str(self.port), "--db", db, "--redis", redis, "--test-mode",
                   "--relaxed-limits", "--secret", SECRET, "--metrics-token", TOKEN]
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(command, env={**os.environ, "VARAQ_PACE": "0"},
                                         stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)


async def levels(args: argparse.Namespace, db: str, postmaster: int, redis: RedisServer,
                 servers: list[Process], cookies: list[str]) -> list[dict[str, Any]]:
    bases = [s.base for s in servers]
    pids = [s.proc.pid for s in servers]
    engine = create_engine(db)
    meter = Meter()
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    rng = random.Random(args.seed)
    out = []
    opened = 0
    idle = await asyncio.to_thread(Counters, engine, postmaster, redis, pids, bases)
    last_rss, last_tables = idle.rss, 0
    try:
        async with httpx2.AsyncClient(base_url=bases[0], trust_env=False, timeout=120) as client:
            for target in args.levels:
                fresh = await open_tables(client, cookies, opened, target - opened)
                opened = target
                for table_id, four in fresh:
                    for k, cookie in enumerate(four):
                        person = Person(cookie, random.Random(rng.random()), args.think)
                        where = bases[k % len(bases)]
                        tasks.append(asyncio.create_task(
                            _guarded(person.play(where, table_id, meter, stop), meter)))
                await asyncio.sleep(args.warm)
                gc.collect()
                gc.freeze()
                gc.disable()  # the clients' collector off while measuring (as online.py)
                meter.trips.clear()
                meter.actions = 0
                meter.open = True
                a = await asyncio.to_thread(Counters, engine, postmaster, redis, pids, bases)
                await asyncio.sleep(args.window)
                b = await asyncio.to_thread(Counters, engine, postmaster, redis, pids, bases)
                meter.open = False
                gc.enable()
                level = costs(a, b, meter, target, len(servers))
                level["memory_per_table_kb"] = round(
                    (b.rss - last_rss) / (target - last_tables) / 1024, 1)
                level["memory_per_table_from"] = "idle" if last_tables == 0 else last_tables
                last_rss, last_tables = b.rss, target
                out.append(level)
                print(json.dumps(level), file=sys.stderr, flush=True)
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        engine.dispose()
    for level in out:
        level["idle_rss_mb"] = round(idle.rss / 2**20, 1)
    return out


def postmaster_pid(db: str) -> int:
    engine = create_engine(db)
    try:
        with engine.connect() as c:
            folder = c.execute(text("show data_directory")).scalar_one()
    finally:
        engine.dispose()
    return int(Path(folder, "postmaster.pid").read_text().split()[0])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--levels", default="100,300", help="table counts, increasing (100,300)")
    p.add_argument("--processes", default="1,2", help="process counts to run (1,2)")
    p.add_argument("--think", type=float, default=2.0)
    p.add_argument("--warm", type=float, default=10.0)
    p.add_argument("--window", type=float, default=30.0)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    args.levels = [int(x) for x in args.levels.split(",")]
    args.processes = [int(x) for x in args.processes.split(",")]
    if args.levels != sorted(args.levels) or args.levels[0] < 1:
        p.error("--levels must increase from at least 1")
    if not have_servers():
        print("benchmarks/capacity.py: needs Debian's postgresql and redis-server",
              file=sys.stderr)
        return 1
    before = machine()
    redis = RedisServer()
    redis.start()
    runs = []
    try:
        with postgres_server() as db:
            postmaster = postmaster_pid(db)
            people = args.levels[-1] * 4
            cookies = make_people(db, people * len(args.processes))
            folder = Path(os.environ.get("TMPDIR", "/tmp"))
            for i, count in enumerate(args.processes):
                servers = [Process(db, redis.url, folder / f"varaq-capacity-{count}-{k}.log")
                           for k in range(count)]
                try:
                    for s in servers:
                        wait_healthy(s.proc, s.base, s.log)
                    steps = asyncio.run(levels(args, db, postmaster, redis, servers,
                                               cookies[i * people:(i + 1) * people]))
                except BenchError as e:
                    print(f"benchmarks/capacity.py: {e}", file=sys.stderr)
                    return 1
                finally:
                    for s in servers:
                        stop_server(s.proc)
                runs.append({"processes": count, "levels": steps})
    finally:
        redis.stop()
    print(json.dumps({
        "benchmark": "capacity",
        "options": {"levels": args.levels, "processes": args.processes, "think": args.think,
                    "warm": args.warm, "window": args.window, "seed": args.seed},
        "servers": "varaq serve --db postgresql+psycopg://… --redis redis://… --metrics-token …"
                   " (throwaway PostgreSQL with fsync off, Redis, this machine)",
        "runs": runs,
        "notes": "per_action divides by rows added to entries in the window (every accepted "
                 "input, deals included); tables_per_core = 1 / (CPU seconds per action x "
                 "actions per table per second) for that component alone",
        "machine": {**before, "load_average_after": machine()["load_average"]},
    }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
