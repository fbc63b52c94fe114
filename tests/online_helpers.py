"""Several people against one app in the tests: each :class:`Person` keeps their own session
cookie and sends it with every request, while one TestClient runs the app."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
from starlette.testclient import TestClient, WebSocketTestSession

from web_helpers import PATIENCE

__all__ = ["Person", "sign_up", "wait_until", "receive_within"]


class Person:
    def __init__(self, client: TestClient, name: str, cookie: str, user_id: int) -> None:
        self.client = client
        self.name = name
        self.cookie = cookie
        self.id = user_id

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": f"varaq_session={self.cookie}"}

    def get(self, path: str) -> Any:
        self.client.cookies.clear()
        return self.client.get(path, headers=self.headers)

    def post(self, path: str, body: Any = None) -> Any:
        self.client.cookies.clear()
        return self.client.post(path, json={} if body is None else body, headers=self.headers)

    def ok(self, path: str, body: Any = None, status: int = 200) -> dict[str, Any]:
        response = self.post(path, body)
        assert response.status_code == status, response.text
        doc: dict[str, Any] = response.json()
        return doc

    def state(self, table_id: str) -> dict[str, Any]:
        response = self.get(f"/api/games/{table_id}")
        assert response.status_code == 200, response.text
        doc: dict[str, Any] = response.json()
        return doc

    def socket(self, table_id: str) -> Any:
        self.client.cookies.clear()
        return self.client.websocket_connect(f"/ws/games/{table_id}", headers=self.headers)


def sign_up(client: TestClient, name: str, password: str = "correct horse") -> Person:
    client.cookies.clear()
    response = client.post("/api/account/signup", json={"name": name, "password": password})
    assert response.status_code == 201, response.text
    cookie = response.cookies["varaq_session"]
    client.cookies.clear()
    return Person(client, name, cookie, response.json()["id"])


def wait_until(check: Any, what: str, patience: float = PATIENCE) -> Any:
    """Poll ``check()`` until it returns something true; that value."""
    deadline = time.monotonic() + patience
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def receive_within(ws: WebSocketTestSession, patience: float = PATIENCE) -> dict[str, Any]:
    """The socket's next message, failing the test after ``patience`` seconds instead of
    waiting for ever (the TestClient's own ``receive_json`` has no limit, so a message that
    never comes would hang the whole run)."""

    async def next_message() -> Any:
        with anyio.fail_after(patience):
            return await ws._send_rx.receive()

    try:
        message = ws.portal.call(next_message)
    except TimeoutError:
        raise AssertionError(f"no socket message within {patience:g} s") from None
    ws._raise_on_close(message)
    doc: dict[str, Any] = json.loads(message["text"])
    return doc
