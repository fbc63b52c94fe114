"""A table across several processes: the owner publishes, followers copy and forward.

With several ``varaq serve`` processes (:mod:`.cluster`), one process owns each table and
applies its commands; the others follow it, showing the owner's events to their own sockets.
A follower forwards a command to the owner as the command itself, with who asked
(:func:`forward`): the owner reads it back through the same parser and authorizes it against
its own seating, exactly as if it had arrived there — there is no list of methods another
process may call.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..rules import Rules
from .cluster import MOVING, NoOwner, Stamp
from .commands import Asker, Command, kind_of, parse_command
from .errors import Refusal
from .journal import read_line

if TYPE_CHECKING:
    from .table import Table

__all__ = ["forward", "publish", "follow", "reach", "catch_up", "become_owner", "handle",
           "hand_on", "is_newest", "MOVING", "HANDOVER"]

log = logging.getLogger("varaq.service")

#: Pauses before asking a table's owner again when it answered "moving" or nobody listened
#: on its channel (seconds): short, since a hand-over takes the next owner a few hundredths
#: of a second, and a person is waiting; about 3 s in all before the person is told to retry.
OWNER_WAITS = (0.02, 0.05, 0.05, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.3, 0.3, 0.5, 0.5, 0.5)
#: The channel on which a leaving process offers a table that no other process follows.
HANDOVER = "varaq:handover"
#: Waits for a follower's copy to reach a forwarded answer's version (see :func:`reach`).
REACH_PAUSES = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.3)


async def forward(table: Table, command: Command, asker: Asker) -> Any:
    """Have the owner do ``command``; when the table has no owner at all (it died), this
    process takes the table and does it itself."""
    cluster = table.tables.cluster
    assert cluster is not None
    args = {"command": command.to_json(), "asker": asker.to_json()}
    started = time.perf_counter()
    tries: list[str] = []
    try:
        for pause in OWNER_WAITS:
            if table.role != "follower":
                # This process took the table meanwhile (its old owner handed it over here).
                tries.append(f"{time.perf_counter() - started:.3f} owned here")
                return await table.execute(command, asker)
            try:
                result, version = await cluster.request(table.id, "command", args)
            except Refusal as e:
                if e.status != 503 or str(e) != MOVING:
                    tries.append(f"{time.perf_counter() - started:.3f} {e.status}")
                    raise
                tries.append(f"{time.perf_counter() - started:.3f} moving")
                # The owner is handing the table on this instant: ask the next one shortly.
                await asyncio.sleep(pause)
            except NoOwner:
                tries.append(f"{time.perf_counter() - started:.3f} no owner")
                await table.tables.claim([table])
                if table.role != "follower":
                    tries.append(f"{time.perf_counter() - started:.3f} took it")
                    return await table.execute(command, asker)
                # Another process holds the lock but is not listening yet (it is taking the
                # table over this instant): ask again shortly.
                await asyncio.sleep(pause)
            else:
                tries.append(f"{time.perf_counter() - started:.3f} answered")
                await reach(table, version)
                return result
        raise Refusal(503, MOVING)
    finally:
        _note_slow(table, "forwarded", started, tries)


#: A forward or an owner's handling that takes longer than this (seconds) is logged, with
#: its tries: a rolling restart's slowest waits are found this way.
SLOW = 0.5


def _note_slow(table: Table, what: str, started: float, tries: list[str]) -> None:
    seconds = time.perf_counter() - started
    if seconds > SLOW:
        log.info("table %s: %s command took %.2f s", table.id, what, seconds,
                 extra={"seconds": round(seconds, 3), "tries": tries})


async def handle(table: Table, request: dict[str, Any]) -> None:
    """An owner answers a request another process forwarded."""
    cluster = table.tables.cluster
    assert cluster is not None
    op, args = request.get("op"), request.get("args") or {}
    if table.role != "owner":  # handed on meanwhile: never forward a forwarded request
        if op != "presence":
            await cluster.answer(request, refusal=Refusal(503, MOVING))
        return
    if not isinstance(args, Mapping):
        await cluster.answer(request, refusal=Refusal(400, "a request's args are an object"))
        return
    if op == "presence":
        if table.online is not None:
            people = args.get("people") or {}
            if isinstance(people, Mapping):
                table.online.remote_presence(
                    str(args.get("node")), {int(k): int(v) for k, v in people.items()})
        return
    try:
        if op != "command":
            raise Refusal(400, f"unknown request {str(op)[:32]!r}")
        doc = args.get("command")
        if not isinstance(doc, Mapping):
            raise Refusal(400, "a forwarded command is an object")
        command = parse_command(kind_of(doc.get("kind")), doc)
        started = time.perf_counter()
        result = await table.execute(command, Asker.from_json(args.get("asker")))
        _note_slow(table, "an owner's forwarded", started,
                   [f"sent {time.time() - float(request.get('at') or time.time()):.3f} s ago"])
    except Refusal as e:
        await cluster.answer(request, refusal=e)
    except Exception as e:
        log.exception("table %s: a forwarded %s failed", table.id, op)
        await cluster.answer(request, refusal=Refusal(500, f"internal error: {type(e).__name__}"))
    else:
        await cluster.answer(request, result, version=table.version)


async def hand_on(table: Table, *, listening_here: bool = False) -> None:
    """A leaving process has released ``table``'s lock: its followers take it at once, and if
    none listens, any other process may.  (``listening_here``: the leaving process follows the
    table itself now, for its sockets still there, and hears its own notice.)"""
    cluster = table.tables.cluster
    if cluster is None:
        return
    heard = await cluster.publish(f"varaq:ev:{table.id}", {"handover": True})
    if heard <= (1 if listening_here else 0):
        await cluster.publish(HANDOVER, {"table": table.id})


async def publish(table: Table, message: dict[str, Any]) -> None:
    """An owner tells the followers what it stored (or what changed around the game)."""
    cluster = table.tables.cluster
    if table.role == "owner" and cluster is not None:
        await cluster.publish(f"varaq:ev:{table.id}", message)


async def follow(table: Table, message: dict[str, Any]) -> None:
    """A follower applies what its owner published, and shows it to its own readers."""
    if table.role != "follower":
        return
    if message.get("handover"):
        # The owner is leaving and has let go of the table: take it now, not at the heartbeat
        # (with the rest of its wave, in one claim).
        table.tables.claim_soon(table)
        return
    if "push" in message:
        table.fanout.to_all(message["push"])
        return
    first, lines = int(message["v"]), list(message["lines"])
    if first > table.version:  # a message was lost: the store has them all
        await catch_up(table)
    elif first == table.version and lines:
        async with table.lock:
            steps = [read_line(text).apply(table.game, table.seating) for text in lines]
            table.steps.extend(steps)
            table.fanout.events(first, steps)
    values = message.get("values") or {}
    if values:
        _take_values(table, values)
    if message.get("online") is not None and table.online is not None:
        table.online.load(message["online"])
        table.fanout.table_changed()


def _take_values(table: Table, values: Mapping[str, Any]) -> None:
    """The owner changed the table's row (options, or the variations before the start)."""
    if "options" in values:
        table.info.options = dict(values["options"])
    if "level" in values:
        table.info.level = str(values["level"])
    if "rules" in values and not table.game.actions:
        table.info.rules = Rules.from_spec(values["rules"])
        table.game = table.info.new_game()
        table.forget_views()


