"""Routes of friends: following, blocking, invitations, and the page's own socket.

- ``GET /api/friends``: ``FRIENDS`` (docs/protocol.md) — whom you follow and where they are,
  whom you blocked, your standing invitations, and the table you may invite people to now.
- ``POST /api/friends/follow`` (``unfollow``, ``block``, ``unblock``) ``{"name": …}``: the
  change, answered with the new ``FRIENDS``; a refusal changes nothing.
- ``POST /api/invites`` ``{"name": …, "table": id}``: invite someone to the table you sit at.
- ``POST /api/invites/{id}/join``: take the seat an invitation offers (the table's own join
  command, so every seating rule holds); ``/dismiss``: turn it down.
- ``WS /ws/me``: a signed-in page's socket.  While it is open the person counts as online
  (:class:`varaq.service.friends.Hub`), and invitations arrive on it as they are made.

Every state-changing route reads its body through :func:`~.games.body_of`, so a request from
another site's page is refused, as everywhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..seats import SEAT_LETTERS
from ..service import friends
from ..service.commands import Kind, parse_command
from ..service.errors import Refusal
from ..service.registry import MOVE_GRACE, move_spread
from .accounts import signed_in
from .games import asker_of, body_of, tables_of
from .requests import Json, check_origin, client_address, json_text

__all__ = ["routes", "hub_of", "move_pages", "close_hub"]

#: Pages open at once from one client address on ``/ws/me`` (a person has a tab or a few).
PAGES_PER_ADDRESS = 32


def hub_of(connection: Request | WebSocket) -> friends.Hub:
    """This process's :class:`~varaq.service.friends.Hub`, made on first use (named after the
    process's cluster node, so its presence rows are told apart from other processes')."""
    state = connection.app.state
    hub: friends.Hub | None = getattr(state, "friends_hub", None)
    if hub is None:
        tables = tables_of(connection)
        cluster = getattr(tables, "cluster", None)
        node = cluster.node if cluster is not None else uuid.uuid4().hex[:12]
        hub = state.friends_hub = friends.Hub(tables.store, node)
    return hub


async def move_pages(app: ASGIApp) -> int:
    """At a stop with a peer to go to: ask this process's ``/ws/me`` pages to move there (see
    :meth:`Hub.move <varaq.service.friends.Hub.move>`), spread as the table sockets are;
    how many were asked."""
    hub: friends.Hub | None = getattr(app.state, "friends_hub", None)  # type: ignore[attr-defined]
    if hub is None or not hub.pages:
        return 0
    pages = sum(len(p) for p in hub.pages.values())
    return await hub.move(move_spread(pages), MOVE_GRACE)


async def close_hub(app: ASGIApp) -> None:
    """At shutdown: this process's people are no longer online through it."""
    hub: friends.Hub | None = getattr(app.state, "friends_hub", None)  # type: ignore[attr-defined]
    if hub is not None:
        await hub.close()


async def _open_table(request: Request, me: int) -> dict[str, Any] | None:
    """The table ``me`` sits at and may invite people to now, if any (the newest first)."""
    tables = tables_of(request)
    rows = await asyncio.to_thread(tables.store.tables_of, me, 5)
    for table_id, kind, status, _ in rows:
        if kind not in friends.INVITE_KINDS or status not in friends.LIVE:
            continue
        try:
            table = await tables.get(table_id)
            friends.table_for_invites(table, me)
        except Refusal:
            continue
        return {"id": table.id, "status": table.status}
    return None


async def _panel(request: Request, me: int) -> Response:
    doc = await asyncio.to_thread(friends.panel, tables_of(request).store, me)
    doc["invite_table"] = await _open_table(request, me)
    return Json(doc)


async def friends_page(request: Request) -> Response:
    me = signed_in(request)
    await tables_of(request).limits.hit("read", client_address(request))
    return await _panel(request, me)


_CHANGES = {
    "follow": friends.follow, "unfollow": friends.unfollow, "block": friends.block,
    "unblock": friends.unblock,
}


async def change(request: Request) -> Response:
    """Follow, unfollow, block or unblock the person the body names."""
    verb = request.path_params["verb"]
    if verb not in _CHANGES:
        raise Refusal(404, f"no such change: choose from {', '.join(_CHANGES)}")
    body = await body_of(request)
    me = signed_in(request)
    tables = tables_of(request)
    await tables.limits.hit("act", client_address(request))
    await asyncio.to_thread(_CHANGES[verb], tables.store, me, body.get("name"))
    return await _panel(request, me)


