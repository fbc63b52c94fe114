"""Several ``varaq serve`` processes, one game: owners, events and requests.

The lichess shape, with existing engines: one owner per running table, events over Redis, a
shared PostgreSQL.

**Ownership: a PostgreSQL advisory lock per table.**  A process that loads a table tries
``pg_try_advisory_lock`` on a key made from the table's id, on one connection it keeps for its
locks.  The process holding the lock is the table's *owner*: it alone applies actions, drives
the computer players, runs the timers, and appends to the table's entries.  Why an advisory
lock rather than a lease with an expiry in Redis: the lock lives with the data it guards, and
PostgreSQL releases it the moment the owner's connection dies — a SIGKILLed owner hands its
tables on at once, with no expiry to tune between "too slow to fail over" and "too quick under
a pause".  A Redis restart moves no table.  And whatever happens to locks, every append names
the version it follows (see :mod:`.store`), so two writers can never both extend a table.

**Events: Redis pub/sub, one channel per table.**  After each commit the owner publishes the
journal lines it stored (and its presence and timers); every other process that has readers
at that table (a *follower*) applies the same lines to its own copy — the engine is
deterministic — and sends each of its readers the events filtered for them, as the owner does.
A follower that sees a gap in the versions (Redis dropped a message or restarted) reloads the
lines from the database: the database, not Redis, is the history.

**Requests: Redis pub/sub too.**  A follower forwards an action to the table's request channel
and waits for the owner's answer.  Nobody listening there means the table has no owner: the
follower takes the lock itself and acts.  Followers also try the locks of the tables they
follow every second, so a table whose owner died is taken over within about a second even if
nobody acts.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from . import metrics
from .errors import Refusal

__all__ = ["Cluster", "NoOwner", "Stamp", "table_key", "MOVING"]

log = logging.getLogger("varaq.cluster")

#: Seconds a forwarded request waits for the owner's answer.
REQUEST_TIMEOUT = 10.0
#: The refusal of a forwarded request its owner did not answer in time.  The owner may have
#: done it and only the answer been late (a slow store, a hand-over), so "try again" would be
#: wrong: a move sent twice is refused the second time as out of turn, and the person would not
#: know the first one counted.
UNANSWERED = ("the table's server did not answer in time: this may still have been done, "
              "so look at the table before trying again")
#: Seconds between checks of the lock connection (and claims of ownerless tables).
HEARTBEAT = 1.0
#: Seconds a subscription waits for Redis to confirm it (longer only while Redis is away).
SUBSCRIBE_WAIT = 3.0


#: Seconds the reader waits for a message before it looks for (un)subscriptions to make: how
#: long a new subscription may wait for the reader.
READ_WAIT = 0.01
#: Connections to Redis one process keeps at most (publishes wait for a free one).
REDIS_CONNECTIONS = 200
#: Seconds a publish waits for a free connection before it counts as failed.
REDIS_WAIT = 5.0
#: Connections of that pool opened at the start.
WARM_CONNECTIONS = 32
#: The answer to a request that arrived as this process let its table go.
MOVING = "this table is moving between servers; try again"


class NoOwner(Exception):
    """Nobody listens on the table's request channel: it has no owner right now."""


def table_key(table_id: str) -> int:
    """A table's advisory-lock key: 64 bits of a hash of its id, as PostgreSQL's bigint."""
    return int.from_bytes(hashlib.sha256(table_id.encode()).digest()[:8], "big", signed=True)


