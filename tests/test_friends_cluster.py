"""Friends across two ``varaq serve`` processes sharing PostgreSQL and Redis: who is online is
seen from the other process, and an invitation made on one reaches a page open on the other
and seats the person at a table the first process owns.  Real servers (tests/servers.py)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx2
import pytest
from websockets.sync.client import connect

from test_cluster import PATIENCE, Node, backing, nodes, sign_up  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(300)


def cookie_header(cookie: str) -> dict[str, str]:
    return {"Cookie": f"varaq_session={cookie}"}


def post(node: Node, cookie: str, path: str, body: Any = None, status: int = 200) -> Any:
    response = httpx2.post(f"{node.base}{path}", json={} if body is None else body,
                          headers=cookie_header(cookie), timeout=30)
    assert response.status_code == status, response.text
    return response.json()


def friends_of(node: Node, cookie: str) -> dict[str, Any]:
    response = httpx2.get(f"{node.base}/api/friends", headers=cookie_header(cookie), timeout=30)
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def test_presence_and_invitations_cross_processes(nodes: list[Node]) -> None:  # noqa: F811
    a, b = nodes
    host = sign_up(a, "Zed Host")
    guest = sign_up(b, "Yan Guest")
    post(a, host, "/api/friends/follow", {"name": "Yan Guest"})
    assert friends_of(a, host)["following"][0]["status"] == "offline"
    url = f"ws://127.0.0.1:{b.port}/ws/me"
    with connect(url, additional_headers=cookie_header(guest), open_timeout=10) as page:
        assert json.loads(page.recv(timeout=10)) == {"type": "hello", "invites": []}
        # Online as the other process sees it: the row process b wrote.
        assert friends_of(a, host)["following"][0]["status"] == "online"
        table = post(a, host, "/api/tables", {"level": "easy", "fill_bots": True}, status=201)
        made = post(a, host, "/api/invites", {"name": "Yan Guest", "table": table["id"]},
                    status=201)
        assert made["invited"] == "Yan Guest"
        started = time.monotonic()
        message = json.loads(page.recv(timeout=PATIENCE))
        took = time.monotonic() - started
        assert message["type"] == "invite" and message["invite"]["table"] == table["id"]
        assert took < 10, f"the invitation took {took:.1f} s to cross"
        joined = post(b, guest, f"/api/invites/{message['invite']['id']}/join")
        assert joined["id"] == table["id"] and joined["seat"] == "N"
    # The page closed: the other process no longer counts Yan online.
    deadline = time.monotonic() + 30
    while friends_of(a, host)["following"][0]["status"] != "offline":
        assert time.monotonic() < deadline, "still online after the page closed"
        time.sleep(0.2)
