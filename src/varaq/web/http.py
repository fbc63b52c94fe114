"""uvicorn's HTTP protocol with a deadline for request headers.

uvicorn closes a keep-alive connection that stays idle after a response, but a connection that
opens and sends nothing, or sends its headers one byte at a time, is kept for as long as the
client likes: a few hundred of those fill the server's connection table (the "slowloris"
attack).  :class:`GuardedHttp` gives every request ``HEADER_TIMEOUT`` seconds from its first
byte (or from the connection's opening) to finish its headers, then closes the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["GuardedHttp", "guarded_http"]


class GuardedHttp(HttpToolsProtocol):
    _header_deadline: asyncio.TimerHandle | None = None
    #: Seconds to receive a request's headers.
    header_timeout = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        _no_delay(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_deadline is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _too_slow(self) -> None:
        self._header_deadline = None
        transport: Any = self.transport
        if transport is not None and not transport.is_closing():
            transport.close()


def _no_delay(transport: asyncio.BaseTransport) -> None:
    """Send each write at once (TCP_NODELAY).

    asyncio sets this itself only on sockets made with ``proto=IPPROTO_TCP``; the socket
    ``varaq serve`` binds (and every connection accepted from it) has ``proto`` 0, so without
    this a response written in two parts (headers, then body) waited for the client's delayed
    acknowledgement: 40 ms on every request of a kept-alive connection.  A WebSocket keeps the
    connection's socket, and so the setting.
    """
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def guarded_http(header_timeout: float) -> type[GuardedHttp]:
    """The protocol class with its own header deadline (uvicorn takes a class)."""
    return type("GuardedHttp", (GuardedHttp,), {"header_timeout": header_timeout})
