"""uvicorn's HTTP protocol with a deadline for request headers.

uvicorn closes a keep-alive connection that stays idle after a response, but a connection that
opens and sends nothing, or sends its headers one byte at a time, is kept for as long as the
client likes: a few hundred of those fill the server's connection table (the "slowloris"
attack).  :class:`GuardedHttp` gives every request ``HEADER_TIMEOUT`` seconds from its first
byte (or from the connection's opening) to finish its headers, then closes the connection.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["GuardedHttp"]


class GuardedHttp(HttpToolsProtocol):
    _header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
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
        from .serve import HEADER_TIMEOUT

        self._disarm()
        self._header_deadline = self.loop.call_later(HEADER_TIMEOUT, self._too_slow)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _too_slow(self) -> None:
        self._header_deadline = None
        transport: Any = self.transport
        if transport is not None and not transport.is_closing():
            transport.close()
