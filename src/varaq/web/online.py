"""Routes of online play: private tables with a code, seats, quick match.

Every route here needs a signed-in person, and the seat a request acts for is always the one
the server has for that person (:func:`.games.acting_seat`), never one the client names.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..seats import SEAT_LETTERS
from ..service.errors import Refusal
from ..service.tables import Table
from .accounts import signed_in
from .games import acting_seat, body_of, tables_of
from .requests import Json, client_address
from .static import serve_page

__all__ = ["routes"]


async def _name(request: Request, user_id: int) -> str:
    account = await request.app.state.accounts.account(user_id)
    if account is None:
        raise Refusal(401, "sign in again: this account no longer exists")
    name: str = account.name
    return name


async def _table(request: Request) -> Table:
    return await tables_of(request).get(request.path_params["game_id"])


def _seat_word(value: Any) -> int:
    if not isinstance(value, str) or value.upper() not in SEAT_LETTERS or len(value) != 1:
        raise Refusal(400, "seat must be one of N, E, S, W")
    return SEAT_LETTERS.index(value.upper())


async def open_table(request: Request) -> Response:
    body = await body_of(request, optional=True)
    user_id = signed_in(request)
    await tables_of(request).limits.hit("create", client_address(request))
    name = await _name(request, user_id)
    table = await tables_of(request).create_private(user_id, name, body)
    return Json({"id": table.id, "code": table.info.code,
                 "state": table.state(table.seating.seat_of(user_id))}, status_code=201)


async def join_table(request: Request) -> Response:
    body = await body_of(request)
    user_id = signed_in(request)
    await tables_of(request).limits.hit("join", client_address(request))
    code = body.get("code")
    if not isinstance(code, str) or len(code) > 32:
        raise Refusal(400, 'the body needs "code": the table code, such as "K7WQ3M"')
    table = await tables_of(request).by_code(code)
    seat = await table.join(user_id, await _name(request, user_id))
    return Json({"id": table.id, "seat": SEAT_LETTERS[seat], "state": table.state(seat)})


async def start(request: Request) -> Response:
    await body_of(request, optional=True)
    user_id = signed_in(request)
    table = await _table(request)
    await table.start(user_id)
    return Json(table.state(table.seating.seat_of(user_id)))


async def configure(request: Request) -> Response:
    body = await body_of(request)
    user_id = signed_in(request)
    table = await _table(request)
    await table.configure(user_id, body)
    return Json(table.state(table.seating.seat_of(user_id)))


async def seat(request: Request) -> Response:
    body = await body_of(request)
    user_id = signed_in(request)
    table = await _table(request)
    await table.set_seat(user_id, _seat_word(body.get("seat")), str(body.get("to", ""))[:8])
    return Json(table.state(table.seating.seat_of(user_id)))


async def leave(request: Request) -> Response:
    await body_of(request, optional=True)
    user_id = signed_in(request)
    table = await _table(request)
    await table.leave(user_id)
    return Json(table.state(None))


async def phrase(request: Request) -> Response:
    body = await body_of(request)
    table = await _table(request)
    return Json(table.phrase(acting_seat(request, table), str(body.get("phrase", ""))[:16]))


async def decline(request: Request) -> Response:
    await body_of(request, optional=True)
    table = await _table(request)
    table.decline(acting_seat(request, table))
    return Json(table.state(acting_seat(request, table)))


async def again(request: Request) -> Response:
    """Play again: a table of people gets the same seats and variations with new deals."""
    await body_of(request, optional=True)
    user_id = signed_in(request)
    table = await _table(request)
    if table.info.kind == "solo":
        raise Refusal(409, "a single-player game starts again with New game or Replay")
    new = await tables_of(request).again(table, user_id)
    return Json({"id": new.id, "state": new.state(new.seating.seat_of(user_id))},
                status_code=201)


async def quick_join(request: Request) -> Response:
    body = await body_of(request, optional=True)
    user_id = signed_in(request)
    quick = request.app.state.quick
    return Json(quick.join(user_id, await _name(request, user_id), body.get("bots_after")))


async def quick_status(request: Request) -> Response:
    return Json(request.app.state.quick.status(signed_in(request)))


async def quick_leave(request: Request) -> Response:
    await body_of(request, optional=True)
    return Json(request.app.state.quick.leave(signed_in(request)))


async def join_page(request: Request) -> Response:
    """``/join/{code}``: the link a host sends; the page signs in if needed, then joins."""
    return serve_page(request, "index.html")


routes: list[BaseRoute] = [
    Route("/join/{code}", join_page),
    Route("/api/tables", open_table, methods=["POST"]),
    Route("/api/tables/join", join_table, methods=["POST"]),
    Route("/api/games/{game_id}/start", start, methods=["POST"]),
    Route("/api/games/{game_id}/seat", seat, methods=["POST"]),
    Route("/api/games/{game_id}/configure", configure, methods=["POST"]),
    Route("/api/games/{game_id}/leave", leave, methods=["POST"]),
    Route("/api/games/{game_id}/phrase", phrase, methods=["POST"]),
    Route("/api/games/{game_id}/decline", decline, methods=["POST"]),
    Route("/api/games/{game_id}/again", again, methods=["POST"]),
    Route("/api/quick", quick_status),
    Route("/api/quick/join", quick_join, methods=["POST"]),
    Route("/api/quick/leave", quick_leave, methods=["POST"]),
]
