"""The client's files, cached by browsers between visits.

Each start of the server names its static files by a hash of their contents:
``/static/<hash>/app.js``.  Those addresses never change meaning, so browsers may keep them for
a year without asking again; a new release has a new hash.  The HTML pages are served with
``no-cache`` (always checked) and name the hashed folder, and the scripts import each other by
relative paths, so a whole page loads from one consistent set of files.  Plain ``/static/…``
still works (revalidated each time) for links from outside.

The HTML pages live apart, in ``web/html``, and are served only at their own addresses
(``/``, ``/rules``…) by :func:`serve_page`, never as files.  Every page's ``<head>`` opens and
closes with the same lines (the character set, the viewport, the theme colours, the icons, the
manifest, the shared styles and the installed app's script): they are written once, in
``html/parts/head.html`` (read when the app is made), and :func:`page_response` puts them into
each page, so a page's file holds only what is its own (its title, description, styles and
scripts).  A page's file alone is not a whole page, which is why it is not under ``/static/``.

The installed app (a phone's home screen) adds ``/sw.js``, the service worker, whose cache is
named after this build, and ``/offline.html``, the page it shows without a connection.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from .. import __version__

__all__ = ["content_hash", "CachedStatic", "serve_page", "pwa_routes", "shell_files",
           "module_imports", "preload_modules", "shared_head", "with_shared_head", "page_response"]


def content_hash(folder: Path) -> str:
    """A short hash of every file under ``folder`` (names and contents)."""
    digest = hashlib.sha256()
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


class CachedStatic(StaticFiles):
    """Static files with a ``Cache-Control`` header: ``immutable`` under the hashed prefix,
    ``no-cache`` (revalidate with the ETag) otherwise."""

    def __init__(self, *, directory: Path, immutable: bool) -> None:
        super().__init__(directory=directory, check_dir=False)
        self.cache_control = (
            "public, max-age=31536000, immutable" if immutable else "no-cache"
        )

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result,
                      scope: Scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        return response


#: A static ``import … from "./x.js"`` (or ``import "./x.js"``) at the start of a line; type
#: comments such as ``{import("./store.js").State}`` are not imports.
_IMPORT = re.compile(r'^import\b[^;]*?["\'](\./[\w.-]+\.js)["\']', re.MULTILINE)
#: A page's module script under the static folder.
_MODULE_SCRIPT = re.compile(r'<script type="module" src="/static/([\w.-]+\.js)"></script>')


def module_imports(folder: Path) -> dict[str, tuple[str, ...]]:
    """Each script of ``folder`` and the scripts it imports directly, by file name."""
    graph: dict[str, tuple[str, ...]] = {}
    for path in sorted(folder.glob("*.js")):
        found = _IMPORT.findall(path.read_text(encoding="utf-8"))
        graph[path.name] = tuple(dict.fromkeys(name[2:] for name in found))
    return graph


def preload_modules(html: str, graph: dict[str, tuple[str, ...]]) -> str:
    """The page with a ``<link rel="modulepreload">`` for every script its module scripts
    import, however deep, placed before the first of them.

    Without the links a browser learns of ``store.js`` only once ``app.js`` has arrived and
    been parsed, of ``cards.js`` only after the script that imports it, and so on: the home
    page fetched its 27 scripts in three rounds, a round trip each, which a phone on a slow
    network feels.  With them every script is asked for at once."""
    entries = _MODULE_SCRIPT.findall(html)
    if not entries:
        return html
    seen: dict[str, None] = {}
    todo = [dep for entry in entries for dep in graph.get(entry, ())]
    while todo:
        name = todo.pop(0)
        if name in seen or name in entries:
            continue
        seen[name] = None
        todo.extend(graph.get(name, ()))
    if not seen:
        return html
    links = "".join(f'<link rel="modulepreload" href="/static/{name}">\n  ' for name in seen)
    first = html.index(f'<script type="module" src="/static/{entries[0]}">')
    return html[:first] + links + html[first:]


#: The lines every page's head shares, under the pages folder (``web/html``).
HEAD_PART = "parts/head.html"
#: The line of :data:`HEAD_PART` that stands for a page's own lines: those above it open each
#: page's head (the character set must come within its first bytes), those below close it.
_PAGE_LINES = "  <!-- the page's own lines -->\n"


def shared_head(pages: Path) -> str | None:
    """The shared head lines of ``pages`` (:data:`HEAD_PART`), read once when the app is made
    rather than at every page; ``None`` where they are not installed."""
    part = pages / HEAD_PART
    return part.read_text(encoding="utf-8") if part.is_file() else None


def with_shared_head(html: str, part: str) -> str:
    """The page with the shared head lines of ``part`` around its own ``<head>`` lines."""
    opening, closing = part.split(_PAGE_LINES)
    start = html.index("<head>\n") + len("<head>\n")
    end = html.index("</head>")
    return html[:start] + opening + html[start:end] + closing + html[end:]


def serve_page(request: Request, name: str) -> Response:
    """An HTML page of the pages folder (``web/html``), made whole by :func:`page_response`."""
    page = request.app.state.pages_dir / name
    if not page.is_file():
        return _not_installed(name)
    return page_response(request, page.read_text(encoding="utf-8"))


def page_response(request: Request, html: str, status_code: int = 200) -> Response:
    """A page's own HTML made whole: the shared head put in, every script it imports preloaded,
    and the static addresses pointed at this build's hashed folder.  The pages of the pages
    folder and those written by the server (the players' pages) go through it alike."""
    part: str | None = request.app.state.page_head
    if part is None:
        return _not_installed(HEAD_PART)
    html = with_shared_head(html, part)
    html = preload_modules(html, request.app.state.static_modules)
    prefix = f"/static/{request.app.state.static_hash}/"
    html = html.replace('"/static/', f'"{prefix}')
    return HTMLResponse(html, status_code=status_code, headers={"Cache-Control": "no-cache"})


def _not_installed(name: str) -> Response:
    return PlainTextResponse(
        f"The Varaq page {name} is not installed (web/html/{name} is missing); "
        "the JSON API is at /api/.", status_code=503,
    )


# -- the installed app: the service worker and the offline page ------------------------------

#: Files of the static folder the service worker keeps for the app to open without waiting:
#: the styles, scripts, icons and the manifest (the pages themselves always come fresh).
SHELL_SUFFIXES = (".css", ".js", ".svg", ".png", ".webmanifest")
#: The line of ``sw.js`` the server rewrites with this build's cache name and shell.
_BUILD_LINE = re.compile(r"^const BUILD = .*;$", re.MULTILINE)


def shell_files(folder: Path, static_hash: str) -> list[str]:
    """The app shell's addresses: the offline page, and every static file the pages load,
    under the hashed prefix (which never changes meaning, so a cached copy is never stale)."""
    names = sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*")
        if p.is_file() and p.suffix in SHELL_SUFFIXES and p.name != "sw.js"
    )
    return ["/offline.html", *(f"/static/{static_hash}/{name}" for name in names)]


