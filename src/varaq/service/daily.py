"""The daily game on a server: tries, their results, and the day's leaderboard.

A try is a table of kind ``daily`` (the ``daily`` preset, Hard computer players, the person at
South) whose seed is the day's keyed seed (:func:`varaq.daily.daily_seed`), plus one row of
``daily_tries`` that keeps what the leaderboard needs: your side's points on each finished hand,
the score, the result.  That row follows the table's journal: :class:`Daily` listens to every commit
(:attr:`varaq.service.registry.Tables.commit_listeners`) and brings the row up to date when a
daily's hand is scored or its match ends, so the leaderboard is one query, never a replay of
anyone's game — and the table itself knows nothing of dailies.

- A signed-in person has **one try per date**: on its day it is *counted* (ranked), afterwards
  it is *late* (compared with the field, never ranked).  Starting again resumes the same table,
  finished or not: a finished try is reviewed, not replayed.
- A **guest** may play any day uncounted, as often as they like: each start is a new table,
  South's to whoever holds its id (the page keeps it).  A guest's try is compared with the
  field but never becomes part of it.

Every table of a day's daily starts with the same journal lines (South, the three computer
players, start, deal), whoever sits South, so the computer players' seeds — which derive from
the table's seed and version — are the same for everyone who plays the same cards.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from calendar import monthrange
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    func,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from ..daily import (
    DAILY_LEVEL,
    DAILY_RULES,
    FIRST_DAY,
    Board,
    DailyError,
    Progress,
    Try,
    check_playable,
    daily_samples,
    daily_seed,
    standings,
)
from ..rules import Rules
from ..seats import E, N, S, W
from .errors import Refusal
from .journal import Line
from .newtable import TableInfo, new_table_id
from .registry import Tables
from .seating import Seating
from .store import Base, Store, UserRow
from .table import Committed, Table

__all__ = ["DailyTryRow", "DailyTry", "Daily", "save_progress", "samples_from_env"]

log = logging.getLogger("varaq.daily")

#: Seconds a day's tries are read once for every leaderboard asked meanwhile.
BOARD_SECONDS = 2.0


class DailyTryRow(Base):
    """One try at one day's daily (migration 0003)."""

    __tablename__ = "daily_tries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: The daily's date, ``YYYY-MM-DD``.
    day: Mapped[str] = mapped_column(String(10))
    table_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tables.id", ondelete="CASCADE"), unique=True
    )
    #: The person, or ``None`` for a guest.  (day, user_id) is unique: one try per person.
    user_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    counted: Mapped[bool] = mapped_column(Boolean)
    late: Mapped[bool] = mapped_column(Boolean)
    #: Your side's (NS) points on each finished hand.
    hands: Mapped[Any] = mapped_column(JSON)
    total_ns: Mapped[int] = mapped_column(Integer)
    total_ew: Mapped[int] = mapped_column(Integer)
    finished: Mapped[bool] = mapped_column(Boolean)
    won: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    conceded: Mapped[bool] = mapped_column(Boolean)
    #: The table's version this row was written from (an older snapshot never wins).
    version: Mapped[int] = mapped_column(Integer)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        UniqueConstraint("day", "user_id", name="uq_daily_tries_day_user"),
        Index("ix_daily_tries_day", "day", "counted", "finished"),
        Index("ix_daily_tries_user", "user_id", "day"),
    )


@dataclass(frozen=True, slots=True)
class DailyTry:
    """A try's row, read."""

    day: str
    table_id: str
    user_id: int | None
    name: str
    counted: bool
    late: bool
    progress: Progress

    @property
    def key(self) -> str:
        return f"u{self.user_id}" if self.user_id is not None else self.table_id

    def entry(self) -> Try:
        p = self.progress
        return Try(
            self.key, self.name, p.hands, p.totals, p.finished, p.won, self.counted, self.late,
            person=self.user_id is not None, conceded=p.conceded,
        )


def _now() -> datetime:
    return datetime.now(UTC)


def _read(row: DailyTryRow, name: str) -> DailyTry:
    hands = tuple(int(h) for h in (row.hands or []))
    progress = Progress(hands, (row.total_ns, row.total_ew), bool(row.finished), row.won,
                        bool(row.conceded))
    return DailyTry(row.day, row.table_id, row.user_id, name, bool(row.counted), bool(row.late),
                    progress)


# -- storage (synchronous: called in threads) -------------------------------------------------


def save_progress(store: Store, table_id: str, version: int, progress: Progress) -> None:
    """Bring a try's row up to ``version`` of its table; an older snapshot changes nothing."""
    with Session(store.engine) as session, session.begin():
        session.execute(
            update(DailyTryRow)
            .where(DailyTryRow.table_id == table_id, DailyTryRow.version < version)
            .values(
                hands=list(progress.hands), total_ns=progress.totals[0],
                total_ew=progress.totals[1], finished=progress.finished, won=progress.won,
                conceded=progress.conceded, version=version, updated=_now(),
            )
        )


