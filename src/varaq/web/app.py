"""The web app: JSON over HTTP, a WebSocket per table, and the static client.

The app renders nothing: it answers with a reader's view (see docs/protocol.md) and serves the
files of ``static/``.  Game logic lives in :mod:`varaq.service`; the routes live in modules by
subject (:mod:`.games`, :mod:`.sockets`), and this module assembles them with the middleware
every response goes through: sessions, security headers and compression.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import Receive, Scope, Send

from ..service.accounts import Accounts
from ..service.botpool import BotPool
from ..service.cluster import Cluster
from ..service.errors import Refusal
from ..service.quickmatch import QuickMatch, SharedQuickMatch
from ..service.ratelimit import RateLimits
from ..service.registry import Tables
from ..service.settings import Pace, Settings
from ..service.store import Store, default_db_url
from . import accounts, daily, games, learn, online, pages, sockets
from .security import SecurityHeaders
from .sessions import Sessions
from .static import CachedStatic, content_hash, serve_page

__all__ = ["create_app", "STATIC_DIR"]

log = logging.getLogger("varaq.web")

STATIC_DIR = Path(__file__).parent / "static"


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


# -- plain routes -----------------------------------------------------------------------------


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True})


async def page(request: Request) -> Response:
    """``/`` and ``/play/{id}``: the same page; its script reads the id from the URL."""
    return serve_page(request, "index.html")


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refusal)
    return error(exc.status, str(exc))


async def not_found(request: Request, exc: Exception) -> Response:
    return error(404, f"no such page: {request.url.path[:200]}")


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    return error(405, f"{request.method} is not allowed on {request.url.path[:200]}")


async def crashed(request: Request, exc: Exception) -> Response:
    log.exception("request %s failed", request.url.path, exc_info=exc)
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
        app.state.accounts = Accounts(store, hasher=config.password_hasher())
        if cluster is not None:
            await tables.join_cluster(cluster)
            app.state.quick = SharedQuickMatch(tables.create_quick, cluster.redis)
        else:
            app.state.quick = QuickMatch(tables.create_quick)
        try:
            yield
        finally:
            reviews = getattr(app.state, "reviews", None)
            if reviews is not None:
                await reviews.close()
            await app.state.quick.close()
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
        *games.routes,
        *accounts.routes,
        *online.routes,
        *sockets.routes,
        *pages.routes,
        *learn.routes,
        *daily.routes,
        Mount(f"/static/{static_hash}", CachedStatic(directory=static, immutable=True)),
        Mount("/static", CachedStatic(directory=static, immutable=False), name="static"),
    ]
    middleware = [Middleware(SecurityHeaders), Middleware(CompressPages, minimum_size=512)]
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
    app.state.static_hash = static_hash
    app.state.settings = config
    app.state.identity = Sessions(config.secret or b"varaq-unset", secure=config.secure_cookies)
    return app
