"""The game routes: create a table, read it, act at it (docs/protocol.md, HTTP).

Who is asking decides what they see and for which seat they may act: at a single-player table
the table's unguessable id is the key to South; at an online table the seat comes from the
signed-in person (:func:`seat_of`), never from anything the client says.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.websockets import WebSocket

from ..bots import LEVELS
from ..rules import PRESETS, RULE_HELP, options_json
from ..seats import S
from ..service.errors import Refusal
from ..service.registry import Tables
from ..service.seating import GUEST
from ..service.tables import Table
from .requests import (
    Json,
    check_origin,
    client_address,
    query_number,
    read_body,
    version_of,
)

__all__ = ["routes", "tables_of", "seat_of", "body_of", "acting_seat"]


def tables_of(connection: Request | WebSocket) -> Tables:
    tables: Tables = connection.app.state.tables
    return tables


async def body_of(request: Request, *, optional: bool = False) -> dict[str, Any]:
    """A state-changing request's JSON body, from this site's pages only."""
    check_origin(request)
    limits = tables_of(request).settings.limits
    return await read_body(request, limits.body_bytes, limits.json_depth, optional=optional)


def seat_of(connection: Request | WebSocket, table: Table) -> int | None:
    """The seat the asker holds at ``table``, or ``None`` for a watcher.

    A table whose one person is a guest (a single-player game, a daily played without an
    account) is South's to whoever knows its id; any other seat is a signed-in person's."""
    if table.seating.seats[S] == GUEST:
        return S
    user_id = connection.app.state.identity.user_id(connection)
    if user_id is None:
        return None
    return table.seating.seat_of(user_id)


def acting_seat(connection: Request | WebSocket, table: Table) -> int:
    seat = seat_of(connection, table)
    if seat is None:
        raise Refusal(403, "you do not have a seat at this table")
    return seat


async def _table(request: Request) -> Table:
    return await tables_of(request).get(request.path_params["game_id"])


async def _limited(request: Request, name: str) -> None:
    await tables_of(request).limits.hit(name, client_address(request))


# -- routes -----------------------------------------------------------------------------------


async def presets(request: Request) -> Response:
    return Json({
        "presets": {name: _full_spec(name) for name in PRESETS},
        "options": dict(RULE_HELP),
        "bounds": options_json(),
        "levels": list(LEVELS),
    })


def _full_spec(name: str) -> dict[str, Any]:
    rules = PRESETS[name]
    spec: dict[str, Any] = {"preset": name, "label": rules.label}
    spec.update({key: getattr(rules, key) for key in RULE_HELP})
    return spec


async def create_game(request: Request) -> Response:
    body = await body_of(request, optional=True)
    await _limited(request, "create")
    table = await tables_of(request).create_solo(body)
    return Json({"id": table.id, "state": table.state(S)}, status_code=201)


async def get_game(request: Request) -> Response:
    since = query_number(request.query_params.get("since"), "since")
    table = await _table(request)
    return Json(table.state(seat_of(request, table), since))


async def act(request: Request) -> Response:
    body = await body_of(request)
    await _limited(request, "act")
    table = await _table(request)
    seat = acting_seat(request, table)
    text = body.get("action")
    if not isinstance(text, str) or not text.strip() or len(text) > 32:
        raise Refusal(400, 'the body needs "action": a card such as "QS", "bid 4", "nil"…')
    version = version_of(body)
    await table.act(seat, text, version)
    return Json(table.state(seat, version))


async def next_hand(request: Request) -> Response:
    body = await body_of(request, optional=True)
    await _limited(request, "act")
    table = await _table(request)
    seat = acting_seat(request, table)
    version = version_of(body)
    await table.next_hand(version, seat)
    return Json(table.state(seat, version))


async def concede(request: Request) -> Response:
    await body_of(request, optional=True)
    await _limited(request, "act")
    table = await _table(request)
    seat = acting_seat(request, table)
    result = await table.concede(seat)
    return Json({**table.state(seat), "concede": result})


async def pace(request: Request) -> Response:
    body = await body_of(request)
    await _limited(request, "act")
    table = await _table(request)
    acting_seat(request, table)
    await table.set_pace(str(body.get("pace", ""))[:16])
    return Json({"pace": table.pace})


async def hint(request: Request) -> Response:
    await _limited(request, "hint")
    table = await _table(request)
    return Json(await table.hint(acting_seat(request, table)))


async def replay(request: Request) -> Response:
    """Play the same deals again, at a new single-player table."""
    await body_of(request, optional=True)
    await _limited(request, "create")
    table = await _table(request)
    if table.info.kind != "solo":
        raise Refusal(409, "only a single-player game can be played again with the same deals")
    new = await tables_of(request).replay(table)
    return Json({"id": new.id, "state": new.state(S)}, status_code=201)


async def record(request: Request) -> Response:
    table = await _table(request)
    return Json(
        table.record(seat_of(request, table)),
        headers={"Content-Disposition": f'attachment; filename="varaq-{table.id[:8]}.json"'},
    )


routes: list[BaseRoute] = [
    Route("/api/presets", presets),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/games/{game_id}", get_game),
    Route("/api/games/{game_id}/actions", act, methods=["POST"]),
    Route("/api/games/{game_id}/next", next_hand, methods=["POST"]),
    Route("/api/games/{game_id}/concede", concede, methods=["POST"]),
    Route("/api/games/{game_id}/pace", pace, methods=["POST"]),
    Route("/api/games/{game_id}/replay", replay, methods=["POST"]),
    Route("/api/games/{game_id}/hint", hint),
    Route("/api/games/{game_id}/record", record),
]
