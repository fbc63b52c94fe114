"""The web table's ASGI app: JSON over HTTP, a WebSocket per game, and the static client.

The app renders nothing: it answers with South's view (see docs/protocol.md) and serves the
files of ``static/``.  All game logic is in :mod:`varaq.service.tables`; this module only turns
requests into table calls and refusals into one-line JSON errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..bots import LEVELS
from ..rules import PRESETS, RULE_HELP, options_json
from ..service.botpool import BotPool
from ..service.journal import record_of
from ..service.store import Store, default_db_url
from ..service.tables import Pace, Refusal, Table, Tables
from . import pages

__all__ = ["create_app", "STATIC_DIR"]

log = logging.getLogger("varaq.web")

STATIC_DIR = Path(__file__).parent / "static"
#: Bodies larger than this are refused before parsing: no request of the protocol comes close.
MAX_BODY = 16_384


def error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=status)


def _tables(request: Request | WebSocket) -> Tables:
    tables: Tables = request.app.state.tables
    return tables


async def _body(request: Request, *, optional: bool = False) -> dict[str, Any]:
    """The JSON object in a request body; a :class:`Refusal` says what is wrong with it."""
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > MAX_BODY:
        raise Refusal(400, "the body is too large")
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise Refusal(400, "the body is too large")
    if not raw.strip():
        if optional:
            return {}
        raise Refusal(400, "the body must be a JSON object")
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise Refusal(400, "the body is not valid JSON") from None
    if not isinstance(doc, dict):
        raise Refusal(400, "the body must be a JSON object")
    return doc


def _version(doc: dict[str, Any]) -> int | None:
    version = doc.get("version")
    if version is None:
        return None
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise Refusal(400, "version must be a whole number")
    return version


async def _table(request: Request) -> Table:
    return await _tables(request).get(request.path_params["game_id"])


# -- HTTP -----------------------------------------------------------------------------------


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True})


async def presets(request: Request) -> Response:
    return JSONResponse({
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
    body = await _body(request, optional=True)
    table = await _tables(request).create(body)
    return JSONResponse({"id": table.id, "state": table.state()}, status_code=201)


async def get_game(request: Request) -> Response:
    since_text = request.query_params.get("since")
    since: int | None = None
    if since_text is not None:
        try:
            since = int(since_text)
        except ValueError:
            raise Refusal(400, "since must be a whole number") from None
    table = await _table(request)
    return JSONResponse(table.state(since))


async def act(request: Request) -> Response:
    table = await _table(request)
    body = await _body(request)
    text = body.get("action")
    if not isinstance(text, str) or not text.strip():
        raise Refusal(400, 'the body needs "action": a card such as "QS", "bid 4", "nil"…')
    return JSONResponse(await table.act(text, _version(body)))


async def next_hand(request: Request) -> Response:
    table = await _table(request)
    body = await _body(request, optional=True)
    return JSONResponse(await table.next_hand(_version(body)))


async def concede(request: Request) -> Response:
    table = await _table(request)
    return JSONResponse(await table.concede())


async def hint(request: Request) -> Response:
    table = await _table(request)
    return JSONResponse(await table.hint())


async def record(request: Request) -> Response:
    table = await _table(request)
    return JSONResponse(
        record_of(table.game),
        headers={"Content-Disposition": f'attachment; filename="varaq-{table.id[:8]}.json"'},
    )


async def page(request: Request) -> Response:
    """``/`` and ``/play/{id}``: the same page; its script reads the id from the URL."""
    index = request.app.state.static_dir / "index.html"
    if not index.is_file():
        return PlainTextResponse(
            "The Varaq table page is not installed (web/static/index.html is missing); "
            "the JSON API is at /api/.", status_code=503,
        )
    return FileResponse(index, headers={"Cache-Control": "no-cache"})


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refusal)
    return error(exc.status, str(exc))


async def not_found(request: Request, exc: Exception) -> Response:
    return error(404, f"no such page: {request.url.path}")


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    return error(405, f"{request.method} is not allowed on {request.url.path}")


async def crashed(request: Request, exc: Exception) -> Response:
    log.exception("request %s failed", request.url.path, exc_info=exc)
    return error(500, f"internal error: {type(exc).__name__}")


# -- WebSocket --------------------------------------------------------------------------------


async def game_socket(ws: WebSocket) -> None:
    """Live events for one game, and the same requests as the HTTP routes."""
    await ws.accept()
    try:
        table = await _tables(ws).get(ws.path_params["game_id"])
    except Refusal as e:
        await ws.send_json({"type": "error", "error": str(e), "status": e.status})
        await ws.close(code=4404)
        return
    queue = table.listen()
    cursor = _Cursor()

    async def forward() -> None:
        # Events wait in the queue until the client's hello says where it is.
        await cursor.ready.wait()
        while True:
            message = await queue.get()
            if message["version"] > cursor.version:
                cursor.version = message["version"]
                await ws.send_json(message)

    pump = asyncio.create_task(forward())
    try:
        while True:
            received = await ws.receive()
            if received["type"] == "websocket.disconnect":
                break
            text = received.get("text")
            if text is None:
                reply: dict[str, Any] | None = {
                    "type": "error", "error": "messages must be JSON text", "status": 400}
            elif len(text) > MAX_BODY:
                reply = {"type": "error", "error": "the message is too large", "status": 400}
            else:
                reply = await _socket_message(table, text, cursor)
            if reply is not None:
                await ws.send_json(reply)
    except WebSocketDisconnect:
        pass
    finally:
        table.unlisten(queue)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


class _Cursor:
    """The last version one socket's client has been sent; unset until its hello."""

    def __init__(self) -> None:
        self.version = 0
        self.ready = asyncio.Event()


