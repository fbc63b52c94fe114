"""Friends: following people by name, blocking them, inviting them to a table, and who is on.

**Following** is one-sided and asks nobody's leave, so it shows little: whether the person is
online, and whether they sit at a table — which table only when anyone may see it anyway (a
quick match, or a table its host listed as public).  **Blocking** is the blocker's shield:
the blocked person cannot take a seat at a table the blocker sits at (the join handler asks
:func:`blocked_by`), cannot invite the blocker, cannot follow them; a block also ends both
follows between the two and drops the invitations either had sent the other.

**Invitations** are rows that lapse after :data:`INVITE_MINUTES`: the invited person sees them
on the home page (on whatever process serves them, after a reload or live over their page's
socket) and joins with one press — the join is the table's own join command, so every rule of
seating (a block included) is checked there once more.

**Who is online** is the ``presence`` table: each process writes, every
:data:`PRESENCE_BEAT` seconds, one row per person who has a page of this site open with it
(:class:`Hub`, the ``/ws/me`` socket).  A row not refreshed for :data:`PRESENCE_FRESH`
seconds counts for nothing, so a process that died stops saying anyone is online without
anyone cleaning up after it.  Every process of a cluster reads the same rows; no Redis needed.

The functions that touch the database are synchronous: the routes call them in a thread.

>>> clean_answer("dismiss")
'dismissed'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy import (
    DateTime,
    ForeignKey,
    Integer,
    String,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Mapped, mapped_column

from .errors import Refusal
from .profiles import PUBLIC_KINDS, Player, player_named
from .store import Base, SeatRow, Store, TableRow, UserRow

if TYPE_CHECKING:
    from .table import Table

__all__ = [
    "FollowRow", "BlockRow", "InviteRow", "PresenceRow", "Hub", "follow", "unfollow", "block",
    "unblock", "blocked_by", "panel", "invite", "invites_for", "dismiss", "invite_to_join",
    "joined", "table_for_invites", "clean_answer", "online", "is_public", "invites_since",
    "newest_invite", "write_presence", "write_one", "prune_presence", "INVITE_MINUTES",
    "PRESENCE_FRESH",
    "PRESENCE_BEAT", "MAX_FOLLOWING", "MAX_BLOCKED", "MAX_SENT",
]

log = logging.getLogger("varaq.friends")

#: Minutes an invitation stands before it lapses.
INVITE_MINUTES = 30
#: Seconds between two writes of this process's presence rows.
PRESENCE_BEAT = 10.0
#: Seconds a presence row counts after it was written (three beats: one late write is fine).
PRESENCE_FRESH = 30.0
#: Seconds between two looks for invitations made by other processes.
INVITE_POLL = 2.0
#: People one person may follow, and block (a list longer than this is not a friends list).
MAX_FOLLOWING = 200
MAX_BLOCKED = 500
#: Invitations one person may have standing at once (so nobody can flood a stranger's page).
MAX_SENT = 12
#: A seat at a table that has not moved for this long does not count as "at a table".
TABLE_STALE = timedelta(hours=6)
#: Kinds of table a person may invite to: a private table (a quick match is seated by the
#: queue, a single-player game and a daily have no seat for anyone else).
INVITE_KINDS = ("private",)
#: Statuses of a table people are at.
LIVE = ("seating", "playing")


class FollowRow(Base):
    """``user_id`` follows ``friend_id`` (migration 0008)."""

    __tablename__ = "follows"

    user_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    friend_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class BlockRow(Base):
    """``user_id`` blocked ``blocked_id`` (migration 0008)."""

    __tablename__ = "blocks"

    user_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class InviteRow(Base):
    """An invitation from ``from_id`` to ``to_id`` to sit at ``table_id`` (migration 0008)."""

    __tablename__ = "invites"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    from_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"))
    to_id: Mapped[int] = mapped_column(Integer, ForeignKey("users.id", ondelete="CASCADE"))
    table_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tables.id", ondelete="CASCADE"))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: When it was joined or dismissed (null: it still stands until ``expires``).
    answered: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: ``joined``, ``dismissed``, or ``dropped`` (a block ended it).
    answer: Mapped[str | None] = mapped_column(String(16), nullable=True)


class PresenceRow(Base):
    """``sockets`` pages of ``user_id`` open with the process ``node``, as of ``seen``."""

    __tablename__ = "presence"

    user_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    node: Mapped[str] = mapped_column(String(32), primary_key=True)
    sockets: Mapped[int] = mapped_column(Integer)
    seen: Mapped[datetime] = mapped_column(DateTime(timezone=True))


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _ms(moment: datetime) -> int:
    return int(_aware(moment).timestamp() * 1000)


def _other(store: Store, me: int, name: object) -> Player:
    """The person ``name`` names, for one of ``me``'s lists: a one-line refusal for a name
    that is not text, no one's, or ``me``'s own."""
    if not isinstance(name, str) or not name.strip():
        raise Refusal(400, "name a player: their name as it shows on their profile")
    player = player_named(store, name)
    if player.id == me:
        raise Refusal(400, "that is your own name")
    return player


def _has(connection: Any, row: Any, **where: int) -> bool:
    condition = and_(*(getattr(row, k) == v for k, v in where.items()))
    return int(connection.scalar(select(func.count()).select_from(row).where(condition)) or 0) > 0


def _count(connection: Any, column: Any, value: int) -> int:
    return int(connection.scalar(select(func.count()).where(column == value)) or 0)


# -- following and blocking -------------------------------------------------------------------


def follow(store: Store, me: int, name: object, now: datetime | None = None) -> Player:
    """Follow the player called ``name``; whom.  Refused (and nothing changes) for an unknown
    name, oneself, someone already followed, a suspended account, someone ``me`` blocked
    (unblock first), someone who blocked ``me``, or a list already :data:`MAX_FOLLOWING` long."""
    player = _other(store, me, name)
    user = store.user(player.id)
    if user is not None and user.banned is not None:
        raise Refusal(403, f"{player.name}'s account is suspended")
    with store.engine.begin() as connection:
        if _has(connection, FollowRow, user_id=me, friend_id=player.id):
            raise Refusal(409, f"you already follow {player.name}")
        if _has(connection, BlockRow, user_id=me, blocked_id=player.id):
            raise Refusal(409, f"you blocked {player.name}: unblock them first to follow them")
        if _has(connection, BlockRow, user_id=player.id, blocked_id=me):
            raise Refusal(403, f"{player.name} cannot be followed by you")
        if _count(connection, FollowRow.user_id, me) >= MAX_FOLLOWING:
            raise Refusal(409, f"you follow {MAX_FOLLOWING} players already: unfollow one first")
        connection.execute(insert(FollowRow).values(user_id=me, friend_id=player.id,
                                                    created=now or _now()))
    return player


def unfollow(store: Store, me: int, name: object) -> Player:
    """Stop following ``name``; refused if ``me`` does not follow them."""
    player = _other(store, me, name)
    with store.engine.begin() as connection:
        gone = connection.execute(delete(FollowRow).where(
            FollowRow.user_id == me, FollowRow.friend_id == player.id)).rowcount
        if not gone:
            raise Refusal(409, f"you do not follow {player.name}")
    return player


def block(store: Store, me: int, name: object, now: datetime | None = None) -> Player:
    """Block ``name``: both follows between the two end, and the invitations either sent the
    other are dropped, in one transaction.  Refused for oneself, an unknown name, someone
    already blocked, or a list already :data:`MAX_BLOCKED` long."""
    player = _other(store, me, name)
    at = now or _now()
    with store.engine.begin() as connection:
        if _has(connection, BlockRow, user_id=me, blocked_id=player.id):
            raise Refusal(409, f"you already blocked {player.name}")
        if _count(connection, BlockRow.user_id, me) >= MAX_BLOCKED:
            raise Refusal(409, f"you blocked {MAX_BLOCKED} players already: unblock one first")
        connection.execute(insert(BlockRow).values(user_id=me, blocked_id=player.id,
                                                   created=at))
        connection.execute(delete(FollowRow).where(or_(
            and_(FollowRow.user_id == me, FollowRow.friend_id == player.id),
            and_(FollowRow.user_id == player.id, FollowRow.friend_id == me))))
        connection.execute(update(InviteRow).where(
            or_(and_(InviteRow.from_id == me, InviteRow.to_id == player.id),
                and_(InviteRow.from_id == player.id, InviteRow.to_id == me)),
            InviteRow.answered.is_(None),
        ).values(answered=at, answer="dropped"))
    return player


def unblock(store: Store, me: int, name: object) -> Player:
    """Lift a block; refused if ``me`` had not blocked ``name``.  Follows do not come back."""
    player = _other(store, me, name)
    with store.engine.begin() as connection:
        gone = connection.execute(delete(BlockRow).where(
            BlockRow.user_id == me, BlockRow.blocked_id == player.id)).rowcount
        if not gone:
            raise Refusal(409, f"you have not blocked {player.name}")
    return player


def blocked_by(store: Store, blockers: Iterable[int], person: int) -> bool:
    """Whether any of ``blockers`` blocked ``person`` (one indexed query)."""
    ids = [b for b in blockers if b != person]
    if not ids:
        return False
    with store.engine.connect() as connection:
        found = connection.scalar(
            select(func.count()).select_from(BlockRow)
            .where(BlockRow.blocked_id == person, BlockRow.user_id.in_(ids)))
    return int(found or 0) > 0


# -- who is where -------------------------------------------------------------------------------


def online(store: Store, ids: Iterable[int], now: datetime | None = None) -> set[int]:
    """Which of ``ids`` have a page of this site open with any process (a fresh row)."""
    wanted = list(ids)
    if not wanted:
        return set()
    fresh = (now or _now()) - timedelta(seconds=PRESENCE_FRESH)
    with store.engine.connect() as connection:
        return {int(u) for u in connection.scalars(
            select(PresenceRow.user_id).where(PresenceRow.user_id.in_(wanted),
                                              PresenceRow.seen > fresh,
                                              PresenceRow.sockets > 0))}


def is_public(kind: str, options: Any) -> bool:
    """Whether anyone may see a table: a quick match, or a table its host listed as public."""
    return kind in PUBLIC_KINDS or (isinstance(options, dict) and options.get("public") is True)


@dataclass(frozen=True, slots=True)
class Seat:
    """A person's seat at a live table, as the friends list needs it."""

    table_id: str
    kind: str
    status: str
    code: str | None
    options: Any


