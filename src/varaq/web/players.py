"""Players: the ratings leaderboard, a player's profile and match history, one finished match.

| route | answer |
|---|---|
| ``GET /api/ratings`` | ``{"players": [RATED], "provisional_below", "computer_players"}`` |
| ``GET /api/players/{name}?offset=N`` | ``PLAYER`` (docs/protocol.md, "Ratings and profiles") |
| ``GET /api/matches/{id}`` | one finished match as a history lists it (403: not yours) |
| ``GET /players`` | the leaderboard as a page |
| ``GET /players/{name}?page=N`` | the profile as a page |

The pages are rendered here, on the server, as plain HTML with the rating chart drawn as an
inline SVG: they need no script and no network beyond this server, and what a stranger may
see is decided by the same queries as the JSON (:mod:`varaq.service.profiles`).  Like every
page they get the shared head (:func:`varaq.web.static.page_response`): the icons, the
manifest, the theme colours and the installed app's script, which only adds the offline
banner; the pages work without it.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..service import profiles
from ..service.errors import Refusal
from ..service.ratings import BOT_RATINGS, PROVISIONAL
from .games import tables_of
from .requests import Json, client_address, query_number
from .static import page_response

__all__ = ["routes", "rating_chart", "profile_page"]


def _viewer(request: Request) -> int | None:
    user: int | None = request.app.state.identity.user_id(request)
    return user


async def _counted(request: Request) -> None:
    await tables_of(request).limits.hit("read", client_address(request))


def _offset(request: Request) -> int:
    return min(query_number(request.query_params.get("offset"), "offset") or 0, 10**7)


# -- JSON -------------------------------------------------------------------------------------


async def ratings(request: Request) -> Response:
    await _counted(request)
    store = tables_of(request).store
    players = await asyncio.to_thread(profiles.leaderboard, store)
    return Json({
        "players": players, "provisional_below": PROVISIONAL,
        "computer_players": {level: {"mu": mu, "sigma": sigma}
                             for level, (mu, sigma) in BOT_RATINGS.items()},
    })


async def player(request: Request) -> Response:
    await _counted(request)
    store = tables_of(request).store
    name = request.path_params["name"]
    offset = _offset(request)
    viewer = _viewer(request)

    def read() -> dict[str, Any]:
        return profiles.profile(store, profiles.player_named(store, name), viewer,
                                offset=offset)

    return Json(await asyncio.to_thread(read))


async def one_match(request: Request) -> Response:
    await _counted(request)
    store = tables_of(request).store
    doc = await asyncio.to_thread(profiles.match, store, request.path_params["table_id"],
                                  _viewer(request))
    return Json(doc)


# -- pages ------------------------------------------------------------------------------------


def rating_chart(points: list[dict[str, Any]], name: str, width: int = 640,
                 height: int = 200) -> str:
    """The rating after each rated match as an inline SVG: the estimate as a line, the range
    it is believed to lie in (``mu ± 2·sigma``) as a band, with a title and a description for
    screen readers.  No script, no library."""
    if not points:
        return '<p class="muted">No rated matches yet: the chart starts with the first.</p>'
    # The scale and the "first"/"latest" words are HTML beside the drawing, not SVG text:
    # the drawing stretches to its box, and text inside it would stretch with it.
    pad_l, pad_r, pad_t, pad_b = 2, 8, 8, 2
    lows = [p["mu"] - 2 * p["sigma"] for p in points]
    highs = [p["mu"] + 2 * p["sigma"] for p in points]
    top, bottom = max(highs), min(lows)
    if top - bottom < 1:
        top, bottom = top + 0.5, bottom - 0.5
    inner_w, inner_h = width - pad_l - pad_r, height - pad_t - pad_b
    step = inner_w / max(len(points) - 1, 1)

    def x(i: int) -> float:
        return pad_l + (i * step if len(points) > 1 else inner_w / 2)

    def y(value: float) -> float:
        return float(pad_t + (top - value) / (top - bottom) * inner_h)

    line = " ".join(f"{x(i):.1f},{y(p['mu']):.1f}" for i, p in enumerate(points))
    # One match is one x: its band is a bar a few units wide, else it has no area to show.
    # The dots are round caps of zero-length lines with a stroke that does not scale: the
    # chart stretches to its box (preserveAspectRatio="none"), and a circle would turn oval.
    if len(points) == 1:
        left, right = x(0) - 6, x(0) + 6
        band = (f"{left:.1f},{y(highs[0]):.1f} {right:.1f},{y(highs[0]):.1f} "
                f"{right:.1f},{y(lows[0]):.1f} {left:.1f},{y(lows[0]):.1f}")
    else:
        band = " ".join(
            [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(highs)]
            + [f"{x(i):.1f},{y(v):.1f}" for i, v in reversed(list(enumerate(lows)))])
    first, last = points[0], points[-1]
    desc = (f"1 rated match: {first['mu']:.1f}, believed to lie within ±"
            f"{2 * first['sigma']:.1f}." if len(points) == 1 else
            f"{len(points)} rated matches: from {first['mu']:.1f} after the first to "
            f"{last['mu']:.1f} after the last, with the range narrowing from ±"
            f"{2 * first['sigma']:.1f} to ±{2 * last['sigma']:.1f}.")
    dots = "" if len(points) > 60 else "".join(
        f'<line x1="{x(i):.1f}" y1="{y(p["mu"]):.1f}" x2="{x(i):.1f}" '
        f'y2="{y(p["mu"]):.1f}" class="chart-dot"/>'
        for i, p in enumerate(points))
    return (
        f'<div class="chart-frame"><div class="chart-scale" aria-hidden="true">'
        f'<span>{top:.0f}</span><span>{bottom:.0f}</span></div>'
        f'<svg class="rating-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="chart-title chart-desc" preserveAspectRatio="none">'
        f'<title id="chart-title">Rating of {escape(name)}, match by match</title>'
        f'<desc id="chart-desc">{escape(desc)}</desc>'
        f'<line x1="{pad_l}" y1="{pad_t + inner_h}" x2="{width - pad_r}" '
        f'y2="{pad_t + inner_h}" class="chart-axis"/>'
        f'<line x1="{pad_l}" y1="{pad_t}" x2="{pad_l}" y2="{pad_t + inner_h}" '
        f'class="chart-axis"/>'
        f'<polygon points="{band}" class="chart-band"/>'
        f'<polyline points="{line}" class="chart-line" fill="none"/>{dots}</svg>'
        f'<div class="chart-foot" aria-hidden="true"><span>first</span><span>latest</span>'
        f'</div></div>'
    )


def _page(request: Request, title: str, body: str, status: int = 200) -> Response:
    html = (
        '<!doctype html>\n<html lang="en">\n<head>\n'
        f'  <title>{escape(title)} · Varaq</title>\n'
        '  <link rel="stylesheet" href="/static/pages.css">\n'
        '  <link rel="stylesheet" href="/static/player.css">\n</head>\n'
        '<body class="doc-page">\n<header class="topbar">\n'
        '<a class="brand" href="/" aria-label="Varaq home"><span class="brand-mark" '
        'aria-hidden="true">♠</span> Varaq</a>\n'
        '<nav class="page-nav" aria-label="Pages"><a href="/">Play</a>'
        '<a href="/players">Players</a><a href="/rules">Rules</a>'
        '<a href="/help" class="wide-only">Help</a></nav>\n</header>\n'
        f'<main class="page player-page">\n{body}\n</main>\n</body>\n</html>\n'
    )
    return page_response(request, html, status)


def _rating_html(rating: dict[str, Any]) -> str:
    if rating["matches"] == 0:
        return ('<p class="rating-line">Not rated yet: a rating starts with the first '
                'finished match of people.</p>')
    note = (f' <span class="provisional">Provisional: {rating["matches"]} of {PROVISIONAL} '
            'matches</span>' if rating["provisional"] else
            f' <span class="muted">{rating["matches"]} rated matches</span>')
    return (f'<p class="rating-line">Rating <strong>{rating["mu"]:.1f}</strong> '
            f'<span class="rating-range">(somewhere between {rating["low"]:.1f} and '
            f'{rating["high"]:.1f})</span>{note}</p>')


def _stats_html(heading: str, s: dict[str, Any]) -> str:
    def share(part: int, whole: int) -> str:
        return f"{part} of {whole}" if whole else "none"

    rows = [
        ("Matches played", str(s["played"])), ("Matches won", share(s["won"], s["played"])),
        ("Hands", str(s["hands"])),
        ("Contracts made", share(s["made"], s["contracts"])),
        ("Contracts set", share(s["set"], s["contracts"])),
        ("Nils made", share(s["nils_made"], s["nils"])),
        ("Blind nils made", share(s["blind_nils_made"], s["blind_nils"])),
        ("Bags a hand", "–" if s["bags_a_hand"] is None else f'{s["bags_a_hand"]:.2f}'),
        ("Points a hand", "–" if s["points_a_hand"] is None else
         f'{s["points_a_hand"]:.1f}'.replace("-", "−")),
    ]
    items = "".join(f"<div><dt>{escape(k)}</dt><dd>{escape(v)}</dd></div>" for k, v in rows)
    return f'<section class="player-stats"><h2>{escape(heading)}</h2><dl>{items}</dl></section>'


def _when(iso: str) -> str:
    moment = datetime.fromisoformat(iso)
    return f'<time datetime="{escape(iso)}">{moment:%Y-%m-%d %H:%M} UTC</time>'


def _points(total: int) -> str:
    """A score as the score sheet writes it: a minus sign, not a hyphen ("62–−60", never the
    "62–-60" that reads like a range)."""
    return f"−{-total}" if total < 0 else str(total)


def _history_html(doc: dict[str, Any], page: int, per_page: int) -> str:
    matches = doc["matches"]
    if not matches:
        return ('<section><h2>Match history</h2><p class="muted">No finished matches to show.'
                '</p></section>')
    rows = []
    for m in matches:
        seats = ", ".join(
            f'{s["seat"]} {escape(s["name"])}' if s["kind"] == "bot" else
            f'{s["seat"]} <a href="/players/{quote(s["name"])}">{escape(s["name"])}</a>'
            for s in m["seats"])
        badges = "".join(f"<li>{escape(b)}</li>" for b in m["badges"])
        score = m["score"]
        result = ("Won" if m["won"] else "Lost" if m["won"] is not None else "Drawn") + \
            (" (conceded)" if m["conceded"] else "")
        links = [f'<a href="{escape(m["links"]["table"])}">Score sheet</a>',
                 f'<a href="{escape(m["links"]["record"])}" download>Record</a>']
        if m["links"]["review"]:
            links.append(f'<a href="{escape(m["links"]["review"])}">Review</a>')
        rows.append(
            f'<tr><td>{_when(m["finished"])}</td><td>{escape(m["kind_text"])}</td>'
            f'<td>{seats}</td><td><ul class="badges">{badges}</ul></td>'
            f'<td class="score">{_points(score["us"])}–{_points(score["them"])}</td>'
            f'<td>{result}</td>'
            f'<td class="links">{" · ".join(links)}</td></tr>')
    pager = []
    if page > 1:
        pager.append(f'<a href="?page={page - 1}" rel="prev">Newer</a>')
    if doc["more"]:
        pager.append(f'<a href="?page={page + 1}" rel="next">Older</a>')
    first = doc["offset"] + 1
    return (
        '<section><h2>Match history</h2><div class="table-scroll" tabindex="0" role="region" '
        'aria-label="Match history"><table class="match-list">'
        f'<caption>Matches {first}–{doc["offset"] + len(matches)} of {doc["total"]}, newest '
        'first; scores are the player\'s side first</caption><thead><tr>'
        '<th scope="col">Finished</th><th scope="col">Match</th><th scope="col">Seats</th>'
        '<th scope="col">Rules</th><th scope="col">Score</th><th scope="col">Result</th>'
        '<th scope="col">Open</th></tr></thead><tbody>' + "".join(rows) +
        '</tbody></table></div>' +
        (f'<nav class="pager" aria-label="More matches">{" ".join(pager)}</nav>'
         if pager else "") + '</section>'
    )


def profile_page(request: Request, doc: dict[str, Any], page: int) -> Response:
    """The profile ``doc`` (:func:`varaq.service.profiles.profile`) as a page."""
    name = doc["name"]
    stats = doc["statistics"]
    parts = [f"<h1>{escape(name)}</h1>", _rating_html(doc["rating"]),
             f'<figure class="chart">{rating_chart(doc["chart"], name)}'
             '<figcaption class="muted">The line is the rating after each rated match; the '
             'band is the range it is believed to lie in.</figcaption></figure>',
             _stats_html("Online matches", stats["online"])]
    if doc["own"]:
        parts.append(_stats_html("Single player and daily", stats["single"]))
        parts.append(_friends_html())
    else:
        parts.append('<p class="muted">Private tables are shown only to the people who sat '
                     'there.</p>')
    parts.append(_history_html(doc, page, profiles.HISTORY_PAGE))
    return _page(request, name, "\n".join(parts))


def _friends_html() -> str:
    """The Friends panel's place on one's own profile: ``friendspage.js`` fills it (its
    addresses are pointed at this build's files with the rest of the page's)."""
    return ('<link rel="stylesheet" href="/static/friends.css">'
            '<section class="friends" id="friends" hidden></section>'
            '<script type="module" src="/static/friendspage.js"></script>')


def _refusal_page(request: Request, refusal: Refusal) -> Response:
    return _page(request, "Players", f'<h1>Players</h1><p class="page-error" role="alert">'
                 f'{escape(str(refusal))}</p>', status=refusal.status)


async def profile_html(request: Request) -> Response:
    await _counted(request)
    store = tables_of(request).store
    try:
        page = max(query_number(request.query_params.get("page"), "page") or 1, 1)
    except Refusal as e:
        return _refusal_page(request, e)
    viewer = _viewer(request)
    name = request.path_params["name"]

    def read() -> dict[str, Any]:
        return profiles.profile(store, profiles.player_named(store, name), viewer,
                                offset=(page - 1) * profiles.HISTORY_PAGE)

    try:
        doc = await asyncio.to_thread(read)
    except Refusal as e:
        return _refusal_page(request, e)
    return profile_page(request, doc, page)


async def leaderboard_html(request: Request) -> Response:
    await _counted(request)
    players = await asyncio.to_thread(profiles.leaderboard, tables_of(request).store)
    rows = "".join(
        f'<tr><td>{p["rank"]}</td><td><a class="player-link" href="/players/{quote(p["name"])}">'
        f'{escape(p["name"])}</a></td><td>{p["mu"]:.1f}</td>'
        f'<td>{p["low"]:.1f}–{p["high"]:.1f}</td><td>{p["matches"]}'
        f'{" <span class=provisional>provisional</span>" if p["provisional"] else ""}</td></tr>'
        for p in players)
    bots = ", ".join(f"{level} {mu:.0f}" for level, (mu, _) in BOT_RATINGS.items())
    body = (
        '<h1>Ratings</h1><p class="lede">Every finished match of people moves the rating of '
        'everyone at it, partners and opponents alike. A rating is provisional until '
        f'{PROVISIONAL} matches and is shown with the range it is believed to lie in. '
        f'Computer players count at a fixed rating for their level ({escape(bots)}).</p>'
        + ('<div class="table-scroll" tabindex="0" role="region" aria-label="Ratings">'
           '<table class="match-list"><caption>Players, best first by '
           'the low end of their range</caption><thead><tr><th scope="col">#</th>'
           '<th scope="col">Player</th><th scope="col">Rating</th><th scope="col">Range</th>'
           '<th scope="col">Matches</th></tr></thead><tbody>' + rows + '</tbody></table></div>'
           if players else '<p class="muted">Nobody is rated yet.</p>')
    )
    return _page(request, "Ratings", body)


routes: list[BaseRoute] = [
    Route("/api/ratings", ratings),
    Route("/api/players/{name}", player),
    Route("/api/matches/{table_id}", one_match),
    Route("/players", leaderboard_html),
    Route("/players/{name}", profile_html),
]
