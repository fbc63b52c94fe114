"""Ratings, match history and the statistics of a profile: one row per person per finished match.

When a match a signed-in person sat at ends, :func:`record_match` (a commit listener, see
:attr:`varaq.service.registry.Tables.commit_listeners`) reads what the engine made of it — who
sat where, the score, each hand's :class:`~varaq.scoring.HandScore` — into a :class:`Match`,
and a thread stores it (:func:`apply_match`):

- ``player_matches``: per person and table, the kind, the seat, when it finished, the score,
  who won, the rules' badges, the counts a profile sums (hands, contracts made and set, nils
  and blind nils bid and made, bags, points) and, for a rated match, the rating *after* it
  (``mu``, ``sigma``).  So a profile is a few indexed queries, never a replay, and the
  rating chart is read from the same rows (there is no separate history table);
- ``ratings``: each person's current rating and how many rated matches it rests on.

A match is **rated** when it is a match of people (``private`` or ``quick``): every person at
it moves, partner and opponents alike; a computer player in a seat counts at a fixed rating
for its level (:data:`BOT_RATINGS`) and is never updated.  The maths is ``openskill``'s
Plackett-Luce model with two teams (the winning side ranked first); nothing here computes a
rating by hand.  A rating is *provisional* until :data:`PROVISIONAL` matches and is shown as a
range (``mu ± 2·sigma``) rather than one number.

Ratings are a fold over the finished matches in the order they finished, and the same
function (:func:`rate`) does it live and in ``varaq ratings rebuild`` (:func:`rebuild`),
which replays every finished table's journal through the engine and writes both tables
afresh — so a new model or a repaired bug never leaves a rating wrong.  The order is
``(finished, table id)``: the live thread gives each match a finish time under one lock,
strictly after the previous one, and the rebuild keeps the finish times already stored.
(Two processes finishing matches of the *same* person in the same microsecond could order
them differently from a rebuild; a rebuild then settles it.)

Single-player and daily matches are kept too, unrated, so that one's own profile covers them;
a single-player table belongs to the account its ``seats`` row names (the journal says
"guest"); a solo table made today records none, so only dailies appear until it does.
Private matches are seen only by the people who sat there (:mod:`.profiles`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from ..engine import Game
from .seating import Seating
from .store import Base, Store, default_db_url

if TYPE_CHECKING:
    from .table import Committed, Table

__all__ = [
    "RatingRow", "PlayedRow", "Match", "Rated", "MODEL", "BOT_RATINGS", "PROVISIONAL",
    "RATED_KINDS", "KEPT_KINDS", "record_match", "apply_match", "rate", "rebuild",
    "match_of", "show_rating", "stored_ratings", "finished_matches", "add_arguments", "run",
]

log = logging.getLogger("varaq.ratings")

#: The rating model: openskill's Plackett-Luce with its defaults (mu 25, sigma 25/3).
MODEL = PlackettLuce()
#: A computer player's fixed rating, per level: what beating or losing to it is worth.  A
#: small sigma, so that it reads as a known quantity; never updated.
BOT_RATINGS: dict[str, tuple[float, float]] = {
    "easy": (16.0, 1.0), "normal": (21.0, 1.0), "hard": (26.0, 1.0), "expert": (29.0, 1.0),
}
#: The level a computer player counts at when the table's level is not in the list.
DEFAULT_BOT = "normal"
#: Rated matches before a rating stops being provisional.
PROVISIONAL = 10
#: Kinds of table whose matches move ratings (the matches of people).
RATED_KINDS = ("private", "public", "quick")
#: Kinds of table kept in the match history.
KEPT_KINDS = ("solo", "daily", "private", "quick")


#: The counts each ``player_matches`` row keeps for a profile to sum.
COUNTS = (
    "hands", "contracts", "made", "set", "nils", "nils_made", "blind_nils", "blind_nils_made",
    "bags", "points",
)


class RatingRow(Base):
    """A person's current rating (migration 0006)."""

    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    #: Rated matches the rating rests on (provisional below :data:`PROVISIONAL`).
    matches: Mapped[int] = mapped_column(Integer)
    #: When the last rated match finished.
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlayedRow(Base):
    """One person's part in one finished match (migration 0006): the history, the counts a
    profile sums, and the rating after it when it was rated."""

    __tablename__ = "player_matches"

    table_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(16))
    seat: Mapped[int] = mapped_column(Integer)
    finished: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The computer players' level at that table.
    level: Mapped[str] = mapped_column(String(16))
    #: Who sat where: per seat (N, E, S, W) a user id, or null for a computer player.
    seating: Mapped[Any] = mapped_column(JSON)
    #: The rules' badges (``Rules.badges``), for the history's list.
    badges: Mapped[Any] = mapped_column(JSON)
    #: The final totals, North-South then East-West.
    total_ns: Mapped[int] = mapped_column(Integer)
    total_ew: Mapped[int] = mapped_column(Integer)
    #: Whether this person's side won (null: nobody won).
    won: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    #: Whether the match ended by a concession (and which side gave up: 0 NS, 1 EW).
    conceded: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hands: Mapped[int] = mapped_column(Integer)
    contracts: Mapped[int] = mapped_column(Integer)
    made: Mapped[int] = mapped_column(Integer)
    set: Mapped[int] = mapped_column(Integer)
    nils: Mapped[int] = mapped_column(Integer)
    nils_made: Mapped[int] = mapped_column(Integer)
    blind_nils: Mapped[int] = mapped_column(Integer)
    blind_nils_made: Mapped[int] = mapped_column(Integer)
    bags: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    #: The person's rating after this match (null: the match was not rated).
    mu: Mapped[float | None] = mapped_column(Float, nullable=True)
    sigma: Mapped[float | None] = mapped_column(Float, nullable=True)

    __table_args__ = (Index("ix_player_matches_user_finished", "user_id", "finished"),)