def _seats(store: Store, ids: list[int], now: datetime) -> dict[int, Seat]:
    """Each person's seat at the live table that moved last (people with none are left out)."""
    if not ids:
        return {}
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(SeatRow.user_id, TableRow.id, TableRow.kind, TableRow.status, TableRow.code,
                   TableRow.options)
            .join(TableRow, TableRow.id == SeatRow.table_id)
            .where(SeatRow.user_id.in_(ids), TableRow.status.in_(LIVE),
                   TableRow.kind.in_(("private", "quick")),
                   TableRow.updated > now - TABLE_STALE)
            .order_by(TableRow.updated.desc())
        ).all()
    out: dict[int, Seat] = {}
    for user_id, *rest in rows:
        out.setdefault(int(user_id), Seat(*rest))
    return out


def _where(seat: Seat | None, is_on: bool, invited_to: set[str]) -> dict[str, Any]:
    """A followed person's status: ``offline``, ``online`` or ``table`` (with a link to watch
    or join when the table allows it: a public table, or one they invited the viewer to)."""
    if not is_on:
        return {"status": "offline", "status_text": "Offline", "link": None}
    if seat is None:
        return {"status": "online", "status_text": "Online", "link": None}
    public = is_public(seat.kind, seat.options)
    link = None
    if seat.status == "seating" and seat.code and (public or seat.table_id in invited_to):
        link = {"href": f"/join/{quote(seat.code)}", "text": "Join"}
    elif public:
        link = {"href": f"/play/{quote(seat.table_id)}", "text": "Watch"}
    words = "Waiting for players" if seat.status == "seating" else "At a table"
    return {"status": "table", "status_text": words, "link": link}


