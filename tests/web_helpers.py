"""Helpers for the web server's tests: an app on a temporary SQLite file, and South's moves.

Computer players run in the app's event loop (the TestClient's portal thread), so a test waits
for them by polling the game's state until South is to move, with a generous limit.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.testclient import TestClient

from varaq.service.settings import Limits, Pace, Settings
from varaq.web.app import create_app

#: Seconds a test waits for the computer players before failing.
PATIENCE = 60.0


def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'games.db'}"


#: A server in test mode (seeds may be chosen) with limits no functional test reaches.
TEST_SETTINGS = Settings(
    test_mode=True, limits=Limits.relaxed(), secret=b"test-secret-" * 4, cheap_hashes=True,
)


def make_app(tmp_path: Path, pace: float = 0.0, **settings: Any) -> Starlette:
    """An app with its own database; ``pace`` 0 makes the computer players move at once."""
    return create_app(db_url(tmp_path), settings=TEST_SETTINGS.but(pace=Pace(pace), **settings))


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("level", "easy")
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    doc: dict[str, Any] = response.json()
    return doc


def state(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def wait_for_south(client: TestClient, game_id: str) -> dict[str, Any]:
    """The state once South must act, or the hand (or match) is over."""
    deadline = time.monotonic() + PATIENCE
    while True:
        st = state(client, game_id)
        view = st["view"]
        if view["legal"] or view["phase"] in ("deal", "over"):
            return st
        assert time.monotonic() < deadline, f"the computer players never gave South a turn: {view}"
        time.sleep(0.005)


def south_choice(view: dict[str, Any]) -> str:
    """A fixed, legal choice for South: look rather than blind nil, bid 3 if open, else the
    first legal action (the lowest card in the view's order)."""
    legal = view["legal"]
    if "look" in legal:
        return "look"
    if "bid 3" in legal:
        return "bid 3"
    first: str = legal[0]
    return first


def play_hand(client: TestClient, game_id: str, limit: int = 200) -> dict[str, Any]:
    """Play South's side until the hand ends; the final state."""
    for _ in range(limit):
        st = wait_for_south(client, game_id)
        if st["view"]["phase"] in ("deal", "over"):
            return st
        response = client.post(
            f"/api/games/{game_id}/actions",
            json={"action": south_choice(st["view"]), "version": st["version"]},
        )
        assert response.status_code == 200, response.text
    raise AssertionError("the hand did not finish")


def run_async(coroutine: Any) -> Any:
    """Run a coroutine to the end on a fresh event loop in its own thread.

    Not ``asyncio.run`` here: the browser tests' Playwright keeps an event loop running in the
    main thread of whichever worker ran them, and ``asyncio.run`` refuses to start beside it.
    """
    import asyncio
    import threading

    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(coroutine)
        except BaseException as e:  # handed back to the caller's thread
            box["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")