# -- what a match was -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Match:
    """A finished match as the ratings and the history need it, read from the engine."""

    table_id: str
    kind: str
    level: str
    #: Per seat (N, E, S, W): the person's user id, or ``None`` (computer player, open seat).
    people: tuple[int | None, int | None, int | None, int | None]
    #: The winning side (0 NS, 1 EW) or ``None``.
    winner: int | None
    totals: tuple[int, int]
    conceded: int | None
    badges: tuple[str, ...]
    #: Per seat of a person: the counts of :data:`COUNTS`.
    counts: dict[int, dict[str, int]] = field(default_factory=dict)

    @property
    def rated(self) -> bool:
        return self.kind in RATED_KINDS


def seat_counts(game: Game, seat: int) -> dict[str, int]:
    """What one seat's hands came to, read from the engine's scored hands (never re-scored):
    a contract is counted for a seat that bid into its side's contract (not a nil bidder)."""
    side = seat & 1
    counts = dict.fromkeys(COUNTS, 0)
    for hand in game.log:
        result = hand.result
        counts["hands"] += 1
        counts["bags"] += result.new_bags[side]
        counts["points"] += result.score[side]
        if result.bids[seat] == 0:
            key = "blind_nils" if result.blind[seat] else "nils"
            counts[key] += 1
            if result.nil_made[seat]:
                counts[key + "_made"] += 1
        elif result.made[side] is not None:
            counts["contracts"] += 1
            counts["made" if result.made[side] else "set"] += 1
    return counts


def match_of(table_id: str, kind: str, level: str, game: Game, seating: Seating,
             accounts: Mapping[int, int] | None = None, *, public: bool = False,
             ) -> Match | None:
    """The :class:`Match` of a finished game, or ``None`` when no account sat at it (a guest's
    single-player game) or it is not a kind the history keeps.  ``accounts``: the ``seats``
    rows of the table (seat -> user id), which name the account of a seat the journal calls
    a guest — how a single-player table can belong to a signed-in person.  ``public``: the
    host listed the table under Live tables, where anyone could watch it; its match is kept as
    kind ``"public"``, which any profile's history shows (a private table's only to the people
    who sat there)."""
    if kind not in KEPT_KINDS or not game.is_over:
        return None
    extra = accounts or {}
    people = tuple(
        (o.user_id if o.user_id is not None else extra.get(seat)) if o.is_person else None
        for seat, o in enumerate(seating.seats)
    )
    if all(uid is None for uid in people):
        return None
    if public and kind == "private":
        kind = "public"
    return Match(
        table_id, kind, level, (people[0], people[1], people[2], people[3]), game.winner,
        (int(game.totals[0]), int(game.totals[1])), game.conceded,
        tuple(game.rules.badges()),
        {seat: seat_counts(game, seat) for seat, uid in enumerate(people) if uid is not None},
    )


def _guests_named(seating: Seating) -> bool:
    """Whether a seat of this table is a person without an account in the journal (a guest),
    whose account only the ``seats`` rows could name."""
    return any(o.is_person and o.user_id is None for o in seating.seats)


def seat_accounts(store: Store, table_id: str) -> dict[int, int]:
    """The ``seats`` rows of a table: seat -> user id."""
    from .store import SeatRow

    with store.engine.connect() as connection:
        return {int(r[0]): int(r[1]) for r in connection.execute(
            select(SeatRow.seat, SeatRow.user_id).where(SeatRow.table_id == table_id))}


# -- the maths (openskill's) ----------------------------------------------------------------

Rated = dict[int, tuple[float, float]]