def panel(store: Store, me: int, now: datetime | None = None) -> dict[str, Any]:
    """``FRIENDS`` of docs/protocol.md: the people ``me`` follows (online first, then by
    name) with where they are, the people ``me`` blocked, and ``me``'s standing invitations."""
    at = now or _now()
    with store.engine.connect() as connection:
        following = connection.execute(
            select(UserRow.id, UserRow.name).join(FollowRow, FollowRow.friend_id == UserRow.id)
            .where(FollowRow.user_id == me)
        ).all()
        blocked = connection.scalars(
            select(UserRow.name).join(BlockRow, BlockRow.blocked_id == UserRow.id)
            .where(BlockRow.user_id == me).order_by(UserRow.name_key)
        ).all()
    ids = [int(r[0]) for r in following]
    on = online(store, ids, at)
    seats = _seats(store, [i for i in ids if i in on], at)
    invites = invites_for(store, me, at)
    invited_to = {i["table"] for i in invites}
    people = []
    for user_id, name in following:
        entry = {"name": str(name), "profile": f"/players/{quote(str(name))}",
                 **_where(seats.get(int(user_id)), int(user_id) in on, invited_to)}
        people.append(entry)
    rank = {"table": 0, "online": 1, "offline": 2}
    people.sort(key=lambda p: (rank[p["status"]], p["name"].casefold()))
    return {"following": people, "blocked": list(blocked), "invites": invites,
            "limits": {"following": MAX_FOLLOWING, "blocked": MAX_BLOCKED}}


