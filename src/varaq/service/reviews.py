"""Hand reviews on the server: jobs that run a review's steps in a worker process.

A review (:mod:`varaq.review`) solves one position per card, which takes from microseconds to
seconds each with the Python solver, so it never runs on the event loop:

- one worker process, started with the first review, does the solving; the computer players
  have their own pool, so a long review never makes a table wait for its Hard player;
- a job runs the review's steps (:func:`varaq.review.plan`: with the compiled solver the first
  trick, the bids, each later trick and par; with the Python one from the last tricks back) one
  at a time, and keeps what each step priced, so a client polling the job sees the review fill
  in, trick by trick, from the first trick on; jobs of different clients take turns at every
  step;
- each client address has one review running at a time (a new one replaces it), the server at
  most ``reviews_running``, and each stops after ``review_seconds`` where it has got to;
- a finished review is kept under its hand's key (:attr:`HandFacts.key`): a finished hand never
  changes, so the same hand asked for again — by the same player or by the partner at an online
  table — is answered at once.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import secrets
import time
from collections import OrderedDict
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from ..review import (
    POSITION_NODES,
    HandFacts,
    HandSolvers,
    Review,
    Step,
    StepResult,
    plan,
    run_step,
)
from .botpool import worker_pool
from .errors import Refusal
from .settings import Limits

__all__ = ["Reviews", "Job", "run_step_in_worker"]

log = logging.getLogger("varaq.service")

#: Finished reviews kept in memory, by hand.
CACHED = 256
#: Seconds a finished job can still be read by its id.
KEEP_SECONDS = 900.0
#: Jobs remembered at most (finished ones are dropped first).
MAX_JOBS = 1000

#: The hand the worker process solved last and its solvers: the next step of the same review
#: reuses their tables of solved positions.
_LAST: tuple[str, HandSolvers] | None = None


def run_step_in_worker(facts: HandFacts, step: Step, nodes: int | None) -> StepResult:
    """One step of a review, in the worker process (module level, so that it pickles)."""
    global _LAST
    if _LAST is None or _LAST[0] != facts.key:
        _LAST = (facts.key, HandSolvers(facts.rules.jokers))
    return run_step(facts, step, _LAST[1], nodes)


@dataclass(slots=True)
class Job:
    """One review being made (or made) for one client."""

    id: str
    client: str
    facts: HandFacts
    #: The hands of the record or table it came from that can be reviewed (numbers from 1).
    hands: list[int]
    review: Review
    steps: int
    done: int = 0
    #: ``running``, ``done`` or ``failed``.
    status: str = "running"
    error: str = ""
    created: float = field(default_factory=time.monotonic)
    task: asyncio.Task[None] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "error": self.error,
            "hand": self.facts.number,
            "hands": self.hands,
            "progress": {"steps": self.steps, "done": self.done},
            "review": self.review.to_json(),
        }


class Reviews:
    """The server's review jobs, their worker and their cache."""

    def __init__(self, limits: Limits, executor: Executor | None = None,
                 nodes: int | None = POSITION_NODES) -> None:
        self.limits = limits
        self.nodes = nodes
        self._executor = executor
        self._own_executor = executor is None
        self.jobs: dict[str, Job] = {}
        #: The running job of each client address.
        self.running: dict[str, str] = {}
        self.cache: OrderedDict[str, Review] = OrderedDict()

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = worker_pool(1)
            # The app's lifespan does not know about this pool: leave with the process.
            atexit.register(self._executor.shutdown, wait=False, cancel_futures=True)
        return self._executor

    def start(self, facts: HandFacts, client: str, hands: list[int]) -> Job:
        """A job reviewing ``facts`` for ``client``: done at once if the hand was reviewed
        before; otherwise it replaces the client's running review, if any."""
        self._prune()
        job = Job(secrets.token_urlsafe(12), client, facts, hands, Review(facts),
                  len(plan(facts)))
        cached = self.cache.get(facts.key)
        if cached is not None:
            self.cache.move_to_end(facts.key)
            job.review, job.done, job.status = cached, job.steps, "done"
            self.jobs[job.id] = job
            return job
        old = self.jobs.get(self.running.get(client, ""))
        if old is not None and old.task is not None:
            old.task.cancel()
            old.status, old.error = "failed", "replaced by another review"
        self.running.pop(client, None)
        if len(self.running) >= self.limits.reviews_running:
            raise Refusal(429, "the server is busy with other hand reviews; try again in a "
                               "minute")
        self.jobs[job.id] = job
        self.running[client] = job.id
        job.task = asyncio.get_running_loop().create_task(self._run(job))
        return job

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            raise Refusal(404, "no review with that id (a review is kept for 15 minutes)")
        return job

    async def _run(self, job: Job) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.review_seconds
        out_of_time = False
        try:
            steps = plan(job.facts)
            forward = any(step.forward for step in steps)
            for step in steps:
                # Once the time has run out the solving stops, and so it does going backward
                # once a trick was beyond the solver (a forward review goes on to the later,
                # easier tricks); the bids are still judged (four decisions of the Hard player,
                # each bounded by its fixed number of layouts).
                if loop.time() > deadline and not out_of_time:
                    out_of_time = True
                    job.review.stopped = job.review.stopped or (
                        f"the review's {self.limits.review_seconds:.0f} seconds ran out"
                    )
                beyond = job.review.stopped and not forward
                if (out_of_time or beyond) and step.kind != "bids":
                    job.done += 1
                    continue
                result = await loop.run_in_executor(
                    self.executor(), run_step_in_worker, job.facts, step, self.nodes
                )
                job.review.add(result)
                job.done += 1
            job.status = "done"
            # Kept even when the time ran out: asked again, this server would get no further.
            self._keep(job.facts.key, job.review)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.exception("reviewing hand %s failed", job.facts.key)
            job.status, job.error = "failed", f"the review failed: {type(e).__name__}"
        finally:
            if self.running.get(job.client) == job.id:
                del self.running[job.client]

    def _keep(self, key: str, review: Review) -> None:
        self.cache[key] = review
        self.cache.move_to_end(key)
        while len(self.cache) > CACHED:
            self.cache.popitem(last=False)

    def _prune(self) -> None:
        now = time.monotonic()
        old = [j.id for j in self.jobs.values()
               if j.status != "running" and now - j.created > KEEP_SECONDS]
        for job_id in old:
            del self.jobs[job_id]
        if len(self.jobs) >= MAX_JOBS:
            done = sorted((j for j in self.jobs.values() if j.status != "running"),
                          key=lambda j: j.created)
            for j in done[: len(self.jobs) - MAX_JOBS + 1]:
                del self.jobs[j.id]

    async def close(self) -> None:
        for job in list(self.jobs.values()):
            if job.task is not None and not job.task.done():
                job.task.cancel()
        if self._executor is not None and self._own_executor:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
