"""The rules and help pages, and the rules in words as JSON.

- ``GET /rules`` and ``GET /help``: static pages (``static/rules.html``, ``static/help.html``).
  ``/rules?spec=…`` also shows one table's rules on top.
- ``GET /api/rules?spec=<preset name or JSON spec>``: that table's rules in words,
  ``{"label", "badges", "spec", "sections": [{"heading", "text"}]}`` (the table's "Rules"
  dialog shows it).  Without ``spec``, the default table of a new game (``varaq``).
- ``GET /api/rules/examples``: the worked examples of ``docs/rules.md``, each run through the
  engine on the spot, so the page never shows a number the engine did not compute.
- ``GET /about``: About Spades (``static/about.html``): the game's history and culture, and the
  sources of Varaq's rules.
- An unknown address outside ``/api/``, ``/ws/`` and ``/static/`` answers 404 with a small page
  and a way home (``static/notfound.html``, :func:`not_found_page`); the API's own 404 stays
  one line of JSON.

Kept apart from :mod:`varaq.web.app` so the pages can grow without touching the game's routes;
``create_app`` mounts :data:`routes`.
"""

from __future__ import annotations

import functools
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..rulebook import describe, rules_from_text
from ..rules import RulesError
from ..worked_examples import worked_examples
from .static import serve_page

__all__ = ["routes", "not_found_page"]

#: The table a new game gets when the request names none (``POST /api/games`` does the same).
DEFAULT_SPEC = "varaq"
#: A spec is a preset name or a small JSON object; anything longer is not a table's rules.
MAX_SPEC = 2_000


def _static_page(name: str) -> Any:
    async def page(request: Request) -> Response:
        return serve_page(request, name)

    page.__name__ = name.replace(".", "_")
    return page


#: Addresses whose unknown paths are not pages: their 404 is the API's JSON error.
NOT_PAGES = ("/api/", "/ws/", "/static/")


def not_found_page(request: Request) -> Response | None:
    """The 404 page for an unknown address a person may have typed or followed, or ``None``
    where the answer should stay the API's JSON (under :data:`NOT_PAGES`)."""
    path = request.url.path
    if path.startswith(NOT_PAGES) or path in ("/api", "/ws", "/static"):
        return None
    response = serve_page(request, "notfound.html")
    if response.status_code != 200:
        return None  # the page is not installed: the JSON line still says what happened
    response.status_code = 404
    return response


async def rules_in_words(request: Request) -> Response:
    text = request.query_params.get("spec", DEFAULT_SPEC)
    if len(text) > MAX_SPEC:
        return JSONResponse({"error": "spec is too long"}, status_code=400)
    try:
        rules = rules_from_text(text)
    except RulesError as e:
        return JSONResponse({"error": " ".join(str(e).split())}, status_code=400)
    return JSONResponse(describe(rules))


@functools.cache
def _examples() -> dict[str, Any]:
    # The examples are fixed data and the engine is deterministic: work them out once.
    return {"examples": worked_examples()}


async def examples(request: Request) -> Response:
    return JSONResponse(_examples())


routes = [
    Route("/rules", _static_page("rules.html")),
    Route("/help", _static_page("help.html")),
    Route("/about", _static_page("about.html")),
    Route("/api/rules", rules_in_words),
    Route("/api/rules/examples", examples),
]