# -- invitations --------------------------------------------------------------------------------


def table_for_invites(table: Table, me: int) -> None:
    """A refusal unless ``me`` sits at ``table`` and someone could still take a seat there: a
    private table, not over, with a seat open (before the start: one the joining order fills;
    during the match: one the host left open)."""
    seating = table.seating
    if table.info.kind not in INVITE_KINDS:
        raise Refusal(409, "invitations are for private tables")
    if seating.seat_of(me) is None:
        raise Refusal(403, "you can invite people only to a table you sit at")
    table.refuse_if_closed()
    if table.game.is_over:
        raise Refusal(409, "this match is over")
    free = seating.next_free() if not seating.started else next(iter(seating.open_seats()), None)
    if free is None:
        raise Refusal(409, "this table has no empty seat")


def invite(store: Store, me: int, name: object, table_id: str,
           now: datetime | None = None) -> dict[str, Any]:
    """Invite ``name`` to ``table_id`` (whose seats :func:`table_for_invites` checked); the
    invitation as the invited person's page shows it, with ``to`` (their id) for delivery.

    Inviting someone again to the same table renews the invitation rather than adding one.
    Refused for an unknown name, oneself, a suspended account, someone who blocked ``me`` or
    whom ``me`` blocked, someone already seated there, and beyond :data:`MAX_SENT` standing
    invitations."""
    player = _other(store, me, name)
    at = now or _now()
    user = store.user(player.id)
    if user is not None and user.banned is not None:
        raise Refusal(403, f"{player.name}'s account is suspended")
    expires = at + timedelta(minutes=INVITE_MINUTES)
    with store.engine.begin() as connection:
        if _has(connection, BlockRow, user_id=player.id, blocked_id=me):
            raise Refusal(403, f"{player.name} does not take invitations from you")
        if _has(connection, BlockRow, user_id=me, blocked_id=player.id):
            raise Refusal(409, f"you blocked {player.name}: unblock them first to invite them")
        if connection.scalar(select(func.count()).select_from(SeatRow).where(
                SeatRow.table_id == table_id, SeatRow.user_id == player.id)):
            raise Refusal(409, f"{player.name} already sits at this table")
        standing = and_(InviteRow.from_id == me, InviteRow.answered.is_(None),
                        InviteRow.expires > at)
        same = connection.scalar(select(InviteRow.id).where(
            standing, InviteRow.to_id == player.id, InviteRow.table_id == table_id))
        if same is None:
            sent = connection.scalar(select(func.count()).select_from(InviteRow).where(standing))
            if int(sent or 0) >= MAX_SENT:
                raise Refusal(429, f"you have {MAX_SENT} invitations waiting for an answer "
                                   "already: wait until some are answered or lapse")
            made = connection.execute(insert(InviteRow).values(
                from_id=me, to_id=player.id, table_id=table_id, created=at,
                expires=expires, answered=None, answer=None))
            invite_id = int(made.inserted_primary_key[0])  # type: ignore[index]
        else:
            invite_id = int(same)
            connection.execute(update(InviteRow).where(InviteRow.id == invite_id)
                               .values(expires=expires, created=at))
    found = _invites(store, InviteRow.id == invite_id, at)
    return {**found[0], "to": player.id, "to_name": player.name}


