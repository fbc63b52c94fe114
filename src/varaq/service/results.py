"""The players' results: a finished match between people counts on each one's profile.

A commit listener (:attr:`varaq.service.registry.Tables.commit_listeners`): the table only
says that it committed, and this module decides that a match just ended and who won it.
"""

from __future__ import annotations

import asyncio
import logging

from .table import PEOPLE_KINDS, Committed, Table

__all__ = ["count_results"]

log = logging.getLogger("varaq.service")


def count_results(table: Table, committed: Committed) -> None:
    """Each person at a match between people that just ended played one more; the winners
    won one more."""
    game = table.game
    if table.info.kind not in PEOPLE_KINDS or not game.is_over or committed.was_over:
        return
    winner = game.winner
    seats = table.seating.seats
    played = [o.user_id for o in seats if o.user_id is not None]
    won = [uid for s, o in enumerate(seats)
           if (uid := o.user_id) is not None and winner is not None and s & 1 == winner]
    table.spawn(_store(table, played, won))


async def _store(table: Table, played: list[int], won: list[int]) -> None:
    try:
        await asyncio.to_thread(table.tables.store.count_results, played, won)
    except Exception as e:  # a profile count is not worth failing anything for
        log.error("counting the result of table %s failed: %s", table.id, e)
