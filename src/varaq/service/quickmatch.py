"""Quick match: a queue of signed-in people, seated four at a time by rating.

Everyone in the queue plays the same game: the ``varaq`` preset with Normal computer players
wherever people are missing.  A person may allow computer players to fill their table after a
wait they choose (``bots_after`` seconds; ``None``: only people).  Every ``TICK`` the queue is
looked at, the person who has waited longest first:

- a group is four people whose ratings (each one's estimate, ``mu``; a newcomer counts at the
  model's starting value) lie within the **allowed gap** of the one who has waited longest
  among them.  The gap starts narrow (:data:`GAP_START`) and widens with every second that
  person waits (:data:`GAP_PER_SECOND`), so close ratings sit together when the queue allows
  it and nobody waits for ever: after a minute or so the gap spans every rating there is.  Of
  the groups that fit, the one with the smallest spread of ratings sits down;
- otherwise, if that person has waited longer than they allowed, they sit down with the
  nearest-rated people behind them who also allow computer players (up to four people, within
  the same gap), and computer players take the other seats.

Then the group is **balanced**: of the three ways to make two partnerships out of four chairs
(a computer player counts at its level's fixed rating), the one whose sides' summed ratings
are closest is chosen (ties: arrival order, the first two as partners).  Each person's wait
goes with them to the table, which tells them "Seated after 12 s in the queue".

A person's status says how long they have waited, how many are in the queue, and — once
seated — the table to go to and how long they waited (kept for a while, so a page that polls
late still finds it).  The queue lives in this process; :class:`QuickMatch` is small on purpose
so that several processes can share one (in Redis) behind the same few verbs.  The clock is
injected: the pairing is a pure function of the queue and the time, and tested as one.

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
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..seats import N, S
from .accounts import Suspended
from .errors import Refusal
from .ratings import BOT_RATINGS, MODEL, stored_ratings
from .store import Store

__all__ = [
    "QuickMatch", "SharedQuickMatch", "Waiting", "Chair", "Group", "TICK", "MAX_WAIT",
    "GAP_START", "GAP_PER_SECOND", "allowed_gap", "balance", "rating_of",
]

log = logging.getLogger("varaq.service")

#: Seconds between two looks at the queue.
TICK = 0.5
#: The longest ``bots_after`` a person may choose (seconds).
MAX_WAIT = 600
#: Seconds a seated person's table stays in their status.
SEATED_FOR = 600.0
#: Seconds a group being seated shows as waiting at most (a process that died meanwhile).
SEATING_FOR = 30.0
#: The rating gap (in the model's ``mu`` points) a group may span when the one who has waited
#: longest in it has just arrived: about a third of a newcomer's uncertainty.
GAP_START = 3.0
#: How much the gap widens per second that person has waited: 15 points after a minute,
#: which spans nearly every rating people have (the computer players range over 13).
GAP_PER_SECOND = 0.2
#: The rating a computer player counts at when the sides are balanced (quick tables play
#: Normal).
BOT_RATING = BOT_RATINGS["normal"][0]


def allowed_gap(waited: float) -> float:
    """The rating spread a group may have around someone who has waited ``waited`` seconds.

    >>> allowed_gap(0), allowed_gap(30), allowed_gap(60)
    (3.0, 9.0, 15.0)
    """
    return GAP_START + GAP_PER_SECOND * max(0.0, waited)


def rating_of(store: Store, user_id: int) -> float:
    """The rating a person queues with: their estimate, or the model's starting one."""
    row = stored_ratings(store, [user_id]).get(user_id)
    return float(MODEL.mu) if row is None else row[0]


@dataclass(slots=True)
class Waiting:
    user_id: int
    name: str
    since: float
    bots_after: float | None
    #: The person's rating when they joined (``mu``).
    rating: float = float(MODEL.mu)


@dataclass(frozen=True, slots=True)
class Chair:
    """A person the queue seats: who, and how many seconds they waited."""

    user_id: int
    name: str
    waited: float


@dataclass(frozen=True, slots=True)
class Group:
    """People who sit down together: in arrival order, and by seat (N, E, S, W; ``None``
    where a computer player sits)."""

    members: list[Waiting]
    chairs: list[Chair | None]