async def reach(table: Table, version: int) -> None:
    """Wait a little for this follower's copy to have the owner's ``version``, so that the
    answer to a forwarded request shows its own effect.  The owner publishes the events
    before its answer and they are nearly always applied by then.  A copy still behind after
    about a second answers as it is: the events are on their way (a lost one is found by
    :func:`follow`), and the client's versions make a late event harmless."""
    for pause in REACH_PAUSES:
        if table.version >= version or table.role != "follower":
            return
        await asyncio.sleep(pause)


async def catch_up(table: Table) -> None:
    """Rebuild from the store (the history), keeping this table's readers, and send them
    what they had not seen."""
    async with table.lock:
        await _reload(table)


async def _reload(table: Table) -> None:
    """:func:`catch_up`'s work, with the table's lock already held."""
    stored = await asyncio.to_thread(table.tables.store.load_table, table.id)
    if stored is None:
        return
    fresh = table.tables.rebuild(stored)
    before = table.version
    table.info, table.game, table.seating, table.steps = (
        fresh.info, fresh.game, fresh.seating, fresh.steps)
    table.forget_views()
    if table.version > before:
        table.fanout.events(before, table.steps[before:])
    else:
        table.fanout.resync_all()


async def become_owner(table: Table, stamp: Stamp | None = None) -> None:
    """This process took the table's lock: catch up from the store and run it.

    The role changes under the table's lock, before the store is read: a request that arrives
    meanwhile waits for the lock and then finds the whole history, where before it saw a
    follower and was forwarded — to this very process, which was busy with it.

    ``stamp`` is what the store held of the table's row once the lock was taken.  When this
    copy already has that version and those values (a follower that applied every event, as
    after a leaving process's ``prepare``), the table is not read and replayed a second time,
    and its readers are not sent a state that tells them nothing new: at a hand-over of a
    hundred tables that second read was most of the new owner's work.
    """
    async with table.lock:
        table.role = "owner"
        if stamp is None or not is_newest(table, stamp):
            await _reload(table)
    if table.online is not None:
        table.online.mirror = None
        table.online.seen = set()
        table.online.look()
        table.online.after_commit()
    table.push_presence()
    table.wake()


def is_newest(table: Table, stamp: Stamp) -> bool:
    """Whether this copy is the stored table as ``stamp`` describes it (any doubt: no)."""
    if stamp.version is None or stamp.version != table.version:
        return False
    info = table.info
    try:
        same_rules = stamp.rules == info.rules.to_spec()
    except Exception:
        return False
    return same_rules and stamp.level == info.level and dict(stamp.options or {}) == info.options
