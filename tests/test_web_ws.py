"""The web table's WebSocket (docs/protocol.md): hello and resync, every message kind, refusals,
and a whole hand watched and played through the socket."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from web_helpers import new_game, south_choice, state, wait_for_south

pytestmark = pytest.mark.timeout(120)




def hello(ws: Any, version: int) -> dict[str, Any]:
    ws.send_json({"type": "hello", "version": version})
    message: dict[str, Any] = ws.receive_json()
    assert message["type"] == "state"
    return message


def error_of(ws: Any, message: Any, status: int, words: str = "") -> None:
    if isinstance(message, str):
        ws.send_text(message)
    else:
        ws.send_json(message)
    reply = ws.receive_json()
    assert reply["type"] == "error", reply
    assert reply["status"] == status, reply
    assert words.lower() in reply["error"].lower() and "\n" not in reply["error"], reply


def test_hello_answers_with_the_events_after_the_clients_version(client: TestClient) -> None:
    gid = new_game(client, dealer="E")["id"]
    client.post(f"/api/games/{gid}/actions", json={"action": "bid 2"})
    current = wait_for_south(client, gid)
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        everything = hello(ws, 0)
        assert [e["version"] for e in everything["events"]] == list(
            range(1, current["version"] + 1))
        assert everything["view"] == current["view"] and everything["resync"] is False
        some = hello(ws, 2)
        assert [e["version"] for e in some["events"]] == list(range(3, current["version"] + 1))
        future = hello(ws, 10_000)
        assert future["resync"] is True and future["version"] == current["version"]


def test_an_action_is_broadcast_as_an_event_with_souths_view(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="E")["id"]
    with frozen.websocket_connect(f"/ws/games/{gid}") as ws, \
            frozen.websocket_connect(f"/ws/games/{gid}") as watcher:
        hello(ws, 1)
        hello(watcher, 1)
        ws.send_json({"type": "action", "action": "bid 4", "version": 1})
        for socket in (ws, watcher):
            message = socket.receive_json()
            assert message["type"] == "event" and message["version"] == 2
            assert message["event"]["kind"] == "bid" and message["event"]["action"] == "bid 4"
            assert message["view"]["seat"] == "S" and message["view"]["bids"]["S"] == 4


def test_refusals_over_the_socket_change_nothing(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="E", rules="classic")["id"]
    before = state(frozen, gid)
    with frozen.websocket_connect(f"/ws/games/{gid}") as ws:
        hello(ws, 1)
        error_of(ws, "{not json", 400, "not valid JSON")
        error_of(ws, [1, 2], 400, '"type"')
        error_of(ws, {"action": "QS"}, 400, '"type"')
        error_of(ws, {"type": "dance"}, 400, "unknown message type")
        error_of(ws, {"type": "action"}, 400, "action")
        error_of(ws, {"type": "action", "action": "XX"}, 400, "unknown action")
        error_of(ws, {"type": "action", "action": "AS"}, 400, "must bid now")
        error_of(ws, {"type": "action", "action": "bid 3", "version": 0}, 409, "stale")
        error_of(ws, {"type": "hello", "version": "new"}, 400, "version")
        error_of(ws, {"type": "next"}, 409, "not finished")
        assert hello(ws, 1)["version"] == 1
    assert state(frozen, gid)["view"] == before["view"]


def test_out_of_turn_and_hint_refusals(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="S")["id"]  # West to bid, frozen
    with frozen.websocket_connect(f"/ws/games/{gid}") as ws:
        hello(ws, 0)
        error_of(ws, {"type": "action", "action": "bid 3"}, 409, "not S's turn")
        error_of(ws, {"type": "hint"}, 409, "not your turn")


def test_hint_over_the_socket(frozen: TestClient) -> None:
    gid = new_game(frozen, dealer="E")["id"]
    with frozen.websocket_connect(f"/ws/games/{gid}") as ws:
        view = hello(ws, 1)["view"]
        ws.send_json({"type": "hint"})
        reply = ws.receive_json()
        assert reply["type"] == "hint" and reply["action"] in view["legal"] and reply["text"]


def test_concede_over_the_socket(frozen: TestClient) -> None:
    gid = new_game(frozen)["id"]
    with frozen.websocket_connect(f"/ws/games/{gid}") as ws:
        hello(ws, 1)
        ws.send_json({"type": "concede"})
        message = ws.receive_json()
        assert message["event"]["kind"] == "concede" and message["event"]["side"] == "NS"
        assert message["view"]["winner"] == "EW"
        error_of(ws, {"type": "concede"}, 409, "over")


def test_unknown_game_gets_an_error_then_close(client: TestClient) -> None:
    with client.websocket_connect("/ws/games/AAAAAAAAAAAAAAAAAAAAAA") as ws:
        reply = ws.receive_json()
        assert reply == {"type": "error", "error": "no game with that id", "status": 404}
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404


def test_a_whole_hand_through_the_socket_arrives_in_order(client: TestClient) -> None:
    gid = new_game(client, rules="classic", seed=17)["id"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        first = hello(ws, 0)
        version, view = first["version"], first["view"]
        kinds = [e["kind"] for e in first["events"]]  # the bots may have begun already
        acted_at = -1
        while True:
            if view["legal"] and acted_at != version:
                acted_at = version
                ws.send_json({"type": "action", "action": south_choice(view),
                              "version": version})
            message = ws.receive_json()
            assert message["type"] == "event", message
            assert message["version"] == version + 1  # one message per event, no gaps
            version, view = message["version"], message["view"]
            assert view["seat"] == "S"
            kinds.append(message["event"]["kind"])
            if message["event"]["hand"] is not None:
                break
        assert kinds[0] == "deal" and kinds.count("bid") == 4 and kinds.count("play") == 52
        assert view["phase"] == "deal" and len(view["history"]) == 1
        ws.send_json({"type": "next", "version": version})
        message = ws.receive_json()
        assert message["event"]["kind"] == "deal" and message["view"]["hand_no"] == 2


def test_a_reconnecting_client_gets_what_it_missed(client: TestClient) -> None:
    gid = new_game(client, dealer="E", seed=4)["id"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        seen = hello(ws, 0)["version"]
    client.post(f"/api/games/{gid}/actions", json={"action": "bid 3"})
    now = wait_for_south(client, gid)
    assert now["version"] > seen + 1
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        missed = hello(ws, seen)
        assert [e["version"] for e in missed["events"]] == list(range(seen + 1,
                                                                       now["version"] + 1))
        assert missed["view"] == now["view"]


def test_binary_and_oversized_messages_are_refused(frozen: TestClient) -> None:
    gid = new_game(frozen)["id"]
    with frozen.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.send_bytes(b"\x00\x01")
        reply = ws.receive_json()
        assert reply == {"type": "error", "error": "messages must be JSON text", "status": 400}
        error_of(ws, "x" * 20_000, 413, "too large")
        assert hello(ws, 0)["version"] == 1
