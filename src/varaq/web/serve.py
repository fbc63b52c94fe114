"""``varaq serve``: the web table on uvicorn, with SQLite in the user's data directory.

Open the printed address, press "New game", and play South.  ``--db`` takes any SQLAlchemy URL
(also ``VARAQ_DB``); ``VARAQ_PACE`` scales the computer players' pauses (0 = none).
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument(
        "--db", default=None, metavar="URL",
        help="SQLAlchemy database URL (default: $VARAQ_DB or a SQLite file in the user data dir)",
    )
    parser.add_argument(
        "--bot-processes", type=int, default=None, metavar="N",
        help="processes for the Hard computer players (default: up to 2)",
    )


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..service.store import default_db_url
    from ..service.tables import Pace
    from .app import create_app

    try:
        pace = Pace.from_env()
    except ValueError as e:
        print(f"varaq serve: {e}", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"varaq serve: port {args.port} is out of range", file=sys.stderr)
        return 2
    url = args.db or default_db_url()
    app = create_app(url, pace=pace, bot_processes=args.bot_processes)
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    shown = f"[{host}]" if ":" in host else host
    print(f"Varaq is at http://{shown}:{args.port}/  (games stored in {_safe(url)})", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _safe(url: str) -> str:
    """The database URL without a password."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url
