"""The table's WebSocket: live events out, the same commands as the HTTP routes in.

A socket belongs to a person, not a seat.  Each incoming message is read by the one command
parser and handed, with who is asking *now* (the session is looked up again for every
message), to :meth:`Tables.run <varaq.service.registry.Tables.run>` — the same path, limits and
refusals as HTTP.  What goes out is decided when it is sent, from the table's seating at that
moment (:mod:`varaq.service.fanout`): a person who leaves their seat, or whose seat is given to
someone else, is sent a watcher's state at once and never another card of that seat.

Each socket has two tasks.  The *reader* (this handler) takes the client's messages one at a
time, within a size limit, a JSON depth limit and a rate limit per socket.  The *writer* drains
the socket's own outbox: a client that reads slowly only delays itself, and a hello — however
many arrive — is answered by at most one full state at a time.  Sockets per client address are
capped (``Limits.sockets_per_address``).  The server pings every socket (uvicorn's
``ws_ping_interval``) and drops the ones that stop answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..service import metrics
from ..service.commands import Asker, Kind, kind_of
from ..service.errors import Refusal
from ..service.fanout import Listener, drain
from ..service.table import Table
from .games import asker_of, tables_of
from .requests import check_origin, json_text, parse_json, version_of

__all__ = ["routes", "TOO_MANY", "SocketCount"]

log = logging.getLogger("varaq.web")

#: Refusals in a row on one socket after which it is closed (policy violation).
MAX_STRIKES = 20
#: The close code of a socket refused for too many open from one address.
TOO_MANY = 4429


class SocketCount:
    """Open sockets per client address, in this process."""

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()

    def take(self, address: str, cap: int) -> bool:
        if self.open[address] >= cap:
            return False
        self.open[address] += 1
        return True

    def give_back(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


def _count(ws: WebSocket) -> SocketCount:
    state = ws.app.state
    if not hasattr(state, "socket_count"):
        state.socket_count = SocketCount()
    count: SocketCount = state.socket_count
    return count


async def table_socket(ws: WebSocket) -> None:
    try:
        check_origin(ws)
    except Refusal:
        await ws.close(code=1008)  # before accepting: the handshake gets a 403
        return
    tables = tables_of(ws)
    limits = tables.settings.limits
    asker = asker_of(ws)
    count = _count(ws)
    await ws.accept()
    if not count.take(asker.address, limits.sockets_per_address):
        await ws.send_json({
            "type": "error", "status": 429,
            "error": f"too many open connections from your address: at most "
                     f"{limits.sockets_per_address}; close another tab and try again",
        })
        await ws.close(code=TOO_MANY)
        return
    try:
        await _serve(ws, asker)
    finally:
        count.give_back(asker.address)


async def _serve(ws: WebSocket, asker: Asker) -> None:
    tables = tables_of(ws)
    try:
        table = await tables.get(ws.path_params["game_id"])
    except Refusal as e:
        await ws.send_json({"type": "error", "error": str(e), "status": e.status})
        await ws.close(code=4404 if e.status == 404 else 1011)
        return
    listener = table.listen(asker)

    async def send(message: dict[str, Any]) -> None:
        await ws.send_text(json_text(message))

    writer = asyncio.create_task(_write(listener, table, send))
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
                # A reply is for the seat the person holds as it is made (a hint is theirs).
                listener.push(reply, table.reader_of(listener.asker), reply=True)
    except WebSocketDisconnect:
        pass
    finally:
        table.unlisten(listener)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer


async def _write(listener: Listener, table: Table, send: Any) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await drain(listener, table, send)


@metrics.socket_message
async def _message(
    ws: WebSocket, table: Table, listener: Listener, text: str,
) -> dict[str, Any] | None:
    """One client message: the answer to send back, if any (events go through the outbox)."""
    tables = tables_of(ws)
    doc = parse_json(text, tables.settings.limits.json_depth)
    if not isinstance(doc, dict) or not isinstance(doc.get("type"), str):
        raise Refusal(400, 'a message is a JSON object with a "type"')
    if doc["type"] == "hello":
        listener.ask_resync(version_of(doc) or 0)
        return None
    kind = kind_of(doc["type"])
    # Who is asking, as of this message: a session that ended since the socket opened no
    # longer acts (or reads) for anyone's seat.
    asker = asker_of(ws)
    if asker != listener.asker:
        listener.asker = asker
        table.fanout.current(listener)
    result = await tables.run(table, kind, doc, asker)
    if kind is Kind.HINT:
        return {"type": "hint", **result}
    if kind is Kind.PACE:
        return {"type": "pace", "pace": table.pace}
    if kind is Kind.CONCEDE:
        # A concession shows as its event; an offer to the partner is only this answer (and
        # the table message everyone gets).
        return {"type": "concede", "concede": result} if result == "offered" else None
    if kind is Kind.AGAIN:
        return {"type": "again", "id": result}
    return None


routes: list[BaseRoute] = [WebSocketRoute("/ws/games/{game_id}", table_socket)]
