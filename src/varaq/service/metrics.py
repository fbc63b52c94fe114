"""What a server process is doing, for Prometheus: counters, histograms, and a scrape-time view.

Everything goes through the ``prometheus-client`` package; nothing here writes the exposition
format by hand.  Two kinds of numbers:

- **Events**, counted where they happen by a one-line hook: commands accepted and refused (by
  kind and refusal status, in :meth:`Tables.run <.registry.Tables.run>`), the latency of HTTP
  requests (by route template, never a raw path: no table id becomes a label) and of socket
  messages (by command kind), each commit's store append, each computer player's decision
  (Hard's includes its wait in the pool's queue), rate-limit refusals by limit, and in a
  cluster the Redis publish-to-receive lag and the requests forwarded to a table's owner.
- **State**, read when Prometheus scrapes (:class:`ServerState`), never kept in sync by hand:
  tables in memory by kind, status, phase and role, sockets open, people online (distinct
  signed-in people with a socket), the bot pool's queue.

**Registries.**  The event metrics are module-level objects made with ``registry=None``, so
the hooks stay one line (``metrics.COMMANDS.labels(...).inc()``) without threading an object
through every constructor; each app then gets its own :class:`CollectorRegistry`
(:func:`registry_for`) holding those shared metrics, the process's own (CPU, memory, open
files, garbage collection) and a :class:`ServerState` reading *that* app's tables.  Several
apps in one process — the tests build dozens — never collide on a metric name, and each
scrape shows its own app's tables; the event counters are the process's (one app per process
in production, where they are the same thing).  prometheus-client's global default registry
is left alone.

**Several processes.**  Each ``varaq serve`` process exposes its own ``/metrics`` and
Prometheus scrapes each one (``docs/deploy.md``); summing across processes is PromQL's job.
There is no shared multi-process directory: the processes are separate servers, not workers
behind one port.

**The Redis lag** is measured from a timestamp the publisher adds to each message
(``"_sent"``, wall-clock seconds); across machines it includes their clock difference.
"""

from __future__ import annotations

import functools
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from .. import logs
from ..seats import SEAT_LETTERS
from .errors import Refusal

if TYPE_CHECKING:
    from .commands import Asker, Kind
    from .registry import Tables
    from .table import Table

__all__ = [
    "COMMANDS", "HTTP_SECONDS", "HTTP_RESPONSES", "SOCKET_SECONDS", "COMMIT_SECONDS",
    "BOT_SECONDS", "REDIS_LAG", "FORWARDED", "FORWARDED_SECONDS", "RATE_LIMITED",
    "registry_for", "ServerState", "command", "socket_message", "timed_commit", "bot_decision",
    "stamped", "received", "forwarded",
]

log = logging.getLogger("varaq.service")

# No ``*_created`` series beside every counter and histogram: they double the text a scrape
# reads, and Prometheus does not use them.  (A process-wide switch; Varaq is its only user.)
disable_created_metrics()  # type: ignore[no-untyped-call]

P = ParamSpec("P")
R = TypeVar("R")

#: Latency buckets for work that takes a few milliseconds (a commit, a Redis hop).
FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: For requests and socket messages (a move includes its commit; a hint, Hard's thought).
REQUEST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: For a computer player's decision: Hard thinks up to 0.6 s and may wait in the queue first.
THINKING = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5, 2.5, 5.0)

COMMANDS = Counter(
    "varaq_commands", "Commands to tables, by kind and outcome (accepted, refused, failed) "
    "with the refusal's HTTP status", ["kind", "outcome", "status"], registry=None)
HTTP_SECONDS = Histogram(
    "varaq_http_request_duration_seconds", "HTTP request latency by route template",
    ["method", "route"], buckets=REQUEST, registry=None)
HTTP_RESPONSES = Counter(
    "varaq_http_responses", "HTTP responses by route template and status",
    ["method", "route", "status"], registry=None)
SOCKET_SECONDS = Histogram(
    "varaq_socket_message_duration_seconds", "Time to handle one WebSocket message, by command "
    "kind (other: a hello, or a message refused before it was read as a command)",
    ["kind"], buckets=REQUEST, registry=None)