def rate(before: Rated, match: Match) -> Rated:
    """Every person's (mu, sigma) after ``match``, from ``before`` (a person missing from it
    starts at the model's default).  Computer players enter at their level's fixed rating
    and come out unchanged."""
    bot = BOT_RATINGS.get(match.level, BOT_RATINGS[DEFAULT_BOT])
    teams: list[list[PlackettLuceRating]] = [[], []]
    owners: list[list[int | None]] = [[], []]
    for seat, uid in enumerate(match.people):
        mu, sigma = bot if uid is None else before.get(uid, (MODEL.mu, MODEL.sigma))
        teams[seat & 1].append(MODEL.rating(mu=mu, sigma=sigma))
        owners[seat & 1].append(uid)
    if match.winner is None:
        ranks = [1.0, 1.0]
    else:
        ranks = [1.0 if match.winner == 0 else 2.0, 1.0 if match.winner == 1 else 2.0]
    after = MODEL.rate(teams, ranks=ranks)
    return {
        uid: (float(r.mu), float(r.sigma))
        for team, who in zip(after, owners, strict=True)
        for r, uid in zip(team, who, strict=True) if uid is not None
    }


def show_rating(mu: float, sigma: float, matches: int) -> dict[str, Any]:
    """A rating as the API shows it: the estimate, the range it is believed to lie in
    (``mu ± 2·sigma``), and whether it is still provisional."""
    return {
        "mu": round(mu, 2), "sigma": round(sigma, 2),
        "low": round(mu - 2 * sigma, 1), "high": round(mu + 2 * sigma, 1),
        "matches": matches, "provisional": matches < PROVISIONAL,
    }


# -- storing --------------------------------------------------------------------------------

_LOCK = threading.Lock()
_last_finish = datetime.min.replace(tzinfo=UTC)


def _rows(match: Match, finished: datetime, after: Rated) -> list[dict[str, Any]]:
    rows = []
    for seat, uid in enumerate(match.people):
        if uid is None:
            continue
        side = seat & 1
        mu, sigma = after.get(uid, (None, None))
        rows.append({
            "table_id": match.table_id, "user_id": uid, "kind": match.kind, "seat": seat,
            "finished": finished, "level": match.level, "seating": list(match.people),
            "badges": list(match.badges), "total_ns": match.totals[0],
            "total_ew": match.totals[1],
            "won": None if match.winner is None else match.winner == side,
            "conceded": match.conceded, **match.counts[seat], "mu": mu, "sigma": sigma,
        })
    return rows


def _ratings_in(connection: Connection, users: Iterable[int]) -> dict[int, tuple[float, float,
                                                                                  int]]:
    rows = connection.execute(
        select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma, RatingRow.matches)
        .where(RatingRow.user_id.in_(list(users)))
    ).all()
    return {int(r[0]): (float(r[1]), float(r[2]), int(r[3])) for r in rows}


def apply_match(store: Store, match: Match, now: datetime | None = None) -> bool:
    """Store a match that just finished and move its people's ratings, in one transaction;
    ``False`` when it was stored already (another process, or a second call).

    Runs in a thread.  One lock orders the matches of this process, and each gets a finish
    time strictly after the previous one, so the order the ratings moved in is the order
    :func:`rebuild` reads back."""
    global _last_finish
    with _LOCK:
        finished = max(now or datetime.now(UTC), _last_finish + timedelta(microseconds=1))
        _last_finish = finished
        try:
            with store.engine.begin() as connection:
                if connection.scalar(select(PlayedRow.table_id)
                                     .where(PlayedRow.table_id == match.table_id).limit(1)):
                    return False
                people = [uid for uid in match.people if uid is not None]
                known = _ratings_in(connection, people) if match.rated else {}
                after = rate({u: (m, s) for u, (m, s, _) in known.items()}, match) \
                    if match.rated else {}
                connection.execute(insert(PlayedRow), _rows(match, finished, after))
                for uid, (mu, sigma) in after.items():
                    if uid in known:
                        connection.execute(
                            update(RatingRow).where(RatingRow.user_id == uid).values(
                                mu=mu, sigma=sigma, matches=known[uid][2] + 1, updated=finished)
                        )
                    else:
                        connection.execute(insert(RatingRow).values(
                            user_id=uid, mu=mu, sigma=sigma, matches=1, updated=finished))
        except IntegrityError:
            return False
    return True


def record_match(table: Table, committed: Committed) -> None:
    """The commit listener: a match that just ended is stored and rated, in a thread."""
    if committed.was_over or not table.game.is_over or table.info.kind not in KEPT_KINDS:
        return
    # The game and seating objects are replaced, never changed, by later commits: safe to
    # read from the thread.
    table.spawn(_store(table, table.game, table.seating))