async def service_worker(request: Request) -> Response:
    """``/sw.js``: the service worker, with this deploy's cache name written in.

    The name joins Varaq's version and the static files' hash, so a deploy that changes any
    file installs a new worker, which fills a new cache and deletes the old one.  Served from
    the root (its scope is the whole site) and never cached, so a browser sees a new build on
    its next visit.
    """
    static: Path = request.app.state.static_dir
    source = static / "sw.js"
    if not source.is_file():
        return PlainTextResponse("web/static/sw.js is missing", status_code=404)
    static_hash: str = request.app.state.static_hash
    build = {
        "cache": f"varaq-{__version__}-{static_hash}",
        "shell": shell_files(static, static_hash),
    }
    text = _BUILD_LINE.sub(lambda _: f"const BUILD = {json.dumps(build)};",
                           source.read_text(encoding="utf-8"), count=1)
    return Response(text, media_type="text/javascript", headers={
        "Cache-Control": "no-cache", "Service-Worker-Allowed": "/",
    })


async def offline_page(request: Request) -> Response:
    """``/offline.html``: what the service worker shows when a page cannot be fetched."""
    return serve_page(request, "offline.html")


#: Mounted by :func:`varaq.web.app.create_app`.
pwa_routes = [
    Route("/sw.js", service_worker),
    Route("/offline.html", offline_page),
]
