"""Live tables: the public tables of people anyone may watch, as the lobby lists them.

A host chooses whether their table is listed (``"listing": "public"``, kept in the table's
options; private is the default).  The list is read from the store — the same rows ``varaq
admin tables`` reads (:meth:`varaq.service.admin.Admin.tables`): status ``seating`` or
``playing`` — so a process lists the tables every other process of a cluster owns too.  What
the row does not hold (the score, the hand, who sits where) comes from the table itself: the
copy in this process's memory when there is one (its watchers counted as well), otherwise the
table rebuilt from its journal, kept until its version moves on.

Nothing here is made for a seat: a row holds only what any watcher may see — names, rules,
score, hand number — and its Watch link opens the table as a watcher (``/play/{id}``: a person
without a seat there reads the public facts only).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from ..engine import DEAL
from ..seats import SEAT_LETTERS
from .errors import Refusal
from .store import SeatRow, Store, TableRow, UserRow

if TYPE_CHECKING:
    from .registry import Tables
    from .table import Table

__all__ = ["LiveTables", "LIVE_LIMIT", "LIVE_FOR", "public_rows"]

#: The most tables the list shows (the most recently moved first).
LIVE_LIMIT = 30
#: Seconds one answer is kept: many lobbies asking at once cost one read of the store.
LIVE_FOR = 2.0
#: Statuses of a table that may be watched (not ``over``, not ``closed``).
LIVE_STATUSES = ("seating", "playing")


@dataclass(frozen=True, slots=True)
class PublicRow:
    """One public table as the store has it."""

    id: str
    status: str
    version: int
    #: Seat (0-3) -> the name of the person the store has there.
    names: dict[int, str]


def public_rows(store: Store, limit: int = LIVE_LIMIT) -> list[PublicRow]:
    """The public tables in play or seating, most recently moved first: one query on the
    (status, updated) index, the ``public`` option read from the options column by the
    database itself (SQLite and PostgreSQL alike), and one for the seated people's names."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(TableRow.id, TableRow.status, TableRow.version)
            .where(TableRow.status.in_(LIVE_STATUSES), TableRow.kind == "private",
                   TableRow.options["public"].as_boolean().is_(True))
            .order_by(TableRow.updated.desc()).limit(limit)
        ).all()
        names: dict[str, dict[int, str]] = {}
        ids = [r[0] for r in rows]
        if ids:
            for table_id, seat, name in connection.execute(
                select(SeatRow.table_id, SeatRow.seat, UserRow.name)
                .join(UserRow, UserRow.id == SeatRow.user_id)
                .where(SeatRow.table_id.in_(ids))
            ).all():
                names.setdefault(table_id, {})[int(seat)] = str(name)
    return [PublicRow(str(r[0]), str(r[1]), int(r[2]), names.get(r[0], {})) for r in rows]


class LiveTables:
    """The lobby's Live tables, for one server process (``GET /api/live``)."""

    def __init__(self, tables: Tables, clock: Callable[[], float] = time.monotonic) -> None:
        self.tables = tables
        self._clock = clock
        #: The last answer and when it was made.
        self._answer: tuple[float, dict[str, Any]] | None = None
        #: Tables owned elsewhere, rebuilt from the store: id -> (version, table).
        self._rebuilt: dict[str, tuple[int, Table]] = {}
        self._making: asyncio.Lock | None = None

    async def listing(self) -> dict[str, Any]:
        """``{"tables": [LIVE…]}``, at most :data:`LIVE_FOR` seconds old."""
        now = self._clock()
        if self._answer is not None and now - self._answer[0] < LIVE_FOR:
            return self._answer[1]
        if self._making is None:
            self._making = asyncio.Lock()
        async with self._making:  # of several lobbies asking at once, one reads the store
            if self._answer is not None and self._clock() - self._answer[0] < LIVE_FOR:
                return self._answer[1]
            answer = await self._make()
            self._answer = (self._clock(), answer)
            return answer

    async def _make(self) -> dict[str, Any]:
        try:
            rows = await asyncio.to_thread(public_rows, self.tables.store)
        except Exception as e:  # the database is away: say so, in one line
            raise Refusal(503, f"the live tables cannot be read now: {type(e).__name__}") from None
        out = []
        for row in rows:
            table = await self._table(row)
            if table is not None and table.status in LIVE_STATUSES:
                out.append(self.row_json(table, row))
        # Matches in play first, then the tables still seating; each most recently moved first.
        out.sort(key=lambda doc: doc["status"] != "playing")
        seen = {row.id for row in rows}
        self._rebuilt = {i: kept for i, kept in self._rebuilt.items() if i in seen}
        return {"tables": out}

    async def _table(self, row: PublicRow) -> Table | None:
        """The table of ``row``: this process's own copy, else one rebuilt from its journal
        (kept while its version stays the same)."""
        held = self.tables.held(row.id)
        if held is not None:
            return held
        kept = self._rebuilt.get(row.id)
        if kept is not None and kept[0] == row.version:
            return kept[1]
        try:
            stored = await asyncio.to_thread(self.tables.store.load_table, row.id)
            if stored is None:
                return None
            table = self.tables.rebuild(stored)
        except Refusal:  # a table that cannot be rebuilt is not listed
            return None
        self._rebuilt[row.id] = (row.version, table)
        return table

    def row_json(self, table: Table, row: PublicRow) -> dict[str, Any]:
        """LIVE: what the lobby shows of one public table — nothing any watcher could not
        see at the table itself."""
        game = table.game
        held = self.tables.held(table.id) is table
        seats = []
        for seat, occupant in enumerate(table.seating.seats):
            name = None
            if occupant.is_person and occupant.user_id is not None:
                name = row.names.get(seat) or self.tables.user_names.get(occupant.user_id)
            seats.append({"seat": SEAT_LETTERS[seat], "kind": occupant.kind,
                          "name": name or ("Player" if occupant.is_person else None)})
        watchers = None
        if held and table.online is not None:
            watchers = table.online.watchers()
        return {
            "id": table.id,
            "status": table.status,
            "seats": seats,
            "level": table.level,
            "badges": table.info.rules.badges(),
            "target": table.info.rules.target,
            "score": {"NS": game.totals[0], "EW": game.totals[1]},
            # The hand in play (1 for the first), or the last one scored between two hands.
            "hand": game.hand_no + (game.phase != DEAL),
            "watchers": watchers,
            "watch": f"/play/{table.id}",
        }