async def _store(table: Table, game: Game, seating: Seating) -> None:
    store = table.tables.store
    info = table.info

    def work() -> None:
        accounts = seat_accounts(store, table.id) if _guests_named(seating) else None
        match = match_of(table.id, info.kind, info.level, game, seating, accounts,
                         public=bool(info.options.get("public")))
        if match is not None:
            apply_match(store, match)

    try:
        await asyncio.to_thread(work)
    except Exception as e:  # a rating is not worth failing anything for: a rebuild mends it
        log.error("rating the match at table %s failed: %s", table.id, e)


# -- rebuilding -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """What :func:`rebuild` did."""

    matches: int
    rated: int
    players: int
    unreadable: int
    seconds: float

    def line(self) -> str:
        return (f"rebuilt {self.players} ratings from {self.rated} rated matches "
                f"({self.matches} finished matches kept, {self.unreadable} unreadable) "
                f"in {self.seconds:.2f} s")


def finished_matches(store: Store) -> tuple[list[tuple[datetime, Match]], int]:
    """Every finished match an account sat at, read from the stored journals through the
    engine, in the order they finished; and how many tables could not be replayed."""
    from ..seats import S
    from .journal import JournalError, replay
    from .newtable import TableInfo
    from .store import TableRow

    with store.engine.connect() as connection:
        known = {str(r[0]): _aware(r[1]) for r in connection.execute(
            select(PlayedRow.table_id, PlayedRow.finished).distinct())}
        tables = connection.execute(
            select(TableRow.id, TableRow.updated).where(
                TableRow.kind.in_(KEPT_KINDS), TableRow.status.in_(("over", "closed")))
        ).all()
    found: list[tuple[datetime, Match]] = []
    unreadable = 0
    for table_id, updated in tables:
        stored = store.load_table(table_id)
        if stored is None:
            continue
        try:
            info = TableInfo.from_stored(stored)
            seating = Seating.solo() if info.kind == "solo" else Seating(host_seat=S)
            done = replay(info.new_game(), seating, stored.entries)
        except (JournalError, ValueError, KeyError, TypeError) as e:
            log.error("table %s cannot be replayed: %s", table_id, e)
            unreadable += 1
            continue
        accounts = seat_accounts(store, stored.id) if _guests_named(done.seating) else None
        match = match_of(stored.id, stored.kind, stored.level, done.game, done.seating,
                         accounts, public=bool(stored.options.get("public")))
        if match is not None:
            found.append((known.get(stored.id, _aware(updated)), match))
    found.sort(key=lambda item: (item[0], item[1].table_id))
    return found, unreadable


def rebuild(store: Store) -> Rebuilt:
    """Recompute every ``player_matches`` row and every rating from the stored matches, and
    replace what was stored with them in one transaction."""
    started = time.perf_counter()
    matches, unreadable = finished_matches(store)
    ratings: Rated = {}
    counts: dict[int, int] = {}
    last: dict[int, datetime] = {}
    rows: list[dict[str, Any]] = []
    for finished, match in matches:
        after = rate(ratings, match) if match.rated else {}
        ratings.update(after)
        for uid in after:
            counts[uid] = counts.get(uid, 0) + 1
            last[uid] = finished
        rows.extend(_rows(match, finished, after))
    with _LOCK, store.engine.begin() as connection:
        connection.execute(delete(PlayedRow))
        connection.execute(delete(RatingRow))
        for i in range(0, len(rows), 500):
            connection.execute(insert(PlayedRow), rows[i:i + 500])
        if ratings:
            connection.execute(insert(RatingRow), [
                {"user_id": uid, "mu": mu, "sigma": sigma, "matches": counts[uid],
                 "updated": last[uid]} for uid, (mu, sigma) in ratings.items()
            ])
    return Rebuilt(len(matches), sum(m.rated for _, m in matches), len(ratings), unreadable,
                   time.perf_counter() - started)


def _aware(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# -- ``varaq ratings`` ----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="ratings_command", metavar="ACTION", required=True,
                                parser_class=type(parser))
    text = "recompute every rating and match history row from the stored matches"
    p = sub.add_parser("rebuild", help=text, description=text)
    p.add_argument("--db", default=None, metavar="URL",
                   help="SQLAlchemy database URL (default: $VARAQ_DB or the user data dir)")


def run(args: argparse.Namespace) -> int:
    store = Store(args.db or default_db_url())
    try:
        print(rebuild(store).line())
    finally:
        store.close()
    return 0


def stored_ratings(store: Store, users: Sequence[int] | None = None) -> dict[int, tuple[float,
                                                                                       float, int]]:
    """(mu, sigma, matches) by user id: everyone's, or those of ``users``."""
    query = select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma, RatingRow.matches)
    if users is not None:
        query = query.where(RatingRow.user_id.in_(list(users)))
    with store.engine.connect() as connection:
        return {int(r[0]): (float(r[1]), float(r[2]), int(r[3]))
                for r in connection.execute(query).all()}
