"""Quick match: a queue of signed-in people, seated four at a time in arrival order.

Everyone in the queue plays the same game: the ``varaq`` preset with Normal computer players
wherever people are missing.  A person may allow computer players to fill their table after a
wait they choose (``bots_after`` seconds; ``None``: only people).  Every ``TICK`` the queue is
looked at from the front:

- four people waiting: the first four sit down together;
- otherwise, if the person at the front has waited longer than they allowed, they sit down with
  those behind them who also allow computer players (up to four people), and computer players
  take the other seats.

A person's status says how long they have waited, how many are in the queue, and — once
seated — the table to go to (kept for a while, so a page that polls late still finds it).
The queue lives in this process; :class:`QuickMatch` is small on purpose so that several
processes can share one (in Redis) behind the same few verbs.

A suspended person cannot queue (the route asks their account first), and one suspended while
waiting is dropped when their group sits down: the table is not made
(:class:`~.accounts.Suspended` names them) and the others go back to the front.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .accounts import Suspended
from .errors import Refusal

__all__ = ["QuickMatch", "SharedQuickMatch", "Waiting", "TICK", "MAX_WAIT"]

log = logging.getLogger("varaq.service")

#: Seconds between two looks at the queue.
TICK = 0.5
#: The longest ``bots_after`` a person may choose (seconds).
MAX_WAIT = 600
#: Seconds a seated person's table stays in their status.
SEATED_FOR = 600.0
#: Seconds a group being seated shows as waiting at most (a process that died meanwhile).
SEATING_FOR = 30.0


@dataclass(slots=True)
class Waiting:
    user_id: int
    name: str
    since: float
    bots_after: float | None


class _Ticking:
    """A queue that looks at itself every ``TICK`` while anyone waits, in one task."""

    _task: asyncio.Task[None] | None = None

    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


class QuickMatch(_Ticking):
    def __init__(
        self, seat: Callable[[list[tuple[int, str]]], Awaitable[Any]],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        #: Makes the table for a group (``Tables.create_quick``); returns it.
        self._seat = seat
        self._clock = clock
        self.queue: list[Waiting] = []
        #: user id -> (table id, when seated)
        self.seated: dict[int, tuple[str, float]] = {}
        #: The group whose table is being made: off the queue, not seated yet.
        self.seating: list[Waiting] = []

    async def join(self, user_id: int, name: str, bots_after: Any) -> dict[str, Any]:
        _check_wait(bots_after)
        self.seated.pop(user_id, None)
        for w in self.queue:
            if w.user_id == user_id:
                w.bots_after = None if bots_after is None else float(bots_after)
                return self.now(user_id)
        self.queue.append(Waiting(user_id, name, self._clock(),
                                  None if bots_after is None else float(bots_after)))
        self._ensure_running()
        return self.now(user_id)

    async def leave(self, user_id: int) -> dict[str, Any]:
        self.queue = [w for w in self.queue if w.user_id != user_id]
        return self.now(user_id)

    async def status(self, user_id: int) -> dict[str, Any]:
        return self.now(user_id)

    def now(self, user_id: int) -> dict[str, Any]:
        """The person's status (the same verbs as the shared queue, without waiting)."""
        now = self._clock()
        seated = self.seated.get(user_id)
        if seated is not None and now - seated[1] < SEATED_FOR:
            return {"state": "seated", "table": seated[0], "queue": len(self.queue)}
        # While their table is made, a group still waits: a status of "idle" then would make
        # the page stop asking and never go to the table.
        for position, w in enumerate([*self.seating, *self.queue]):
            if w.user_id == user_id:
                return {
                    "state": "waiting", "waited": round(now - w.since, 1),
                    "position": position + 1, "queue": len(self.queue),
                    "bots_after": w.bots_after,
                }
        return {"state": "idle", "queue": len(self.queue)}

    def groups(self) -> list[list[Waiting]]:
        """Take the groups that can sit down now off the front of the queue."""
        out = []
        now = self._clock()
        while len(self.queue) >= 4:
            out.append(self.queue[:4])
            self.queue = self.queue[4:]
        if self.queue:
            first = self.queue[0]
            if first.bots_after is not None and now - first.since >= first.bots_after:
                group = [first, *[w for w in self.queue[1:] if w.bots_after is not None][:3]]
                self.queue = [w for w in self.queue if w not in group]
                out.append(group)
        return out

    async def tick(self) -> None:
        for group in self.groups():
            self.seating = group
            try:
                table = await self._seat([(w.user_id, w.name) for w in group])
            except Suspended as e:  # the others wait at the front again, without them
                self.queue = [w for w in group if w.user_id not in e.user_ids] + self.queue
                return
            except Exception as e:  # storage failed: they wait at the front again
                log.error("seating a quick match failed: %s", e)
                self.queue = group + self.queue
                return
            finally:
                self.seating = []
            now = self._clock()
            for w in group:
                self.seated[w.user_id] = (table.id, now)
        cutoff = self._clock() - SEATED_FOR
        self.seated = {u: s for u, s in self.seated.items() if s[1] >= cutoff}

    async def _run(self) -> None:
        while self.queue:
            await self.tick()
            await asyncio.sleep(TICK)


