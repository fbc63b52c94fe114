"""The pieces of a hand-over between processes, against a real PostgreSQL (no server process).

A leaving process lets its tables go a wave at a time, all the wave's locks in one statement;
the process that takes a lock is told, with the lock, which version the store holds, and reads
the table a second time only when its copy is not that version (``replica.become_owner``).
That shortcut must never skip a read that was needed: any difference (a version, the options,
the level, an unreadable row) means the table is read again.  A request forwarded to a table's
owner (over a real Redis too) comes back with the owner's answer, or, when none comes in time,
with a refusal that does not pretend nothing was done.  ``tests/test_cluster.py`` runs
whole hand-overs between two ``varaq serve`` processes.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from servers import RedisServer, missing_servers, postgres_server
from varaq.service import cluster as cluster_module
from varaq.service import replica
from varaq.service.botpool import BotPool
from varaq.service.cluster import UNANSWERED, Cluster, Locks, Stamp
from varaq.service.errors import Refusal
from varaq.service.journal import Line, write_step
from varaq.service.newtable import parse_new_game
from varaq.service.registry import Tables
from varaq.service.seating import Seating
from varaq.service.settings import Settings
from varaq.service.store import Store
from varaq.service.table import Table

pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("cluster")]

if missing_servers():  # pragma: no cover - CI installs PostgreSQL (scripts/test.sh)
    pytest.skip("needs a real PostgreSQL (see tests/test_cluster.py)", allow_module_level=True)


@pytest.fixture(scope="module")
def db() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    redis = RedisServer()
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


def on_a_fresh_loop(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test on a loop of its own in this (the main) thread.

    Playwright's sync API, which the browser tests hold open for a whole session, leaves its
    loop marked as running in the main thread of the pytest worker it ran on; pytest-asyncio
    then refuses to start another.  The loop is set aside for the test and put back after.
    The main thread matters: the SIGTERM test installs a signal handler."""
    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        held = asyncio.events._get_running_loop()
        asyncio.events._set_running_loop(None)
        try:
            asyncio.run(test(*args, **kwargs))
        finally:
            asyncio.events._set_running_loop(held)
    return run


def stored_table(tables: Tables) -> Table:
    """A single-player table stored with its deal, and this process's copy of it (as a
    follower's: read from the store; its computer players kept still)."""
    info = parse_new_game({})
    game, seating = info.new_game(), Seating.solo()
    steps = [Line("deal").apply(game, seating)]
    tables.store.create_table(
        table_id=info.id, kind=info.kind, level=info.level, rules=info.rules.to_spec(),
        seed=info.seed, start=info.start_json(), options=info.options, status="playing",
        entries=[write_step(s) for s in steps])
    stored = tables.store.load_table(info.id)
    assert stored is not None
    table = tables.rebuild(stored)
    table.role = "follower"
    table.driver.wake = lambda: None  # type: ignore[method-assign]
    return table