def balance(members: Sequence[Waiting], now: float) -> list[Chair | None]:
    """The chairs, by seat, that make the two sides' summed ratings closest.

    The members fill slots in arrival order, computer players the slots left; the first slot
    partners whichever of the other three makes the sides closest (the earliest on a tie), and
    that partnership sits North-South, the first slot at South.

    >>> people = [Waiting(1, "a", 0, None, 30.0), Waiting(2, "b", 0, None, 29.0),
    ...           Waiting(3, "c", 0, None, 21.0), Waiting(4, "d", 0, None, 20.0)]
    >>> [c.name for c in balance(people, 5.0)]  # a with d against b with c
    ['d', 'b', 'a', 'c']
    """
    slots: list[Waiting | None] = [*members[:4], *[None] * (4 - min(4, len(members)))]
    ratings = [BOT_RATING if w is None else w.rating for w in slots]
    total = sum(ratings)
    best = min((1, 2, 3), key=lambda p: round(abs(total - 2 * (ratings[0] + ratings[p])), 6))
    others = [i for i in (1, 2, 3) if i != best]
    order = {S: 0, N: best, 1: others[0], 3: others[1]}  # seat -> slot
    chairs: list[Chair | None] = []
    for seat in range(4):
        w = slots[order[seat]]
        chairs.append(None if w is None else
                      Chair(w.user_id, w.name, round(max(0.0, now - w.since), 1)))
    return chairs


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


#: Makes the table for a group's chairs (``Tables.create_quick``); returns it.
SeatGroup = Callable[[list[Chair | None]], Awaitable[Any]]


