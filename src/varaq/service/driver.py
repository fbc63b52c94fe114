"""The computer players at one table, and the Hint: both ask the bot pool with one seat's view.

One background task per table (:class:`Driver`) plays for every seat a computer player holds
now — a computer player's own seat, a seat left open during the match, or a person's seat while
they are away or out of time — one decision at a time, at a human pace.  It hands the pool the
seat's :class:`~varaq.view.View` and nothing else, and commits the answer through the table
like any person's card, checking first that the position has not moved on.

A hint (:class:`Hints`) is made for one seat at one version and kept under that key: it goes
only to the person who holds that seat when they ask and whose turn it is, so asking out of
turn — while the seat to act waits for its own hint — gets a refusal, never that seat's hint.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING, Any

from ..actions import action_text, bid_value, is_bid
from ..bots.advice import bid_advice, decision_seed
from ..engine import DEAL, OVER
from ..seats import SEAT_LETTERS
from ..view import View
from .botpool import HINT_BUDGET
from .errors import Refusal
from .journal import Line

if TYPE_CHECKING:
    from .table import Table

__all__ = ["Driver", "Hints"]

log = logging.getLogger("varaq.service")

#: Seconds before a computer player tries again when its move could not be stored.
RETRY_SECONDS = 1.0


class Driver:
    """The task that plays a table's computer players' turns."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.task: asyncio.Task[None] | None = None
        self._rng = random.Random(f"{table.info.seed}:pace")

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def bot_for(self, seat: int) -> bool:
        """Whether a computer player chooses for ``seat`` now."""
        table = self.table
        if table.seating.seats[seat].kind != "person":
            return True
        return table.online is not None and table.online.plays_for(seat)

    def to_move(self) -> bool:
        t = self.table
        g = t.game
        return (
            not t.retired and t.role != "follower" and t.seating.started
            and g.phase not in (DEAL, OVER) and g.turn >= 0 and self.bot_for(g.turn)
            and not self.claim_waits()
        )

    def claim_waits(self) -> bool:
        """Whether a claim is put to people at the table: the computer players hold their
        cards until it is answered (a card of theirs would withdraw it before anyone could
        accept); the table's :class:`~.online.Online` wakes them when it lapses or is declined."""
        online = self.table.online
        return online is not None and online.claim is not None

    def wake(self) -> None:
        """Start the task if a computer player is to move."""
        if self.to_move() and not self.busy:
            self.task = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        table = self.table
        tables = table.tables
        loop = asyncio.get_running_loop()
        while self.to_move():
            version, seat = table.version, table.game.turn
            view = table.game.view(seat)
            started = loop.time()
            last = table.steps[-1].event if table.steps else None
            after_trick = bool(last and last.trick)
            seed, samples = decision_seed(table.level, view, f"{table.info.seed}:{version}:"
                                 f"{SEAT_LETTERS[seat]}", table.info.options.get("samples"))
            try:
                answer = await tables.bots.decide(table.level, view, seed, samples=samples)
                action = answer.action
            except Exception:
                log.exception("table %s: the %s player at %s failed; playing a legal card",
                              table.id, table.level, SEAT_LETTERS[seat])
                action = view.legal[0]
            if action not in view.legal:
                log.error("the %s player chose %s, not legal; playing %s instead",
                          table.level, action_text(action), action_text(view.legal[0]))
                action = view.legal[0]
            wait = tables.pace.delay(self._rng, after_trick, table.pace)
            wait -= loop.time() - started
            if wait > 0:
                await asyncio.sleep(wait)
            refused: Exception | None = None
            async with table.lock:
                if (table.version != version or table.game.turn != seat
                        or not self.bot_for(seat) or self.claim_waits()):
                    continue  # the game moved on, the person came back, or a claim waits
                auto = table.seating.seats[seat].is_person
                try:
                    await table.commit([Line("act", seat, action, auto)], 409)
                except Exception as e:  # storage down, a retired table: never kill the driver
                    refused = e
            if refused is not None:
                if table.retired:
                    return
                log.error("table %s: %s's move not stored: %s", table.id, SEAT_LETTERS[seat],
                          refused)
                await asyncio.sleep(RETRY_SECONDS)  # outside the lock: a person may act

    def cancel(self) -> asyncio.Task[None] | None:
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
        return task


class Hints:
    """Hints of one table, each kept for the seat and version it was made for."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.pending: dict[tuple[int, int], asyncio.Task[dict[str, str]]] = {}

    async def for_seat(self, seat: int) -> dict[str, str]:
        """What the Hard player would do in ``seat``, now; the asker holds ``seat`` (checked
        by the caller) and must be the one to act.  Asked twice for the same position, the
        second request waits for the first answer instead of asking again."""
        table = self.table
        if table.info.kind == "daily":
            raise Refusal(409, "no hints at the daily: everyone plays the same cards unaided")
        view = table.game.view(seat)
        if not view.legal:
            raise Refusal(409, "no hint: it is not your turn")
        key = (seat, table.version)
        task = self.pending.get(key)
        if task is None:
            # Only the newest position's hint is worth keeping.
            for old in [k for k in self.pending if k[1] != key[1]]:
                self.pending.pop(old)
            task = asyncio.get_running_loop().create_task(self._think(view, key[1]))
            self.pending[key] = task
        return await asyncio.shield(task)

    async def _think(self, view: View, version: int) -> dict[str, str]:
        table = self.table
        bots = table.tables.bots
        seed, samples = decision_seed("hard", view, f"{table.info.seed}:hint:{version}", None)
        try:
            answer = await bots.decide("hard", view, seed, HINT_BUDGET, samples, hint=True)
        except Exception:
            log.exception("table %s: the Hard player failed to give a hint", table.id)
            answer = await bots.decide("normal", view, seed)
        if answer.action not in view.legal:
            answer = await bots.decide("easy", view, seed)
        text = answer.reason
        if view.phase == "bid" and is_bid(answer.action):
            # The bid advisor: the number, and where its tricks come from in a player's words.
            text = bid_advice(view.hand, view.rules.jokers, bid_value(answer.action), text)
        return {"action": action_text(answer.action), "text": text, "bot": answer.bot}

    def cancel(self) -> list[asyncio.Task[Any]]:
        tasks = list(self.pending.values())
        self.pending.clear()
        for task in tasks:
            if not task.done():
                task.cancel()
        return tasks