def _conninfo(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as psycopg's connection string."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Stamp(NamedTuple):
    """What the store held of a table's row when its lock was taken: enough to tell whether
    a follower's copy is the newest (the version counts the lines; the rest are the values
    an owner may change without a line).  ``version`` None: the row could not be read."""

    version: int | None = None
    options: Any = None
    level: Any = None
    rules: Any = None


class Locks:
    """This process's advisory locks, on one PostgreSQL connection kept for them."""

    def __init__(self, db_url: str) -> None:
        self.conninfo = _conninfo(db_url)
        self._conn: Any = None
        self._lock = asyncio.Lock()
        self.held: set[str] = set()

    async def _connection(self) -> Any:
        import psycopg

        if self._conn is None or self._conn.closed:
            self._conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
            self.held.clear()
        return self._conn

    async def try_own(self, table_ids: list[str]) -> dict[str, Stamp]:
        """Take whichever of these tables' locks are free; the ids now held, each with what the
        store holds of its row at that moment (:class:`Stamp`).

        Which ids are still wanted is decided under the lock: PostgreSQL's advisory locks stack
        within a session, so two claims at once (a new table's and the heartbeat's) would
        otherwise both "win" one table, and one unlock would not free it.

        The rows are read after the locks are taken, on the same connection: a leaving owner
        releases a table's lock only once its last commit is stored, so what is read then is
        the newest version, and a new owner whose copy is already there need not read the
        whole table again (:func:`.replica.become_owner`).
        """
        async with self._lock:
            wanted = [t for t in table_ids if t not in self.held]
            if not wanted:
                return {}
            conn = await self._connection()
            keys = [table_key(t) for t in wanted]
            cursor = await conn.execute(
                "SELECT k, pg_try_advisory_lock(k) FROM unnest(%s::bigint[]) AS k", (keys,))
            won = {k for k, ok in await cursor.fetchall() if ok}
            got = [t for t, k in zip(wanted, keys, strict=True) if k in won]
            self.held.update(got)
            return await self._stamps(conn, got)

    async def stamps(self, table_ids: list[str]) -> dict[str, Stamp]:
        """What the store holds of these tables' rows now, on the lock connection: a cheap
        look that tells a copy whether it missed anything, where reading a whole table
        means its every line and a replay."""
        async with self._lock:
            return await self._stamps(await self._connection(), table_ids)

    @staticmethod
    async def _stamps(conn: Any, table_ids: list[str]) -> dict[str, Stamp]:
        stamps: dict[str, Stamp] = {t: Stamp() for t in table_ids}
        if table_ids:
            with contextlib.suppress(Exception):  # without a stamp the table is read again
                cursor = await conn.execute(
                    "SELECT id, version, options, level, rules FROM tables WHERE id = ANY(%s)",
                    (table_ids,))
                for table_id, version, options, level, rules in await cursor.fetchall():
                    stamps[table_id] = Stamp(version, options, level, rules)
        return stamps

    async def release(self, table_id: str) -> None:
        if table_id not in self.held:
            return
        self.held.discard(table_id)
        async with self._lock:
            with contextlib.suppress(Exception):
                conn = await self._connection()
                await conn.execute("SELECT pg_advisory_unlock(%s)", (table_key(table_id),))

    async def release_all(self, table_ids: list[str]) -> None:
        """Release these tables' locks in one statement (a leaving process's wave)."""
        mine = [t for t in table_ids if t in self.held]
        if not mine:
            return
        self.held.difference_update(mine)
        async with self._lock:
            with contextlib.suppress(Exception):
                conn = await self._connection()
                await conn.execute("SELECT pg_advisory_unlock(k) FROM unnest(%s::bigint[]) AS k",
                                   ([table_key(t) for t in mine],))

    async def alive(self) -> bool:
        """Whether the lock connection still answers (if not, every lock is gone)."""
        async with self._lock:
            try:
                conn = await self._connection()
                await conn.execute("SELECT 1")
                return True
            except Exception:
                with contextlib.suppress(Exception):
                    if self._conn is not None:
                        await self._conn.close()
                self._conn = None
                self.held.clear()
                return False

    async def close(self) -> None:
        async with self._lock:
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    await self._conn.close()
                self._conn = None
            self.held.clear()


Handler = Callable[[dict[str, Any]], Awaitable[None]]


def _driver_info() -> dict[str, Any]:
    """redis-py's name and version for its connections, worked out once.

    Without it redis-py (7 and later) looks its own version up in the installed packages'
    metadata for every new connection: a process that takes a stopping peer's hundred tables
    opens dozens of connections at once to publish their events, and those lookups were 15 %
    of its event loop in that second (py-spy, ``benchmarks/rolling_restart.py``)."""
    try:
        from redis.driver_info import DriverInfo
        from redis.utils import get_lib_version
    except ImportError:  # redis-py before 7: no lookup to save
        return {}
    version = get_lib_version()  # type: ignore[no-untyped-call]
    return {"driver_info": DriverInfo(lib_version=version)}


class Cluster:
    """This process's link to the others: its locks, its Redis subscriptions, its requests."""

    def __init__(self, db_url: str, redis_url: str) -> None:
        import redis.asyncio as aioredis

        if not db_url.startswith("postgresql"):
            raise ValueError("several processes need a PostgreSQL --db (SQLite is one process)")
        self.node = uuid.uuid4().hex[:12]
        self.redis_url = redis_url
        # A pool that waits for a free connection instead of failing: a few hundred tables
        # publishing at once (a hand-over, say) would otherwise meet "Too many connections"
        # and lose messages.
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_url, decode_responses=True, socket_connect_timeout=2, socket_timeout=None,
            retry_on_timeout=True, health_check_interval=5, max_connections=REDIS_CONNECTIONS,
            timeout=REDIS_WAIT, **_driver_info())
        self.redis = aioredis.Redis(connection_pool=pool)
        self.locks = Locks(db_url)
        self._handlers: dict[str, Handler] = {}
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changes: asyncio.Queue[tuple[str, str, asyncio.Future[None]]] = asyncio.Queue()
        #: Messages waiting to be handled, one lane per channel (see :meth:`_dispatch`).
        self._lanes: dict[str, deque[tuple[Handler, dict[str, Any]]]] = {}
        self._lane_tasks: set[asyncio.Task[None]] = set()
        #: Called after Redis comes back (followers reload what they may have missed).
        self.on_reconnect: Callable[[], Awaitable[None]] | None = None
        self.closed = False

    @property
    def reply_channel(self) -> str:
        return f"varaq:reply:{self.node}"

    async def start(self) -> None:
        self._handlers[self.reply_channel] = self._on_reply
        self._reader = asyncio.get_running_loop().create_task(self._read())
        # Open some of the pool's connections now, not in the burst of publishes when this
        # process takes a stopping peer's tables (PINGs side by side take one each).
        with contextlib.suppress(Exception):
            await asyncio.gather(*(self.redis.ping() for _ in range(WARM_CONNECTIONS)))

    # -- subscriptions ---------------------------------------------------------------------------

    async def subscribe(self, channel: str, handler: Handler) -> None:
        """Listen on ``channel``; returns once Redis confirmed it (or after SUBSCRIBE_WAIT
        while Redis is away), so a table this process just took is heard at once: a request
        published in between would find no listener and look ownerless."""
        self._handlers[channel] = handler
        await self._change("subscribe", channel)

    async def unsubscribe(self, channel: str) -> None:
        """Stop listening on ``channel``.  Not waited for: a message that still arrives is
        dropped (or, on a request channel, answered "moving"), so nothing depends on when
        Redis confirms — and a process handing on hundreds of tables does not wait for each."""
        if self._handlers.pop(channel, None) is not None:
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            await self._changes.put(("unsubscribe", channel, done))

    async def _change(self, verb: str, channel: str) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._changes.put((verb, channel, done))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(done), SUBSCRIBE_WAIT)

    async def publish(self, channel: str, message: dict[str, Any]) -> int:
        """Send ``message`` to ``channel``; how many processes received it (0 when Redis is
        down: the database still has everything that matters)."""
        try:
            receivers: int = await self.redis.publish(channel, json.dumps(metrics.stamped(message)))
            return receivers
        except Exception as e:
            log.warning("publishing on %s failed: %s", channel, e)
            return 0

    async def listeners(self, channel: str) -> int:
        """How many processes listen on ``channel`` now (this one included); 0 when Redis is
        away."""
        try:
            counts = await self.redis.pubsub_numsub(channel)
        except Exception as e:
            log.warning("counting the listeners of %s failed: %s", channel, e)
            return 0
        return int(counts[0][1]) if counts else 0

    async def _read(self) -> None:
        """Keep one pub/sub connection reading, and remake it (resubscribing) when it drops."""
        first = True
        while not self.closed:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(*self._handlers)
                self._pubsub = pubsub
                if not first and self.on_reconnect is not None:
                    await self.on_reconnect()
                first = False
                while not self.closed:
                    if not self._changes.empty():
                        await self._apply_changes(pubsub)
                    message = await pubsub.get_message(timeout=READ_WAIT)
                    if message is None or message.get("type") != "message":
                        continue
                    handler = self._handlers.get(message["channel"])
                    if handler is not None:
                        self._dispatch(message["channel"], handler, message["data"])
                    elif message["channel"].startswith("varaq:req:"):
                        # A request that reached us just as we stopped listening (Redis counted
                        # us): say so now rather than let its sender wait for the timeout.
                        self._dispatch(message["channel"], self._moved, message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("the Redis connection dropped (%s); reconnecting", e)
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                self._pubsub = None

    async def _apply_changes(self, pubsub: Any) -> None:
        """Every subscription change waiting, in order, with one command per run of the same
        verb: a new owner of a hundred tables subscribes their request channels in one
        SUBSCRIBE instead of a hundred (each a turn of this reader while requests for those
        tables found nobody listening)."""
        changes: list[tuple[str, str, asyncio.Future[None]]] = []
        while not self._changes.empty():
            changes.append(self._changes.get_nowait())
        for verb, same in itertools.groupby(changes, key=lambda change: change[0]):
            run = list(same)
            channels = [channel for _, channel, _ in run]
            if verb == "subscribe":
                await pubsub.subscribe(*channels)
            else:
                await pubsub.unsubscribe(*channels)
            for _, _, done in run:
                if not done.done():
                    done.set_result(None)

    def _dispatch(self, channel: str, handler: Handler, data: str) -> None:
        """Handle a message on its channel's lane, never on the reader itself.

        A handler may take a while (an owner applies a forwarded action and commits it), and
        while the reader waited for it nothing else was read: not the answers this process was
        waiting for, not its own new subscriptions — with a few hundred tables the request of
        a table just opened here then found nobody listening and was refused with a 503.  Each
        channel keeps its order (a table's events apply in version order); channels no longer
        wait for each other.
        """
        try:
            message = json.loads(data)
        except ValueError:
            log.warning("a message on %s is not JSON; ignored", channel)
            return
        metrics.received(message)
        lane = self._lanes.get(channel)
        if lane is not None:  # its drain is running and will come to it
            lane.append((handler, message))
            return
        lane = self._lanes[channel] = deque([(handler, message)])
        task = asyncio.get_running_loop().create_task(self._drain(channel, lane))
        self._lane_tasks.add(task)
        task.add_done_callback(self._lane_tasks.discard)

    async def _drain(self, channel: str, lane: deque[tuple[Handler, dict[str, Any]]]) -> None:
        """Handle one channel's messages in arrival order until none is left."""
        try:
            while lane:
                handler, message = lane[0]  # stays queued while handled: later ones append
                try:
                    await handler(message)
                except Exception:
                    log.exception("handling a message on %s failed", channel)
                lane.popleft()
        finally:
            self._lanes.pop(channel, None)

    # -- requests to a table's owner -------------------------------------------------------------

    async def _moved(self, request: dict[str, Any]) -> None:
        if request.get("op") != "presence" and request.get("rid"):
            await self.answer(request, refusal=Refusal(503, MOVING))

    @metrics.forwarded
    async def request(self, table_id: str, op: str, args: dict[str, Any]) -> tuple[Any, int]:
        """Ask the table's owner to do ``op``: its answer and the table's version once it was
        done (0 if the owner did not say), or its refusal raised here."""
        rid = uuid.uuid4().hex
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        try:
            receivers = await self.publish(
                f"varaq:req:{table_id}",
                {"rid": rid, "from": self.node, "op": op, "args": args, "at": time.time()},
            )
            if receivers == 0:
                raise NoOwner(table_id)
            try:
                answer = await asyncio.wait_for(future, REQUEST_TIMEOUT)
            except TimeoutError:
                raise Refusal(503, UNANSWERED) from None
        finally:
            self._waiting.pop(rid, None)
        if "error" in answer:
            raise Refusal(int(answer.get("status", 409)), str(answer["error"]))
        version = answer.get("version")
        return answer.get("result"), version if isinstance(version, int) else 0

    async def answer(self, request: dict[str, Any], result: Any = None,
                     refusal: Refusal | None = None, version: int | None = None) -> None:
        reply: dict[str, Any] = {"rid": request.get("rid")}
        if refusal is not None:
            reply.update(error=str(refusal), status=refusal.status)
        else:
            reply["result"] = result
        if version is not None:
            reply["version"] = version
        await self.publish(f"varaq:reply:{request.get('from')}", reply)

    async def _on_reply(self, message: dict[str, Any]) -> None:
        future = self._waiting.get(str(message.get("rid")))
        if future is not None and not future.done():
            future.set_result(message)

    async def close(self) -> None:
        self.closed = True
        for task in list(self._lane_tasks):
            task.cancel()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        await self.locks.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()  # type: ignore[no-untyped-call]
