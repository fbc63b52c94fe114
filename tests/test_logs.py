"""The server's log: a full online match logged at DEBUG as JSON, every line scanned for secrets.

Two people with passwords play a short match (to 120: two or three hands) with two computer
players, over HTTP and their sockets, with a wrong password, a hint, and a refused card on the
way.  Every line must be one JSON object; none may hold a password, a session cookie, the
session secret, the word "password" with a value, or cards of a hand (a dealt hand's text, or
several cards at all: a line never has a reason to name more than the one card just played).
"""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from online_helpers import Person, sign_up, wait_until
from varaq import logs
from web_helpers import TEST_SETTINGS, make_app

pytestmark = pytest.mark.timeout(240)

PASSWORDS = {"Ana": "lantern-otter-91", "Bo": "quiet-harbour-27"}
#: A card's text as the server writes it (``AS``, ``TH``, the jokers).
CARD = re.compile(r"\b(?:[2-9TJQKA][SHDC]|BJ|LJ)\b")


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    out = io.StringIO()
    logs.configure("json", "debug", stream=out)
    try:
        yield out
    finally:
        logs.unconfigure()


def act(person: Person, tid: str, ws: Any | None) -> bool:
    """Act once for ``person`` if it is their turn (by socket if given); whether they did."""
    state = person.state(tid)
    view = state["view"]
    if not view["legal"]:
        return False
    choice = "bid 2" if "bid 2" in view["legal"] else view["legal"][0]
    if ws is not None:
        ws.send_json({"type": "action", "action": choice, "version": state["version"]})
        wait_until(lambda: person.state(tid)["version"] > state["version"], "the socket's move")
    else:
        person.ok(f"/api/games/{tid}/actions", {"action": choice, "version": state["version"]})
    return True


def play_match(ana: Person, bo: Person, tid: str, ana_ws: Any) -> dict[str, Any]:
    """Both people act whenever it is their turn until the match is over; the final state."""
    for _ in range(3000):
        state = ana.state(tid)
        if state["status"] == "over":
            return state
        moved = act(ana, tid, ana_ws) | act(bo, tid, None)
        if not moved and state["view"]["phase"] == "deal":
            for person in (ana, bo):
                person.post(f"/api/games/{tid}/next")
        if not moved:
            version = state["version"]
            wait_until(lambda v=version: _changed(ana, bo, tid, v), "a turn or a deal")
    raise AssertionError("the match did not finish")


def _changed(ana: Person, bo: Person, tid: str, version: int) -> bool:
    a = ana.state(tid)
    return (a["version"] != version or a["status"] == "over" or bool(a["view"]["legal"])
            or bool(bo.state(tid)["view"]["legal"]))


