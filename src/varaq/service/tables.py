"""Tables: one actor per table, the lichess way, in asyncio.

A :class:`Table` owns one :class:`~varaq.engine.Game`, who sits where (:mod:`.seating`) and
the table's one list of raw, versioned steps (:mod:`.journal`).  Every change — a person's
card, a computer player's bid, the next deal, someone sitting down — goes through
:meth:`Table.commit`, under the table's lock, in this order:

1. apply the journal lines to *copies* of the game and the seating (a refusal raises and
   nothing has changed);
2. append the lines to the store and wait until they are committed (a storage failure also
   leaves the table as it was);
3. only then swap the copies in and send each reader the new steps, filtered for that reader
   (:mod:`.readers`).

So whatever anyone has been shown is on disk, and a restarted server rebuilds the same table by
replaying its lines.  Nothing here treats one seat as special: a single-player game is a table
with one person at South and three computer players; an online table has up to four people.
Computer players — and a computer player standing in for a person who dropped or ran out of
time — are driven by one background task per table that asks the
:class:`~varaq.service.botpool.BotPool` with that seat's view only.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import random
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..actions import ActionError, action_text, bid_value, is_bid, parse_action
from ..bots.advice import bid_advice
from ..daily import Progress, daily_record
from ..engine import DEAL, OVER, Game, IllegalAction
from ..record import to_record
from ..rules import Rules
from ..seats import SEAT_LETTERS, SEAT_NAMES
from .botpool import HINT_BUDGET
from .cluster import NoOwner
from .errors import Refusal
from .journal import Line, Step, read_line, write_step
from .newtable import CODE_ALPHABET, TableInfo, parse_private_table
from .online import Online
from .readers import event_json, view_json
from .seating import Seating
from .settings import SPEEDS, Pace
from .store import Append, StaleWrite, StoreError

__all__ = ["Table", "Refusal", "Pace", "NAMES", "Listener", "TableInfo", "CODE_ALPHABET"]

if TYPE_CHECKING:
    from .registry import Tables

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])

log = logging.getLogger("varaq.service")

#: The names a single-player table shows for its seats.
NAMES = {"N": "Partner", "E": "East", "S": "You", "W": "West"}
#: Kinds of table where people play together (presence, timers, offers, phrases).
PEOPLE_KINDS = ("private", "quick")
#: Pauses before asking a table's owner again when nobody answered its channel (seconds).
OWNER_WAITS = (0.1, 0.3, 0.6, 1.0)
#: Why a request is refused while its table changes owner (the client may simply try again).
MOVING = "this table is moving between servers; try again"
#: Waits for a follower's copy to reach a forwarded answer's version (see Table.reach).
REACH_PAUSES = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.3)
#: Events in a full state (a client that gives no version still sees the last moves).
RECENT_EVENTS = 8


def forwarded(method: F) -> F:
    """At a table this process only follows, send the request to the table's owner instead.

    The arguments and the answer travel as JSON; a refusal comes back as a refusal.  When the
    table has no owner at all (it died), this process takes the table and does it itself.
    """
    name = method.__name__
    signature = inspect.signature(method)

    @functools.wraps(method)
    async def wrapper(self: Table, *args: Any, **kwargs: Any) -> Any:
        if self.role == "follower":
            arguments = dict(signature.bind(self, *args, **kwargs).arguments)
            del arguments["self"]
            cluster = self.tables.cluster
            assert cluster is not None
            for pause in OWNER_WAITS:
                try:
                    result, version = await cluster.request(self.id, name, arguments)
                except NoOwner:
                    await self.tables.claim([self])
                    if self.role != "follower":
                        break
                    # Another process holds the lock but is not listening yet (it is
                    # taking the table over this instant): ask again shortly.
                    await asyncio.sleep(pause)
                else:
                    await self.reach(version)
                    return result
            else:
                raise Refusal(503, MOVING)
        return await method(self, *args, **kwargs)

    FORWARDED.add(name)
    return wrapper  # type: ignore[return-value]


#: The requests an owner accepts from other processes (filled in by :func:`forwarded`).
FORWARDED: set[str] = set()


class Listener:
    """One connected reader's outbox (a WebSocket), drained by that socket's own writer task.

    Messages wait here, never in the table: a slow or stalled socket fills its own outbox, and
    when the outbox is full it is emptied and marked for a resync — the socket is then sent one
    fresh state instead of the backlog, and nobody else waits for it.
    """

    __slots__ = ("reader", "messages", "size", "ready", "resync", "version", "greeted")

    def __init__(self, reader: int | None, size: int) -> None:
        self.reader = reader
        self.messages: deque[dict[str, Any]] = deque()
        self.size = size
        self.ready = asyncio.Event()
        #: Send a full state (after :attr:`version`) before anything else.
        self.resync = False
        #: The newest version this socket has been sent.
        self.version = 0
        #: Events are sent only once the client's hello has said which version it has.
        self.greeted = False

    def push(self, message: dict[str, Any], *, reply: bool = False) -> None:
        """Queue a message; until the client's hello, only answers to its own messages (the
        hello's state will hold everything else)."""
        if not self.greeted and not reply:
            return
        if len(self.messages) >= self.size:
            self.messages.clear()
            self.resync = True
        else:
            self.messages.append(message)
        self.ready.set()

    def ask_resync(self, since: int) -> None:
        """A hello: the client has ``since``; however many hellos arrive, one state goes out."""
        self.version = since
        self.greeted = True
        # Events queued so far are in the state it will get; replies (errors, hints) stay.
        self.messages = deque(m for m in self.messages if m.get("type") != "event")
        self.resync = True
        self.ready.set()


