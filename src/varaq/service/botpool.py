"""Computer players, thinking off the event loop.

A Hard player searches for up to a time budget; run on the event loop it would freeze every
other table for that long.  So Hard decides in a process pool (pure Python search holds the
GIL, threads would not help).  Easy and Normal decide in microseconds, less than a hop to a
thread costs, so they run on the event loop.

A worker receives only a seat's :class:`~varaq.view.View` (picklable, and all a bot may know)
and a seed string, and sends back the action and its reason.  Bots are built once per worker
and reused.

When a level is not installed yet (an older checkout), the next weaker one plays instead:
hard → normal → easy → random.  ``decide_in_worker`` says which one answered.

Fairness.  Each table asks for one decision at a time (its computer players move in turn) and
coalesces its hints, so the pool's queue holds at most a couple of requests per table and
serves tables in arrival order: a busy table cannot crowd out a quiet one.  When more Hard
decisions wait than there are workers, each one gets a smaller time budget (never below
``MIN_BUDGET``): the Hard players think a little less under load instead of making every
table wait in line behind everyone's full budget.

A table may instead give its Hard players a fixed number of sampled layouts (``samples``): their
choices then depend on the view and the seed only, never on the load, as the daily needs for a
fair comparison between players.  Such a decision takes as long as it takes.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..bots import Bot, make_bot
from ..bots.hard import EXPERT_BUDGET
from ..view import View
from . import metrics

__all__ = ["BotPool", "BotAnswer", "decide_in_worker", "worker_pool", "FALLBACK"]

log = logging.getLogger("varaq.service")

#: Who plays when a level's module is missing.
FALLBACK = {"expert": "hard", "hard": "normal", "normal": "easy", "easy": "random"}
#: The levels that search for as long as their budget allows: they think in the worker
#: processes, never on the event loop.
SEARCHERS = ("hard", "expert")
#: Seconds a Hard player may think per decision at a table: within a human's pace.
TABLE_BUDGET = 0.6
#: Seconds for the Hint button's answer.
HINT_BUDGET = 0.4
#: The least a Hard decision is given, however loaded the pool.
MIN_BUDGET = 0.05

_bots: dict[tuple[str, float, int | None], tuple[str, Bot]] = {}


@dataclass(frozen=True, slots=True)
class BotAnswer:
    action: int
    reason: str
    #: The bot that actually answered (after any fallback).
    bot: str


def _build(level: str, budget: float, samples: int | None = None) -> tuple[str, Bot]:
    name: str | None = level
    while name is not None:
        try:
            if name in SEARCHERS:
                return name, make_bot(name, time_budget=budget, samples=samples)
            return name, make_bot(name)
        except ImportError:
            name = FALLBACK.get(name)
    raise ValueError(f"no computer player for level {level!r}")


def decide_in_worker(
    level: str, view: View, seed: str, budget: float, samples: int | None = None,
) -> BotAnswer:
    """One decision; runs in a worker thread or process.  Module level so it pickles.
    ``samples``: a Hard player's fixed number of layouts (its budget then does not count)."""
    key = (level, budget, samples)
    if key not in _bots:
        _bots[key] = _build(level, budget, samples)
    name, bot = _bots[key]
    decision = bot.decide(view, random.Random(seed))
    return BotAnswer(decision.action, decision.reason, name)


def _watch_parent(parent: int) -> None:
    """Worker initializer: leave when the server process is gone.

    A server killed outright (SIGKILL, a crash) never shuts its pool down; without this its
    workers would wait for work forever.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="varaq-parent-watch", daemon=True).start()


def worker_pool(processes: int) -> ProcessPoolExecutor:
    """Worker processes for work that must not run on the event loop (the computer players
    here, the hand reviews in :mod:`.reviews`), which leave when the server is gone."""
    # spawn: the server has threads (uvicorn, SQLAlchemy) and forking those is unsafe.
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        processes, mp_context=context, initializer=_watch_parent, initargs=(os.getpid(),),
    )


class BotPool:
    """Where the tables send their computer players' decisions."""

    def __init__(self, processes: int | None = None) -> None:
        self.processes = processes or max(1, min(2, os.cpu_count() or 1))
        self._executor: ProcessPoolExecutor | None = None
        #: Hard decisions asked for and not answered yet (queued or thinking).
        self.waiting = 0
        #: Hints thinking at once (half the workers, at least one): the rest wait their turn
        #: here, off the pool's queue, so they never crowd out the tables' own players.
        self._hints = asyncio.Semaphore(max(1, self.processes // 2))

    def budget_for(self, budget: float) -> float:
        """The budget a new Hard decision gets now: shared out when the pool is oversubscribed,
        so the wait for an answer stays near ``budget`` whatever the load."""
        share = self.processes / max(1, self.waiting + 1)
        # Rounded: workers keep one Hard player per budget, so the budgets must be few.
        return round(max(MIN_BUDGET, budget * min(1.0, share)), 2)

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = worker_pool(self.processes)
        return self._executor

    @metrics.bot_decision
    async def decide(
        self, level: str, view: View, seed: str, budget: float | None = None,
        samples: int | None = None, *, hint: bool = False,
    ) -> BotAnswer:
        """``level``'s choice for ``view``; ``samples`` fixes a Hard player's layouts instead
        of timing its thought (see the module's docstring).  A ``hint`` waits for one of a few
        places instead of counting among the tables' decisions: however many hints people
        ask for, the computer players at the tables keep their whole budget."""
        if budget is None:
            budget = EXPERT_BUDGET if level == "expert" else TABLE_BUDGET
        if level in SEARCHERS:
            loop = asyncio.get_running_loop()
            if hint:
                async with self._hints:
                    return await loop.run_in_executor(
                        self._pool(), decide_in_worker, level, view, seed, budget, samples
                    )
            # A fixed count does not shrink under load: one budget, one cached player.
            share = budget if samples is not None else self.budget_for(budget)
            self.waiting += 1
            try:
                return await loop.run_in_executor(
                    self._pool(), decide_in_worker, level, view, seed, share, samples
                )
            finally:
                self.waiting -= 1
        # Easy and Normal decide in microseconds (Normal's p95 is about 0.03 ms): a hop to a
        # thread would cost more than the decision, so they run here.
        return decide_in_worker(level, view, seed, budget)

    async def close(self) -> None:
        """Stop the workers (a Hard decision under way finishes first: at most its budget)."""
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
