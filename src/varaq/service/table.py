"""A table: one actor per game, the lichess way, in asyncio.

A :class:`Table` owns one :class:`~varaq.engine.Game`, who sits where (:mod:`.seating`) and
the table's one list of raw, versioned steps — its journal (:mod:`.journal`), the only history
there is: the state, the record, the review and the daily's progress are all read from it
through the engine.  Every change goes through :meth:`Table.commit`, under the table's lock:

1. apply the journal lines to *copies* of the game and the seating (a refusal raises and
   nothing has changed);
2. append the lines to the store and wait until they are committed (a storage failure also
   leaves the table as it was);
3. only then swap the copies in, send each reader the new steps filtered for the seat that
   reader holds now (:mod:`.fanout`), and tell the commit's listeners (presence and timers,
   the daily's progress, the players' results) — which is how those side effects stay out of
   this module.

Everything else lives beside it, each in its own module: the commands people send
(:mod:`.handlers`, reached only through :meth:`Table.execute`), the computer players and
hints (:mod:`.driver`), who is sent what (:mod:`.fanout`), presence and timers at a table of
people (:mod:`.online`), and the copy of a table another process owns (:mod:`.replica`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..daily import daily_record
from ..engine import Game, IllegalAction
from ..record import to_record
from ..seats import SEAT_LETTERS, SEAT_NAMES, S
from . import handlers, metrics, replica
from .commands import Asker, Command
from .driver import Driver, Hints
from .errors import Refusal
from .fanout import SEATING_KINDS, Fanout, Listener
from .journal import Line, Step, write_step
from .newtable import TableInfo
from .online import Online
from .readers import event_json, view_json
from .seating import GUEST as GUEST_SEAT
from .seating import Seating
from .store import Append, StaleWrite, StoreError

if TYPE_CHECKING:
    from .registry import Tables

__all__ = ["Table", "Committed", "CommitListener", "NAMES", "PEOPLE_KINDS"]

log = logging.getLogger("varaq.service")

#: The names a single-player table shows for its seats.
NAMES = {"N": "Partner", "E": "East", "S": "You", "W": "West"}
#: Kinds of table where people play together (presence, timers, offers, phrases).
PEOPLE_KINDS = ("private", "quick")
#: Events in a full state (a client that gives no version still sees the last moves).
RECENT_EVENTS = 8
#: Seconds a closing table waits for a commit under way to be stored.
CLOSE_WAIT = 5.0


class Committed(NamedTuple):
    """What one commit did, as its listeners hear it."""

    #: The version before the commit (its steps are versions ``first + 1``…).
    first: int
    steps: list[Step]
    #: Whether the match was over before, and how many hands had been scored.
    was_over: bool
    hands_before: int


#: A listener of commits: called after each one is stored and shown.
CommitListener = Callable[["Table", Committed], None]


class Table:
    """One table: its game, seats and journal, and the one way any of them changes."""

    def __init__(
        self, info: TableInfo, game: Game, seating: Seating, steps: list[Step], tables: Tables,
    ) -> None:
        self.info = info
        self.id = info.id
        self.game = game
        self.seating = seating
        self.steps = steps
        self.tables = tables
        self.lock = asyncio.Lock()
        #: Set when the registry dropped this table, or the stored table moved on without it
        #: (another process wrote it), or an administrator closed it: it must not change
        #: anything any more.
        self.retired = self.closed is not None
        #: Each reader's view JSON at the version it was built for: a move is sent to the
        #: socket and answered to the request with the same view, built once.
        self._views: dict[int | None, tuple[int, dict[str, Any]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: ``local`` (one process), or with several: ``owner`` (this process applies the
        #: table's actions) or ``follower`` (it shows the owner's events to its readers).
        self.role = "local"
        self.fanout = Fanout(self)
        self.driver = Driver(self)
        self.hints = Hints(self)
        #: Presence, timers and offers of a table of people (none at a single-player table).
        self.online: Online | None = Online(self) if info.kind in PEOPLE_KINDS else None

    # -- who is asking ---------------------------------------------------------------------------

    def reader_of(self, asker: Asker) -> int | None:
        """The seat ``asker`` holds at this table *now* (``None``: a watcher).

        A table whose one person is a guest (a single-player game, a daily played without an
        account) is South's to whoever knows its id; any other seat is a signed-in person's.
        """
        if self.seating.seats[S] == GUEST_SEAT:
            return S
        if asker.user is None:
            return None
        return self.seating.seat_of(asker.user)

    def seat_for(self, asker: Asker) -> int:
        """The seat ``asker`` acts for now, or a refusal: watchers cannot act."""
        seat = self.reader_of(asker)
        if seat is None:
            raise Refusal(403, "you do not have a seat at this table")
        return seat

    async def execute(self, command: Command, asker: Asker) -> Any:
        """Do ``command`` for ``asker`` — here, or at the owner when another process runs this
        table.  Who may do it is decided by the handler, from the seating at that moment.
        A closed table refuses here, owner or not: nobody takes a closed table's lock, so
        there may be no owner to ask."""
        self.refuse_if_closed()
        if self.role == "follower":
            return await replica.forward(self, command, asker)
        return await handlers.execute(self, command, asker)

    # -- reading -----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return len(self.steps)

    @property
    def level(self) -> str:
        return self.info.level

    @property
    def closed(self) -> str | None:
        """Why an administrator closed this table (``varaq admin close-table``), or ``None``.
        A ``close`` line is the last a table can have."""
        if not self.steps or self.steps[-1].line.kind != "close":
            return None
        about = self.info.options.get("closed")
        reason = about.get("reason") if isinstance(about, dict) else None
        return str(reason or "no reason was given")

    def refuse_if_closed(self) -> None:
        closed = self.closed
        if closed is not None:
            raise Refusal(409, f"this table was closed by an administrator: {closed}")

    @property
    def status(self) -> str:
        if self.closed is not None:
            return "closed"
        if self.game.is_over:
            return "over"
        return "playing" if self.seating.started else "seating"

    @property
    def pace(self) -> str:
        pace: str = self.info.options.get("pace", "normal")
        return pace

    def view_json(self, reader: int | None) -> dict[str, Any]:
        cached = self._views.get(reader)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        doc = view_json(self.game, reader)
        self._views[reader] = (self.version, doc)
        return doc

    def names(self, reader: int | None) -> dict[str, str]:
        """Each seat's name as ``reader`` sees it."""
        if self.info.kind not in PEOPLE_KINDS:
            return dict(NAMES)
        out = {}
        for seat, occupant in enumerate(self.seating.seats):
            if seat == reader:
                out[SEAT_LETTERS[seat]] = "You"
            elif occupant.is_person and occupant.user_id is not None:
                out[SEAT_LETTERS[seat]] = self.tables.user_names.get(occupant.user_id, "Player")
            else:
                out[SEAT_LETTERS[seat]] = SEAT_NAMES[seat]
        return out

    def seats_json(self, reader: int | None) -> list[dict[str, Any]]:
        names = self.names(reader)
        out = []
        for seat, occupant in enumerate(self.seating.seats):
            doc: dict[str, Any] = {
                "seat": SEAT_LETTERS[seat], "kind": occupant.kind,
                "name": names[SEAT_LETTERS[seat]], "you": seat == reader,
                "host": occupant.is_person and occupant.user_id is not None
                and occupant.user_id == self.info.host,
            }
            if self.online is not None:
                doc.update(self.online.seat_json(seat))
            out.append(doc)
        return out

    def can_start(self) -> tuple[bool, str]:
        """Whether the host may start now, and if not, why."""
        if self.seating.started:
            return False, "the match has started"
        people = len(self.seating.people())
        if self.info.options.get("fill_bots"):
            if people >= 2:
                return True, ""
            return False, "wait for at least one more person to join"
        if people == 4:
            return True, ""
        return False, f"wait until four people sit at the table ({people} so far)"

    def table_json(self, reader: int | None) -> dict[str, Any]:
        """The table around the game: kind, code, options, seats, timers."""
        doc: dict[str, Any] = {
            "kind": self.info.kind,
            "code": self.info.code if reader is not None else None,
            "fill_bots": bool(self.info.options.get("fill_bots")),
            "can_start": self.can_start()[0],
            "next": self.info.options.get("next"),
            "seats": self.seats_json(reader),
            "public": bool(self.info.options.get("public")),
        }
        waited = self.info.options.get("waited")
        if reader is not None and isinstance(waited, dict):
            # How long this reader waited in the quick-match queue: their own, nobody else's.
            doc["waited"] = waited.get(SEAT_LETTERS[reader])
        if self.online is not None:
            doc.update(self.online.state_json())
        if self.info.kind == "daily":
            doc["daily"] = {k: self.info.options.get(k) for k in ("date", "late", "counted")}
        closed = self.closed
        if closed is not None:
            doc["closed"] = {"reason": closed}
        return doc

    def state(self, reader: int | None, since: int | None = None) -> dict[str, Any]:
        """STATE of docs/protocol.md for ``reader``, with the events after ``since``."""
        resync = False
        version = self.version
        if since is None:
            first = max(0, version - RECENT_EVENTS)
        elif 0 <= since <= version:
            first = since
        else:
            # A version this table never had (a client of an older database): start over.
            first, resync = max(0, version - RECENT_EVENTS), True
        events = [event_json(v + 1, self.steps[v], reader) for v in range(first, version)]
        return {
            "id": self.id,
            "kind": self.info.kind,
            "version": version,
            "level": self.level,
            "status": self.status,
            "you": None if reader is None else SEAT_LETTERS[reader],
            "view": self.view_json(reader),
            "names": self.names(reader),
            "seats": self.seats_json(reader),
            "table": self.table_json(reader),
            "pace": self.pace,
            "events": events,
            "resync": resync,
        }

    def state_for(self, asker: Asker, since: int | None = None) -> dict[str, Any]:
        """:meth:`state` for the seat ``asker`` holds now."""
        return self.state(self.reader_of(asker), since)

    def record(self, reader: int | None) -> dict[str, Any]:
        """The match as a ``varaq-record/1`` document, as ``reader`` may see it (the full one
        once the match is over; a daily keeps a conceded hand's cards: others play them too)."""
        if self.info.kind == "daily":
            return daily_record(self.game, -1 if reader is None else reader)
        return to_record(self.game, reader=-1 if reader is None else reader)

    def check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise Refusal(
                409, f"stale version {version}: the game is at version {self.version}"
            )

    # -- the single way anything changes -------------------------------------------------------

    async def commit(
        self, lines: list[Line], refusal_status: int, *, values: Mapping[str, Any] | None = None,
    ) -> list[Step]:
        """Apply ``lines``, store them, then show them.  The caller holds the lock."""
        self.refuse_if_closed()
        if self.retired:
            raise Refusal(409, "this table changed elsewhere; reload it")
        if self.role == "follower":  # another process owns it (or is taking it over)
            raise Refusal(503, replica.MOVING)
        game = self.game.copy() if lines else self.game
        seating = self.seating.copy() if lines else self.seating
        try:
            steps = [line.apply(game, seating) for line in lines]
        except IllegalAction as e:
            raise Refusal(refusal_status, str(e)) from None
        except ValueError as e:
            raise Refusal(400, str(e)) from None
        version = self.version
        status = "over" if game.is_over else ("playing" if seating.started else "seating")
        seats = {
            s: o.user_id for s, o in enumerate(seating.seats)
            if o != self.seating.seats[s] and (o.user_id is not None or self.seating.seats[s]
                                               .user_id is not None)
        }
        append = Append(
            self.id, version, [write_step(step) for step in steps], status, seats,
            dict(values or {}),
        )
        try:
            await metrics.timed_commit(self.tables.appender.append(append))
        except asyncio.CancelledError:
            # Stored or not, nobody will swap the copies in now: let the table be rebuilt
            # from the store the next time it is asked for, so it matches what was stored.
            self.tables.forget(self.id)
            raise
        except StaleWrite as e:
            self.tables.forget(self.id)
            raise Refusal(409, f"{e}; reload the game") from None
        except Exception as e:  # a storage failure must not change the table
            log.error("storing table %s failed: %s", self.id, e)
            what = type(e).__name__ if not isinstance(e, StoreError) else str(e).split(":")[0]
            raise Refusal(503, f"could not store the action: {what}") from None
        committed = Committed(version, steps, self.game.is_over, len(self.game.log))
        self.game, self.seating = game, seating
        self.steps.extend(steps)
        if self.online is not None:
            if any(step.line.kind in SEATING_KINDS for step in steps):
                self.online.look()
            self.online.after_commit()
        self.fanout.events(version, steps)
        await replica.publish(self, {
            "v": version, "lines": append.entries, "values": dict(values or {}),
            "online": None if self.online is None else self.online.snapshot(),
        })
        if steps:
            for listener in self.tables.commit_listeners:
                try:
                    listener(self, committed)
                except Exception:  # a side effect is never worth failing the move for
                    log.exception("table %s: a commit listener failed", self.id)
        self.wake()
        return steps

    # -- around the game -----------------------------------------------------------------------

    def push_presence(self) -> None:
        """Send every reader the table (seats, presence, timers): not an event, nothing new is
        stored, so it carries the current version and no event.  An owner tells the other
        processes too."""
        if self.role == "owner" and self.online is not None:
            self.spawn(replica.publish(self, {"v": self.version, "lines": [], "values": {},
                                              "online": self.online.snapshot()}))
        self.fanout.table_changed()

    def spawn(self, coroutine: Any) -> None:
        """Run ``coroutine`` in the background, kept until it ends (and cancelled on close)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def forget_views(self) -> None:
        self._views.clear()

    # -- listeners -----------------------------------------------------------------------------

    def listen(self, asker: Asker) -> Listener:
        listener = self.fanout.add(asker, self.tables.settings.limits.outbox)
        self.presence_changed()
        return listener

    def unlisten(self, listener: Listener) -> None:
        if self.fanout.remove(listener):
            self.presence_changed()

    def presence_changed(self) -> None:
        if self.online is None:
            return
        if self.role != "follower":
            self.online.look()
        else:
            self.spawn(self.tables.tell_presence(self))

    # -- computer players ----------------------------------------------------------------------

    @property
    def idle(self) -> bool:
        return not self.driver.busy and not len(self.fanout) and not self.lock.locked()

    def wake(self) -> None:
        """Start the computer players' task if one of them is to move."""
        self.driver.wake()

    async def deal_if_due(self) -> None:
        """The next-hand timer ran out: deal, unless someone already did."""
        await handlers.deal_if_due(self)

    async def close(self) -> None:
        """Stop the table's tasks; a commit under way is stored first (the lock waits for it)."""
        if self.online is not None:
            self.online.close()
        try:
            await asyncio.wait_for(self.lock.acquire(), CLOSE_WAIT)
        except TimeoutError:  # a store that hangs: stop anyway (the journal decides later)
            driver = self.driver.cancel()
        else:
            try:
                driver = self.driver.cancel()
            finally:
                self.lock.release()
        for task in (driver, *self.hints.cancel(), *self._tasks):
            if task is not None and not task.done():
                task.cancel()
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