class QuickMatch(_Ticking):
    def __init__(self, seat: SeatGroup, clock: Callable[[], float] = time.monotonic) -> None:
        self._seat = seat
        self._clock = clock
        self.queue: list[Waiting] = []
        #: user id -> (table id, when seated, seconds waited)
        self.seated: dict[int, tuple[str, float, float]] = {}
        #: The group whose table is being made: off the queue, not seated yet.
        self.seating: list[Waiting] = []

    async def join(self, user_id: int, name: str, bots_after: Any,
                   rating: float = float(MODEL.mu)) -> dict[str, Any]:
        _check_wait(bots_after)
        self.seated.pop(user_id, None)
        for w in self.queue:
            if w.user_id == user_id:
                w.bots_after = None if bots_after is None else float(bots_after)
                return self.now(user_id)
        self.queue.append(Waiting(user_id, name, self._clock(),
                                  None if bots_after is None else float(bots_after), rating))
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
            return {"state": "seated", "table": seated[0], "waited": seated[2],
                    "queue": len(self.queue)}
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

    def groups(self) -> list[Group]:
        """Take the groups that can sit down now off the queue, balanced and seated.

        Each person is looked at once, the longest waiting first, among the people still
        waiting in rating order: someone with no group now has none after others sit down
        either (the queue only shrinks during one look), so a look costs one sort of the
        queue and a few neighbours per person — a few milliseconds for hundreds waiting."""
        now = self._clock()
        arrival = {id(w): i for i, w in enumerate(self.queue)}
        ladder = sorted(self.queue, key=lambda w: (w.rating, arrival[id(w)]))
        rung = {id(w): i for i, w in enumerate(ladder)}
        taken: set[int] = set()
        out = []
        for anchor in self.queue:
            if id(anchor) in taken:
                continue
            members = self._group_for(anchor, now, ladder, rung[id(anchor)], taken, arrival)
            if members is None:
                continue
            members.sort(key=lambda w: arrival[id(w)])
            taken.update(id(w) for w in members)
            out.append(Group(members, balance(members, now)))
        self.queue = [w for w in self.queue if id(w) not in taken]
        return out

    @staticmethod
    def _group_for(anchor: Waiting, now: float, ladder: list[Waiting], at: int,
                   taken: set[int], arrival: dict[int, int]) -> list[Waiting] | None:
        """``anchor``'s group, or ``None``: the three people still free whose ratings make
        the smallest spread with theirs within the allowed gap (the smallest spread holding
        the anchor is always four neighbours in rating order; on a tie, the earliest to
        arrive), else — once the anchor's wait for people is over — the nearest-rated who
        also allow computer players, as long as the spread stays within the gap."""
        gap = allowed_gap(now - anchor.since)

        def free(step: int, *, bots: bool = False) -> list[Waiting]:
            """Up to three free people on one side of the anchor in rating order, nearest
            first, within the gap (``bots``: only those who allow computer players)."""
            found: list[Waiting] = []
            i = at + step
            while 0 <= i < len(ladder) and len(found) < 3:
                w = ladder[i]
                if abs(w.rating - anchor.rating) > gap:
                    break
                if id(w) not in taken and (not bots or w.bots_after is not None):
                    found.append(w)
                i += step
            return found

        below, above = free(-1), free(1)
        row = [*reversed(below), anchor, *above]
        best: tuple[float, list[int], list[Waiting]] | None = None
        for first in range(len(row) - 3):
            window = row[first:first + 4]
            if anchor not in window:
                continue
            spread = round(window[-1].rating - window[0].rating, 9)
            order = sorted(arrival[id(w)] for w in window)
            if spread <= gap and (best is None or (spread, order) < best[:2]):
                best = (spread, order, window)
        if best is not None:
            return list(best[2])
        if anchor.bots_after is None or now - anchor.since < anchor.bots_after:
            return None
        group = [anchor]
        below, above = free(-1, bots=True), free(1, bots=True)
        for w in sorted([*below, *above],
                        key=lambda w: (abs(w.rating - anchor.rating), arrival[id(w)])):
            ratings = [x.rating for x in group] + [w.rating]
            if len(group) < 4 and max(ratings) - min(ratings) <= gap:
                group.append(w)
        return group

    async def tick(self) -> None:
        formed = self.groups()
        for n, group in enumerate(formed):
            self.seating = group.members
            # The groups after this one wait at the front again if this one fails.
            later = [w for g in formed[n + 1:] for w in g.members]
            try:
                table = await self._seat(group.chairs)
            except Suspended as e:  # the others wait at the front again, without them
                back = [w for w in group.members if w.user_id not in e.user_ids]
                self.queue = sorted([*back, *later, *self.queue], key=lambda w: w.since)
                return
            except Exception as e:  # storage failed: they wait at the front again
                log.error("seating a quick match failed: %s", e)
                self.queue = sorted([*group.members, *later, *self.queue],
                                    key=lambda w: w.since)
                return
            finally:
                self.seating = []
            now = self._clock()
            for chair in group.chairs:
                if chair is not None:
                    self.seated[chair.user_id] = (table.id, now, chair.waited)
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

    def __init__(self, seat: SeatGroup, redis: Any) -> None:
        self._seat = seat
        self.redis = redis

    async def join(self, user_id: int, name: str, bots_after: Any,
                   rating: float = float(MODEL.mu)) -> dict[str, Any]:
        _check_wait(bots_after)
        await self.redis.delete(f"varaq:quick:seated:{user_id}")
        entry = {"name": name, "bots_after": bots_after, "rating": rating}
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
        seated = await self.redis.get(f"varaq:quick:seated:{user_id}")
        if seated:
            # ``{"table", "waited"}``; a bare table id from a process of an older version.
            doc = json.loads(seated) if seated.startswith("{") else {"table": seated}
            return {"state": "seated", "table": doc.get("table"), "waited": doc.get("waited"),
                    "queue": size}
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
                rating = entry.get("rating")
                waiting.append(Waiting(
                    int(uid), str(entry.get("name", "Player")), float(since),
                    entry.get("bots_after"),
                    float(rating) if isinstance(rating, (int, float)) else float(MODEL.mu)))
            local = QuickMatch(self._seat, clock=time.time)
            local.queue = waiting
            for formed in local.groups():
                group = formed.members
                ids = [str(w.user_id) for w in group]
                for w in group:  # still "waiting" to whoever asks while the table is made
                    await self.redis.set(f"varaq:quick:seating:{w.user_id}", json.dumps(
                        {"since": w.since, "bots_after": w.bots_after}), ex=int(SEATING_FOR))
                await self.redis.zrem(self.QUEUE, *ids)
                await self.redis.hdel(self.PEOPLE, *ids)
                try:
                    table = await self._seat(formed.chairs)
                except Exception as e:
                    gone = e.user_ids if isinstance(e, Suspended) else ()
                    if not gone:
                        log.error("seating a quick match failed: %s", e)
                    back = {i: w.since for i, w in zip(ids, group, strict=True)
                            if w.user_id not in gone}
                    for w in group:
                        if w.user_id not in gone:
                            await self.redis.hset(self.PEOPLE, str(w.user_id), json.dumps(
                                {"name": w.name, "bots_after": w.bots_after,
                                 "rating": w.rating}))
                    if back:
                        await self.redis.zadd(self.QUEUE, back)
                    await self.redis.delete(*[f"varaq:quick:seating:{i}" for i in ids])
                    continue
                for chair in formed.chairs:
                    if chair is not None:
                        await self.redis.set(
                            f"varaq:quick:seated:{chair.user_id}",
                            json.dumps({"table": table.id, "waited": chair.waited}),
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