def _insert_try(store: Store, day: str, table: Table, user_id: int | None, counted: bool,
                late: bool) -> None:
    progress = Progress.of(table.game)
    now = _now()
    with Session(store.engine) as session, session.begin():
        session.add(DailyTryRow(
            day=day, table_id=table.id, user_id=user_id, counted=counted, late=late,
            hands=list(progress.hands), total_ns=progress.totals[0], total_ew=progress.totals[1],
            finished=progress.finished, won=progress.won, conceded=progress.conceded,
            version=table.version, created=now, updated=now,
        ))


def _try_of(store: Store, day: str, user_id: int) -> DailyTry | None:
    with Session(store.engine) as session:
        row = session.scalar(
            select(DailyTryRow).where(DailyTryRow.day == day, DailyTryRow.user_id == user_id)
        )
        return None if row is None else _read(row, "")


def _guest_try(store: Store, day: str, table_id: str) -> DailyTry | None:
    with Session(store.engine) as session:
        row = session.scalar(
            select(DailyTryRow).where(DailyTryRow.table_id == table_id, DailyTryRow.day == day,
                                      DailyTryRow.user_id.is_(None))
        )
        return None if row is None else _read(row, "Guest")


def _tries_of_day(store: Store, day: str) -> list[DailyTry]:
    """Every signed-in person's try at ``day`` (the field and the leaderboard), with names."""
    with Session(store.engine) as session:
        rows = session.execute(
            select(DailyTryRow, UserRow.name)
            .join(UserRow, UserRow.id == DailyTryRow.user_id)
            .where(DailyTryRow.day == day)
        ).all()
        return [_read(row, name) for row, name in rows]


def _month(store: Store, first: str, last: str, user_id: int | None,
           ) -> tuple[dict[str, int], dict[str, DailyTry]]:
    """For the days ``first``..``last``: how many counted tries finished, and this person's
    own try of each day."""
    with Session(store.engine) as session:
        counts = session.execute(
            select(DailyTryRow.day, func.count())
            .where(DailyTryRow.day >= first, DailyTryRow.day <= last,
                   DailyTryRow.counted.is_(True), DailyTryRow.finished.is_(True))
            .group_by(DailyTryRow.day)
        ).all()
        mine: dict[str, DailyTry] = {}
        if user_id is not None:
            for row in session.scalars(
                select(DailyTryRow).where(DailyTryRow.day >= first, DailyTryRow.day <= last,
                                          DailyTryRow.user_id == user_id)
            ):
                mine[row.day] = _read(row, "")
        return {day: int(n) for day, n in counts}, mine


# -- the service --------------------------------------------------------------------------------


def samples_from_env() -> int | None:
    """``VARAQ_DAILY_SAMPLES`` (the browser tests' server plays its dailies with one layout a
    decision, to finish quickly), else ``None``: each day's own count
    (:func:`~varaq.daily.daily_samples`)."""
    text = os.environ.get("VARAQ_DAILY_SAMPLES", "")
    if not text:
        return None
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 1000):
        raise ValueError(f"VARAQ_DAILY_SAMPLES must be a whole number from 1 to 1000, not {text!r}")
    return int(text)


def _utc_today() -> date:
    return datetime.now(UTC).date()


