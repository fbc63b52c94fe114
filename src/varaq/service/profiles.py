"""What a profile, the match history and the ratings leaderboard read: a few indexed queries
over the rows :mod:`.ratings` keeps, never a replay of anyone's game.

**Who sees what.**  A quick match, and a table its host listed under Live tables (kind
``"public"``), are public: anyone may see them in a player's history.  A private table, a
single-player game and a daily try are seen only by the people who sat there (:func:`visible`),
in the history, in the statistics and in the rating chart alike.  A
private match still moves its players' ratings — a rating is public — but a stranger sees
neither when it was played nor against whom.  Synchronous: the routes call these in a thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, case, exists, func, or_, select, true
from sqlalchemy.orm import aliased

from ..seats import SEAT_LETTERS, SEAT_NAMES
from .accounts import clean_name
from .errors import Refusal
from .ratings import (
    COUNTS,
    MODEL,
    RATED_KINDS,
    PlayedRow,
    RatingRow,
    show_rating,
)
from .store import Store, UserRow

__all__ = [
    "Player", "player_named", "visible", "profile", "history", "match", "leaderboard",
    "HISTORY_PAGE", "PUBLIC_KINDS",
]

#: Matches on one page of a history.
HISTORY_PAGE = 50
#: Kinds of match anyone may see in another person's history.
PUBLIC_KINDS = ("quick", "public")
#: Players on the leaderboard.
LEADERBOARD = 100

_KIND_WORDS = {"solo": "Single player", "daily": "Daily", "private": "Private table",
               "public": "Public table", "quick": "Quick match"}


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    name: str


def player_named(store: Store, name: str) -> Player:
    """The account of that name, or a 404 that says so in one line."""
    try:
        _, key = clean_name(name)
    except Refusal:
        key = None
    user = store.user_by_key(key) if key else None
    if user is None:
        raise Refusal(404, f"no player is called {name[:40]!r}")
    return Player(int(user.id), str(user.name))


def visible(subject: int, viewer: int | None) -> ColumnElement[bool]:
    """The condition on :class:`PlayedRow` rows of ``subject`` that ``viewer`` may see."""
    if viewer is not None and viewer == subject:
        return true()
    public = PlayedRow.kind.in_(PUBLIC_KINDS)
    if viewer is None:
        return public
    other = aliased(PlayedRow)
    sat_there = exists().where(other.table_id == PlayedRow.table_id, other.user_id == viewer)
    return or_(public, sat_there)


def _names(store: Store, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    with store.engine.connect() as connection:
        return {int(r[0]): str(r[1]) for r in connection.execute(
            select(UserRow.id, UserRow.name).where(UserRow.id.in_(list(ids))))}


def _rating_of(store: Store, user_id: int) -> dict[str, Any]:
    with store.engine.connect() as connection:
        row = connection.execute(
            select(RatingRow.mu, RatingRow.sigma, RatingRow.matches)
            .where(RatingRow.user_id == user_id)
        ).first()
    if row is None:
        return show_rating(MODEL.mu, MODEL.sigma, 0)
    return show_rating(float(row[0]), float(row[1]), int(row[2]))


def _iso(moment: datetime) -> str:
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def _statistics(store: Store, subject: int, where: ColumnElement[bool]) -> dict[str, Any]:
    """The sums over the visible matches, online (rated kinds) and the rest apart."""
    online = PlayedRow.kind.in_(RATED_KINDS)
    sums = [func.count(), func.sum(case((PlayedRow.won.is_(True), 1), else_=0)),
            *(func.sum(getattr(PlayedRow, name)) for name in COUNTS)]
    out: dict[str, Any] = {}
    with store.engine.connect() as connection:
        for group, condition in (("online", online), ("single", ~online)):
            row = connection.execute(
                select(*sums).where(PlayedRow.user_id == subject, where, condition)
            ).one()
            out[group] = _figures([int(v or 0) for v in row])
    return out


def _figures(values: Sequence[int]) -> dict[str, Any]:
    played, won, *counts = values
    c = dict(zip(COUNTS, counts, strict=True))
    hands = c["hands"]
    return {
        "played": played, "won": won, **c,
        "bags_a_hand": round(c["bags"] / hands, 2) if hands else None,
        "points_a_hand": round(c["points"] / hands, 1) if hands else None,
    }


def _chart(store: Store, subject: int, where: ColumnElement[bool]) -> list[dict[str, Any]]:
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(PlayedRow.finished, PlayedRow.mu, PlayedRow.sigma)
            .where(PlayedRow.user_id == subject, where, PlayedRow.mu.is_not(None))
            .order_by(PlayedRow.finished)
        ).all()
    return [{"finished": _iso(r[0]), "mu": round(float(r[1] or 0.0), 3),
             "sigma": round(float(r[2] or 0.0), 3)} for r in rows]


_HISTORY_COLUMNS = (
    PlayedRow.table_id, PlayedRow.kind, PlayedRow.seat, PlayedRow.finished, PlayedRow.level,
    PlayedRow.seating, PlayedRow.badges, PlayedRow.total_ns, PlayedRow.total_ew, PlayedRow.won,
    PlayedRow.conceded, PlayedRow.hands, PlayedRow.mu, PlayedRow.sigma,
)


def _entries(store: Store, rows: Sequence[Any], subject: int,
             viewer: int | None) -> list[dict[str, Any]]:
    ids = {uid for r in rows for uid in (r[5] or []) if isinstance(uid, int)}
    names = _names(store, ids)
    out = []
    for (table_id, kind, seat, finished, level, seating, badges, ns, ew, won, conceded, hands,
         mu, sigma) in rows:
        side = seat & 1
        seats = []
        for s, uid in enumerate(seating or [None] * 4):
            if isinstance(uid, int):
                seats.append({"seat": SEAT_LETTERS[s], "kind": "person",
                              "name": names.get(uid, "Player"), "you": uid == viewer,
                              "player": uid == subject})
            else:
                seats.append({"seat": SEAT_LETTERS[s], "kind": "bot",
                              "name": f"Computer ({level})", "level": level, "you": False,
                              "player": False})
        entry: dict[str, Any] = {
            "id": table_id, "kind": kind, "kind_text": _KIND_WORDS.get(kind, kind),
            "finished": _iso(finished), "seat": SEAT_LETTERS[seat],
            "seat_name": SEAT_NAMES[seat], "seats": seats, "badges": list(badges or []),
            "score": {"NS": ns, "EW": ew, "us": (ns, ew)[side], "them": (ew, ns)[side]},
            "won": won, "conceded": conceded is not None, "hands": hands,
            "rating": None if mu is None else {"mu": round(float(mu), 2),
                                               "sigma": round(float(sigma), 2)},
            "links": {
                "record": f"/api/games/{table_id}/record", "table": f"/play/{table_id}",
                "review": f"/review?table={table_id}&hand={hands}" if hands else None,
            },
        }
        out.append(entry)
    return out


def history(store: Store, subject: int, viewer: int | None, *, offset: int = 0,
            limit: int = HISTORY_PAGE) -> tuple[list[dict[str, Any]], int]:
    """A page of ``subject``'s finished matches that ``viewer`` may see, newest first, and how
    many there are in all."""
    where = and_(PlayedRow.user_id == subject, visible(subject, viewer))
    with store.engine.connect() as connection:
        total = int(connection.scalar(select(func.count()).select_from(PlayedRow)
                                      .where(where)) or 0)
        rows = connection.execute(
            select(*_HISTORY_COLUMNS).where(where)
            .order_by(PlayedRow.finished.desc(), PlayedRow.table_id).offset(offset).limit(limit)
        ).all()
    return _entries(store, rows, subject, viewer), total


def profile(store: Store, player: Player, viewer: int | None, *, offset: int = 0,
            limit: int = HISTORY_PAGE) -> dict[str, Any]:
    """``PLAYER`` of docs/protocol.md: the rating, its chart, the statistics and a page of
    the history, as ``viewer`` may see them."""
    where = visible(player.id, viewer)
    matches, total = history(store, player.id, viewer, offset=offset, limit=limit)
    return {
        "name": player.name, "own": viewer == player.id, "rating": _rating_of(store, player.id),
        "chart": _chart(store, player.id, where),
        "statistics": _statistics(store, player.id, where),
        "matches": matches, "total": total, "offset": offset,
        "more": offset + len(matches) < total,
    }


def match(store: Store, table_id: str, viewer: int | None) -> dict[str, Any]:
    """One finished match as a history shows it: to anyone for a quick match, else only to
    the people who sat there (a 403 in one line for anyone else)."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(*_HISTORY_COLUMNS, PlayedRow.user_id)
            .where(PlayedRow.table_id == table_id[:64]).order_by(PlayedRow.seat)
        ).all()
    if not rows:
        raise Refusal(404, "no finished match has that id")
    people = {int(r[-1]) for r in rows}
    if rows[0][1] not in PUBLIC_KINDS and viewer not in people:
        raise Refusal(403, "this match was not public: only the people who sat there see it")
    mine = [r for r in rows if int(r[-1]) == viewer]
    chosen = (mine or rows)[0]
    return _entries(store, [chosen[:-1]], int(chosen[-1]), viewer)[0]


def leaderboard(store: Store, limit: int = LEADERBOARD) -> list[dict[str, Any]]:
    """The rated players, best first by the low end of their range (``mu - 2·sigma``), so a
    rating resting on few matches does not top the list by luck."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(UserRow.name, RatingRow.mu, RatingRow.sigma, RatingRow.matches)
            .join(UserRow, UserRow.id == RatingRow.user_id)
            .where(UserRow.banned.is_(None))
            .order_by((RatingRow.mu - 2 * RatingRow.sigma).desc(), UserRow.name_key)
            .limit(limit)
        ).all()
    return [{"rank": i + 1, "name": str(r[0]),
             **show_rating(float(r[1]), float(r[2]), int(r[3]))} for i, r in enumerate(rows)]