def _invites(store: Store, where: Any, at: datetime) -> list[dict[str, Any]]:
    """Standing invitations that match ``where``, newest first, as a page shows them.  An
    invitation to a table that has since filled up, finished or closed is not shown."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(InviteRow.id, InviteRow.to_id, UserRow.name, InviteRow.table_id,
                   InviteRow.created, InviteRow.expires, TableRow.status)
            .join(UserRow, UserRow.id == InviteRow.from_id)
            .join(TableRow, TableRow.id == InviteRow.table_id)
            .where(where, InviteRow.answered.is_(None), InviteRow.expires > at,
                   TableRow.status.in_(LIVE))
            .order_by(InviteRow.id.desc())
        ).all()
    return [{"id": int(r[0]), "to": int(r[1]), "from": str(r[2]), "table": str(r[3]),
             "created": _ms(r[4]), "expires": _ms(r[5]),
             "text": f"{r[2]} invites you to their table"}
            for r in rows]


def invites_for(store: Store, me: int, now: datetime | None = None) -> list[dict[str, Any]]:
    """The invitations standing for ``me`` (none from someone ``me`` blocked: a block drops
    them, and a new one cannot be made)."""
    return [{k: v for k, v in i.items() if k != "to"}
            for i in _invites(store, InviteRow.to_id == me, now or _now())]


def invites_since(store: Store, after: int, now: datetime | None = None,
                  limit: int = 500) -> tuple[list[dict[str, Any]], int]:
    """Invitations made after the one numbered ``after`` (by any process) and the newest
    number seen: how a process finds what to deliver over its own sockets."""
    at = now or _now()
    found = _invites(store, InviteRow.id > after, at)[:limit]
    return found, max(after, newest_invite(store))


def newest_invite(store: Store) -> int:
    """The number of the newest invitation (0: none yet)."""
    with store.engine.connect() as connection:
        return int(connection.scalar(select(func.max(InviteRow.id))) or 0)


def clean_answer(word: object) -> str:
    """``join`` or ``dismiss`` as the answer stored (``joined``, ``dismissed``)."""
    answers = {"join": "joined", "dismiss": "dismissed"}
    if not isinstance(word, str) or word not in answers:
        raise Refusal(400, 'an invitation is answered "join" or "dismiss"')
    return answers[word]


def invite_to_join(store: Store, me: int, invite_id: int,
                   now: datetime | None = None) -> tuple[str, str]:
    """The table id and code of ``me``'s standing invitation ``invite_id`` (to join it), or a
    one-line refusal: not found, not ``me``'s, lapsed, answered, or the table moved on."""
    at = now or _now()
    with store.engine.connect() as connection:
        row = connection.execute(
            select(InviteRow.to_id, InviteRow.expires, InviteRow.answered, TableRow.id,
                   TableRow.code, TableRow.status)
            .join(TableRow, TableRow.id == InviteRow.table_id).where(InviteRow.id == invite_id)
        ).first()
    if row is None or int(row[0]) != me:
        raise Refusal(404, "no invitation of yours has that number")
    if row[2] is not None:
        raise Refusal(409, "this invitation was answered already")
    if _aware(row[1]) <= at:
        raise Refusal(409, f"this invitation lapsed (they last {INVITE_MINUTES} minutes)")
    if row[5] not in LIVE or not row[4]:
        raise Refusal(409, "that table is no longer taking players")
    return str(row[3]), str(row[4])