class Daily:
    """The daily on this server: starting and resuming tries, and reading a day's results."""

    def __init__(
        self, tables: Tables, *, samples: int | None = None,
        today: Callable[[], date] = _utc_today,
    ) -> None:
        self.tables = tables
        self.store = tables.store
        #: Layouts a card for every day's computer players; ``None``: each day's own.
        self.samples = samples
        self.today = today
        #: One start at a time in this process, so a double click cannot make two tries (the
        #: unique (day, person) row catches two processes).
        self._starting = asyncio.Lock()
        self._boards: dict[str, tuple[float, list[DailyTry]]] = {}
        tables.commit_listeners.append(self.after_commit)

    def after_commit(self, table: Table, committed: Committed) -> None:
        """A daily's hand was scored or its match ended: the try's row follows."""
        if table.info.kind != "daily":
            return
        game = table.game
        if len(game.log) > committed.hands_before or (game.is_over and not committed.was_over):
            table.spawn(self._save(table.id, table.version, Progress.of(game)))

    async def _save(self, table_id: str, version: int, progress: Progress) -> None:
        """Store a try's progress (a later version's row is never overwritten by this one)."""
        try:
            await asyncio.to_thread(save_progress, self.store, table_id, version, progress)
        except Exception as e:  # the table goes on; opening the try again brings the row up
            log.error("saving the daily try of table %s failed: %s", table_id, e)

    def check(self, day: date) -> None:
        try:
            check_playable(day, self.today())
        except DailyError as e:
            raise Refusal(404, str(e)) from None

    def info(self, day: date, *, counted: bool, late: bool) -> TableInfo:
        """A new table for ``day``'s daily: every deal and every computer player's seed come
        from the day's keyed seed."""
        try:
            seed = daily_seed(self.tables.settings.secret, day)
        except DailyError as e:
            raise Refusal(503, str(e)) from None
        options = {"date": day.isoformat(), "late": late, "counted": counted,
                   "samples": self.samples or daily_samples(day)}
        return TableInfo(new_table_id(), "daily", DAILY_LEVEL, Rules.named(DAILY_RULES), seed,
                         options=options)

    async def start(self, day: date, user_id: int | None) -> tuple[Table, bool]:
        """Open ``day``'s try for this person: their own try if they have one (``True``:
        resumed, finished or not), else a new one.  A guest (``user_id`` None) always gets a
        new, uncounted table."""
        self.check(day)
        late = day < self.today()
        if user_id is None:
            return await self._create(day, None, counted=False, late=late), False
        key = day.isoformat()
        async with self._starting:
            found = await asyncio.to_thread(_try_of, self.store, key, user_id)
            if found is not None:
                return await self._resume(found), True
            try:
                return await self._create(day, user_id, counted=not late, late=late), False
            except IntegrityError:
                # Another process opened this person's try a moment ago: that one is theirs.
                # (The table made here stays behind, unplayed, for ``varaq db prune``.)
                found = await asyncio.to_thread(_try_of, self.store, key, user_id)
                if found is None:
                    raise Refusal(503, "could not open your daily; try again") from None
                return await self._resume(found), True

    async def _create(self, day: date, user_id: int | None, *, counted: bool,
                      late: bool) -> Table:
        info = self.info(day, counted=counted, late=late)
        who = "guest" if user_id is None else f"u{user_id}"
        lines = [Line("sit", S, who=who), *(Line("sit", s, who="bot") for s in (N, E, W)),
                 Line("start"), Line("deal")]
        seats = None if user_id is None else {S: user_id}
        table = await self.tables.create(info, Seating(), lines, seats=seats)
        await asyncio.to_thread(_insert_try, self.store, day.isoformat(), table, user_id,
                                counted, late)
        self._boards.pop(day.isoformat(), None)
        return table

    async def _resume(self, found: DailyTry) -> Table:
        table = await self.tables.get(found.table_id)
        # Should a row have missed a write (a crash between a move and its row), catch up now.
        await asyncio.to_thread(save_progress, self.store, table.id, table.version,
                                Progress.of(table.game))
        return table

    async def own_try(self, day: date, user_id: int | None, guest_table: str | None,
                      ) -> DailyTry | None:
        """This person's try at ``day``: their own if signed in, else the guest table they
        hold (only a guest's table of that day: nobody reads another's try by its id)."""
        key = day.isoformat()
        if user_id is not None:
            found = await asyncio.to_thread(_try_of, self.store, key, user_id)
            if found is not None:
                return found
        if guest_table is not None:
            return await asyncio.to_thread(_guest_try, self.store, key, guest_table)
        return None

    async def board(self, day: date) -> Board:
        """``day``'s leaderboard (read again at most every :data:`BOARD_SECONDS`)."""
        key = day.isoformat()
        cached = self._boards.get(key)
        now = time.monotonic()
        if cached is None or now - cached[0] > BOARD_SECONDS:
            tries = await asyncio.to_thread(_tries_of_day, self.store, key)
            if len(self._boards) > 64:
                self._boards.clear()
            cached = self._boards[key] = (now, tries)
        return standings([t.entry() for t in cached[1]])

    async def month(self, year: int, month: int, user_id: int | None,
                    ) -> list[dict[str, Any]]:
        """The month's days that have a daily, each with its number of ranked players and this
        person's own try."""
        today = self.today()
        first = max(date(year, month, 1), FIRST_DAY)
        last = min(date(year, month, monthrange(year, month)[1]), today)
        if first > last:
            return []
        counts, mine = await asyncio.to_thread(
            _month, self.store, first.isoformat(), last.isoformat(), user_id
        )
        out = []
        for n in range(first.day, last.day + 1):
            key = date(year, month, n).isoformat()
            own = mine.get(key)
            out.append({
                "date": key, "players": counts.get(key, 0),
                "you": None if own is None else {
                    "status": "over" if own.progress.finished else "playing",
                    "won": own.progress.won, "late": own.late, "counted": own.counted,
                },
            })
        return out
