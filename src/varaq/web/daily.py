"""Routes of the daily game: the page, a day's results, starting a try, the calendar.

- ``GET /daily``, ``GET /daily/{date}``: the daily page (``static/daily.html``).
- ``GET /api/daily``: ``DAY`` for today (UTC).
- ``GET /api/daily/{date}?table=ID``: ``DAY``, that is the day, your try, the leaderboard.
- ``POST /api/daily/{date}/start``: ``201 {"id", "state", "resumed": false, ...}`` for a new
  try, or ``200`` with ``"resumed": true``: your try of that day, finished or not.
- ``GET /api/daily/month/{YYYY-MM}``: the month's days with a daily, each with its number of
  ranked players and your try.

Signed in, your try is found by your account; a guest names the table they hold with
``?table=`` (only a guest's table of that day answers).  A date after today is a 404: its
deals stay on the server until the day comes.  Nothing here sends a card or a seed: a try's
row holds points, never cards, and the game itself is read at ``/api/games/{id}`` like any
table, as South sees it.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..daily import (
    DAILY_RULES,
    FIRST_DAY,
    Board,
    DailyError,
    Result,
    Standing,
    histogram,
    parse_day,
    parse_month,
    share_line,
)
from ..rulebook import describe
from ..rules import Rules
from ..seats import S
from ..service.daily import Daily, DailyTry, samples_from_env
from ..service.errors import Refusal
from .games import body_of, tables_of
from .requests import Json, client_address
from .static import serve_page

__all__ = ["routes", "daily_of"]

#: Ranked tries listed on a leaderboard (your own is always listed as well).
BOARD_ROWS = 100
#: Late and unfinished tries listed after the ranked ones.
OTHER_ROWS = 50


def daily_of(request: Request) -> Daily:
    """The app's daily service, made on first use (it needs only the tables)."""
    state = request.app.state
    daily: Daily | None = getattr(state, "daily", None)
    if daily is None or daily.tables is not state.tables:
        try:
            samples = samples_from_env()
        except ValueError as e:
            raise Refusal(503, str(e)) from None
        daily = state.daily = Daily(state.tables, samples=samples)
    return daily


def _day(request: Request) -> date:
    try:
        day = parse_day(request.path_params["day"])
    except DailyError as e:
        raise Refusal(404, str(e)) from None
    daily_of(request).check(day)
    return day


def _guest_table(request: Request) -> str | None:
    text = request.query_params.get("table")
    if text is None or text == "":
        return None
    if not (8 <= len(text) <= 64 and text.isascii()
            and all(c.isalnum() or c in "-_" for c in text)):
        raise Refusal(400, "table must be a game's id")
    return text


def _points(value: Fraction | None) -> float | None:
    return None if value is None else round(float(value), 1)


def _row(standing: Standing, you: bool) -> dict[str, Any]:
    t = standing.entry
    return {
        "rank": standing.rank, "name": t.name, "you": you, "late": t.late,
        "status": "over" if t.finished else "playing", "won": t.won, "conceded": t.conceded,
        "totals": list(t.totals), "margin": t.margin, "hands": list(t.hands),
        "per_hand": [_points(p) for p in standing.per_hand],
        # No finished hand, nothing to compare yet.
        "against_field": _points(standing.total) if t.hands else None,
    }


def _board_json(board: Board, mine: str | None) -> dict[str, Any]:
    ranked = [_row(s, s.entry.key == mine) for s in board.ranked[:BOARD_ROWS]]
    ranked += [_row(s, True) for s in board.ranked[BOARD_ROWS:] if s.entry.key == mine]
    others = [_row(s, s.entry.key == mine) for s in board.others[:OTHER_ROWS]]
    others += [_row(s, True) for s in board.others[OTHER_ROWS:] if s.entry.key == mine]
    return {
        "players": len(board.ranked),
        "playing": sum(1 for s in board.others if s.entry.counted and not s.entry.finished),
        "averages": [_points(a) for a in board.averages],
        "ranked": ranked,
        "others": others,
        "distribution": histogram([s.total for s in board.ranked]),
    }


def _you_json(day: date, own: DailyTry, board: Board) -> dict[str, Any]:
    p = own.progress
    standing = board.compare(own.entry())
    compared = any(a is not None for a in board.averages[:len(p.hands)])
    share = None
    if p.finished:
        result = Result(p.totals, len(p.hands), bool(p.won), p.conceded, own.late)
        share = share_line(day, result, standing.total if compared else None)
    return {
        "id": own.table_id, "status": "over" if p.finished else "playing",
        "counted": own.counted, "late": own.late, "guest": own.user_id is None,
        "hands": list(p.hands), "totals": list(p.totals), "won": p.won, "conceded": p.conceded,
        "per_hand": [_points(x) for x in standing.per_hand],
        "against_field": _points(standing.total) if compared else None,
        "rank": standing.rank,
        "beat": board.beaten(standing) if p.finished else None,
        "share": share,
    }


def _rules_json() -> dict[str, Any]:
    """The daily's rules for the page's own guide: the preset's name, its target, and each rule
    in the words of the rules page (:func:`varaq.rulebook.describe`), written from the preset's
    values, so the guide cannot quote a number the table does not play."""
    rules = Rules.named(DAILY_RULES)
    described = describe(rules)
    return {
        "label": described["label"],
        "target": rules.target,
        "sections": {s["heading"]: s["text"] for s in described["sections"]},
    }


async def _day_json(request: Request, day: date) -> dict[str, Any]:
    daily = daily_of(request)
    user_id: int | None = request.app.state.identity.user_id(request)
    own = await daily.own_try(day, user_id, _guest_table(request))
    board = await daily.board(day)
    mine = own.key if own is not None else None
    today = daily.today()
    return {
        "date": day.isoformat(), "today": today.isoformat(), "first": FIRST_DAY.isoformat(),
        "late": day < today, "signed_in": user_id is not None,
        "you": None if own is None else _you_json(day, own, board),
        "board": _board_json(board, mine),
        "rules": _rules_json(),
    }


# -- routes -----------------------------------------------------------------------------------


async def page(request: Request) -> Response:
    return serve_page(request, "daily.html")


async def today(request: Request) -> Response:
    daily = daily_of(request)
    return Json(await _day_json(request, daily.today()))


async def day(request: Request) -> Response:
    return Json(await _day_json(request, _day(request)))


async def start(request: Request) -> Response:
    await body_of(request, optional=True)
    the_day = _day(request)
    await tables_of(request).limits.hit("create", client_address(request))
    user_id: int | None = request.app.state.identity.user_id(request)
    table, resumed = await daily_of(request).start(the_day, user_id)
    options = table.info.options
    return Json({
        "id": table.id, "date": the_day.isoformat(), "resumed": resumed,
        "counted": bool(options.get("counted")), "late": bool(options.get("late")),
        "state": table.state(S),
    }, status_code=200 if resumed else 201)


async def month(request: Request) -> Response:
    try:
        year, number = parse_month(request.path_params["month"])
    except DailyError as e:
        raise Refusal(404, str(e)) from None
    daily = daily_of(request)
    user_id: int | None = request.app.state.identity.user_id(request)
    return Json({
        "month": f"{year:04d}-{number:02d}", "today": daily.today().isoformat(),
        "first": FIRST_DAY.isoformat(), "days": await daily.month(year, number, user_id),
    })


routes: list[BaseRoute] = [
    Route("/daily", page),
    Route("/daily/{day}", page),
    Route("/api/daily", today),
    Route("/api/daily/month/{month}", month),
    Route("/api/daily/{day}", day),
    Route("/api/daily/{day}/start", start, methods=["POST"]),
]
