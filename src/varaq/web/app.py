"""The web app: JSON over HTTP, a WebSocket per table, and the static client.

The app renders nothing: it answers with a reader's view (see docs/protocol.md) and serves the
files of ``static/``.  Game logic lives in :mod:`varaq.service`; the routes live in modules by
subject (:mod:`.games`, :mod:`.sockets`), and this module assembles them with the middleware
every response goes through: a request id and its timing (:class:`RequestContext`), security
headers and compression.

``/metrics`` is Prometheus' view of the process (:mod:`varaq.service.metrics`).  It answers
only a scrape that sends ``Authorization: Bearer TOKEN`` with the token the server was started
with (``--metrics-token`` / ``VARAQ_METRICS_TOKEN``), compared in constant time; a wrong or
missing token is a 401, and a server started without a token answers 404 to everyone.  Why not
"loopback clients only" when no token is set: behind a reverse proxy on the same machine every
visitor comes from loopback, so that default would publish the numbers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

from prometheus_client.exposition import choose_encoder
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import logs
from ..service import metrics
from ..service.accounts import Accounts
from ..service.botpool import BotPool
from ..service.cluster import Cluster
from ..service.errors import Refusal
from ..service.quickmatch import QuickMatch, SharedQuickMatch
from ..service.ratelimit import RateLimits
from ..service.registry import Tables
from ..service.settings import Pace, Settings
from ..service.store import Store, default_db_url
from . import accounts, daily, friends, games, learn, online, pages, players, sockets
from .security import SecurityHeaders
from .sessions import Sessions
from .static import (
    CachedStatic,
    content_hash,
    module_imports,
    pwa_routes,
    serve_page,
    shared_head,
)

__all__ = ["create_app", "STATIC_DIR", "PAGES_DIR", "RequestContext"]

log = logging.getLogger("varaq.web")

STATIC_DIR = Path(__file__).parent / "static"
#: The HTML pages, served only at their own addresses (see :func:`varaq.web.static.serve_page`).
PAGES_DIR = Path(__file__).parent / "html"


def error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=status)


class CompressPages(GZipMiddleware):
    """Gzip for the pages and the client's files (the table page is about 90 KB before);
    the game's small JSON answers go out as they are, since compressing each costs the server
    more than it saves on a socket that is already open."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and not path.startswith(("/api/", "/ws/")):
            await super().__call__(scope, receive, send)
        else:
            await self.app(scope, receive, send)


#: Methods named in a metric's label as they are; any other is "other".
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
#: A request id a proxy may hand on (``X-Request-Id``): short, and no character that could
#: break a log line.
_GOOD_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


def route_of(scope: Scope) -> str:
    """The route template a request matched (``/api/games/{game_id}``): a label without ids."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        return "unmatched"
    return "/static" if path.startswith("/static") else path or "/"


class RequestContext:
    """Gives each HTTP request and WebSocket connection an id for the log (sent back as
    ``X-Request-Id``), and times each HTTP request by its route template."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(b"x-request-id", b"").decode("latin-1")
        rid = given if _GOOD_ID.fullmatch(given) else uuid.uuid4().hex[:16]
        with logs.bound(request=rid):
            if scope["type"] == "websocket":
                await self._socket(scope, receive, send)
            else:
                await self._http(scope, receive, send, rid)

    async def _http(self, scope: Scope, receive: Receive, send: Send, rid: str) -> None:
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                # How long the app took to answer (Server-Timing, which browsers' developer
                # tools show): a client that waited longer knows the rest was spent before the
                # app had the request, or on the way back.
                took = (time.perf_counter() - started) * 1000
                message["headers"] = [*message.get("headers", []),
                                      (b"x-request-id", rid.encode()),
                                      (b"server-timing", f"app;dur={took:.1f}".encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            # Logged here, where the request's id is still known (Starlette's error handler,
            # which answers the 500, runs outside this middleware).
            log.exception("request %s %s failed", scope["method"], scope["path"][:200])
            raise
        finally:
            seconds = time.perf_counter() - started
            method = scope["method"] if scope["method"] in _METHODS else "other"
            route = route_of(scope)
            metrics.HTTP_SECONDS.labels(method, route).observe(seconds)
            metrics.HTTP_RESPONSES.labels(method, route, str(status)).inc()
            access.debug("%s %s %d %.1f ms", method, scope["path"][:200], status,
                         seconds * 1000, extra={"route": route, "status": status})

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        access.debug("socket %s opened", scope["path"][:200])
        try:
            await self.app(scope, receive, send)
        finally:
            access.debug("socket %s closed", scope["path"][:200])


access = logging.getLogger("varaq.access")


# -- plain routes -----------------------------------------------------------------------------


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True})


