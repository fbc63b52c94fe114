"""Live tables across two server processes sharing PostgreSQL and Redis.

Each process lists every public table, whichever process owns it: one it has never loaded is
read from the store (the rows ``varaq admin tables`` reads), one it follows from its copy.  A
watcher on the process that does not own the table is counted by the owner and the count
reaches both lists.
"""

from __future__ import annotations

import time
from typing import Any

import httpx2
import pytest
from websockets.sync.client import connect

from test_cluster import Node, backing, nodes, sign_up  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("cluster")]

PATIENCE = 60.0


def live(node: Node, cookie: str | None = None) -> list[dict[str, Any]]:
    headers = {"Cookie": f"varaq_session={cookie}"} if cookie else {}
    response = httpx2.get(f"{node.base}/api/live", headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    tables: list[dict[str, Any]] = response.json()["tables"]
    return tables


def row_of(node: Node, table: str) -> dict[str, Any] | None:
    return next((r for r in live(node) if r["id"] == table), None)


def eventually(check: Any, what: str) -> Any:
    deadline = time.monotonic() + PATIENCE
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.3)


def post(node: Node, cookie: str, path: str, body: Any = None) -> dict[str, Any]:
    response = httpx2.post(f"{node.base}{path}", json=body or {}, timeout=30,
                          headers={"Cookie": f"varaq_session={cookie}"})
    assert response.status_code in (200, 201), response.text
    doc: dict[str, Any] = response.json()
    return doc


def test_each_process_lists_every_public_table_and_counts_its_watchers(
    nodes: list[Node],  # noqa: F811
) -> None:
    a, b = nodes
    stamp = str(int(time.time() * 1000))[-6:]
    ana, bo, wes = (sign_up(node, f"{n}{stamp}") for n, node in
                    (("Ana", a), ("Bo", b), ("Wes", b)))
    # A public table on the first process that the second has never loaded, and a private one.
    quiet = post(a, ana, "/api/tables", {"level": "easy", "listing": "public"})
    hidden = post(a, ana, "/api/tables", {"level": "easy"})
    row = eventually(lambda: row_of(b, quiet["id"]), "the second process lists the quiet table")
    assert row["status"] == "seating" and row["watchers"] is None  # not held there: not counted
    assert [s["name"] for s in row["seats"] if s["kind"] == "person"] == [f"Ana{stamp}"]
    assert all(r["id"] != hidden["id"] for r in live(a) + live(b))

    # Bo joins through the second process and Ana starts on the first (its owner).
    post(b, bo, "/api/tables/join", {"code": quiet["code"]})
    post(a, ana, f"/api/games/{quiet['id']}/start")
    for node in (a, b):
        row = eventually(lambda node=node: (r := row_of(node, quiet["id"])) and
                         r["status"] == "playing" and r, f"playing on {node}")
        assert row["hand"] == 1 and {s["name"] for s in row["seats"] if s["name"]} == {
            f"Ana{stamp}", f"Bo{stamp}"}

    # Wes watches through the second process: the owner counts him, and both lists say so.
    url = f"ws://127.0.0.1:{b.port}/ws/games/{quiet['id']}"
    with connect(url, additional_headers={"Cookie": f"varaq_session={wes}",
                                          "Origin": b.base}) as ws:
        ws.send('{"type": "hello", "version": 0}')
        for node in (a, b):
            eventually(lambda node=node: (row_of(node, quiet["id"]) or {}).get("watchers") == 1,
                       f"one watcher counted on {node}")
    for node in (a, b):
        eventually(lambda node=node: (row_of(node, quiet["id"]) or {}).get("watchers") == 0,
                   f"no watcher left on {node}")
