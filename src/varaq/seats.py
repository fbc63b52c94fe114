"""Seats and sides.

Seats are ``int`` 0–3 clockwise from North, so "the next player" is ``(seat + 1) % 4``, a
seat's partner is ``seat ^ 2`` and its side is ``seat & 1`` (0 = NS, 1 = EW).
"""

from __future__ import annotations

__all__ = [
    "N", "E", "S", "W", "SEATS", "SEAT_LETTERS", "SEAT_NAMES", "NS", "EW", "SIDES",
    "SIDE_NAMES", "side_of", "partner", "left_of", "parse_seat", "parse_side", "seat_text",
]

N, E, S, W = 0, 1, 2, 3
SEATS = (N, E, S, W)
SEAT_LETTERS = "NESW"
SEAT_NAMES = ("North", "East", "South", "West")
NS, EW = 0, 1
SIDES = (NS, EW)
SIDE_NAMES = ("NS", "EW")


def side_of(seat: int) -> int:
    """The side a seat plays for."""
    return seat & 1


def partner(seat: int) -> int:
    """The seat across the table."""
    return seat ^ 2


def left_of(seat: int) -> int:
    """The next seat clockwise: who bids and leads first after this dealer."""
    return (seat + 1) & 3


def seat_text(seat: int) -> str:
    """One-letter seat name as used in records: ``N``, ``E``, ``S``, ``W``."""
    return SEAT_LETTERS[seat]


def parse_seat(text: str) -> int:
    """Read ``N``/``E``/``S``/``W`` (any case, or the full name)."""
    word = text.strip().upper()
    for seat, letter in enumerate(SEAT_LETTERS):
        if word in (letter, SEAT_NAMES[seat].upper()):
            return seat
    raise ValueError(f"unknown seat {text!r}")


def parse_side(text: str) -> int:
    """Read ``NS`` or ``EW``."""
    t = text.strip().upper()
    if t not in SIDE_NAMES:
        raise ValueError(f"unknown side {text!r}")
    return SIDE_NAMES.index(t)