async def metrics_page(request: Request) -> Response:
    """Prometheus' scrape (see the module's docstring for who may read it)."""
    token: str | None = request.app.state.settings.metrics_token
    if not token:
        return error(404, "metrics are off: start the server with --metrics-token (or "
                          "VARAQ_METRICS_TOKEN)")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(),
                                                             token.encode()):
        response = error(401, "a metrics scrape needs Authorization: Bearer <metrics token>")
        response.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    encode, content_type = choose_encoder(request.headers.get("accept", ""))
    return Response(encode(request.app.state.metrics), headers={"Content-Type": content_type})


async def page(request: Request) -> Response:
    """``/`` and ``/play/{id}``: the same page; its script reads the id from the URL."""
    return serve_page(request, "index.html")


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refusal)
    return error(exc.status, str(exc))


async def not_found(request: Request, exc: Exception) -> Response:
    """A person's browser gets a small page with a way home; the API (and the sockets and
    static files, which no one reads) keeps its one-line JSON error."""
    page = pages.not_found_page(request)
    return page or error(404, f"no such page: {request.url.path[:200]}")


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    return error(405, f"{request.method} is not allowed on {request.url.path[:200]}")


async def crashed(request: Request, exc: Exception) -> Response:
    """The 500's answer (the failure is logged by :class:`RequestContext`)."""
    return error(500, f"internal error: {type(exc).__name__}")


# -- the app ---------------------------------------------------------------------------------


def _async_redis(url: str) -> str:
    """The ``limits`` package's name for Redis used from asyncio."""
    return url if url.startswith("async+") else f"async+{url}"


def create_app(
    db_url: str | None = None,
    *,
    settings: Settings | None = None,
    pace: Pace | None = None,
    static_dir: Path | None = None,
    bot_processes: int | None = None,
) -> Starlette:
    """The app, storing tables at ``db_url`` (default: ``VARAQ_DB`` or the user's data dir).

    ``settings`` default to the environment (:meth:`Settings.from_env`); ``pace`` and
    ``bot_processes`` override theirs.
    """
    url = db_url or default_db_url()
    static = static_dir or STATIC_DIR
    base = settings or Settings.from_env()
    if pace is not None:
        base = base.but(pace=pace)
    if bot_processes is not None:
        base = base.but(bot_processes=bot_processes)
    config = base

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(url)
        bots = BotPool(config.bot_processes)
        cluster = None
        if config.redis_url:
            cluster = Cluster(url, config.redis_url)
            await cluster.start()
            limits = RateLimits(config.limits, storage_url=_async_redis(config.redis_url))
        else:
            limits = RateLimits(config.limits)
        tables = Tables(store, bots, config, limits)
        app.state.store = store
        app.state.tables = tables
        if cluster is not None:
            # Connections open before the first request, not on the event loop under it.
            await asyncio.to_thread(store.warm)
        tables.arriving.append(functools.partial(app.state.identity.expect, store))
        sessions_fresh = asyncio.get_running_loop().create_task(
            app.state.identity.keep_fresh(store, config))
        app.state.accounts = Accounts(store, hasher=config.password_hasher())
        if cluster is not None:
            await tables.join_cluster(cluster)
            app.state.quick = SharedQuickMatch(tables.create_quick, cluster.redis)
        else:
            app.state.quick = QuickMatch(tables.create_quick)
        try:
            yield
        finally:
            sessions_fresh.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sessions_fresh
            reviews = getattr(app.state, "reviews", None)
            if reviews is not None:
                await reviews.close()
            await app.state.quick.close()
            await friends.close_hub(app)
            await tables.close()
            if cluster is not None:
                await cluster.close()
            await bots.close()
            store.close()

    static_hash = content_hash(static)
    routes: list[BaseRoute] = [
        Route("/", page),
        Route("/play/{game_id}", page),
        Route("/healthz", health),
        Route("/metrics", metrics_page),
        *games.routes,
        *accounts.routes,
        *online.routes,
        *sockets.routes,
        *pages.routes,
        *learn.routes,
        *daily.routes,
        *players.routes,
        *friends.routes,
        *pwa_routes,
        Mount(f"/static/{static_hash}", CachedStatic(directory=static, immutable=True)),
        Mount("/static", CachedStatic(directory=static, immutable=False), name="static"),
    ]
    middleware = [
        Middleware(RequestContext), Middleware(SecurityHeaders),
        Middleware(CompressPages, minimum_size=512),
    ]
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={
            Refusal: refused, 404: not_found, 405: method_not_allowed, 500: crashed,
        },
    )
    app.state.db_url = url
    app.state.static_dir = static
    app.state.pages_dir = PAGES_DIR
    app.state.page_head = shared_head(PAGES_DIR)
    app.state.static_hash = static_hash
    app.state.static_modules = module_imports(static)
    app.state.settings = config
    app.state.metrics = metrics.registry_for(app.state)
    app.state.identity = Sessions(config.secret or b"varaq-unset", secure=config.secure_cookies)
    return app
