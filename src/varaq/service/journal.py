"""A table's journal: every input the table accepted, in order, one line of text each.

The journal is the table's one history.  Each stored ``entries`` row is one line:

===================  ==================================================================
``deal``             the next hand is dealt from the table's seed
``N bid 4``          a seat's action (``S QS``, ``W nil``, ``E blind nil``, ``N look``;
                     in an exchange, the card passed: ``N 9C``)
``E QS auto``        the same, chosen by a computer player for an absent person
``concede NS``       a side gives up
``undo 3``           the last 3 moves of the hand were taken back (single-player games)
``claim S``          S claimed every trick left for its side, and the solver agreed
``sit E u7``         person 7 takes seat E (``sit S guest``: the one person of a solo table)
``sit W bot``        a computer player takes seat W
``leave E``          seat E is open again
``start``            the match begins (the first ``deal`` follows)
``close``            an administrator closed the table (``varaq admin close-table``): the
                     last line a table can have; the reason is in the table's options
===================  ==================================================================

Rebuilding a table is reading its lines in order (:func:`replay`): the game actions are pushed
into a new :class:`~varaq.engine.Game` with the table's rules, seed and starting score, so a
restarted server reaches the same card, and the next hand is the same deal it would have been.
The events a table shows its readers are derived from the same lines (:class:`Step`), so a
rebuilt table shows what the live one showed.

>>> game = Game("varaq", seed=7)
>>> step = read_line("deal").apply(game, Seating.solo())
>>> write_step(step), game.phase_name
('deal', 'bid')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from ..actions import (
    CLAIM,
    CONCEDE,
    DEAL_HAND,
    UNDO,
    UNDO_LIMIT,
    ActionError,
    action_text,
    parse_action,
)
from ..engine import Game, IllegalAction
from ..events import Event
from ..seats import SEAT_LETTERS, SIDE_NAMES
from .seating import Occupant, Seating

__all__ = [
    "Line", "Step", "JournalError", "read_line", "write_step", "replay", "action_line",
]


class JournalError(ValueError):
    """A stored line that does not read or does not replay; the message says which and why."""


class Line(NamedTuple):
    """One journal line, read."""

    #: ``deal``, ``act``, ``concede``, ``undo``, ``claim``, ``sit``, ``leave``, ``start`` or
    #: ``close``.
    kind: str
    #: The seat acting, sitting or leaving; the conceding side for ``concede``; else -1.
    seat: int = -1
    #: The engine action of an ``act`` line; ``UNDO + n`` for an ``undo`` line.
    action: int = -1
    #: ``act``: chosen by a computer player for an absent person.
    auto: bool = False
    #: ``sit``: ``"u7"``, ``"guest"`` or ``"bot"``.
    who: str = ""

    def apply(self, game: Game, seating: Seating) -> Step:
        """Do what the line says to ``game`` and ``seating``; raises if it does not fit."""
        kind = self.kind
        event: Event | None = None
        if kind == "act":
            event = game.apply(self.action, seat=self.seat)
        elif kind == "deal":
            event = game.push(DEAL_HAND)
        elif kind == "concede":
            event = game.push(CONCEDE + self.seat)
        elif kind == "undo":
            event = game.push(self.action)
        elif kind == "claim":
            event = game.push(CLAIM + self.seat)
        elif kind == "sit":
            seating.sit(self.seat, Occupant.read(self.who))
        elif kind == "leave":
            seating.leave(self.seat)
        elif kind == "start":
            seating.started = True
        return Step(self, event)


class Step(NamedTuple):
    """A line and what the engine made of it: the raw event a table shows, filtered per
    reader when it is sent (see :mod:`.readers`)."""

    line: Line
    event: Event | None


def read_line(text: str) -> Line:
    """Read one journal line; anything else is a :class:`JournalError` naming it."""
    words = text.split()
    if not words:
        raise JournalError("an empty journal line")
    head = words[0]
    if text == "deal":
        return Line("deal")
    if text == "start":
        return Line("start")
    if text == "close":
        return Line("close")
    if head == "concede" and len(words) == 2 and words[1] in SIDE_NAMES:
        return Line("concede", SIDE_NAMES.index(words[1]))
    if head == "undo" and len(words) == 2 and words[1].isascii() and words[1].isdigit():
        count = int(words[1][:4])
        if 1 <= count <= UNDO_LIMIT:
            return Line("undo", action=UNDO + count)
    if head == "claim" and len(words) == 2 and words[1] in SEAT_LETTERS:
        return Line("claim", SEAT_LETTERS.index(words[1]))
    if head == "sit" and len(words) == 3 and words[1] in SEAT_LETTERS:
        return Line("sit", SEAT_LETTERS.index(words[1]), who=words[2])
    if head == "leave" and len(words) == 2 and words[1] in SEAT_LETTERS:
        return Line("leave", SEAT_LETTERS.index(words[1]))
    if len(head) == 1 and head in SEAT_LETTERS and len(words) >= 2:
        auto = words[-1] == "auto"
        rest = " ".join(words[1:-1] if auto else words[1:])
        try:
            action = parse_action(rest)
        except ActionError as e:
            raise JournalError(f"journal line {text!r}: {e}") from None
        return Line("act", SEAT_LETTERS.index(head), action, auto)
    raise JournalError(f"unknown journal line {text!r}")


def action_line(seat: int, action: int, auto: bool = False) -> str:
    """The line for a seat's action: ``N bid 4``, ``S QS auto``."""
    text = f"{SEAT_LETTERS[seat]} {action_text(action)}"
    return f"{text} auto" if auto else text


def write_step(step: Step) -> str:
    """The journal line of a step (the inverse of :func:`read_line`)."""
    line = step.line
    kind = line.kind
    if kind == "act":
        return action_line(line.seat, line.action, line.auto)
    if kind == "concede":
        return f"concede {SIDE_NAMES[line.seat]}"
    if kind == "undo":
        return f"undo {line.action - UNDO}"
    if kind == "claim":
        return f"claim {SEAT_LETTERS[line.seat]}"
    if kind == "sit":
        return f"sit {SEAT_LETTERS[line.seat]} {line.who}"
    if kind == "leave":
        return f"leave {SEAT_LETTERS[line.seat]}"
    return kind


@dataclass(slots=True)
class Replayed:
    game: Game
    seating: Seating
    steps: list[Step]


def replay(game: Game, seating: Seating, lines: Iterable[str]) -> Replayed:
    """Read and apply every line in order; the first that does not fit is a
    :class:`JournalError` naming its number."""
    steps: list[Step] = []
    for number, text in enumerate(lines, 1):
        try:
            steps.append(read_line(text).apply(game, seating))
        except (IllegalAction, ValueError) as e:
            raise JournalError(f"journal line {number} ({text!r}) does not replay: {e}") from None
    return Replayed(game, seating, steps)