def _answer(store: Store, me: int, invite_id: int, answer: str, at: datetime) -> int:
    with store.engine.begin() as connection:
        return int(connection.execute(update(InviteRow).where(
            InviteRow.id == invite_id, InviteRow.to_id == me, InviteRow.answered.is_(None),
        ).values(answered=at, answer=answer)).rowcount or 0)


def joined(store: Store, me: int, invite_id: int, now: datetime | None = None) -> None:
    """``me`` took a seat through invitation ``invite_id``."""
    _answer(store, me, invite_id, "joined", now or _now())


def dismiss(store: Store, me: int, invite_id: int, now: datetime | None = None) -> None:
    """``me`` turned invitation ``invite_id`` down; refused if it is not ``me``'s to answer."""
    if not _answer(store, me, invite_id, "dismissed", now or _now()):
        raise Refusal(404, "no standing invitation of yours has that number")


# -- presence: this process's personal sockets ---------------------------------------------------


def write_presence(store: Store, node: str, people: dict[int, int], at: datetime) -> None:
    """This process has ``people`` (user id -> open pages) now: its rows, replaced at once."""
    with store.engine.begin() as connection:
        connection.execute(delete(PresenceRow).where(PresenceRow.node == node))
        if people:
            connection.execute(insert(PresenceRow), [
                {"user_id": u, "node": node, "sockets": n, "seen": at}
                for u, n in people.items() if n > 0])


def write_one(store: Store, node: str, user: int, sockets: int, at: datetime) -> None:
    """One person's row of this process, as their first page opens or their last closes
    (the other rows wait for the next beat)."""
    with store.engine.begin() as connection:
        connection.execute(delete(PresenceRow).where(PresenceRow.node == node,
                                                     PresenceRow.user_id == user))
        if sockets > 0:
            connection.execute(insert(PresenceRow).values(user_id=user, node=node,
                                                          sockets=sockets, seen=at))


def prune_presence(store: Store, now: datetime | None = None) -> int:
    """Delete rows no process refreshed lately (a process that died left them); how many."""
    stale = (now or _now()) - timedelta(seconds=PRESENCE_FRESH * 4)
    with store.engine.begin() as connection:
        return int(connection.execute(
            delete(PresenceRow).where(PresenceRow.seen < stale)).rowcount or 0)


