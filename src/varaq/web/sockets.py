"""The table's WebSocket: live events out, the same requests as the HTTP routes in.

Each socket has two tasks.  The *reader* (this handler) takes the client's messages one at a
time, within a size limit, a JSON depth limit and a rate limit per socket.  The *writer* drains
the socket's own outbox (:class:`~varaq.service.tables.Listener`): a client that reads slowly
only delays itself, and a hello — however many arrive — is answered by at most one full state
at a time.  The server pings every socket (uvicorn's ``ws_ping_interval``) and drops the ones
that stop answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..service.errors import Refusal
from ..service.tables import Listener, Table
from .games import acting_seat, seat_of, tables_of
from .requests import check_origin, json_text, parse_json, version_of

__all__ = ["routes"]

log = logging.getLogger("varaq.web")

#: Refusals in a row on one socket after which it is closed (policy violation).
MAX_STRIKES = 20


async def table_socket(ws: WebSocket) -> None:
    try:
        check_origin(ws)
    except Refusal:
        await ws.close(code=1008)  # before accepting: the handshake gets a 403
        return
    await ws.accept()
    tables = tables_of(ws)
    try:
        table = await tables.get(ws.path_params["game_id"])
    except Refusal as e:
        await ws.send_json({"type": "error", "error": str(e), "status": e.status})
        await ws.close(code=4404 if e.status == 404 else 1011)
        return
    reader = seat_of(ws, table)
    listener = table.listen(reader)
    writer = asyncio.create_task(_write(ws, table, listener))
    limits = tables.settings.limits
    key = f"socket:{id(listener)}"
    strikes = 0
    try:
        while True:
            received = await ws.receive()
            if received["type"] == "websocket.disconnect":
                break
            try:
                await tables.limits.hit("socket", key)
                text = received.get("text")
                if text is None:
                    raise Refusal(400, "messages must be JSON text")
                if len(text) > limits.body_bytes:
                    raise Refusal(413, "the message is too large")
                reply = await _message(ws, table, listener, text)
                strikes = 0
            except Refusal as e:
                reply = {"type": "error", "error": str(e), "status": e.status}
                strikes += 1
                if strikes > MAX_STRIKES:
                    await ws.close(code=1008)
                    break
            if reply is not None:
                listener.push(reply, reply=True)
    except WebSocketDisconnect:
        pass
    finally:
        table.unlisten(listener)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer


async def _write(ws: WebSocket, table: Table, listener: Listener) -> None:
    """Send the listener's messages in order; a resync sends one full state instead."""
    try:
        while True:
            await listener.ready.wait()
            listener.ready.clear()
            if listener.resync:
                listener.resync = False
                state = table.state(listener.reader, listener.version)
                listener.version = state["version"]
                await ws.send_text(json_text({"type": "state", **state}))
            while listener.messages and not listener.resync:
                message = listener.messages.popleft()
                version = message.get("version")
                if message.get("type") == "event":
                    if version is None or version <= listener.version:
                        continue
                    listener.version = version
                await ws.send_text(json_text(message))
    except (WebSocketDisconnect, RuntimeError, OSError):
        return


async def _message(
    ws: WebSocket, table: Table, listener: Listener, text: str,
) -> dict[str, Any] | None:
    """One client message: the answer to send back, if any (events go through the outbox)."""
    limits = tables_of(ws).settings.limits
    doc = parse_json(text, limits.json_depth)
    if not isinstance(doc, dict) or not isinstance(doc.get("type"), str):
        raise Refusal(400, 'a message is a JSON object with a "type"')
    kind = doc["type"]
    if kind == "hello":
        listener.ask_resync(version_of(doc) or 0)
        return None
    if kind == "action":
        action = doc.get("action")
        if not isinstance(action, str) or not action.strip() or len(action) > 32:
            raise Refusal(400, 'an action message needs "action": a card, "bid 4", "nil"…')
        await table.act(acting_seat(ws, table), action, version_of(doc))
        return None
    if kind == "next":
        await table.next_hand(version_of(doc), acting_seat(ws, table))
        return None
    if kind == "concede":
        result = await table.concede(acting_seat(ws, table))
        # A concession shows as its event; an offer to the partner is only this answer (and
        # the table message everyone gets).
        return {"type": "concede", "concede": result} if result == "offered" else None
    if kind == "decline":
        table.decline(acting_seat(ws, table))
        return None
    if kind == "phrase":
        table.phrase(acting_seat(ws, table), str(doc.get("phrase", ""))[:16])
        return None
    if kind == "pace":
        acting_seat(ws, table)
        await table.set_pace(str(doc.get("pace", ""))[:16])
        return {"type": "pace", "pace": table.pace}
    if kind == "hint":
        seat = acting_seat(ws, table)
        return {"type": "hint", **await table.hint(seat)}
    raise Refusal(400, f"unknown message type {kind[:32]!r}")


routes: list[BaseRoute] = [WebSocketRoute("/ws/games/{game_id}", table_socket)]
