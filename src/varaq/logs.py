"""The server's log: one JSON object a line for machines, readable lines on a terminal.

Why the standard library's :mod:`logging` with a small JSON formatter, not ``structlog``: every
module of Varaq already logs through ``logging.getLogger``, and so do uvicorn, SQLAlchemy and
asyncio.  One formatter on the root handler turns all of their lines into JSON, with the same
context fields; structlog would need its standard-library bridge for those lines anyway, and a
new dependency, for what the ~150 lines here do.  The JSON is written by orjson, which the
server already uses for its answers.

**Context.**  Where a line comes from is kept in :mod:`contextvars`, not passed around: the
request id (set for each HTTP request and WebSocket connection by
:class:`varaq.web.app.RequestContext`, or taken from a sane ``X-Request-Id`` a proxy sent), the
socket message id (set for each message a socket reads), and the table, seat and person a
command is about (set in :meth:`Tables.run <varaq.service.registry.Tables.run>`, the one path
every command takes).  Any line logged meanwhile carries them, whichever module logs it.  A
task started while a command is handled (the computer players' turn that follows a move)
keeps that command's ids: its lines say what set it going.

**What is never logged.**  Request bodies, headers and cookies are not logged anywhere, nor the
words of an action or of a refusal (a refused card, or a "you must follow suit" naming cards,
would tell a hidden card); a person is their account number.  Two nets catch what slips
through: fields passed with ``extra=`` whose name looks secret (password, cookie, session,
token, secret, hand, cards) are dropped, and SQLAlchemy's ``[parameters: …]`` in an error's
text (a session id, a password hash) is cut out.  Third-party loggers stay at WARNING whatever
``--log-level`` says: SQLAlchemy at INFO would print every statement's parameters.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

import orjson

__all__ = [
    "configure", "unconfigure", "bound", "context", "JsonFormatter", "TextFormatter",
    "REQUEST_ID", "MESSAGE_ID", "TABLE", "SEAT", "PERSON", "FORMATS", "LEVELS",
]

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("request", default=None)
MESSAGE_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("message", default=None)
TABLE: contextvars.ContextVar[str | None] = contextvars.ContextVar("table", default=None)
SEAT: contextvars.ContextVar[str | None] = contextvars.ContextVar("seat", default=None)
PERSON: contextvars.ContextVar[int | None] = contextvars.ContextVar("person", default=None)

_VARS: dict[str, contextvars.ContextVar[Any]] = {
    "request": REQUEST_ID, "message": MESSAGE_ID, "table": TABLE, "seat": SEAT,
    "person": PERSON,
}

FORMATS = ("auto", "json", "text")
LEVELS = ("debug", "info", "warning", "error")

#: A field passed with ``extra=`` whose name contains one of these is never written.
_SECRET_WORDS = ("password", "cookie", "session", "token", "secret", "hand", "cards")
#: SQLAlchemy's error texts quote the statement's parameters; they are cut out.
_SQL_PARAMETERS = re.compile(r"\[parameters: .*?\](?=\s*(?:\(Background|$))", re.S)
#: What every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "taskName", "color_message",  # (uvicorn's coloured copy)
}


def context() -> dict[str, Any]:
    """The context fields set now (those that are not)."""
    out = {}
    for name, var in _VARS.items():
        value = var.get()
        if value is not None:
            out[name] = value
    return out


@contextlib.contextmanager
def bound(**fields: Any) -> Iterator[None]:
    """Set context fields (``request``, ``message``, ``table``, ``seat``, ``person``) for the
    lines logged inside the block; the previous values come back after it."""
    tokens = [(_VARS[name], _VARS[name].set(value)) for name, value in fields.items()]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def _scrub(text: str) -> str:
    return _SQL_PARAMETERS.sub("[parameters hidden]", text) if "[parameters:" in text else text


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    out = {}
    for key, value in vars(record).items():
        if key in _STANDARD or key.startswith("_"):
            continue
        lowered = key.lower()
        if any(word in lowered for word in _SECRET_WORDS):
            continue
        out[key] = value if isinstance(value, (int, float, bool, type(None))) else str(value)
    return out


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: time, level, logger, message, context, extras, error."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": _iso(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": _scrub(record.getMessage()),
        }
        doc.update(context())
        doc.update(_extras(record))
        if record.exc_info:
            doc["error"] = _scrub(self.formatException(record.exc_info))
        return orjson.dumps(doc, default=str).decode()


class TextFormatter(logging.Formatter):
    """A record as one readable line (and a traceback under it, if any), context at the end."""

    def format(self, record: logging.LogRecord) -> str:
        fields = {**context(), **_extras(record)}
        tail = "  " + " ".join(f"{k}={v}" for k, v in fields.items()) if fields else ""
        clock = time.strftime("%H:%M:%S", time.localtime(record.created))
        line = (f"{clock} {record.levelname:<7} {record.name}: "
                f"{_scrub(record.getMessage())}{tail}")
        if record.exc_info:
            line += "\n" + _scrub(self.formatException(record.exc_info))
        return line


def _iso(created: float) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
    return f"{seconds}.{int(created % 1 * 1000):03d}Z"


#: The handler :func:`configure` installed, so a second call replaces it.
_installed: logging.Handler | None = None


def configure(
    fmt: str = "auto", level: str = "info", stream: IO[str] | None = None,
) -> logging.Handler:
    """Send the log to ``stream`` (stderr): JSON lines, or text lines, or (``auto``) text when
    the stream is a terminal and JSON otherwise — a service manager or a container collects
    JSON, a person at a terminal reads text.  ``level`` is Varaq's own loggers' level; every
    other library's stays at WARNING (see the module's docstring)."""
    global _installed
    if fmt not in FORMATS:
        raise ValueError(f"unknown log format {fmt!r} (choose from {', '.join(FORMATS)})")
    if level.lower() not in LEVELS:
        raise ValueError(f"unknown log level {level!r} (choose from {', '.join(LEVELS)})")
    out = stream if stream is not None else sys.stderr
    as_json = fmt == "json" or (fmt == "auto" and not _is_terminal(out))
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter() if as_json else TextFormatter())
    unconfigure()
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("varaq").setLevel(level.upper())
    _installed = handler
    return handler


def unconfigure() -> None:
    """Take away what :func:`configure` installed (tests call it when they are done)."""
    global _installed
    if _installed is not None:
        logging.getLogger().removeHandler(_installed)
        logging.getLogger("varaq").setLevel(logging.NOTSET)
        _installed = None


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
