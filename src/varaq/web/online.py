"""Routes of online play: private tables with a code, seats, quick match, Live tables.

Every route here but the Live tables list needs a signed-in person (anyone may watch a public
table, signed in or not), and the seat a request acts for is always the one
the server has for that person when the command is handled
(:meth:`~varaq.service.table.Table.seat_for`), never one the client names.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..seats import SEAT_LETTERS
from ..service.commands import Kind, parse_command
from ..service.errors import Refusal
from ..service.live import LiveTables
from ..service.quickmatch import rating_of
from .accounts import signed_in
from .games import asker_of, body_of, command_route, tables_of
from .requests import Json, client_address
from .static import serve_page

__all__ = ["routes"]


async def _name(request: Request, user_id: int) -> str:
    account = await request.app.state.accounts.account(user_id)
    if account is None:
        raise Refusal(401, "sign in again: this account no longer exists")
    name: str = account.name
    return name


async def open_table(request: Request) -> Response:
    body = await body_of(request, optional=True)
    user_id = signed_in(request)
    await tables_of(request).limits.hit("create", client_address(request))
    name = await _name(request, user_id)
    table = await tables_of(request).create_private(user_id, name, body)
    return Json({"id": table.id, "code": table.info.code,
                 "state": table.state(table.seating.seat_of(user_id))}, status_code=201)


async def join_table(request: Request) -> Response:
    """Join by code: the table is found by its code, then the join is a command like any."""
    body = await body_of(request)
    signed_in(request)
    asker = asker_of(request)
    tables = tables_of(request)
    await tables.limits.hit("join", asker.address)
    command = parse_command(Kind.JOIN, body)
    table = await tables.by_code(command.word)
    seat = await table.execute(command, asker)
    return Json({"id": table.id, "seat": SEAT_LETTERS[seat], "state": table.state(seat)})


async def quick_join(request: Request) -> Response:
    """Join the queue with the person's rating, so that close ratings sit together."""
    body = await body_of(request, optional=True)
    user_id = signed_in(request)
    quick = request.app.state.quick
    name = await _name(request, user_id)
    rating = await asyncio.to_thread(rating_of, tables_of(request).store, user_id)
    return Json(await quick.join(user_id, name, body.get("bots_after"), rating))


async def quick_status(request: Request) -> Response:
    return Json(await request.app.state.quick.status(signed_in(request)))


async def quick_leave(request: Request) -> Response:
    await body_of(request, optional=True)
    return Json(await request.app.state.quick.leave(signed_in(request)))


async def live_tables(request: Request) -> Response:
    """``GET /api/live``: the public tables in play or seating, for the lobby (no account
    needed: watching is open to anyone); counted like any other read."""
    tables = tables_of(request)
    await tables.limits.hit("read", client_address(request))
    live = getattr(request.app.state, "live", None)
    if live is None:
        live = request.app.state.live = LiveTables(tables)
    return Json(await live.listing())


async def join_page(request: Request) -> Response:
    """``/join/{code}``: the link a host sends; the page signs in if needed, then joins."""
    return serve_page(request, "index.html")


routes: list[BaseRoute] = [
    Route("/join/{code}", join_page),
    Route("/api/tables", open_table, methods=["POST"]),
    Route("/api/tables/join", join_table, methods=["POST"]),
    Route("/api/games/{game_id}/start", command_route(Kind.START, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/seat", command_route(Kind.SEAT), methods=["POST"]),
    Route("/api/games/{game_id}/configure", command_route(Kind.CONFIGURE), methods=["POST"]),
    Route("/api/games/{game_id}/leave", command_route(Kind.LEAVE, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/phrase", command_route(Kind.PHRASE), methods=["POST"]),
    Route("/api/games/{game_id}/decline", command_route(Kind.DECLINE, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/again", command_route(Kind.AGAIN, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/listing", command_route(Kind.LISTING), methods=["POST"]),
    Route("/api/live", live_tables),
    Route("/api/quick", quick_status),
    Route("/api/quick/join", quick_join, methods=["POST"]),
    Route("/api/quick/leave", quick_leave, methods=["POST"]),
]
