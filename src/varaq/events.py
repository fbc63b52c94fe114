"""What :meth:`varaq.engine.Game.apply` returns: one small immutable record per action.

The server broadcasts events, the CLI prints them and tests assert on them.  Most plays finish
nothing, so their events are shared, pre-built tuples: building an event costs the hot path
nothing unless a trick, a hand or the match ends.
"""

from __future__ import annotations

from typing import NamedTuple

from .scoring import HandScore

__all__ = ["Event", "TrickResult"]


class TrickResult(NamedTuple):
    """A finished trick: who led, the four cards in the order played, who won it."""

    leader: int
    cards: tuple[int, int, int, int]
    winner: int


class Event(NamedTuple):
    """One applied action and what it finished.

    ``kind`` is ``"blind_nil"``, ``"look"``, ``"bid"``, ``"pass"``, ``"play"``, ``"deal"``,
    ``"tricks"`` (a score-sheet hand), ``"concede"``, ``"undo"`` (moves taken back; the seat is
    the one to move again) or ``"claim"`` (an accepted claim ended the hand).
    """

    kind: str
    seat: int
    action: int
    trick: TrickResult | None = None
    hand: HandScore | None = None
    #: The side that won the match with this action, if it did.
    winner: int | None = None
