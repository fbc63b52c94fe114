"""The game routes: create a table, read it, act at it (docs/protocol.md, HTTP).

Every route that asks something of a table turns its body into a
:class:`~varaq.service.commands.Command` and hands it, with who is asking
(:func:`asker_of`), to :meth:`Tables.run <varaq.service.registry.Tables.run>` — the same path
a WebSocket message or another process's forwarded request takes, so limits, checks and
refusals are the same on every transport.  Who is asking decides what they see and for which
seat they may act, looked up at that moment: at a single-player table the table's unguessable
id is the key to South; at an online table the seat comes from the signed-in person, never
from anything the client says.
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
from ..service.commands import Asker, Kind
from ..service.errors import Refusal
from ..service.registry import Tables
from ..service.table import Table
from .requests import (
    Json,
    check_origin,
    client_address,
    query_number,
    read_body,
    version_of,
)

__all__ = ["routes", "tables_of", "body_of", "asker_of", "command_route"]


def tables_of(connection: Request | WebSocket) -> Tables:
    tables: Tables = connection.app.state.tables
    return tables


async def body_of(request: Request, *, optional: bool = False) -> dict[str, Any]:
    """A state-changing request's JSON body, from this site's pages only."""
    check_origin(request)
    limits = tables_of(request).settings.limits
    return await read_body(request, limits.body_bytes, limits.json_depth, optional=optional)


def asker_of(connection: Request | WebSocket) -> Asker:
    """Who is asking: the signed-in person (read from the session now), and from where."""
    user = connection.app.state.identity.user_id(connection)
    return Asker(user, client_address(connection))


async def _table(request: Request) -> Table:
    return await tables_of(request).get(request.path_params["game_id"])


async def _limited(request: Request, name: str) -> None:
    await tables_of(request).limits.hit(name, client_address(request))


async def _read(request: Request) -> tuple[Table, Asker]:
    """A table to read, counted against the per-address limit on reads."""
    asker = asker_of(request)
    await tables_of(request).limits.hit("read", asker.address)
    return await _table(request), asker


def command_route(kind: Kind, *, optional: bool = False) -> Any:
    """A route that does one kind of command and answers with what the command gave: the
    asker's state after it for most (with ``"concede"`` for a concession), the hint, the
    pace, the phrase, or the new table for Play again."""

    async def route(request: Request) -> Response:
        body = await body_of(request, optional=optional)
        asker = asker_of(request)
        tables = tables_of(request)
        table = await _table(request)
        result = await tables.run(table, kind, body, asker)
        if kind in (Kind.HINT, Kind.PHRASE):
            return Json(result)
        if kind is Kind.PACE:
            return Json({"pace": table.pace})
        if kind is Kind.AGAIN:
            new = await tables.get(str(result))
            return Json({"id": new.id, "state": new.state_for(asker)}, status_code=201)
        if kind is Kind.LEAVE:
            return Json(table.state(None))
        since = version_of(body) if kind in (Kind.ACT, Kind.NEXT, Kind.UNDO) else None
        doc = table.state_for(asker, since)
        if kind in (Kind.CONCEDE, Kind.UNDO, Kind.CLAIM, Kind.ACCEPT):
            doc[kind.value] = result
        return Json(doc)

    route.__name__ = f"{kind.value}_command"
    return route


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
    table = await tables_of(request).create_solo(body, asker_of(request).user)
    return Json({"id": table.id, "state": table.state(S)}, status_code=201)


async def get_game(request: Request) -> Response:
    since = query_number(request.query_params.get("since"), "since")
    table, asker = await _read(request)
    return Json(table.state_for(asker, since))


async def hint(request: Request) -> Response:
    """``GET`` (the Hint button): the same command as the socket's ``hint`` message."""
    asker = asker_of(request)
    table = await _table(request)
    return Json(await tables_of(request).run(table, Kind.HINT, {}, asker))


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
    table, asker = await _read(request)
    return Json(
        table.record(table.reader_of(asker)),
        headers={"Content-Disposition": f'attachment; filename="varaq-{table.id[:8]}.json"'},
    )


routes: list[BaseRoute] = [
    Route("/api/presets", presets),
    Route("/api/games", create_game, methods=["POST"]),
    Route("/api/games/{game_id}", get_game),
    Route("/api/games/{game_id}/actions", command_route(Kind.ACT), methods=["POST"]),
    Route("/api/games/{game_id}/next", command_route(Kind.NEXT, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/concede", command_route(Kind.CONCEDE, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/pace", command_route(Kind.PACE), methods=["POST"]),
    Route("/api/games/{game_id}/undo", command_route(Kind.UNDO, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/claim", command_route(Kind.CLAIM, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/accept", command_route(Kind.ACCEPT, optional=True),
          methods=["POST"]),
    Route("/api/games/{game_id}/replay", replay, methods=["POST"]),
    Route("/api/games/{game_id}/hint", hint),
    Route("/api/games/{game_id}/record", record),
]