async def make_invite(request: Request) -> Response:
    body = await body_of(request)
    me = signed_in(request)
    tables = tables_of(request)
    await tables.limits.hit("act", client_address(request))
    table_id = body.get("table")
    if not isinstance(table_id, str) or not table_id:
        raise Refusal(400, 'the body needs "table": the id of the table you invite to')
    table = await tables.get(table_id)
    friends.table_for_invites(table, me)
    made = await asyncio.to_thread(friends.invite, tables.store, me, body.get("name"), table.id)
    hub_of(request).deliver(made)
    return Json({"invited": made["to_name"], "expires": made["expires"]}, status_code=201)


def _invite_id(request: Request) -> int:
    text = request.path_params["invite_id"]
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise Refusal(404, "no invitation has that number")
    return int(text)


async def answer_invite(request: Request) -> Response:
    """Join the table an invitation offers, or dismiss it."""
    answer = friends.clean_answer(request.path_params["answer"])
    await body_of(request, optional=True)
    me = signed_in(request)
    invite_id = _invite_id(request)
    tables = tables_of(request)
    store = tables.store
    if answer == "dismissed":
        await tables.limits.hit("act", client_address(request))
        await asyncio.to_thread(friends.dismiss, store, me, invite_id)
        return Json({"dismissed": invite_id})
    asker = asker_of(request)
    await tables.limits.hit("join", asker.address)
    table_id, code = await asyncio.to_thread(friends.invite_to_join, store, me, invite_id)
    table = await tables.get(table_id)
    seat = await table.execute(parse_command(Kind.JOIN, {"code": code}), asker)
    await asyncio.to_thread(friends.joined, store, me, invite_id)
    # No state here: the page goes to the table and reads it there, so this answer never
    # holds a card (tests/test_secrecy.py lists it among the card-free routes).
    return Json({"id": table.id, "seat": SEAT_LETTERS[seat]})


async def me_socket(ws: WebSocket) -> None:
    """A page's own socket: presence while it is open, invitations as they are made.

    A page without a signed-in person is told so and closed (it has nothing to hear)."""
    try:
        check_origin(ws)
    except Refusal:
        await ws.close(code=1008)
        return
    me = ws.app.state.identity.user_id(ws)
    await ws.accept()
    if me is None:
        await ws.send_text(json_text({"type": "signed-out"}))
        await ws.close(code=1000)
        return
    state = ws.app.state
    if not hasattr(state, "me_sockets"):
        state.me_sockets = {}
    counts: dict[str, int] = state.me_sockets
    address = client_address(ws)
    if counts.get(address, 0) >= PAGES_PER_ADDRESS:
        await ws.send_text(json_text({"type": "error", "status": 429,
                                      "error": "too many pages open from your address"}))
        await ws.close(code=4429)
        return
    counts[address] = counts.get(address, 0) + 1
    hub = hub_of(ws)
    outbox = await hub.attach(me)
    store = tables_of(ws).store
    try:
        invites = await asyncio.to_thread(friends.invites_for, store, me)
        await ws.send_text(json_text({"type": "hello", "invites": invites}))
        writer = asyncio.create_task(_write(ws, outbox))
        try:
            while True:
                received = await ws.receive()
                if received["type"] == "websocket.disconnect":
                    break
                # The page says nothing that matters here; anything it sends is ignored.
        finally:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
    except WebSocketDisconnect:
        pass
    finally:
        await hub.detach(me, outbox)
        counts[address] -= 1
        if counts[address] <= 0:
            del counts[address]


async def _write(ws: WebSocket, outbox: asyncio.Queue[dict[str, Any]]) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        while True:
            await ws.send_text(json_text(await outbox.get()))


routes: list[BaseRoute] = [
    Route("/api/friends", friends_page),
    Route("/api/friends/{verb}", change, methods=["POST"]),
    Route("/api/invites", make_invite, methods=["POST"]),
    Route("/api/invites/{invite_id}/{answer}", answer_invite, methods=["POST"]),
    WebSocketRoute("/ws/me", me_socket),
]
