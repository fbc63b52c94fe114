"""Reading what a client sends, within limits: bodies, JSON, numbers, who is asking.

Every request and socket message is hostile until read: a body is read only up to the size
limit (a chunked body with no length is cut off there, not buffered), JSON deeper than the
depth limit is refused before it reaches Python's recursive parser, and numbers are ASCII
digits only.  Each problem is a :class:`~varaq.service.errors.Refusal` with one line.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from ..service.errors import Refusal

__all__ = [
    "read_body", "parse_json", "version_of", "client_address", "check_origin", "whole_number",
    "query_number", "Json", "json_text",
]


async def read_body(
    request: Request, limit: int, depth: int, *, optional: bool = False,
) -> dict[str, Any]:
    """The JSON object in a request's body.

    The body must be ``application/json`` (a cross-site form or ``text/plain`` post cannot
    send that without the browser asking first, which this server never allows) and at most
    ``limit`` bytes, counted as it arrives.  An ``optional`` body may be left out, but a
    request that names another type is refused even when empty: an empty form posted from
    another site's page would otherwise change a game (a concession, say) without any JSON.
    A request with no ``Content-Type`` at all and no body is what ``fetch`` sends for a POST
    without a body, so that one is accepted.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind and kind != "application/json":
        raise Refusal(415, "the body must be sent as application/json")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isascii() or not declared.isdigit()
                                 or int(declared) > limit):
        raise Refusal(413, f"the body is too large (at most {limit} bytes)")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Refusal(413, f"the body is too large (at most {limit} bytes)")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        if optional:
            return {}
        raise Refusal(400, "the body must be a JSON object")
    if kind != "application/json":
        raise Refusal(415, "the body must be sent as application/json")
    doc = parse_json(raw, depth)
    if not isinstance(doc, dict):
        raise Refusal(400, "the body must be a JSON object")
    return doc


def parse_json(raw: bytes | str, depth: int) -> Any:
    """Parse JSON no deeper than ``depth``; a one-line :class:`Refusal` otherwise."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise Refusal(400, "the body is not UTF-8 text") from None
    if _nesting(text) > depth:
        raise Refusal(400, f"the JSON is nested too deeply (at most {depth} levels)")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise Refusal(400, "the body is not valid JSON") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _nesting(text: str) -> int:
    """How deeply brackets nest in JSON text, strings skipped; a scan with no recursion, so
    ``[[[[…`` a million deep costs one pass instead of a crash in the parser."""
    if "[" not in text and "{" not in text:
        return 0
    deepest = level = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            if level > deepest:
                deepest = level
        elif ch in "]}":
            level -= 1
    return deepest


def whole_number(value: Any, name: str, low: int = 0, high: int = 2**31 - 1) -> int:
    """A JSON whole number in ``low``..``high`` (booleans are not numbers)."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Refusal(400, f"{name} must be a whole number from {low} to {high}")
    return value


def version_of(doc: dict[str, Any]) -> int | None:
    version = doc.get("version")
    if version is None:
        return None
    return whole_number(version, "version")


def query_number(text: str | None, name: str) -> int | None:
    """A number from the query string: ASCII digits only, and not absurdly long."""
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise Refusal(400, f"{name} must be a whole number")
    return int(text)


def client_address(connection: Request | WebSocket) -> str:
    """The client's address, for per-address limits (uvicorn applies ``--forwarded-allow-ips``
    to trust a reverse proxy's ``X-Forwarded-For``)."""
    client = connection.client
    return client.host if client else "unknown"


def check_origin(connection: Request | WebSocket) -> None:
    """Refuse a browser request made by another site's page.

    Browsers send ``Origin`` on WebSocket handshakes and on every state-changing request; when
    it is there it must name this server.  (Programs that are not browsers send none and are
    held by the other limits.)
    """
    origin = connection.headers.get("origin")
    if origin is None:
        return
    host = connection.headers.get("host", "")
    allowed = {f"http://{host}", f"https://{host}"}
    if origin not in allowed:
        raise Refusal(403, "requests from another site's pages are not accepted")


class Json(JSONResponse):
    """A JSON answer encoded with orjson: the server sends a table's state with every move,
    and orjson encodes it several times faster than the standard library."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def json_text(doc: Any) -> str:
    """A socket message's text (orjson, as :class:`Json`)."""
    return orjson.dumps(doc).decode()