async def _socket_message(table: Table, text: str, cursor: _Cursor) -> dict[str, Any] | None:
    """One client message: the answer to send back, if any (events go through the pump)."""
    try:
        try:
            doc = json.loads(text)
        except ValueError:
            raise Refusal(400, "the message is not valid JSON") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("type"), str):
            raise Refusal(400, 'a message is a JSON object with a "type"')
        kind = doc["type"]
        if kind == "hello":
            since = _version(doc) or 0
            state = table.state(since)
            cursor.version = state["version"]
            cursor.ready.set()
            return {"type": "state", **state}
        if kind == "action":
            action = doc.get("action")
            if not isinstance(action, str) or not action.strip():
                raise Refusal(400, 'an action message needs "action": a card, "bid 4", "nil"…')
            await table.act(action, _version(doc))
            return None
        if kind == "next":
            await table.next_hand(_version(doc))
            return None
        if kind == "concede":
            await table.concede()
            return None
        if kind == "hint":
            return {"type": "hint", **await table.hint()}
        raise Refusal(400, f"unknown message type {kind!r}")
    except Refusal as e:
        return {"type": "error", "error": str(e), "status": e.status}


# -- the app ---------------------------------------------------------------------------------


def create_app(
    db_url: str | None = None,
    *,
    pace: Pace | None = None,
    static_dir: Path | None = None,
    bot_processes: int | None = None,
) -> Starlette:
    """The app, storing games at ``db_url`` (default: ``VARAQ_DB`` or the user's data dir).

    ``pace`` defaults to ``VARAQ_PACE`` (a scale factor; 0 = computer players move at once).
    """
    url = db_url or default_db_url()
    static = static_dir or STATIC_DIR

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(url)
        bots = BotPool(bot_processes)
        app.state.store = store
        app.state.tables = Tables(store, bots, pace or Pace.from_env())
        try:
            yield
        finally:
            await app.state.tables.close()
            await bots.close()
            store.close()

    routes = [
        Route("/", page),
        Route("/play/{game_id}", page),
        Route("/healthz", health),
        Route("/api/presets", presets),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_game),
        Route("/api/games/{game_id}/actions", act, methods=["POST"]),
        Route("/api/games/{game_id}/next", next_hand, methods=["POST"]),
        Route("/api/games/{game_id}/concede", concede, methods=["POST"]),
        Route("/api/games/{game_id}/hint", hint),
        Route("/api/games/{game_id}/record", record),
        WebSocketRoute("/ws/games/{game_id}", game_socket),
        *pages.routes,
        Mount("/static", StaticFiles(directory=static, check_dir=False), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            Refusal: refused, 404: not_found, 405: method_not_allowed, 500: crashed,
        },
    )
    app.state.db_url = url
    app.state.static_dir = static
    return app
