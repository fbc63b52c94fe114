"""Who is signed in: a signed, HttpOnly, SameSite=Lax cookie holding a session id, and a row
in the database that says whether that session still stands.

Why the row: a cookie that carries the user id itself (as this module's cookie did until 0.2)
cannot be taken back.  Signing out only asked the browser to forget it, so a copy saved before
(a shared computer, a stolen cookie) stayed signed in for its whole life.  Now the cookie
holds a random 256-bit session id, signed by itsdangerous with the server's secret (so a
forged or altered cookie is refused before the database is asked), and the database keeps one
row per session under a SHA-256 of that id, so that reading the table hands out no live
session.  Every process of a cluster shares the table, so any of them can end a session:

- signing in or creating an account always makes a *new* session id (and ends the one the
  browser presented, if any): a cookie someone planted before the sign-in never becomes valid;
- ``POST /api/account/signout`` ends that session; ``POST /api/account/signout-everywhere``
  ends all of that person's sessions;
- a session unused for ``Settings.session_idle_seconds`` (14 days) ends, and none lasts past
  ``Settings.session_max_seconds`` (60 days).  ``last_seen`` is written at most once every
  :data:`TOUCH_SECONDS` (five minutes), so reading sessions costs no writes in between; a
  session may therefore end up to that much before its exact idle time.

:meth:`Sessions.user_id` is synchronous (game routes and socket handlers ask it in the middle of
their work): its answer is kept for the rest of a request (a socket, which may stay open for
hours, asks again each time), and each process keeps what it read of a session for
``Settings.session_cache_seconds`` (2 s).  A sign-out removes the
session from its own process's memory at once, so it counts from the very next request there;
another process of a cluster may go on trusting the session for those 2 seconds at most.
The sessions in use are re-read together, one query a second in a worker thread
(:meth:`Sessions.keep_fresh`), so a request seldom waits for the database; one that finds its
session older than 2 s reads its row by primary key.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from itsdangerous import BadSignature, TimestampSigner
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import HTTPConnection
from starlette.responses import Response

from ..service.errors import Refusal
from ..service.settings import Settings
from ..service.store import LiveSession, Store

__all__ = ["Sessions", "COOKIE", "TOUCH_SECONDS", "session_hash"]

log = logging.getLogger("varaq.sessions")

COOKIE = "varaq_session"
#: Longest cookie read at all: an id, a timestamp and a signature are about 80 characters.
LONGEST = 200
#: Seconds between two writes of a session's ``last_seen`` (a quarter of the idle time when
#: that is shorter).
TOUCH_SECONDS = 300.0
#: Sessions a process keeps in memory before it forgets the oldest reads.
CACHED = 50_000
#: Sessions asked for within this long are re-read in the background (:meth:`Sessions.
#: keep_fresh`); an older one is read again by the request that next asks for it.
KEEP_USED = timedelta(minutes=10)
#: Sessions re-read by one query.
REFRESH_CHUNK = 1000
#: What a session id looks like: 32 random bytes in URL-safe base64.
_ID = re.compile(r"[A-Za-z0-9_-]{43}")
_DEFAULTS = Settings()


def session_hash(session_id: str) -> str:
    """What the database keeps of a session id."""
    return hashlib.sha256(session_id.encode("ascii")).hexdigest()


@dataclass(slots=True)
class _Seen:
    """A session as this process last read it."""

    user_id: int
    created: datetime
    last_seen: datetime
    expires: datetime
    #: When the database last said the session stands.
    read: datetime
    #: When a request last asked for it (sessions in use are re-read together).
    used: datetime

    @classmethod
    def of(cls, live: LiveSession, now: datetime) -> _Seen:
        """``live`` as read from the database at ``now``."""
        return cls(live.user_id, live.created, live.last_seen, live.expires, now, now)


class Sessions:
    """Sessions signed with ``secret``; the store and the times come from the app's state
    (``app.state.store``, ``app.state.settings``).  ``clock`` is for tests."""

    def __init__(self, secret: bytes, *, secure: bool = False,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.signer = TimestampSigner(secret, salt="varaq.session")
        self.secure = secure
        self.clock: Callable[[], datetime] = clock or (lambda: datetime.now(UTC))
        self._seen: dict[str, _Seen] = {}

    # -- reading ---------------------------------------------------------------------------

    def user_id(self, connection: HTTPConnection) -> int | None:
        """The signed-in person's id, or ``None``: no cookie, a forged, altered or overlong
        one, or a session that was signed out or has expired."""
        scope = connection.scope
        if scope["type"] == "websocket":
            # A socket lives for hours: its session is checked again at each question (from
            # this process's memory, mostly), so a sign-out reaches the sockets already open.
            if "varaq.session" not in scope:
                scope["varaq.session"] = self._presented(connection)
            presented: str | None = scope["varaq.session"]
        elif "varaq.user" in scope:
            cached: int | None = scope["varaq.user"]
            return cached
        else:
            presented = self._presented(connection)
        user: int | None = None
        if presented is not None:
            try:
                user = self._live(connection, presented)
            except SQLAlchemyError:
                # Not kept in the scope: the next request asks the database again.
                log.exception("reading a session failed")
                raise Refusal(503, "the accounts cannot be read just now; try again soon") from None
        scope["varaq.user"] = user
        return user

    def _presented(self, connection: HTTPConnection) -> str | None:
        """The hash of the session id in the connection's cookie, if the cookie is genuine."""
        raw = connection.cookies.get(COOKIE)
        if not raw or len(raw) > LONGEST:
            return None
        try:
            value = self.signer.unsign(raw, max_age=int(_settings(connection).session_max_seconds))
            session_id = value.decode("ascii")
        except (BadSignature, UnicodeError):
            return None
        if not _ID.fullmatch(session_id):
            return None
        return session_hash(session_id)

    def _live(self, connection: HTTPConnection, id_hash: str) -> int | None:
        settings = _settings(connection)
        now = self.clock()
        seen = self._seen.get(id_hash)
        fresh = timedelta(seconds=settings.session_cache_seconds)
        if seen is None or not seen.read <= now < seen.read + fresh:
            store = _store(connection)
            live = None if store is None else store.live_session(id_hash, now)
            if live is None:
                self._seen.pop(id_hash, None)
                return None
            if len(self._seen) >= CACHED:
                self._forget_old(now, fresh)
            seen = self._seen[id_hash] = _Seen.of(live, now)
        seen.used = now
        idle = timedelta(seconds=settings.session_idle_seconds)
        longest = timedelta(seconds=settings.session_max_seconds)
        # The row's own end, and today's settings (an operator may have shortened them).
        if now >= seen.expires or now >= seen.last_seen + idle or now >= seen.created + longest:
            self._seen.pop(id_hash, None)
            return None
        touch = timedelta(seconds=min(TOUCH_SECONDS, settings.session_idle_seconds / 4))
        if now - seen.last_seen >= touch:
            seen.last_seen = now
            seen.expires = min(now + idle, seen.created + longest)
            self._touch(connection, id_hash, now, seen.expires)
        return seen.user_id

    async def expect(self, store: Store, user_ids: list[int]) -> int:
        """Read the live sessions of people about to arrive (their tables are being handed
        to this process) in one query, off the event loop; how many were read.

        A process that takes a stopping peer's tables is then asked by a few hundred pages
        at once, each of whose first request would read its session from the database on
        the event loop; read beforehand, each is found in memory."""
        now = self.clock()
        try:
            live = await asyncio.to_thread(store.live_sessions_of, user_ids, now)
        except SQLAlchemyError:
            log.exception("reading the sessions of arriving people failed")
            return 0
        if len(self._seen) + len(live) > CACHED:
            return 0
        for id_hash, row in live.items():
            if id_hash not in self._seen:
                self._seen[id_hash] = _Seen.of(row, now)
        log.info("read %d sessions of %d people arriving", len(live), len(user_ids))
        return len(live)

    async def keep_fresh(self, store: Store, settings: Settings) -> None:
        """Re-read the sessions in use together, in a worker thread, every half
        ``session_cache_seconds``, for as long as the app runs.

        Without it each session's row is read again on the event loop by the first request
        after its 2 s in memory: one query (and a connection ping) per person every few
        seconds, which stalled every table of a busy process while it waited on the database.
        Now a request finds its session in memory, and one query a second says which of the
        sessions asked for in the last :data:`KEEP_USED` are still live: one ended on another
        process is forgotten here within a second or so, as before.  Should this stop, the
        request reads the row itself, as before."""
        fresh = timedelta(seconds=settings.session_cache_seconds)
        while True:
            await asyncio.sleep(max(0.2, fresh.total_seconds() / 2))
            try:
                await self._refresh(store, fresh)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("re-reading the sessions in use failed")

    async def _refresh(self, store: Store, fresh: timedelta) -> None:
        now = self.clock()
        due = [h for h, seen in self._seen.items()
               if now - seen.used < KEEP_USED and now - seen.read >= fresh / 2]
        for first in range(0, len(due), REFRESH_CHUNK):
            chunk = due[first:first + REFRESH_CHUNK]
            live = await asyncio.to_thread(store.live_sessions, chunk, now)
            for id_hash in chunk:
                seen = self._seen.get(id_hash)
                if seen is None:  # signed out here meanwhile: stays out
                    continue
                row = live.get(id_hash)
                if row is None:  # ended elsewhere, or expired
                    del self._seen[id_hash]
                    continue
                seen.read = max(seen.read, now)
                seen.last_seen = max(seen.last_seen, row.last_seen)
                seen.expires = max(seen.expires, row.expires)

    def _touch(self, connection: HTTPConnection, id_hash: str, now: datetime,
               expires: datetime) -> None:
        """Write the session's new ``last_seen`` in a worker thread; nobody waits for it."""
        store = _store(connection)
        if store is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            store.touch_session(id_hash, now, expires)
            return
        done = loop.run_in_executor(None, store.touch_session, id_hash, now, expires)
        done.add_done_callback(_report)

    def _forget_old(self, now: datetime, fresh: timedelta) -> None:
        self._seen = {h: s for h, s in self._seen.items() if s.read <= now < s.read + fresh}
        if len(self._seen) >= CACHED:
            self._seen.clear()

    # -- signing in and out ------------------------------------------------------------------

    async def sign_in(self, connection: HTTPConnection, response: Response, user_id: int) -> None:
        """A new session for ``user_id``, in ``response``'s cookie.  The session the browser
        presented, if any, ends: the id changes at every sign-in."""
        settings = _settings(connection)
        store = _store(connection)
        if store is None:
            raise Refusal(503, "the server is starting; try again in a moment")
        session_id = secrets.token_urlsafe(32)
        id_hash = session_hash(session_id)
        old = self._presented(connection)
        now = self.clock()
        expires = now + timedelta(seconds=min(settings.session_idle_seconds,
                                              settings.session_max_seconds))
        await asyncio.to_thread(
            store.create_session, id_hash, user_id, now=now, expires=expires,
            agent=connection.headers.get("user-agent"), replaces=old,
        )
        if old is not None:
            self._seen.pop(old, None)
        connection.scope["varaq.user"] = user_id
        response.set_cookie(
            COOKIE, self.signer.sign(session_id.encode("ascii")).decode("ascii"),
            max_age=int(settings.session_max_seconds), httponly=True, samesite="lax",
            secure=self.secure, path="/",
        )

    async def sign_out(self, connection: HTTPConnection, response: Response) -> None:
        """End the session the browser presented (if it is one) and forget the cookie."""
        old = self._presented(connection)
        store = _store(connection)
        if old is not None and store is not None:
            await asyncio.to_thread(store.end_session, old, self.clock())
        if old is not None:
            self._seen.pop(old, None)
        connection.scope["varaq.user"] = None
        self.forget_cookie(response)

    async def sign_out_everywhere(self, connection: HTTPConnection) -> int:
        """End every session of the person signed in here, this one too; how many ended.
        A :class:`Refusal` (401) when nobody is signed in.  (The answer should also
        :meth:`forget_cookie`.)"""
        user_id = self.user_id(connection)
        store = _store(connection)
        if user_id is None or store is None:
            raise Refusal(401, "sign in first: this needs an account")
        ended = await asyncio.to_thread(store.end_sessions_of, user_id, self.clock())
        self._seen = {h: s for h, s in self._seen.items() if s.user_id != user_id}
        connection.scope["varaq.user"] = None
        return ended

    def forget_cookie(self, response: Response) -> None:
        """Ask the browser to drop the session cookie (it no longer stands anyway)."""
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                               secure=self.secure)


def _settings(connection: HTTPConnection) -> Settings:
    settings = getattr(connection.app.state, "settings", None)
    return settings if isinstance(settings, Settings) else _DEFAULTS


def _store(connection: HTTPConnection) -> Store | None:
    store = getattr(connection.app.state, "store", None)
    return store if isinstance(store, Store) else None


def _report(done: Any) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("refreshing a session's last use failed: %s", done.exception())
