"""All tables of one server process: made here, loaded from the store on first use.

With several processes (:mod:`.cluster`), the registry also decides which tables this process
owns: a table it loads is its own if it can take the table's lock, and it follows the owner's
events otherwise; every second it tries the locks of the tables it follows, so a table whose
owner died is taken over.

An administrator closes a table in the database, with no server involved (``varaq admin
close-table``); every few seconds (:data:`CLOSED_CHECK`) the registry asks the store which
tables were closed lately, and a table it holds among them is reloaded, so the people at it
see the reason at once (:meth:`Tables.check_closed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from types import FrameType
from typing import TYPE_CHECKING, Any

from ..rules import Rules, RulesError
from ..seats import SEAT_LETTERS, S
from . import metrics, replica
from .accounts import Suspended
from .botpool import BotPool
from .cluster import HEARTBEAT, Cluster
from .commands import LIMIT_OF, Asker, Kind, parse_command
from .errors import Refusal
from .journal import JournalError, Line, replay, write_step
from .newtable import (
    CODE_ALPHABET,
    CODE_LENGTH,
    TableInfo,
    new_code,
    new_table_id,
    parse_new_game,
    parse_private_table,
    plausible_id,
)
from .ratelimit import RateLimits
from .ratings import record_match
from .results import count_results
from .seating import Seating
from .settings import Settings
from .store import StaleWrite, Store, StoredTable, make_appender
from .table import CommitListener, Table

if TYPE_CHECKING:
    from .quickmatch import Chair

__all__ = ["Tables"]

log = logging.getLogger("varaq.service")

#: Tables handed over by a leaving process that this one loads at the same time.
HANDOVER_AT_ONCE = 16
#: Tables a leaving process lets go at a time: their locks in one statement, their notices
#: together, so the next owner claims them together too.
HANDOVER_WAVE = 25
#: Seconds a leaving process waits for a peer to have read its tables before letting them go
#: (they keep playing meanwhile), and the most tables it asks a peer to read ahead.
PREPARE_WAIT = 5.0
MAX_PREPARED = 5000
#: A stopping process asks its table sockets to move to another process (make before
#: break): each page opens its next socket within a pause spread over this many seconds a
#: socket (at most MOVE_SPREAD in all), so a few hundred pages do not all knock at once, and
#: the process waits up to MOVE_GRACE seconds more for them to go before it closes the rest.
#: The old socket delivers until the new one is open, so a longer spread costs the pages
#: nothing; it only keeps the stopping process a little longer.  (Spread over 1-1.5 s, the
#: handshakes and states of 200-400 arriving pages held every table of the next process up
#: for a second or two on two cores: BENCHMARKS.md.)
MOVE_SPREAD_PER_SOCKET = 0.02
MOVE_SPREAD = 10.0
MOVE_GRACE = 3.0


def people_at(tables: Iterable[Table]) -> list[int]:
    """The ids of the people seated at these tables, each once, in order."""
    return sorted({o.user_id for t in tables for o in t.seating.seats if o.user_id is not None})


def move_spread(sockets: int) -> float:
    """Seconds over which ``sockets`` pages of a stopping process are asked to move."""
    return round(min(MOVE_SPREAD, MOVE_SPREAD_PER_SOCKET * sockets), 2)
#: Seconds between two looks for tables an administrator closed.
CLOSED_CHECK = 2.0
#: How far back a look reaches: generous, since the administrator's clock writes the time.
CLOSED_LOOKBACK = timedelta(minutes=10)


class Tables:
    """All tables of this server process: created here, loaded from the store on first use."""

    def __init__(
        self, store: Store, bots: BotPool, settings: Settings, limits: RateLimits | None = None,
    ) -> None:
        self.store = store
        self.bots = bots
        self.settings = settings
        self.pace = settings.pace
        self.limits = limits or RateLimits(settings.limits)
        self.appender = make_appender(store)
        self._tables: dict[str, Table] = {}
        #: Tables being loaded, by id: a second request for one waits for the first load,
        #: while different tables load side by side.
        self._loading: dict[str, asyncio.Future[Table]] = {}
        #: Hand-overs from a leaving process being taken up (at most HANDOVER_AT_ONCE at once).
        self._taking = asyncio.Semaphore(HANDOVER_AT_ONCE)
        self._taken: set[asyncio.Task[None]] = set()
        #: The tables this process is about to hand on that a peer has read (``ready``),
        #: and an event set at each such message.
        self._peer_read: set[str] = set()
        self._peer_ready = asyncio.Event()
        #: Names of the people seated at tables in memory, by user id.
        self.user_names: dict[int, str] = {}
        #: The other processes, when there are several (``varaq serve --redis``).
        self.cluster: Cluster | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._closed_watch: asyncio.Task[None] | None = None
        #: Told of every commit at every table (the players' results, the daily's tries…):
        #: side effects subscribe here instead of the table knowing about them.
        self.commit_listeners: list[CommitListener] = [count_results, record_match]
        #: Told the people seated at tables a leaving process is about to hand here, before
        #: their pages arrive (the web layer reads their sessions then).
        self.arriving: list[Callable[[list[int]], Awaitable[Any]]] = []
        #: Set while this process stops: it takes no table and hands its own on.
        self.leaving = False
        #: The hand-over under way, once SIGTERM or the shutdown started it.
        self._handing: asyncio.Task[int] | None = None
        #: Tables a leaving process let go, to claim together (:meth:`claim_soon`).
        self._to_claim: dict[str, Table] = {}
        self._claiming: asyncio.Task[None] | None = None

    # -- the one way in ----------------------------------------------------------------------

    @metrics.command
    async def run(self, table: Table, kind: Kind, doc: Mapping[str, Any], asker: Asker) -> Any:
        """A person's command, from any transport: counted against its limit for the asker's
        address, read by the one parser, then authorized and done by the table (or its owner
        in another process)."""
        await self.limits.hit(LIMIT_OF[kind], asker.address)
        return await table.execute(parse_command(kind, doc), asker)

    # -- several processes ---------------------------------------------------------------------

    async def join_cluster(self, cluster: Cluster) -> None:
        """Share tables with other processes: start following, claiming and heart-beating."""
        self.cluster = cluster
        cluster.on_reconnect = self._after_redis_came_back
        await cluster.subscribe(replica.HANDOVER, self._handed_over)
        self._heartbeat = asyncio.get_running_loop().create_task(self._beat())
        self._hand_over_at_sigterm()

    def _hand_over_at_sigterm(self) -> None:
        """Start handing the tables on the moment SIGTERM arrives, not when the web server
        gets to the app's shutdown.

        uvicorn first closes every connection and waits for the requests under way (up to
        its graceful timeout, 5 s) and only then runs the lifespan's shutdown; with a few
        hundred sockets closing that took 0.4-5 s, and all that time this process still owned
        its tables while refusing new connections, so a person's action waited at the other
        process for the hand-over to begin.  Here the handler that uvicorn installed is
        wrapped: it still runs, and the hand-over starts beside it, so the two overlap.
        (Only in the main thread, where signal handlers live, and only over a handler that
        is Python code: a process that dies at SIGTERM has nothing to hand on in time.)
        """
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGTERM)
        if not callable(previous):
            return
        loop = asyncio.get_running_loop()

        def stopping(signum: int, frame: FrameType | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(self.start_hand_over)
            previous(signum, frame)

        signal.signal(signal.SIGTERM, stopping)

    async def _place(self, tables: list[Table]) -> None:
        """Tables this process just loaded or made: the owner of each whose lock is free, a
        follower of the others.  Several at once share one claim and one look at the rows
        (a leaving process's wave of tables costs a few round trips, not a few a table)."""
        cluster = self.cluster
        if cluster is None or not tables:
            return
        for table in tables:
            table.role = "follower"
        await asyncio.gather(*(
            cluster.subscribe(f"varaq:ev:{t.id}", functools.partial(replica.follow, t))
            for t in tables))
        await self.claim(tables)
        followers = [t for t in tables if t.role == "follower"]
        if not followers:
            return
        # Anything an owner stored between our read and our listening: looked for in the
        # tables' rows (cheap), and only then read (each read twice was half a taker's work).
        try:
            stamps = await cluster.locks.stamps([t.id for t in followers])
        except Exception:
            stamps = {}
        behind = [t for t in followers
                  if (stamp := stamps.get(t.id)) is None or not replica.is_newest(t, stamp)]
        await asyncio.gather(*(replica.catch_up(t) for t in behind))
        await asyncio.gather(*(self.tell_presence(t) for t in followers))

    async def claim(self, tables: list[Table]) -> None:
        """Take the locks of these followed tables where free, and run them from here (never
        while this process is leaving: it hands its tables on instead)."""
        cluster = self.cluster
        if cluster is None or self.leaving:
            return
        followed = [t for t in tables if t.role == "follower" and not t.retired]
        try:
            won = await cluster.locks.try_own([t.id for t in followed])
        except Exception as e:  # the database is away: keep following
            log.warning("claiming tables failed: %s", e)
            return
        async def take(table: Table) -> None:
            # Owner first, listener second: a request heard here finds an owner.
            started = time.perf_counter()
            await cluster.unsubscribe(f"varaq:ev:{table.id}")
            await replica.become_owner(table, won[table.id])
            became = time.perf_counter()
            await cluster.subscribe(f"varaq:req:{table.id}",
                                    functools.partial(replica.handle, table))
            log.info("table %s: owned here now", table.id, extra={
                "become_s": round(became - started, 3),
                "listen_s": round(time.perf_counter() - became, 3)})

        # Side by side: the Redis reader then subscribes the request channels in one pass,
        # where one after the other each waited for its own turn of the reader.
        await asyncio.gather(*(take(t) for t in followed if t.id in won))

    def claim_soon(self, table: Table) -> None:
        """Claim ``table`` together with the others whose hand-over notices arrive with it:
        a leaving process lets its tables go a wave at a time, and one claim for a wave takes
        all their locks in one statement (:meth:`claim`)."""
        self._to_claim[table.id] = table
        if self._claiming is None or self._claiming.done():
            self._claiming = asyncio.get_running_loop().create_task(self._claim_waiting())

    async def _claim_waiting(self) -> None:
        """Claim the notices of one pass together, on a task of its own: the next wave's
        claim does not wait for this one's subscriptions (each wave used to wait a few
        tenths of a second for the one before it while its tables had no owner)."""
        await asyncio.sleep(0)  # the rest of the wave's notices, read in the same pass
        tables = list(self._to_claim.values())
        self._to_claim.clear()
        if tables:
            self._spawn(self._claim_handed(tables))

    async def _claim_handed(self, tables: list[Table]) -> None:
        try:
            await self.claim(tables)
        except Exception:
            log.exception("claiming handed-over tables failed")

    async def tell_presence(self, table: Table) -> None:
        """A follower tells the owner how many sockets it has at the table, per person."""
        cluster = self.cluster
        if cluster is not None and table.role == "follower" and table.online is not None:
            people = {str(k): v for k, v in table.fanout.people().items()}
            await cluster.publish(f"varaq:req:{table.id}", {
                "op": "presence", "args": {"node": cluster.node, "people": people}})

    async def _beat(self) -> None:
        """Every second: check the lock connection, claim ownerless tables, repeat presence."""
        cluster = self.cluster
        assert cluster is not None
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                if not await cluster.locks.alive():
                    for table in [t for t in self._tables.values() if t.role == "owner"]:
                        log.warning("table %s: lost its lock with the database", table.id)
                        self.forget(table.id)
                tables = list(self._tables.values())
                await self.claim(tables)
                for table in tables:
                    if table.role == "follower":
                        await self.tell_presence(table)
                    elif table.online is not None:
                        table.online.forget_silent()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the cluster heartbeat failed")

    async def check_closed(self) -> list[str]:
        """Reload the tables in memory that an administrator closed since this process read
        them: the readers get the ``close`` event and the table with its reason, and the table
        stops (no computer player, no timer).  The ids reloaded."""
        open_ids = {i for i, t in self._tables.items() if t.closed is None}
        if not open_ids:
            return []
        since = datetime.now(UTC) - CLOSED_LOOKBACK
        closed = await asyncio.to_thread(self.store.closed_since, since)
        done: list[str] = []
        for table_id in sorted(open_ids.intersection(closed)):
            table = self._tables.get(table_id)
            if table is None or table.closed is not None:
                continue
            await replica.catch_up(table)
            if table.closed is None:
                continue
            table.retired = True
            table.driver.cancel()
            if table.online is not None:
                table.online.close()
            table.fanout.table_changed()
            log.info("table %s: closed by an administrator", table_id)
            done.append(table_id)
        return done

    async def _watch_closed(self) -> None:
        while True:
            await asyncio.sleep(CLOSED_CHECK)
            try:
                await self.check_closed()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the database is away: the next look will do
                log.warning("looking for closed tables failed: %s", e)

    async def _after_redis_came_back(self) -> None:
        """Messages may have been lost while Redis was away: followers read the store."""
        for table in list(self._tables.values()):
            if table.role == "follower":
                await replica.catch_up(table)
            elif table.role == "owner":
                table.push_presence()

    async def create_solo(self, body: Mapping[str, Any], user: int | None = None) -> Table:
        """A new single-player table from a ``POST /api/games`` body, dealt and stored.  A
        signed-in ``user`` is noted at South, so the game shows in their tables, history and
        profile (South stays whoever holds the table's id, as for a guest)."""
        info = parse_new_game(body, test_mode=self.settings.test_mode)
        seats = {S: user} if user is not None else None
        return await self.create(info, Seating.solo(), [Line("deal")], seats=seats)

    async def create(
        self, info: TableInfo, seating: Seating, lines: list[Line],
        seats: dict[int, int] | None = None,
    ) -> Table:
        """Store a new table made of ``info``, ``seating`` and its first ``lines``, keep it in
        memory and set its computer players going.  ``seats``: which seat each person's
        account sits at (for "your tables")."""
        game = info.new_game()
        steps = [line.apply(game, seating) for line in lines]
        status = "over" if game.is_over else ("playing" if seating.started else "seating")
        try:
            await asyncio.to_thread(
                self.store.create_table, table_id=info.id, kind=info.kind, level=info.level,
                rules=info.rules.to_spec(), seed=info.seed, start=info.start_json(),
                options=info.options, status=status, entries=[write_step(s) for s in steps],
                code=info.code, host=info.host, seats=seats,
            )
        except StaleWrite as e:
            raise Refusal(409, str(e)) from None
        except Exception as e:
            log.error("storing a new table failed: %s", e)
            raise Refusal(503, f"could not store the new game: {type(e).__name__}") from None
        table = Table(info, game, seating, steps, self)
        self._keep(table)
        await self._place([table])
        table.wake()
        return table

    async def replay(self, table: Table) -> Table:
        """A new single-player table with the same rules, strength and deals ("play these
        deals again"): the seed never leaves the server."""
        old = table.info
        info = TableInfo(
            new_table_id(), old.kind, old.level, old.rules, old.seed, old.totals, old.bags,
            old.dealer, options={k: v for k, v in old.options.items() if k == "pace"},
        )
        return await self.create(info, Seating.solo(), [Line("deal")])

    async def create_private(self, host: int, name: str, body: Mapping[str, Any]) -> Table:
        """A private table from ``POST /api/tables``: the host sits South and gets a code."""
        info = parse_private_table(body)
        info.host = host
        self.user_names[host] = name
        seating = Seating.open_table(host=host)
        for _ in range(20):
            info.code = new_code()
            try:
                return await self.create(info, seating, [Line("sit", S, who=f"u{host}")],
                                          seats={S: host})
            except Refusal as e:
                if e.status != 409:
                    raise
        raise Refusal(503, "could not find a free table code; try again")

    async def create_quick(self, chairs: Sequence[Chair | None]) -> Table:
        """A quick-match table: ``chairs`` by seat (N, E, S, W) as the queue balanced them, a
        computer player where a chair is ``None``; the ``varaq`` preset, started at once.
        Each person's wait is kept with the table, for them to see."""
        waited = {SEAT_LETTERS[seat]: chair.waited
                  for seat, chair in enumerate(chairs) if chair is not None}
        info = TableInfo(new_table_id(), "quick", "normal", Rules.named("varaq"),
                         str(secrets.randbits(48)), options={"fill_bots": True, "waited": waited})
        seating = Seating()
        lines = []
        seats: dict[int, int] = {}
        for seat, chair in enumerate(chairs):
            if chair is None:
                lines.append(Line("sit", seat, who="bot"))
                continue
            self.user_names[chair.user_id] = chair.name
            lines.append(Line("sit", seat, who=f"u{chair.user_id}"))
            seats[seat] = chair.user_id
        lines += [Line("start"), Line("deal")]
        # Someone suspended while they waited does not sit down (the queue drops them).
        suspended = [uid for uid in seats.values()
                     if await asyncio.to_thread(self.store.suspension, uid) is not None]
        if suspended:
            raise Suspended("suspended while waiting", tuple(suspended))
        return await self.create(info, seating, lines, seats=seats)

    async def again(self, table: Table, user_id: int) -> Table:
        """Play again after a match of people: the same seats and variations, new deals.
        Every reader of the old table is told where the new one is."""
        async with table.lock:
            if not table.game.is_over:
                raise Refusal(409, "the match is not over yet")
            if table.seating.seat_of(user_id) is None:
                raise Refusal(403, "you do not have a seat at this table")
            following = table.info.options.get("next")
            if following:
                return await self.get(str(following))
            old = table.info
            info = TableInfo(
                new_table_id(), old.kind, old.level, old.rules, str(secrets.randbits(48)),
                # The queue's waits were for the first table, not this one.
                options={k: v for k, v in old.options.items() if k not in ("next", "waited")},
                host=old.host,
            )
            if old.kind == "private":
                info.code = new_code()
            seating = Seating(host_seat=table.seating.host_seat)
            lines = [Line("sit", s, who=o.word if o.kind != "open" else "bot")
                     for s, o in enumerate(table.seating.seats)]
            seats = {s: o.user_id for s, o in enumerate(table.seating.seats)
                     if o.user_id is not None}
            new = await self.create(info, seating, [*lines, Line("start"), Line("deal")],
                                     seats=seats)
            options = {**old.options, "next": new.id}
            await table.commit([], 409, values={"options": options})
            old.options = options
            table.push_presence()
            message = {"type": "again", "id": new.id}
            table.fanout.to_all(message)
            await replica.publish(table, {"push": message})
            return new

    async def by_code(self, text: str) -> Table:
        """The private table with this code (letters in any case; spaces and dashes ignored)."""
        code = "".join(ch for ch in text.upper() if ch.isalnum())
        if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
            raise Refusal(404, "no table has that code")
        table_id = await asyncio.to_thread(self.store.table_by_code, code)
        if table_id is None:
            raise Refusal(404, "no table has that code")
        return await self.get(table_id)

    async def get(self, table_id: str) -> Table:
        """The table for ``table_id``, rebuilt from the store if this process has not seen it."""
        table = self._tables.get(table_id)
        if table is not None:
            table.wake()  # revives the computer players should their task have ended early
            return table
        if not plausible_id(table_id):
            raise Refusal(404, "no game with that id")
        pending = self._loading.get(table_id)
        if pending is None:
            pending = (await self.load_many([table_id])).get(table_id)
            if pending is None:  # another request loaded it in the meantime
                table = self._tables.get(table_id)
                if table is None:
                    raise Refusal(404, "no game with that id")
                return table
        return await asyncio.shield(pending)

    async def load_many(self, table_ids: Sequence[str]) -> dict[str, asyncio.Future[Table]]:
        """Read these tables from the store, keep them, and own or follow each: one read of
        them all, one query for the names seated there, one claim (:meth:`_place`).  A
        table already here or already being loaded is left to that; what becomes of each
        one asked for — its table or its refusal — is the result of its future, returned for
        the ids this call loaded and given to whoever waits in :meth:`get`."""
        loop = asyncio.get_running_loop()
        ids = [t for t in dict.fromkeys(table_ids)
               if t not in self._tables and t not in self._loading and plausible_id(t)]
        if not ids:
            return {}
        futures: dict[str, asyncio.Future[Table]] = {t: loop.create_future() for t in ids}
        self._loading.update(futures)

        def refuse(table_id: str, e: BaseException) -> None:
            future = futures[table_id]
            if not future.done():
                future.set_exception(e)
                future.exception()  # retrieved here: nobody else may be waiting for it

        try:
            try:
                stored = await asyncio.to_thread(self.store.load_tables, ids)
            except Exception as e:
                log.error("loading tables %s failed: %s", ", ".join(ids[:5]), e)
                refusal = Refusal(503, f"could not load the game: {type(e).__name__}")
                for table_id in ids:
                    refuse(table_id, refusal)
                return futures
            tables: list[Table] = []
            for table_id in ids:
                row = stored.get(table_id)
                if row is None:
                    refuse(table_id, Refusal(404, "no game with that id"))
                    continue
                try:
                    tables.append(self.rebuild(row))
                except Refusal as e:
                    refuse(table_id, e)
            await self._learn_names(tables)
            for table in tables:
                self._keep(table)
            await self._place(tables)
            for table in tables:
                futures[table.id].set_result(table)
                table.wake()  # the computer players resume if it is their turn
        except asyncio.CancelledError:
            for future in futures.values():
                future.cancel()
            raise
        except BaseException as e:
            for table_id in ids:
                refuse(table_id, e)
            raise
        finally:
            for table_id in ids:
                del self._loading[table_id]
        return futures

    async def _learn_names(self, tables: list[Table]) -> None:
        """The names of the people seated at tables rebuilt from the store, in one query."""
        wanted = {o.user_id for t in tables for o in t.seating.seats
                  if o.user_id is not None and o.user_id not in self.user_names}
        if not wanted:
            return
        names = await asyncio.to_thread(self.store.user_names, wanted)
        for uid in wanted:
            self.user_names[uid] = names.get(uid, "Player")

    def rebuild(self, stored: StoredTable) -> Table:
        """A table as its stored lines make it (in memory only)."""
        try:
            info = TableInfo.from_stored(stored)
            seating = Seating.solo() if info.kind == "solo" else Seating(host_seat=S)
            done = replay(info.new_game(), seating, stored.entries)
        except (JournalError, RulesError, KeyError, ValueError, TypeError) as e:
            log.error("table %s cannot be rebuilt: %s", stored.id, e)
            raise Refusal(500, f"game {stored.id} cannot be rebuilt: {e}") from None
        return Table(info, done.game, done.seating, done.steps, self)

    def _keep(self, table: Table) -> None:
        limit = self.settings.max_tables
        if len(self._tables) >= limit:
            for table_id, old in list(self._tables.items()):
                if old.idle:
                    self.forget(table_id)
                if len(self._tables) < limit // 2:
                    break
        self._tables[table.id] = table
        if self._closed_watch is None:
            self._closed_watch = asyncio.get_running_loop().create_task(self._watch_closed())

    def __len__(self) -> int:
        return len(self._tables)

    def held(self, table_id: str) -> Table | None:
        """The table if this process has it in memory (never loads it): Live tables reads a
        table it holds from memory, one it does not from the store."""
        return self._tables.get(table_id)

    def forget(self, table_id: str) -> None:
        """Drop a table from memory (a request still holding it must not write), and with
        several processes give up its lock or stop following it."""
        table = self._tables.pop(table_id, None)
        if table is not None:
            table.retired = True
            if self.cluster is not None:
                asyncio.get_running_loop().create_task(self._let_go(table))

    async def _let_go(self, table: Table) -> None:
        cluster = self.cluster
        if cluster is None:
            return
        for channel in (f"varaq:ev:{table.id}", f"varaq:req:{table.id}"):
            await cluster.unsubscribe(channel)
        if table.role == "owner":
            await cluster.locks.release(table.id)
        await table.close()

    async def _handed_over(self, message: dict[str, Any]) -> None:
        """What a leaving process says on :data:`~.replica.HANDOVER`:

        - ``prepare``: the tables it is about to let go.  This process loads them now, as a
          follower (they still play on at their owner meanwhile), and says it is ``ready``:
          when their locks are released it only has to take them, not read them first;
        - ``ready``: a peer has loaded these of the tables this process is about to let go;
        - ``table``: a table nobody followed when it was let go: load it and take it (of
          several processes that try, one wins; the others let it go again).

        Each load runs on its own task, so a hundred tables load side by side instead of one
        after the other on the channel's lane."""
        cluster = self.cluster
        if cluster is not None and message.get("ready") and message.get("for") == cluster.node:
            ids = message.get("ids")
            if isinstance(ids, list):
                self._peer_read.update(t for t in ids if isinstance(t, str))
            else:  # a process of an older version, which says so once it read them all
                self._peer_read.update(t.id for t in self._tables.values())
            self._peer_ready.set()
            return
        if self.leaving or cluster is None:
            return
        prepare = message.get("prepare")
        if isinstance(prepare, list):
            ids = [t for t in prepare[:MAX_PREPARED] if isinstance(t, str)]
            people = message.get("people")
            if isinstance(people, list):
                # The people at those tables: the leaving process stopped listening, so their
                # requests are arriving here already; their sessions are read first, in one
                # query off the event loop, instead of one by one on it as each arrives.
                users = [u for u in people[:MAX_PREPARED * 4] if isinstance(u, int)]
                for expect in self.arriving:
                    self._spawn(expect(users))
            self._spawn(self._prepare(ids, str(message.get("from")),
                                      expect_people=not isinstance(people, list)))
            return
        table_id = message.get("table")
        if isinstance(table_id, str):
            self._spawn(self._take_handed(table_id))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._taken.add(task)
        task.add_done_callback(self._taken.discard)

    async def _prepare(self, table_ids: list[str], leaving: str, *,
                       expect_people: bool = True) -> None:
        """Follow the tables a leaving process is about to let go, a wave at a time in the
        order it will let them go, and tell it after each wave: it releases a wave as soon
        as that wave is read here, while the next ones are still being read.  With
        ``expect_people`` (a leaving process that did not name the people) each wave's
        people's sessions are read once it is."""
        started = time.perf_counter()
        for first in range(0, len(table_ids), HANDOVER_WAVE):
            wave = table_ids[first:first + HANDOVER_WAVE]
            async with self._taking:
                with contextlib.suppress(Refusal):
                    await self.load_many(wave)
            # Tables of the wave another request was loading meanwhile: wait for those too.
            for pending in [self._loading[t] for t in wave if t in self._loading]:
                with contextlib.suppress(Exception):
                    await asyncio.shield(pending)
            cluster = self.cluster
            if cluster is None or self.leaving:
                return
            await cluster.publish(replica.HANDOVER, {"ready": True, "for": leaving,
                                                     "ids": wave})
            if not expect_people:
                continue
            people = people_at(self._tables[t] for t in wave if t in self._tables)
            for expect in self.arriving:
                self._spawn(expect(people))
        log.info("read %d tables another process is about to hand on in %.2f s",
                 len(table_ids), time.perf_counter() - started)

    async def _take_handed(self, table_id: str) -> None:
        async with self._taking:
            try:
                table = await self.get(table_id)
            except Refusal as e:
                log.warning("table %s was handed over but cannot be loaded: %s", table_id, e)
                return
        if table.role == "follower" and not len(table.fanout):
            self.forget(table_id)

    def start_hand_over(self) -> asyncio.Task[int]:
        """Begin :meth:`hand_over` on a task of its own (once: a second call returns the
        first's task), so SIGTERM can start it while the web server still closes its
        connections, and the shutdown that follows waits for the same hand-over."""
        if self._handing is None:
            self._handing = asyncio.get_running_loop().create_task(self._hand_over())
        return self._handing

    async def hand_over(self) -> int:
        """This process is stopping: give each table it owns to another process (see
        :meth:`_hand_over`; started at most once), and how many it gave."""
        return await asyncio.shield(self.start_hand_over())

    async def _hand_over(self) -> int:
        """Give each table this process owns to another process, a wave of
        :data:`HANDOVER_WAVE` at a time, and how many it gave.

        First the other processes are asked to read the tables (``prepare``), which they do
        a wave at a time, saying so after each (``ready``); the tables play on here meanwhile.
        Then, a wave at a time, once a peer has read it (or :data:`PREPARE_WAIT` seconds
        after the ``prepare``, whatever was read), each table is let go under its own lock,
        so a commit under way is stored first; from then on this copy only forwards (its role
        is ``follower``); the wave's locks are released, and the processes following its
        tables are told to take them at once, without waiting for their heartbeat.  Whoever
        takes a lock finds every commit in the store, and reads the table again unless its
        copy is already at that version: the lock is never free while the newest version is
        only here."""
        cluster = self.cluster
        if cluster is None:
            return 0
        self.leaving = True
        given = 0
        owned = [t for t in self._tables.values() if t.role == "owner"]
        started = time.perf_counter()
        log.info("handing %d tables on", len(owned))
        heard = 0
        if owned:
            # First let another process read them (they play on here meanwhile), so that when
            # each lock is released it is taken at once by a process that already follows it.
            self._peer_read.clear()
            prepared = owned[:MAX_PREPARED]
            heard = await cluster.publish(replica.HANDOVER, {
                "prepare": [t.id for t in prepared], "from": cluster.node,
                "people": people_at(prepared)})
        deadline = time.perf_counter() + PREPARE_WAIT
        waited = 0.0
        for start in range(0, len(owned), HANDOVER_WAVE):
            wave = owned[start:start + HANDOVER_WAVE]
            if heard > 1:  # this process hears its own message too
                before = time.perf_counter()
                await self._wait_read([t.id for t in wave], deadline)
                waited += time.perf_counter() - before
            # Tables with sockets here follow their next owner from now on: the sockets keep
            # getting every event until their pages have moved (:meth:`move_sockets`).
            # Subscribed before the locks go, so the next owner's first event is heard.
            watched = {t.id for t in wave if len(t.fanout)}
            await asyncio.gather(*(
                cluster.subscribe(f"varaq:ev:{t.id}", functools.partial(replica.follow, t))
                for t in wave if t.id in watched))
            for table in wave:
                async with table.lock:
                    # A commit under way is stored first; from here on this copy commits
                    # nothing (a follower forwards).  Still listening for requests: until the
                    # next owner listens, they are answered "moving" at once and asked again.
                    table.role = "follower"
                    table.driver.cancel()
            # Every commit of the wave is stored: its locks go in one statement, and the
            # processes following its tables are told at once, side by side.
            await cluster.locks.release_all([t.id for t in wave])
            await asyncio.gather(*(replica.hand_on(t, listening_here=t.id in watched)
                                   for t in wave))
            given += len(wave)
        released = time.perf_counter()
        peer_read = all(t.id in self._peer_read for t in owned)
        for table in owned:
            await cluster.unsubscribe(f"varaq:req:{table.id}")
        if given:
            log.info("handed %d tables to the other processes", given, extra={
                "prepare_s": round(waited, 3),
                "release_s": round(released - started - waited, 3),
                "peer_ready": peer_read})
        return given

    async def has_peer(self) -> bool:
        """Whether another process of the cluster is there to take this one's tables and
        pages (it listens for hand-overs, as this one does)."""
        return self.cluster is not None and await self.cluster.listeners(replica.HANDOVER) >= 2

    async def move_sockets(self) -> int:
        """This process is stopping and has stopped accepting connections: ask every table
        socket to move to another process before this one closes it; how many were asked.

        A socket closed with 1012 leaves its page blind from the close until it has opened
        again elsewhere and been sent what it missed: a turn that starts meanwhile waits for
        that (up to 1.5 s in ``benchmarks/rolling_restart.py``).  Here each page is sent
        ``moving`` instead; it opens its next socket while this one still delivers every
        event (this copy of the table follows its new owner once handed on), and closes this
        one only when the next is open, then says hello there with the version it holds.  So
        the page is blind for one hello's round trip, and sees every event once.  The pages
        are asked once the tables are handed on, and spread their new connections over
        ``within`` seconds.  Those that have not moved by
        the deadline are closed with 1012 by the web server, as before.  A process with no
        peer (one process on SQLite, or the last of a cluster) has nowhere to send them:
        nothing is asked, and its sockets are closed with 1012 at once."""
        if not await self.has_peer():
            return 0
        # The pages move once another process holds every table: their hellos there find
        # the tables read and owned, instead of each loading one while the hand-over waits
        # for that process (busy with a few hundred handshakes) to read them.
        await self.hand_over()
        listeners = [listener for t in list(self._tables.values())
                     for listener in t.fanout.listeners]
        if not listeners:
            return 0
        within = move_spread(len(listeners))
        for listener in listeners:
            listener.push({"type": "moving", "within": within}, reply=True)
        started = time.perf_counter()
        deadline = started + within + MOVE_GRACE
        while (left := sum(len(t.fanout) for t in list(self._tables.values()))) and (
                time.perf_counter() < deadline):
            await asyncio.sleep(0.05)
        log.info("asked %d table sockets to move; %d moved in %.2f s", len(listeners),
                 len(listeners) - left, time.perf_counter() - started)
        return len(listeners)

    async def _wait_read(self, table_ids: list[str], deadline: float) -> None:
        """Until a peer has read these tables (its ``ready`` messages), or ``deadline``."""
        while not self._peer_read.issuperset(table_ids):
            left = deadline - time.perf_counter()
            if left <= 0:
                return
            self._peer_ready.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._peer_ready.wait(), left)

    async def close(self) -> None:
        await self.hand_over()
        for task in (self._heartbeat, self._closed_watch, *self._taken):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for table in list(self._tables.values()):
            await table.close()
        self._tables.clear()
        await asyncio.to_thread(self.appender.close)