COMMIT_SECONDS = Histogram(
    "varaq_commit_duration_seconds", "Time for a table's commit to be stored (the append)",
    buckets=FAST, registry=None)
BOT_SECONDS = Histogram(
    "varaq_bot_decision_duration_seconds", "A computer player's decision by level and purpose "
    "(table or hint); Hard's includes its wait in the pool's queue",
    ["level", "purpose"], buckets=THINKING, registry=None)
REDIS_LAG = Histogram(
    "varaq_redis_lag_seconds", "From a Redis publish to its receipt in this process",
    buckets=FAST, registry=None)
FORWARDED = Counter(
    "varaq_forwarded_requests", "Requests forwarded to a table's owner process, by outcome "
    "(ok, refused, no_owner, failed)", ["op", "outcome"], registry=None)
FORWARDED_SECONDS = Histogram(
    "varaq_forwarded_request_duration_seconds", "A forwarded request's round trip",
    ["op"], buckets=REQUEST, registry=None)
RATE_LIMITED = Counter(
    "varaq_rate_limited", "Requests refused by a rate limit, by limit", ["limit"],
    registry=None)

SHARED: tuple[Collector, ...] = (
    COMMANDS, HTTP_SECONDS, HTTP_RESPONSES, SOCKET_SECONDS, COMMIT_SECONDS, BOT_SECONDS,
    REDIS_LAG, FORWARDED, FORWARDED_SECONDS, RATE_LIMITED,
)

#: The kind of command a socket message turned out to be (set by :func:`command`, read by
#: :func:`socket_message`: the message is parsed once, by the socket's own code).
_KIND: ContextVar[str] = ContextVar("varaq_command_kind", default="other")


# -- the scrape-time view ------------------------------------------------------------------------


class ServerState(Collector):
    """Gauges read from one app's state at each scrape: tables, sockets, people, the bot queue.

    Reads happen on the event loop (the scrape is an ordinary request), so the dictionaries
    read are never changed under it.
    """

    def __init__(self, state: Any) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        from .. import __version__
        from ..solver import default_backend

        info = InfoMetricFamily("varaq_build", "The version and solver core of this process")
        info.add_metric([], {"version": __version__, "solver": default_backend()})
        yield info
        tables: Tables | None = getattr(self.state, "tables", None)
        count = GaugeMetricFamily(
            "varaq_tables", "Tables in memory by kind, status, phase and role (local, owner, "
            "follower)", labels=["kind", "status", "phase", "role"])
        people: set[int] = set()
        if tables is not None:
            counts: dict[tuple[str, str, str, str], int] = {}
            for table in list(tables._tables.values()):
                key = (table.info.kind, table.status, table.game.phase_name, table.role)
                counts[key] = counts.get(key, 0) + 1
                people.update(table.fanout.people())
            for key, n in sorted(counts.items()):
                count.add_metric(list(key), n)
        yield count
        sockets = getattr(self.state, "socket_count", None)
        yield GaugeMetricFamily("varaq_sockets_open", "WebSockets open on this process",
                                value=sum(sockets.open.values()) if sockets else 0)
        yield GaugeMetricFamily("varaq_people_online", "Distinct signed-in people with a "
                                "socket open on this process", value=len(people))
        bots = tables.bots if tables is not None else None
        yield GaugeMetricFamily("varaq_bot_queue", "Hard decisions asked for and not answered "
                                "yet (queued or thinking)", value=bots.waiting if bots else 0)
        yield GaugeMetricFamily("varaq_bot_processes", "Worker processes for Hard players",
                                value=bots.processes if bots else 0)


def registry_for(state: Any) -> CollectorRegistry:
    """A registry for one app: the shared event metrics, the process's, and ``state``'s."""
    registry = CollectorRegistry(auto_describe=True)
    for metric in SHARED:
        registry.register(metric)
    registry.register(ServerState(state))
    ProcessCollector(registry=registry)
    GCCollector(registry=registry)
    return registry


# -- hooks -----------------------------------------------------------------------------------------