class Table:
    """One table and everything that may change it."""

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
        self.listeners: set[Listener] = set()
        self._driver: asyncio.Task[None] | None = None
        self._hint: tuple[int, asyncio.Task[dict[str, str]]] | None = None
        #: Set when the registry dropped this table, or the stored table moved on without it
        #: (another process wrote it): it must not change anything any more.
        self.retired = False
        self._rng = random.Random(f"{info.seed}:pace")
        #: Each reader's view JSON at the version it was built for: a move is sent to the
        #: socket and answered to the request with the same view, built once.
        self._views: dict[int | None, tuple[int, dict[str, Any]]] = {}
        #: Presence, timers and offers of a table of people (none at a single-player table).
        self.online: Online | None = (
            Online(self) if info.kind in PEOPLE_KINDS else None
        )
        self._tasks: set[asyncio.Task[Any]] = set()
        #: ``local`` (one process), or with several: ``owner`` (this process applies the
        #: table's actions) or ``follower`` (it shows the owner's events to its readers).
        self.role = "local"

    # -- reading -----------------------------------------------------------------------------

    def view_json(self, reader: int | None) -> dict[str, Any]:
        cached = self._views.get(reader)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        doc = view_json(self.game, reader)
        self._views[reader] = (self.version, doc)
        return doc

    @property
    def version(self) -> int:
        return len(self.steps)

    @property
    def level(self) -> str:
        return self.info.level

    @property
    def status(self) -> str:
        if self.game.is_over:
            return "over"
        return "playing" if self.seating.started else "seating"

    @property
    def pace(self) -> str:
        pace: str = self.info.options.get("pace", "normal")
        return pace

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

    def table_json(self, reader: int | None) -> dict[str, Any]:
        """The table around the game: kind, code, options, seats, timers."""
        doc: dict[str, Any] = {
            "kind": self.info.kind,
            "code": self.info.code if reader is not None else None,
            "fill_bots": bool(self.info.options.get("fill_bots")),
            "can_start": self.can_start()[0],
            "next": self.info.options.get("next"),
            "seats": self.seats_json(reader),
        }
        if self.online is not None:
            doc.update(self.online.state_json())
        if self.info.kind == "daily":
            doc["daily"] = {k: self.info.options.get(k) for k in ("date", "late", "counted")}
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

    def record(self, reader: int | None) -> dict[str, Any]:
        """The match as a ``varaq-record/1`` document, as ``reader`` may see it (the full one
        once the match is over; a daily keeps a conceded hand's cards: others play them too)."""
        if self.info.kind == "daily":
            return daily_record(self.game, -1 if reader is None else reader)
        return to_record(self.game, reader=-1 if reader is None else reader)

    # -- requests ------------------------------------------------------------------------------

    def _check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise Refusal(
                409, f"stale version {version}: the game is at version {self.version}"
            )

    @forwarded
    async def act(self, seat: int, text: str, version: int | None = None) -> None:
        """A person plays a card, bids, chooses blind nil or looks, or passes a card."""
        try:
            action = parse_action(text)
        except (ActionError, ValueError) as e:
            # ValueError too: whatever the text, a refusal in one line, never a crash.
            raise Refusal(400, str(e).splitlines()[0][:200] or "unknown action") from None
        async with self.lock:
            self._check_version(version)
            status = 400 if self.game.turn == seat else 409
            await self.commit([Line("act", seat, action)], status)

    @forwarded
    async def next_hand(self, version: int | None = None, seat: int | None = None) -> None:
        """Deal the next hand, once the last one's summary has been seen.  At a table of
        people it is dealt when everyone there has asked (or after a while: see
        :mod:`.online`)."""
        async with self.lock:
            self._check_version(version)
            if self.game.phase != DEAL or not self.seating.started:
                why = ("the match is over" if self.game.is_over else
                       "the match has not started" if not self.seating.started else
                       "the hand is not finished")
                raise Refusal(409, f"cannot deal the next hand: {why}")
            if self.online is not None and seat is not None and not self.online.ask_next(seat):
                return
            await self.commit([Line("deal")], 409)

    async def deal_if_due(self) -> None:
        """The next-hand timer ran out: deal, unless someone already did."""
        async with self.lock:
            if self.game.phase == DEAL and self.seating.started and not self.retired:
                with contextlib.suppress(Refusal):
                    await self.commit([Line("deal")], 409)

    @forwarded
    async def concede(self, seat: int) -> str:
        """``seat``'s side gives up: the other side wins at once — or, at a table where the
        partner is a person who is there, once the partner agrees (``"offered"``)."""
        async with self.lock:
            if self.game.is_over:
                raise Refusal(409, "the match is over")
            if self.online is not None and self.online.concede_needs_partner(seat):
                self.online.offer_concession(seat)
                return "offered"
            await self.commit([Line("concede", seat & 1)], 409)
            return "conceded"

    @forwarded
    async def set_pace(self, pace: str) -> None:
        """The computer players' pace at this table: ``slow``, ``normal`` or ``fast``."""
        if pace not in SPEEDS:
            raise Refusal(400, f"pace must be one of {', '.join(SPEEDS)}, not {pace!r}")
        if pace == self.pace:
            return
        async with self.lock:
            options = {**self.info.options, "pace": pace}
            await self.commit([], 409, values={"options": options})
            self.info.options = options

    async def hint(self, seat: int) -> dict[str, str]:
        """What the Hard player would do in ``seat``, in a sentence.  Asked twice for the same
        position, the second request waits for the first answer instead of asking again."""
        if self.info.kind == "daily":
            raise Refusal(409, "no hints at the daily: everyone plays the same cards unaided")
        if self._hint is not None and self._hint[0] == self.version and not self._hint[1].done():
            return await asyncio.shield(self._hint[1])
        view = self.game.view(seat)
        if not view.legal:
            raise Refusal(409, "no hint: it is not your turn")
        task = asyncio.get_running_loop().create_task(self._think_hint(view))
        self._hint = (self.version, task)
        return await asyncio.shield(task)

    async def _think_hint(self, view: Any) -> dict[str, str]:
        bots = self.tables.bots
        seed = f"{self.info.seed}:hint:{self.version}"
        try:
            answer = await bots.decide("hard", view, seed, HINT_BUDGET)
        except Exception:
            log.exception("table %s: the Hard player failed to give a hint", self.id)
            answer = await bots.decide("normal", view, seed)
        if answer.action not in view.legal:
            answer = await bots.decide("easy", view, seed)
        text = answer.reason
        if view.phase == "bid" and is_bid(answer.action):
            # The bid advisor: the number, and where its tricks come from in a player's words.
            text = bid_advice(view.hand, view.rules.jokers, bid_value(answer.action), text)
        return {"action": action_text(answer.action), "text": text, "bot": answer.bot}

    # -- a table of people: seats, start, phrases -------------------------------------------------

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

    def _host_only(self, user_id: int) -> None:
        if self.info.host != user_id:
            raise Refusal(403, "only the host can do that")

    @forwarded
    async def join(self, user_id: int, name: str) -> int:
        """Seat a person who came with the table's code; their seat (theirs already if they sit
        here).  Before the match the seats fill in order — the host's partner first — and
        during it a person may take a seat the host left open."""
        async with self.lock:
            seat = self.seating.seat_of(user_id)
            if seat is not None:
                return seat
            if self.game.is_over:
                raise Refusal(409, "this match is over")
            seat = (self.seating.next_free() if not self.seating.started
                    else next(iter(self.seating.open_seats()), None))
            if seat is None:
                raise Refusal(409, "this table is full")
            self.tables.user_names[user_id] = name
            await self.commit([Line("sit", seat, who=f"u{user_id}")], 409)
            return seat

    @forwarded
    async def start(self, user_id: int) -> None:
        """The host starts the match: computer players take the open seats, and the first hand
        is dealt."""
        async with self.lock:
            self._host_only(user_id)
            ok, why = self.can_start()
            if not ok:
                raise Refusal(409, f"cannot start: {why}")
            lines = [Line("sit", s, who="bot") for s in self.seating.open_seats()]
            await self.commit([*lines, Line("start"), Line("deal")], 409)

    @forwarded
    async def configure(self, user_id: int, body: Mapping[str, Any]) -> None:
        """The host changes the computer players' strength, the rules or the options before the
        first deal; afterwards the variations are fixed."""
        async with self.lock:
            self._host_only(user_id)
            if self.seating.started or self.game.actions:
                raise Refusal(409, "the variations cannot change after the first deal")
            new = parse_private_table(body)
            options = {**self.info.options, **new.options}
            values = {"level": new.level, "rules": new.rules.to_spec(), "options": options}
            await self.commit([], 409, values=values)
            self.info.level, self.info.rules, self.info.options = new.level, new.rules, options
            self.game = self.info.new_game()
            self._views.clear()
            self.push_presence()

    @forwarded
    async def set_seat(self, user_id: int, seat: int, to: str) -> None:
        """The host hands an open or absent seat to a computer player (``bot``), or leaves it
        open for someone new (``open``; during the match a computer player plays it until
        someone takes it)."""
        async with self.lock:
            self._host_only(user_id)
            occupant = self.seating.seats[seat]
            if to not in ("bot", "open"):
                raise Refusal(400, 'a seat goes to "bot" or "open"')
            if occupant.is_person:
                away = self.online is not None and not self.online.is_present(seat)
                if occupant.user_id == user_id:
                    raise Refusal(409, "that is your own seat")
                if self.seating.started and not away:
                    raise Refusal(409, "that person is at the table: only an absent seat can go")
            if occupant.kind == to:
                return
            line = Line("sit", seat, who="bot") if to == "bot" else Line("leave", seat)
            await self.commit([line], 409)
            if self.online is not None:
                self.online.away_until.pop(seat, None)
                self.online.auto.discard(seat)
                self.online.look()

    @forwarded
    async def leave(self, user_id: int) -> None:
        """A person gives up their seat (the host cannot: the table is theirs)."""
        async with self.lock:
            seat = self.seating.seat_of(user_id)
            if seat is None:
                raise Refusal(409, "you do not have a seat at this table")
            if user_id == self.info.host and not self.seating.started:
                raise Refusal(409, "the host cannot leave before the match starts")
            if self.game.is_over:
                return
            await self.commit([Line("leave", seat)], 409)

    @forwarded
    async def phrase(self, seat: int, phrase_id: str) -> dict[str, Any]:
        if self.online is None:
            raise Refusal(409, "quick phrases are for tables of people")
        message = self.online.phrase(seat, phrase_id)
        await self.publish({"push": message})
        return message

    @forwarded
    async def decline(self, seat: int) -> None:
        if self.online is None:
            raise Refusal(409, "there is no offer to decline")
        self.online.decline(seat)

    @forwarded
    async def play_again(self, user_id: int) -> str:
        """Play again after a match of people; the new table's id (see Tables.again)."""
        new = await self.tables.again(self, user_id)
        return new.id

    # -- the single way anything changes -------------------------------------------------------

    async def commit(
        self, lines: list[Line], refusal_status: int, *, values: Mapping[str, Any] | None = None,
    ) -> list[Step]:
        """Apply ``lines``, store them, then show them.  The caller holds the lock."""
        if self.retired:
            raise Refusal(409, "this table changed elsewhere; reload it")
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
            await self.tables.appender.append(append)
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
        was_over = self.game.is_over
        hands_before = len(self.game.log)
        self.game, self.seating = game, seating
        self.steps.extend(steps)
        if self.online is not None:
            if any(step.line.kind in ("sit", "leave", "start") for step in steps):
                self.online.look()
            self.online.after_commit()
        self._broadcast(version, steps)
        await self.publish({
            "v": version, "lines": append.entries, "values": dict(values or {}),
            "online": None if self.online is None else self.online.snapshot(),
        })
        if game.is_over and not was_over and self.info.kind in PEOPLE_KINDS:
            self.spawn(self._count_result())
        if self.info.kind == "daily" and (
                len(game.log) > hands_before or (game.is_over and not was_over)):
            self.spawn(self._save_daily_try(self.version, Progress.of(game)))
        self.wake()
        return steps

    async def _count_result(self) -> None:
        """A finished match between people: each played one more, the winners won one."""
        winner = self.game.winner
        played = [o.user_id for o in self.seating.seats if o.user_id is not None]
        won = [uid for s, o in enumerate(self.seating.seats)
               if (uid := o.user_id) is not None and winner is not None and s & 1 == winner]
        try:
            await asyncio.to_thread(self.tables.store.count_results, played, won)
        except Exception as e:  # a profile count is not worth failing anything for
            log.error("counting the result of table %s failed: %s", self.id, e)

    async def _save_daily_try(self, version: int, progress: Progress) -> None:
        """A daily's hand was scored or its match ended: the try's row, which the day's
        leaderboard reads, follows (a later version's row is never overwritten by this one)."""
        from .daily import save_progress  # the daily module builds on this one

        try:
            await asyncio.to_thread(save_progress, self.tables.store, self.id, version, progress)
        except Exception as e:  # the table goes on; opening the try again brings the row up
            log.error("saving the daily try of table %s failed: %s", self.id, e)

    def _broadcast(self, first: int, steps: list[Step]) -> None:
        if not self.listeners or not steps:
            return
        seated = any(step.line.kind in ("sit", "leave", "start") for step in steps)
        by_reader: dict[int | None, tuple[dict[str, Any], dict[str, Any] | None]] = {}
        for listener in self.listeners:
            reader = listener.reader
            if reader not in by_reader:
                by_reader[reader] = (
                    self.view_json(reader), self.table_json(reader) if seated else None
                )
            view, seats = by_reader[reader]
            for i, step in enumerate(steps):
                version = first + i + 1
                message: dict[str, Any] = {
                    "type": "event", "version": version,
                    "event": event_json(version, step, reader), "view": view,
                }
                if seats is not None:
                    message["table"] = seats
                    message["seats"] = seats["seats"]
                    message["status"] = self.status
                elif self.online is not None:
                    message["table"] = self.table_json(reader)
                listener.push(message)

    def push_presence(self) -> None:
        """Send every reader the table (seats, presence, timers): not an event, nothing new is
        stored, so it carries the current version and no event.  An owner tells the other
        processes too."""
        if self.role == "owner" and self.online is not None:
            self.spawn(self.publish({"v": self.version, "lines": [], "values": {},
                                     "online": self.online.snapshot()}))
        self._push_table()

    def _push_table(self) -> None:
        for listener in self.listeners:
            listener.push({
                "type": "table", "version": self.version, "status": self.status,
                "table": self.table_json(listener.reader),
            })

    def spawn(self, coroutine: Any) -> None:
        """Run ``coroutine`` in the background, kept until it ends (and cancelled on close)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- several processes ---------------------------------------------------------------------

    async def publish(self, message: dict[str, Any]) -> None:
        """An owner tells the followers what it stored (or what changed around the game)."""
        cluster = self.tables.cluster
        if self.role == "owner" and cluster is not None:
            await cluster.publish(f"varaq:ev:{self.id}", message)

    async def follow(self, message: dict[str, Any]) -> None:
        """A follower applies what its owner published, and shows it to its own readers."""
        if self.role != "follower":
            return
        if "push" in message:
            for listener in self.listeners:
                listener.push(message["push"])
            return
        first, lines = int(message["v"]), list(message["lines"])
        if first > self.version:  # a message was lost: the store has them all
            await self.catch_up()
        elif first == self.version and lines:
            async with self.lock:
                steps = [read_line(text).apply(self.game, self.seating) for text in lines]
                self.steps.extend(steps)
                self._broadcast(first, steps)
        values = message.get("values") or {}
        if values:
            self._take_values(values)
        if message.get("online") is not None and self.online is not None:
            self.online.load(message["online"])
            self._push_table()

    def _take_values(self, values: Mapping[str, Any]) -> None:
        """The owner changed the table's row (options, or the variations before the start)."""
        if "options" in values:
            self.info.options = dict(values["options"])
        if "level" in values:
            self.info.level = str(values["level"])
        if "rules" in values and not self.game.actions:
            self.info.rules = Rules.from_spec(values["rules"])
            self.game = self.info.new_game()
            self._views.clear()

    async def reach(self, version: int) -> None:
        """Wait a little for this follower's copy to have the owner's ``version``, so that the
        answer to a forwarded request shows its own effect.  The owner publishes the events
        before its answer and they are nearly always applied by then.  A copy still behind
        after about a second answers as it is: the events are on their way (a lost one is
        found by :meth:`follow`), and the client's versions make a late event harmless —
        reading the whole table from the store here would only add load when it is already
        high."""
        for pause in REACH_PAUSES:
            if self.version >= version or self.role != "follower":
                return
            await asyncio.sleep(pause)

    async def catch_up(self) -> None:
        """Rebuild from the store (the history), keeping this table's readers, and send them
        what they had not seen."""
        async with self.lock:
            await self._reload()

    async def _reload(self) -> None:
        """:meth:`catch_up`'s work, with the table's lock already held."""
        stored = await asyncio.to_thread(self.tables.store.load_table, self.id)
        if stored is None:
            return
        fresh = self.tables.rebuild(stored)
        before = self.version
        self.info, self.game, self.seating, self.steps = (
            fresh.info, fresh.game, fresh.seating, fresh.steps)
        self._views.clear()
        if self.version > before:
            self._broadcast(before, self.steps[before:])
        else:
            for listener in self.listeners:
                listener.ask_resync(listener.version)

    async def become_owner(self) -> None:
        """This process took the table's lock: catch up from the store and run it.

        The role changes under the table's lock, before the store is read: a request that
        arrives meanwhile waits for the lock and then finds the whole history, where before
        it saw a follower and was forwarded — to this very process, which was busy with it.
        """
        async with self.lock:
            self.role = "owner"
            await self._reload()
        if self.online is not None:
            self.online.mirror = None
            self.online.seen = set()
            self.online.look()
            self.online.after_commit()
        self.push_presence()
        self.wake()

    async def handle(self, request: dict[str, Any]) -> None:
        """An owner answers a request another process forwarded."""
        cluster = self.tables.cluster
        assert cluster is not None
        op, args = request.get("op"), request.get("args") or {}
        if self.role != "owner":  # handed on meanwhile: never forward a forwarded request
            if op != "presence":
                await cluster.answer(request, refusal=Refusal(503, MOVING))
            return
        if op == "presence":
            if self.online is not None:
                seats = {int(k): int(v) for k, v in (args.get("seats") or {}).items()}
                self.online.remote_presence(str(args.get("node")), seats)
            return
        if op not in FORWARDED or not isinstance(args, dict):
            await cluster.answer(request, refusal=Refusal(400, f"unknown request {op!r}"))
            return
        try:
            result = await getattr(self, str(op))(**args)
        except Refusal as e:
            await cluster.answer(request, refusal=e)
        except Exception as e:
            log.exception("table %s: a forwarded %s failed", self.id, op)
            failed = Refusal(500, f"internal error: {type(e).__name__}")
            await cluster.answer(request, refusal=failed)
        else:
            await cluster.answer(request, result, version=self.version)

    def local_presence(self) -> dict[int, int]:
        """How many sockets this process has open per seat (told to the owner)."""
        out: dict[int, int] = {}
        for listener in self.listeners:
            if listener.reader is not None:
                out[listener.reader] = out.get(listener.reader, 0) + 1
        return out

    # -- listeners -----------------------------------------------------------------------------

    def listen(self, reader: int | None) -> Listener:
        listener = Listener(reader, self.tables.settings.limits.outbox)
        self.listeners.add(listener)
        if self.online is not None and self.role != "follower":
            self.online.arrive(reader)
        elif self.online is not None:
            self.spawn(self.tables.tell_presence(self))
        return listener

    def unlisten(self, listener: Listener) -> None:
        if listener in self.listeners:
            self.listeners.discard(listener)
            if self.online is not None and self.role != "follower":
                self.online.depart(listener.reader)
            elif self.online is not None:
                self.spawn(self.tables.tell_presence(self))

    # -- computer players ----------------------------------------------------------------------

    @property
    def idle(self) -> bool:
        busy = self._driver is not None and not self._driver.done()
        return not busy and not self.listeners and not self.lock.locked()

    def bot_for(self, seat: int) -> bool:
        """Whether a computer player chooses for ``seat`` now: a computer player's seat, a seat
        left open during the match, or a person's seat while they are away or out of time."""
        kind = self.seating.seats[seat].kind
        if kind != "person":
            return True
        return self.online is not None and self.online.plays_for(seat)

    def bots_to_move(self) -> bool:
        g = self.game
        return (
            not self.retired and self.role != "follower" and self.seating.started
            and g.phase not in (DEAL, OVER) and g.turn >= 0 and self.bot_for(g.turn)
        )

    def wake(self) -> None:
        """Start the computer players' task if one of them is to move."""
        if self.bots_to_move() and (self._driver is None or self._driver.done()):
            self._driver = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        loop = asyncio.get_running_loop()
        while self.bots_to_move():
            version, seat = self.version, self.game.turn
            view = self.game.view(seat)
            started = loop.time()
            last = self.steps[-1].event if self.steps else None
            after_trick = bool(last and last.trick)
            seed = f"{self.info.seed}:{version}:{SEAT_LETTERS[seat]}"
            try:
                answer = await self.tables.bots.decide(self.level, view, seed,
                                                       samples=self.info.options.get("samples"))
                action = answer.action
            except Exception:
                log.exception("table %s: the %s player at %s failed; playing a legal card",
                              self.id, self.level, SEAT_LETTERS[seat])
                action = view.legal[0]
            if action not in view.legal:
                log.error("the %s player chose %s, not legal; playing %s instead",
                          self.level, action_text(action), action_text(view.legal[0]))
                action = view.legal[0]
            wait = self.tables.pace.delay(self._rng, after_trick, self.pace)
            wait -= loop.time() - started
            if wait > 0:
                await asyncio.sleep(wait)
            refused: Exception | None = None
            async with self.lock:
                if self.version != version or self.game.turn != seat or not self.bot_for(seat):
                    continue  # the game moved on, or the person came back: a stale answer
                auto = self.seating.seats[seat].is_person
                try:
                    await self.commit([Line("act", seat, action, auto)], 409)
                except Exception as e:  # storage down, a retired table: never kill the driver
                    refused = e
            if refused is not None:
                if self.retired:
                    return
                log.error("table %s: %s's move not stored: %s", self.id, SEAT_LETTERS[seat],
                          refused)
                await asyncio.sleep(1.0)  # then try again (outside the lock: a person may act)

    async def close(self) -> None:
        if self.online is not None:
            self.online.close()
        for task in (self._driver, self._hint[1] if self._hint else None, *self._tasks):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


