"""A player's profile page with 1,000 finished matches: server time per page; ONE JSON document.

    python benchmarks/profile.py [--matches 1000] [--repeat 30] [--db URL]

Why: issue 20 asks that a profile with 1,000 matches renders in under 200 ms on the server.
A profile is the rating, its chart (one point per rated match, so 1,000 here), the
statistics summed over every match and a page of the history.

What it does: makes the database directly — five accounts, 1,000 finished quick matches of
the first one against the others (a ``tables`` row and four ``player_matches`` rows each,
with a rating after each, and the ``ratings`` rows) — then asks the app, through Starlette's
TestClient in this process, for ``/players/Ana`` (the page, as a stranger and as Ana) and
``/api/players/Ana`` ``--repeat`` times each after two warm-up requests, and reports the
median and the 95th percentile of the wall time of each request.  The TestClient's own
overhead is included, so the figures are an upper bound on the server's time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from starlette.testclient import TestClient

from varaq.service.ratings import Match, PlayedRow, RatingRow, rate
from varaq.service.settings import Limits, Settings
from varaq.service.store import Store, TableRow
from varaq.web.app import create_app
from varaq.web.sessions import Sessions

NAMES = ("Ana", "Bo", "Cai", "Dee", "Eve")


def build(url: str, matches: int, seed: int = 1) -> list[int]:
    """The accounts and ``matches`` finished quick matches, written straight into the
    database; the user ids."""
    store = Store(url)
    try:
        ids = [store.create_user(n, n.casefold(), "x") for n in NAMES]
        rng = random.Random(seed)
        start = datetime(2026, 1, 1, tzinfo=UTC)
        ratings: dict[int, tuple[float, float]] = {}
        counts: dict[int, int] = {}
        tables: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        for k in range(matches):
            finished = start + timedelta(minutes=30 * k)
            others = rng.sample(ids[1:], 3)
            people = (others[0], others[1], ids[0], others[2])
            winner = rng.randrange(2)
            match = Match(f"bench{k:06d}", "quick", "normal", people, winner,
                          (250, 120) if winner == 0 else (110, 260), None, ("Varaq",), {})
            after = rate(ratings, match)
            ratings.update(after)
            tables.append({
                "id": match.table_id, "kind": "quick", "level": "normal", "rules": "varaq",
                "seed": str(k), "start": {}, "options": {}, "status": "over", "version": 0,
                "created": finished, "updated": finished,
            })
            for seat, uid in enumerate(people):
                counts[uid] = counts.get(uid, 0) + 1
                hands = rng.randint(5, 14)
                made = rng.randint(0, hands)
                rows.append({
                    "table_id": match.table_id, "user_id": uid, "kind": "quick", "seat": seat,
                    "finished": finished, "level": "normal", "seating": list(people),
                    "badges": ["Varaq"], "total_ns": match.totals[0],
                    "total_ew": match.totals[1], "won": winner == seat & 1, "conceded": None,
                    "hands": hands, "contracts": made, "made": made, "set": 0,
                    "nils": rng.randint(0, 2), "nils_made": 0, "blind_nils": 0,
                    "blind_nils_made": 0, "bags": rng.randint(0, 20),
                    "points": rng.randint(-100, 400), "mu": after[uid][0],
                    "sigma": after[uid][1],
                })
        with store.engine.begin() as connection:
            connection.execute(insert(TableRow), tables)
            for i in range(0, len(rows), 1000):
                connection.execute(insert(PlayedRow), rows[i:i + 1000])
            connection.execute(insert(RatingRow), [
                {"user_id": uid, "mu": mu, "sigma": sigma, "matches": counts[uid],
                 "updated": start} for uid, (mu, sigma) in ratings.items()])
        return ids
    finally:
        store.close()


def timed(client: TestClient, path: str, repeat: int, cookie: str | None) -> dict[str, Any]:
    headers = {"Cookie": f"varaq_session={cookie}"} if cookie else {}
    for _ in range(2):
        client.get(path, headers=headers)
    times = []
    size = 0
    for _ in range(repeat):
        client.cookies.clear()
        began = time.perf_counter()
        response = client.get(path, headers=headers)
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, response.text[:200]
        size = len(response.content)
    times.sort()
    return {
        "median_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 1),
        "bytes": size,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--db", default=None, help="an empty database (default: a temporary "
                        "SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.db or f"sqlite:///{Path(folder) / 'profile.db'}"
        began = time.perf_counter()
        ids = build(url, args.matches)
        built = time.perf_counter() - began
        settings = Settings(test_mode=True, limits=Limits.relaxed(), secret=b"bench-" * 8,
                            cheap_hashes=True)
        app = create_app(url, settings=settings)
        with TestClient(app) as client:
            identity: Sessions = app.state.identity
            cookie = _session_for(app, identity, ids[0])
            figures = {
                "page_as_stranger": timed(client, "/players/Ana", args.repeat, None),
                "page_as_owner": timed(client, "/players/Ana", args.repeat, cookie),
                "json_as_stranger": timed(client, "/api/players/Ana", args.repeat, None),
                "leaderboard_page": timed(client, "/players", args.repeat, None),
            }
    goal = 200.0
    report = {
        "benchmark": "profile", "matches": args.matches, "repeat": args.repeat,
        "build_seconds": round(built, 2), "figures": figures, "goal_ms": goal,
        "met": all(f["p95_ms"] < goal for f in figures.values()),
        "machine": {"nproc": os.cpu_count(), "python": platform.python_version(),
                    "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None},
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    print(json.dumps(report, indent=2))
    return 0


def _session_for(app: Any, identity: Sessions, user_id: int) -> str:
    """A signed-in session for ``user_id``, made the way a sign-in makes one."""
    import asyncio

    from starlette.requests import Request
    from starlette.responses import Response

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "app": app,
             "query_string": b"", "client": ("127.0.0.1", 1)}
    response = Response()
    asyncio.run(identity.sign_in(Request(scope), response, user_id))
    cookie = response.headers["set-cookie"].split(";", 1)[0].split("=", 1)[1]
    return cookie


if __name__ == "__main__":
    sys.exit(main())
