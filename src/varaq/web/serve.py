"""``varaq serve``: the web table on uvicorn, with SQLite in the user's data directory.

Open the printed address, press "New game", and play South.  ``--db`` takes any SQLAlchemy URL
(also ``VARAQ_DB``); ``VARAQ_PACE`` scales the computer players' pauses (0 = none).

The server binds its socket itself before starting uvicorn, so a port already in use is one
line and exit status 2, not a traceback.  Connections are bounded in time and size: a client
gets ``HEADER_TIMEOUT`` seconds to send a request's headers (a connection that trickles them
in, or opens and says nothing, is closed), ``KEEP_ALIVE`` seconds idle between requests, and
WebSockets are pinged and limited to the body size.

The log (:mod:`varaq.logs`) is readable text on a terminal and one JSON object a line
otherwise (``--log-format``); ``--log-level debug`` adds a line for each request, socket
message and command.  ``--metrics-token`` turns ``/metrics`` on for a Prometheus scrape that
sends it as a bearer token (see :mod:`varaq.web.app`).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import gc
import logging
import os
import socket
import sys
from typing import Any

__all__ = ["add_arguments", "run", "HEADER_TIMEOUT", "KEEP_ALIVE", "MIN_TOKEN"]

log = logging.getLogger("varaq.web")

#: Seconds to receive a request's headers.
HEADER_TIMEOUT = 10.0
#: Seconds an idle keep-alive connection is kept open.
KEEP_ALIVE = 5
#: Seconds between WebSocket pings, and to wait for the pong.
PING_INTERVAL = 20.0
PING_TIMEOUT = 20.0
#: The shortest metrics token accepted (a token is a password for the numbers).
MIN_TOKEN = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument(
        "--db", default=None, metavar="URL",
        help="SQLAlchemy database URL (default: $VARAQ_DB or a SQLite file in the user data dir)",
    )
    parser.add_argument(
        "--redis", default=None, metavar="URL",
        help="Redis shared by several server processes on one PostgreSQL database "
             "(default: $VARAQ_REDIS; see docs/deploy.md)",
    )
    parser.add_argument(
        "--bot-processes", type=int, default=None, metavar="N",
        help="processes for the Hard computer players (default: up to 2)",
    )
    parser.add_argument(
        "--secret", default=None,
        help="key that signs sessions and the daily deals (default: $VARAQ_SECRET, or one "
             "made once and kept in the user data dir)",
    )
    parser.add_argument(
        "--forwarded-allow-ips", default=None, metavar="IPS",
        help="addresses of reverse proxies whose X-Forwarded-For is trusted (see docs/deploy.md)",
    )
    parser.add_argument(
        "--header-timeout", type=float, default=HEADER_TIMEOUT, metavar="SECONDS",
        help=f"seconds a client has to send a request's headers ({HEADER_TIMEOUT:g})",
    )
    parser.add_argument(
        "--keep-alive", type=int, default=KEEP_ALIVE, metavar="SECONDS",
        help=f"seconds an idle connection is kept open ({KEEP_ALIVE})",
    )
    parser.add_argument(
        "--test-mode", action="store_true",
        help="accept test-only requests (a chosen seed or score); never on a real server",
    )
    parser.add_argument(
        "--relaxed-limits", action="store_true",
        help="lift the per-address rate limits (load tests on this machine only)",
    )
    parser.add_argument(
        "--metrics-token", default=None, metavar="TOKEN",
        help="serve /metrics to a Prometheus scrape sending 'Authorization: Bearer TOKEN' "
             f"(at least {MIN_TOKEN} characters; default: $VARAQ_METRICS_TOKEN; without one, "
             "/metrics is 404)",
    )
    parser.add_argument(
        "--log-format", default=None, choices=("auto", "json", "text"),
        help="one JSON object a line, or readable text; auto (the default, or "
             "$VARAQ_LOG_FORMAT): text on a terminal, JSON otherwise",
    )
    parser.add_argument(
        "--log-level", default=None, choices=("debug", "info", "warning", "error"),
        help="Varaq's own log level (default: $VARAQ_LOG_LEVEL or info; debug adds a line "
             "per request, socket message and command)",
    )
    parser.add_argument(
        "--pid-file", default=None, metavar="PATH",
        help="write this process's id to PATH while it serves (scripts/rolling-restart.sh "
             "finds the processes of a cluster this way)",
    )
    parser.add_argument(
        "--drop-seconds", type=float, default=None, metavar="SECONDS",
        help="seconds a person who dropped from a table of people keeps the seat before a "
             "computer player plays for them (60)",
    )


def run(args: argparse.Namespace) -> int:
    from .. import logs
    from ..service.settings import Limits, Settings
    from ..service.store import default_db_url

    try:
        logs.configure(args.log_format or os.environ.get("VARAQ_LOG_FORMAT") or "auto",
                       args.log_level or os.environ.get("VARAQ_LOG_LEVEL") or "info")
        settings = Settings.from_env(
            bot_processes=args.bot_processes,
            secret=args.secret.encode() if args.secret else None,
            redis_url=args.redis,
            metrics_token=args.metrics_token,
        )
    except ValueError as e:
        print(f"varaq serve: {e}", file=sys.stderr)
        return 2
    if settings.metrics_token is not None and len(settings.metrics_token) < MIN_TOKEN:
        print(f"varaq serve: the metrics token must be at least {MIN_TOKEN} characters",
              file=sys.stderr)
        return 2
    if args.test_mode:
        settings = settings.but(test_mode=True)
    if args.relaxed_limits:
        settings = settings.but(limits=Limits.relaxed())
    if args.drop_seconds is not None:
        if not 1 <= args.drop_seconds <= 3600:
            print("varaq serve: --drop-seconds must be between 1 and 3600", file=sys.stderr)
            return 2
        settings = settings.but(drop_seconds=args.drop_seconds)
    if not 0 < args.port < 65536:
        print(f"varaq serve: port {args.port} is out of range", file=sys.stderr)
        return 2
    try:
        sock = bind(args.host, args.port)
    except OSError as e:
        print(f"varaq serve: {e}", file=sys.stderr)
        return 2
    url = args.db or default_db_url()
    if settings.redis_url and not url.startswith("postgresql"):
        print("varaq serve: --redis shares tables between processes and needs a PostgreSQL "
              "--db (SQLite serves one process)", file=sys.stderr)
        return 2
    from .app import create_app

    try:
        app = create_app(url, settings=settings)
    except Exception as e:  # a bad URL, a database that cannot be opened
        print(f"varaq serve: {type(e).__name__}: {e}".splitlines()[0], file=sys.stderr)
        return 2
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    shown = f"[{host}]" if ":" in host else host
    print(f"Varaq is at http://{shown}:{args.port}/  (games stored in {_safe(url)})", flush=True)
    if not 0 < args.header_timeout <= 300 or not 0 < args.keep_alive <= 300:
        print("varaq serve: timeouts must be between 0 and 300 seconds", file=sys.stderr)
        return 2
    if args.pid_file:
        try:
            with open(args.pid_file, "w") as out:
                out.write(f"{os.getpid()}\n")
        except OSError as e:
            print(f"varaq serve: cannot write the pid file: {e.strerror}", file=sys.stderr)
            return 2
    try:
        serve(app, sock, args.forwarded_allow_ips, args.header_timeout, args.keep_alive)
    finally:
        if args.pid_file:
            _remove_pid_file(args.pid_file)
    return 0


def _remove_pid_file(path: str) -> None:
    """Remove the pid file if it still names this process (a restarted one may own it now)."""
    try:
        with open(path) as f:
            if f.read().strip() == str(os.getpid()):
                os.remove(path)
    except OSError:
        pass


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; a port in use is an :class:`OSError` in words."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise OSError(f"port {port} on {host} is already in use; choose another with "
                          "--port") from None
        if e.errno in (errno.EADDRNOTAVAIL, socket.EAI_NONAME):
            raise OSError(f"cannot listen on {host}: no such address here") from None
        raise OSError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    except socket.gaierror:
        sock.close()
        raise OSError(f"cannot listen on {host}: unknown host") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _server_class(base: type, app: Any) -> type:
    """uvicorn's server, stopping so that a cluster's pages move without a blind moment.

    uvicorn's own shutdown stops listening, then closes every connection at once (a
    WebSocket with 1012) and waits for the requests under way.  This one stops listening
    and lets the plain HTTP connections finish as uvicorn would, but first asks the app's
    table sockets to move to another process (:meth:`Tables.move_sockets
    <varaq.service.registry.Tables.move_sockets>`) and waits for them to go; only then does
    uvicorn's shutdown close what is left.  With no other process to move to it is
    uvicorn's shutdown exactly.
    """

    class HandingOnServer(base):  # type: ignore[misc, valid-type]
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            for server in self.servers:
                server.close()  # new connections go to the other processes from now on
            for sock in sockets or []:
                sock.close()
            for connection in list(self.server_state.connections):
                if not type(connection).__module__.startswith("uvicorn.protocols.websockets"):
                    connection.shutdown()
            tables = getattr(app.state, "tables", None)
            if tables is not None:
                try:
                    await tables.move_sockets()
                    if await tables.has_peer():  # then the pages' own sockets (presence)
                        from .friends import move_pages

                        await move_pages(app)
                except Exception:
                    log.exception("moving the sockets to another process failed")
            await super().shutdown(sockets)

    return HandingOnServer


#: The cycle collector's thresholds while serving (Python's defaults are 700, 10, 10).
GC_THRESHOLDS = (50_000, 20, 100)


def serve(
    app: Any, sock: socket.socket, forwarded_allow_ips: str | None = None,
    header_timeout: float = HEADER_TIMEOUT, keep_alive: int = KEEP_ALIVE,
) -> None:
    import uvicorn

    server = _server_class(uvicorn.Server, app)(
        config(app, forwarded_allow_ips, header_timeout, keep_alive))
    quiet_garbage_collector()
    asyncio.run(server.serve(sockets=[sock]))


def quiet_garbage_collector() -> None:
    """Fewer and shorter pauses of Python's cycle collector while serving.

    A server holding a few hundred tables has a large heap of long-lived objects, and every
    full collection walks all of it with the event loop stopped: 100-300 ms pauses, which were
    the p99 of an action's round trip at 200 tables (``benchmarks/online.py``).  What was
    imported and built before serving is moved out of the collector's sight (``gc.freeze``),
    and the young generation is collected less often, so fewer objects survive into the old
    one.  Cycles are still found; only the rhythm changes.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def config(
    app: Any, forwarded_allow_ips: str | None = None, header_timeout: float = HEADER_TIMEOUT,
    keep_alive: int = KEEP_ALIVE,
) -> Any:
    """uvicorn's configuration: every connection bounded in time and size."""
    import uvicorn

    from .http import guarded_http

    return uvicorn.Config(
        # uvicorn's lines go through the handler :func:`varaq.logs.configure` installed (no
        # logging configuration of its own), at WARNING: requests are logged by the app.
        app, log_level="warning", log_config=None, access_log=False,
        http=guarded_http(header_timeout), ws="websockets-sansio",
        timeout_keep_alive=keep_alive, ws_max_size=_ws_max_size(app),
        ws_ping_interval=PING_INTERVAL, ws_ping_timeout=PING_TIMEOUT,
        h11_max_incomplete_event_size=16 * 1024,
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips or "127.0.0.1",
        timeout_graceful_shutdown=5,
    )


def _ws_max_size(app: Any) -> int:
    # A message a little larger than the limit is read (so the app can answer "too large");
    # anything bigger is cut off by uvicorn before it is buffered.
    limit: int = app.state.settings.limits.body_bytes
    return limit * 4


def _safe(url: str) -> str:
    """The database URL without a password."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url
