"""The client's files, cached by browsers between visits.

Each start of the server names its static files by a hash of their contents:
``/static/<hash>/app.js``.  Those addresses never change meaning, so browsers may keep them for
a year without asking again; a new release has a new hash.  The HTML pages are served with
``no-cache`` (always checked) and name the hashed folder, and the scripts import each other by
relative paths, so a whole page loads from one consistent set of files.  Plain ``/static/…``
still works (revalidated each time) for links from outside.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

__all__ = ["content_hash", "CachedStatic", "serve_page"]


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


def serve_page(request: Request, name: str) -> Response:
    """An HTML page from the static folder, pointing at the hashed static files."""
    static: Path = request.app.state.static_dir
    page = static / name
    if not page.is_file():
        return PlainTextResponse(
            f"The Varaq page {name} is not installed (web/static/{name} is missing); "
            "the JSON API is at /api/.", status_code=503,
        )
    html = page.read_text(encoding="utf-8")
    prefix = f"/static/{request.app.state.static_hash}/"
    html = html.replace('"/static/', f'"{prefix}')
    return HTMLResponse(html, headers={"Cache-Control": "no-cache"})