def test_a_full_online_match_logs_json_lines_with_no_secret(
    tmp_path: Path, captured: io.StringIO,
) -> None:
    app = make_app(tmp_path, next_hand_seconds=0.2)
    with TestClient(app) as client:
        ana = sign_up(client, "Ana", PASSWORDS["Ana"])
        bo = sign_up(client, "Bo", PASSWORDS["Bo"])
        client.cookies.clear()
        wrong = client.post("/api/account/signin", json={"name": "Bo", "password": "nope-1234"})
        assert wrong.status_code in (401, 403)
        client.cookies.clear()
        # Without nil no side reaches 200 in one hand (13 tricks bid and made are 130), so the
        # match always deals a second hand and its logs are read too (to 120, a made nil
        # beside a small contract once ended it after the first).
        rules = {"preset": "varaq", "target": 200, "nil": False}
        table = ana.ok("/api/tables", {"level": "easy", "fill_bots": True, "rules": rules},
                       status=201)
        tid = table["id"]
        bo.ok("/api/tables/join", {"code": table["code"]})
        ana.ok(f"/api/games/{tid}/start")
        with ana.socket(tid) as ana_ws, bo.socket(tid) as bo_ws:
            for ws in (ana_ws, bo_ws):
                ws.send_json({"type": "hello", "version": 0})
            # A card from a hand that is not to play is refused (and must not be logged).
            a, b = ana.state(tid), bo.state(tid)
            waiting = next(((p, s) for p, s in ((ana, a), (bo, b)) if not s["view"]["legal"]
                            and s["view"]["hand"]), None)
            if waiting is not None:
                person, seen = waiting
                refused = person.post(f"/api/games/{tid}/actions",
                                      {"action": seen["view"]["hand"][0]})
                assert refused.status_code == 409
            bo_ws.send_json({"type": "hint"})
            final = play_match(ana, bo, tid, ana_ws)
        assert final["status"] == "over"
        record = ana.get(f"/api/games/{tid}/record").json()
    lines = captured.getvalue().splitlines()
    hands = [text for hand in record["hands"] for text in (hand.get("deal") or {}).values()]
    assert len(hands) >= 8 and all(len(h.split()) == 13 for h in hands)
    secrets = [*PASSWORDS.values(), "nope-1234", ana.cookie, bo.cookie,
               TEST_SETTINGS.secret.decode()]
    docs = []
    for line in lines:
        doc = json.loads(line)
        assert isinstance(doc, dict) and {"ts", "level", "logger", "msg"} <= set(doc), line
        docs.append(doc)
        for secret in secrets:
            assert secret not in line, f"a secret in the log: {line}"
        assert "varaq_session" not in line and not re.search(r"password\W+\w", line), line
        for hand in hands:
            assert hand not in line and json.dumps(hand.split()) not in line, line
        # (Less the table's id and code, random letters that might hold a card's two.)
        bare = line.replace(tid, "").replace(table["code"], "")
        assert len(CARD.findall(bare)) <= 1, f"cards in the log: {line}"
    # The lines say where they come from: request, socket message, table, seat, person.
    commands = [d for d in docs if d["msg"].startswith("command act")]
    assert commands and all(d["table"] == tid and "request" in d for d in commands)
    people = {d.get("person") for d in commands}
    assert {ana.id, bo.id} <= people and all(d["seat"] in "NESW" for d in commands)
    assert any("message" in d for d in commands)
    requests = [d for d in docs if d["logger"] == "varaq.access" and d.get("route")]
    assert any(d["route"] == "/api/games/{game_id}/actions" for d in requests)


def test_text_lines_on_a_terminal_and_json_elsewhere() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    log = logging.getLogger("varaq.test")
    try:
        for stream, is_json in ((Terminal(), False), (io.StringIO(), True)):
            logs.configure("auto", "info", stream=stream)
            with logs.bound(table="t123", person=7):
                log.info("hello %s", "there", extra={"password": "x", "kind": "act"})
            line = stream.getvalue().strip()
            if is_json:
                doc = json.loads(line)
                assert doc["msg"] == "hello there" and doc["table"] == "t123"
                assert doc["person"] == 7 and doc["kind"] == "act" and "password" not in doc
            else:
                assert "hello there" in line and "table=t123" in line and "person=7" in line
                assert "password" not in line and not line.startswith("{")
    finally:
        logs.unconfigure()


def test_sql_parameters_in_an_error_are_cut_out(captured: io.StringIO) -> None:
    try:
        raise ValueError("(IntegrityError) UNIQUE failed\n[SQL: INSERT INTO sessions VALUES "
                         "(?, ?)]\n[parameters: ('session-id-secret', 3)]\n(Background on this "
                         "error at: https://sqlalche.me/e/20/gkpj)")
    except ValueError as e:
        logging.getLogger("varaq.test").exception("storing failed: %s", e)
    text = captured.getvalue()
    assert "session-id-secret" not in text and "[parameters hidden]" in text


def test_other_libraries_stay_at_warning_at_debug(captured: io.StringIO) -> None:
    logging.getLogger("sqlalchemy.engine.Engine").info("INSERT ... ('a password hash',)")
    logging.getLogger("varaq.test").debug("one of ours")
    text = captured.getvalue()
    assert "password hash" not in text and "one of ours" in text


def test_a_failed_request_is_logged_once_with_its_id(
    tmp_path: Path, captured: io.StringIO,
) -> None:
    async def boom(request: Any) -> Any:
        raise RuntimeError("the handler broke")

    app = make_app(tmp_path)
    app.add_route("/boom", boom)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/boom", headers={"X-Request-Id": "boom-request-1"})
    assert response.status_code == 500 and "RuntimeError" in response.json()["error"]
    failed = [json.loads(line) for line in captured.getvalue().splitlines()
              if '"level":"error"' in line]
    assert len(failed) == 1 and failed[0]["request"] == "boom-request-1"
    assert "the handler broke" in failed[0]["error"]