def command(
    run: Callable[[Tables, Table, Kind, Mapping[str, Any], Asker], Awaitable[R]],
) -> Callable[[Tables, Table, Kind, Mapping[str, Any], Asker], Awaitable[R]]:
    """Decorates :meth:`Tables.run`: the command's table, seat and person go into the log's
    context while it runs, and its outcome is counted (and logged at DEBUG, without its words:
    an action or a refusal's text may name a hidden card)."""

    @functools.wraps(run)
    async def observed(
        tables: Tables, table: Table, kind: Kind, doc: Mapping[str, Any], asker: Asker,
    ) -> R:
        name = kind.value
        _KIND.set(name)
        seat = table.reader_of(asker)
        with logs.bound(table=table.id, person=asker.user,
                        seat=None if seat is None else SEAT_LETTERS[seat]):
            try:
                result = await run(tables, table, kind, doc, asker)
            except Refusal as e:
                COMMANDS.labels(name, "refused", str(e.status)).inc()
                log.debug("command %s refused with %d", name, e.status)
                raise
            except Exception:
                COMMANDS.labels(name, "failed", "500").inc()
                raise
            COMMANDS.labels(name, "accepted", "200").inc()
            log.debug("command %s accepted", name)
            return result

    return observed


def socket_message(handle: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Decorates the socket's per-message handler: a message id for the log, and the time it
    took by the kind of command it was."""

    @functools.wraps(handle)
    async def observed(*args: P.args, **kwargs: P.kwargs) -> R:
        token = _KIND.set("other")
        started = time.perf_counter()
        outcome = "ok"
        try:
            with logs.bound(message=uuid.uuid4().hex[:12]):
                try:
                    return await handle(*args, **kwargs)
                except Refusal as e:
                    outcome = str(e.status)
                    raise
                finally:
                    kind = _KIND.get()
                    SOCKET_SECONDS.labels(kind).observe(time.perf_counter() - started)
                    log.debug("socket message %s: %s", kind, outcome)
        finally:
            _KIND.reset(token)

    return observed


async def timed_commit(append: Awaitable[R]) -> R:
    """A table's store append, timed (wrapped around it in :meth:`Table.commit`)."""
    with COMMIT_SECONDS.time():
        return await append


def bot_decision(decide: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Decorates :meth:`BotPool.decide`: each decision's time by level, table or hint."""

    @functools.wraps(decide)
    async def observed(pool: Any, level: str, *args: Any, **kwargs: Any) -> R:
        started = time.perf_counter()
        try:
            return await decide(pool, level, *args, **kwargs)
        finally:
            purpose = "hint" if kwargs.get("hint") else "table"
            BOT_SECONDS.labels(level, purpose).observe(time.perf_counter() - started)

    return observed


def stamped(message: dict[str, Any]) -> dict[str, Any]:
    """A message about to be published, with the time it was sent (for :func:`received`)."""
    return {**message, "_sent": time.time()}


def received(message: Any) -> None:
    """A message read from Redis: how long it took to come (its stamp is taken off)."""
    if isinstance(message, dict):
        sent = message.pop("_sent", None)
        if isinstance(sent, (int, float)):
            REDIS_LAG.observe(max(0.0, time.time() - sent))


def forwarded(request: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Decorates :meth:`Cluster.request`: forwarded requests counted and timed by op.  (The
    cluster's ``NoOwner`` is known by name: the cluster module imports this one.)"""

    @functools.wraps(request)
    async def observed(cluster: Any, table_id: str, op: str, *args: Any, **kwargs: Any) -> R:
        started = time.perf_counter()
        outcome = "failed"
        try:
            result = await request(cluster, table_id, op, *args, **kwargs)
            outcome = "ok"
            return result
        except Refusal:
            outcome = "refused"
            raise
        except Exception as e:
            outcome = "no_owner" if type(e).__name__ == "NoOwner" else "failed"
            raise
        finally:
            FORWARDED.labels(op, outcome).inc()
            FORWARDED_SECONDS.labels(op).observe(time.perf_counter() - started)

    return observed