def counting_reads(tables: Tables, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    load = tables.store.load_table

    def counted(table_id: str) -> Any:
        reads.append(table_id)
        return load(table_id)

    monkeypatch.setattr(tables.store, "load_table", counted)
    return reads


@on_a_fresh_loop
async def test_a_new_owner_reads_the_table_again_only_when_its_copy_is_not_the_stored_one(
    db: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    tables = Tables(Store(db), BotPool(1), Settings.from_env())
    locks = Locks(db)
    try:
        table = stored_table(tables)
        reads = counting_reads(tables, monkeypatch)
        stamps = await locks.try_own([table.id])
        stamp = stamps[table.id]
        assert stamp.version == table.version == 1
        assert stamp.options == table.info.options and stamp.level == table.info.level

        await replica.become_owner(table, stamp)
        assert table.role == "owner" and reads == []

        # Each difference alone, and no stamp at all, makes the new owner read the table.
        behind = [stamp._replace(version=2), stamp._replace(options={"pace": "slow"}),
                  stamp._replace(level="hard"), stamp._replace(rules="classic"), Stamp(), None]
        for other in behind:
            table.role = "follower"
            await replica.become_owner(table, other)
            assert table.role == "owner"
        assert reads == [table.id] * len(behind)
        assert table.version == 1
    finally:
        await locks.close()


@on_a_fresh_loop
async def test_a_wave_of_locks_is_released_in_one_go_and_taken_by_another_process(
    db: str,
) -> None:
    tables = Tables(Store(db), BotPool(1), Settings.from_env())
    leaving, staying = Locks(db), Locks(db)
    try:
        wave = [stored_table(tables).id for _ in range(3)]
        assert set(await leaving.try_own(wave)) == set(wave)
        assert await staying.try_own(wave) == {}

        await leaving.release_all(wave[:2])
        taken = await staying.try_own(wave)
        assert set(taken) == set(wave[:2])
        assert all(s.version == 1 for s in taken.values())
        assert leaving.held == {wave[2]}
        # A look at the rows takes no lock; a table the store does not have has no version.
        looked = await staying.stamps([wave[2], "no-such-table"])
        assert looked[wave[2]].version == 1 and looked["no-such-table"] == Stamp()
        assert wave[2] not in staying.held
    finally:
        await leaving.close()
        await staying.close()


@on_a_fresh_loop
async def test_sigterm_starts_the_hand_over_and_the_shutdown_waits_for_the_same_one(
    db: str,
) -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers live in the main thread")
    tables = Tables(Store(db), BotPool(1), Settings.from_env())
    told: list[int] = []
    handed = 0

    async def counted() -> int:
        nonlocal handed
        handed += 1
        await asyncio.sleep(0.05)
        return 7

    tables._hand_over = counted  # type: ignore[method-assign]
    before = signal.signal(signal.SIGTERM, lambda signum, frame: told.append(signum))
    try:
        tables._hand_over_at_sigterm()
        signal.raise_signal(signal.SIGTERM)
        await asyncio.sleep(0.01)
        assert told == [signal.SIGTERM], "the web server's own handler still runs"
        assert tables._handing is not None, "the hand-over began at the signal"
        assert await tables.hand_over() == 7
        assert await tables.hand_over() == 7
        assert handed == 1
    finally:
        signal.signal(signal.SIGTERM, before)


@on_a_fresh_loop
async def test_a_wave_is_let_go_once_a_peer_says_it_read_that_wave(db: str) -> None:
    tables = Tables(Store(db), BotPool(1), Settings.from_env())
    tables.cluster = SimpleNamespace(node="leaving")  # type: ignore[assignment]
    loop = asyncio.get_running_loop()
    waiting = loop.create_task(tables._wait_read(["t1", "t2"], loop.time() + 60))

    await tables._handed_over({"ready": True, "for": "leaving", "ids": ["t1"]})
    await tables._handed_over({"ready": True, "for": "someone else", "ids": ["t2"]})
    await asyncio.sleep(0.05)
    assert not waiting.done(), "half a wave read, or another process's wave, is not enough"
    await tables._handed_over({"ready": True, "for": "leaving", "ids": ["t2"]})
    await asyncio.wait_for(waiting, 5)

    # Nobody reads the next wave: it goes when the time for reading is up.
    started = loop.time()
    await tables._wait_read(["t3"], loop.time() + 0.2)
    assert loop.time() - started >= 0.15


@on_a_fresh_loop
async def test_a_forwarded_request_gets_the_owners_answer_or_an_honest_refusal(
    db: str, redis_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The owner answers: the asker gets its result and version.  The owner takes the request
    but answers too late (it may well have done it): the asker's refusal says the action may
    have been taken, not "try again"."""
    monkeypatch.setattr(cluster_module, "REQUEST_TIMEOUT", 0.5)
    owner, asker = Cluster(db, redis_url), Cluster(db, redis_url)
    heard: list[str] = []
    answering = True

    async def on_request(request: dict[str, Any]) -> None:
        heard.append(request["op"])
        if answering:
            await owner.answer(request, result={"done": request["args"]}, version=7)

    try:
        await owner.start()
        await asker.start()
        await owner.subscribe("varaq:req:t1", on_request)
        result, version = await asker.request("t1", "act", {"action": "bid 3"})
        assert (result, version) == ({"done": {"action": "bid 3"}}, 7)

        answering = False
        with pytest.raises(Refusal) as refused:
            await asker.request("t1", "act", {"action": "bid 4"})
        assert refused.value.status == 503
        assert str(refused.value) == UNANSWERED
        assert "try again" not in UNANSWERED and "may still have been done" in UNANSWERED
        assert heard == ["act", "act"], "the owner did receive the request it left unanswered"
    finally:
        await asker.close()
        await owner.close()