class Hub:
    """This process's personal sockets (``/ws/me``): one outbox per open page, by person.

    It keeps the ``presence`` rows of the people here, and delivers invitations: at once to
    the invited person's pages here when made here, and otherwise within :data:`INVITE_POLL`
    seconds of being made by any process (one indexed query per process, whoever is here).
    """

    #: Messages one page's outbox holds; a page that stops reading loses the oldest.
    OUTBOX = 32

    def __init__(self, store: Store, node: str, *, now: Callable[[], datetime] = _now,
                 beat: float = PRESENCE_BEAT, poll: float = INVITE_POLL) -> None:
        self.store = store
        self.node = node[:32]
        self.now = now
        self.beat = beat
        self.poll = poll
        self.pages: dict[int, set[asyncio.Queue[dict[str, Any]]]] = {}
        #: Invitation numbers delivered here already, so none reaches a page twice.
        self._delivered: set[int] = set()
        self._after = 0
        self._task: asyncio.Task[None] | None = None

    def people(self) -> dict[int, int]:
        return {user: len(pages) for user, pages in self.pages.items() if pages}

    async def attach(self, user: int) -> asyncio.Queue[dict[str, Any]]:
        """A page of ``user`` opened: its outbox.  The person counts as online at once."""
        if self._task is None:
            self._after = await asyncio.to_thread(newest_invite, self.store)
            self._task = asyncio.get_running_loop().create_task(self._run())
        outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue(self.OUTBOX)
        first = not self.pages.get(user)
        self.pages.setdefault(user, set()).add(outbox)
        if first:
            await self._write_one(user)
        return outbox

    async def detach(self, user: int, outbox: asyncio.Queue[dict[str, Any]]) -> None:
        pages = self.pages.get(user)
        if pages is None:
            return
        pages.discard(outbox)
        if not pages:
            del self.pages[user]
            await self._write_one(user)

    async def move(self, within: float, grace: float) -> int:
        """This process is stopping and a peer takes its pages: ask each open page to open
        its next socket (on a process still listening) before this one closes, spread over
        ``within`` seconds, and wait until they have gone or ``within + grace`` has passed;
        how many pages were asked.  The next socket's process writes the person's presence
        row before this one takes its row away, so friends never see them blink offline."""
        outboxes = [outbox for pages in self.pages.values() for outbox in pages]
        for outbox in outboxes:
            self._put(outbox, {"type": "moving", "within": within})
        deadline = time.perf_counter() + within + grace
        while self.people() and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        return len(outboxes)

    @staticmethod
    def _put(outbox: asyncio.Queue[dict[str, Any]], message: dict[str, Any]) -> None:
        """Into a page's outbox; a full one (a page that stopped reading) loses its oldest."""
        if outbox.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                outbox.get_nowait()
        outbox.put_nowait(message)

    def deliver(self, invite: dict[str, Any]) -> None:
        """Send an invitation to its person's pages here (once)."""
        if invite["id"] in self._delivered:
            return
        self._delivered.add(invite["id"])
        message = {"type": "invite", "invite": {k: v for k, v in invite.items()
                                                if k not in ("to", "to_name")}}
        for outbox in self.pages.get(int(invite["to"]), ()):
            self._put(outbox, message)

    async def _write_one(self, user: int) -> None:
        try:
            await asyncio.to_thread(write_one, self.store, self.node, user,
                                    len(self.pages.get(user, ())), self.now())
        except Exception as e:  # the database is away: the next beat writes again
            log.warning("writing presence failed: %s", e)

    async def _write(self) -> None:
        try:
            await asyncio.to_thread(write_presence, self.store, self.node, self.people(),
                                    self.now())
        except Exception as e:  # the database is away: the next beat writes again
            log.warning("writing presence failed: %s", e)

    async def _look(self) -> None:
        try:
            found, self._after = await asyncio.to_thread(
                invites_since, self.store, self._after, self.now())
        except Exception as e:
            log.warning("looking for invitations failed: %s", e)
            return
        for invite in found:
            if invite["to"] in self.pages:
                self.deliver(invite)
        if len(self._delivered) > 10_000:
            self._delivered = {i for i in self._delivered if i > self._after - 1000}

    async def _run(self) -> None:
        since_beat = 0.0
        while True:
            await asyncio.sleep(self.poll)
            await self._look()
            since_beat += self.poll
            if since_beat >= self.beat:
                since_beat = 0.0
                await self._write()
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(prune_presence, self.store, self.now())

    async def close(self) -> None:
        """Stop, and take this process's rows away (its people are not online here any more)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.pages.clear()
        with contextlib.suppress(Exception):
            await asyncio.to_thread(write_presence, self.store, self.node, {}, self.now())