class SharedQuickMatch(_Ticking):
    """The same queue, kept in Redis so that several processes share it.

    The people waiting are a sorted set (by arrival, wall-clock time: the processes share no
    other clock) and a hash of their names and waits; the seated ones are keys that expire.
    Every process looks at the queue every ``TICK``, but only the one holding a short Redis
    lock forms groups, and it takes each group off the queue before it seats it.
    """

    QUEUE = "varaq:quick:queue"
    PEOPLE = "varaq:quick:people"
    LOCK = "varaq:quick:lock"

    def __init__(self, seat: Callable[[list[tuple[int, str]]], Awaitable[Any]],
                 redis: Any) -> None:
        self._seat = seat
        self.redis = redis

    async def join(self, user_id: int, name: str, bots_after: Any) -> dict[str, Any]:
        _check_wait(bots_after)
        await self.redis.delete(f"varaq:quick:seated:{user_id}")
        entry = {"name": name, "bots_after": bots_after}
        await self.redis.hset(self.PEOPLE, str(user_id), json.dumps(entry))
        await self.redis.zadd(self.QUEUE, {str(user_id): time.time()}, nx=True)
        self._ensure_running()
        return await self.status(user_id)

    async def leave(self, user_id: int) -> dict[str, Any]:
        await self.redis.zrem(self.QUEUE, str(user_id))
        await self.redis.hdel(self.PEOPLE, str(user_id))
        return await self.status(user_id)

    async def status(self, user_id: int) -> dict[str, Any]:
        size = int(await self.redis.zcard(self.QUEUE))
        table = await self.redis.get(f"varaq:quick:seated:{user_id}")
        if table:
            return {"state": "seated", "table": table, "queue": size}
        rank = await self.redis.zrank(self.QUEUE, str(user_id))
        if rank is None:
            # Off the queue while their table is made: still waiting (see QuickMatch.now).
            seating = await self.redis.get(f"varaq:quick:seating:{user_id}")
            if not seating:
                return {"state": "idle", "queue": size}
            entry = json.loads(seating)
            return {"state": "waiting", "waited": round(time.time() - entry["since"], 1),
                    "position": 1, "queue": size, "bots_after": entry.get("bots_after")}
        since = float(await self.redis.zscore(self.QUEUE, str(user_id)))
        raw = await self.redis.hget(self.PEOPLE, str(user_id))
        entry = json.loads(raw) if raw else {}
        return {"state": "waiting", "waited": round(time.time() - since, 1),
                "position": int(rank) + 1, "queue": size,
                "bots_after": entry.get("bots_after")}

    async def tick(self) -> None:
        if not await self.redis.set(self.LOCK, "1", nx=True, px=int(TICK * 4000)):
            return  # another process is forming groups
        try:
            ranked = await self.redis.zrange(self.QUEUE, 0, -1, withscores=True)
            people = await self.redis.hgetall(self.PEOPLE) if ranked else {}
            waiting = []
            for uid, since in ranked:
                entry = json.loads(people.get(uid) or "{}")
                waiting.append(Waiting(int(uid), str(entry.get("name", "Player")), float(since),
                                       entry.get("bots_after")))
            local = QuickMatch(self._seat, clock=time.time)
            local.queue = waiting
            for group in local.groups():
                ids = [str(w.user_id) for w in group]
                for w in group:  # still "waiting" to whoever asks while the table is made
                    await self.redis.set(f"varaq:quick:seating:{w.user_id}", json.dumps(
                        {"since": w.since, "bots_after": w.bots_after}), ex=int(SEATING_FOR))
                await self.redis.zrem(self.QUEUE, *ids)
                await self.redis.hdel(self.PEOPLE, *ids)
                try:
                    table = await self._seat([(w.user_id, w.name) for w in group])
                except Exception as e:
                    gone = e.user_ids if isinstance(e, Suspended) else ()
                    if not gone:
                        log.error("seating a quick match failed: %s", e)
                    back = {i: w.since for i, w in zip(ids, group, strict=True)
                            if w.user_id not in gone}
                    for w in group:
                        if w.user_id not in gone:
                            await self.redis.hset(self.PEOPLE, str(w.user_id), json.dumps(
                                {"name": w.name, "bots_after": w.bots_after}))
                    if back:
                        await self.redis.zadd(self.QUEUE, back)
                    await self.redis.delete(*[f"varaq:quick:seating:{i}" for i in ids])
                    continue
                for uid in ids:
                    await self.redis.set(f"varaq:quick:seated:{uid}", table.id,
                                         ex=int(SEATED_FOR))
                await self.redis.delete(*[f"varaq:quick:seating:{i}" for i in ids])
        finally:
            await self.redis.delete(self.LOCK)

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
                if not await self.redis.zcard(self.QUEUE):
                    return
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis away: try again shortly
                log.warning("the quick-match queue could not be read: %s", e)
            await asyncio.sleep(TICK)


def _check_wait(bots_after: Any) -> None:
    if bots_after is not None and (
        not isinstance(bots_after, (int, float)) or isinstance(bots_after, bool)
        or not 0 <= bots_after <= MAX_WAIT
    ):
        raise Refusal(400, f"bots_after must be a number of seconds from 0 to {MAX_WAIT}, "
                           "or null for people only")
