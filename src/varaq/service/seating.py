"""Who sits where at a table: a person, a computer player, or nobody yet.

A solo table has one person (South, known by the table's secret id) and three computer players.
A private table fills as people join with its code: the host's partner first, then the other
side; with "Fill empty seats with bots" the host may start once two people sit, and computer
players take the seats still open.  Quick-match tables are seated four at a time by the queue.

>>> s = Seating.open_table(host=7)
>>> s.next_free(), s.who(2)
(0, Occupant(kind='person', user_id=7))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..seats import S

__all__ = ["Occupant", "Seating", "JOIN_ORDER", "OPEN", "BOT", "GUEST"]


@dataclass(frozen=True, slots=True)
class Occupant:
    #: ``person``, ``bot`` or ``open``.
    kind: str
    #: The person's account, or ``None`` for the guest of a solo table.
    user_id: int | None = None

    @classmethod
    def read(cls, who: str) -> Occupant:
        """``u7``, ``guest``, ``bot`` (journal words) to an occupant."""
        if who == "bot":
            return BOT
        if who == "guest":
            return GUEST
        if who.startswith("u") and who[1:].isascii() and who[1:].isdigit() and len(who) < 20:
            return cls("person", int(who[1:]))
        raise ValueError(f"unknown occupant {who!r}")

    @property
    def word(self) -> str:
        if self.kind == "bot":
            return "bot"
        if self.kind == "person":
            return "guest" if self.user_id is None else f"u{self.user_id}"
        return "open"

    @property
    def is_person(self) -> bool:
        return self.kind == "person"


OPEN = Occupant("open")
BOT = Occupant("bot")
GUEST = Occupant("person")

#: The order people fill a host's table, from the host's seat: partner first, then the seat
#: on the host's left, then the one on the right.
JOIN_ORDER = (2, 1, 3)


@dataclass(slots=True)
class Seating:
    seats: list[Occupant] = field(default_factory=lambda: [OPEN, OPEN, OPEN, OPEN])
    #: The match has begun: seats no longer fill by joining (only an absent person's own seat
    #: or one the host opened can be taken).
    started: bool = False
    host_seat: int = S

    @classmethod
    def solo(cls) -> Seating:
        """One person at South, computer players elsewhere, already started."""
        return cls([BOT, BOT, GUEST, BOT], started=True)

    @classmethod
    def open_table(cls, host: int, host_seat: int = S) -> Seating:
        seating = cls(host_seat=host_seat)
        seating.seats[host_seat] = Occupant("person", host)
        return seating

    def copy(self) -> Seating:
        return Seating(self.seats[:], self.started, self.host_seat)

    def who(self, seat: int) -> Occupant:
        return self.seats[seat]

    def sit(self, seat: int, occupant: Occupant) -> None:
        self.seats[seat] = occupant

    def leave(self, seat: int) -> None:
        self.seats[seat] = OPEN

    def seat_of(self, user_id: int) -> int | None:
        for seat, o in enumerate(self.seats):
            if o.kind == "person" and o.user_id == user_id:
                return seat
        return None

    def people(self) -> list[int]:
        """Seats held by people."""
        return [s for s, o in enumerate(self.seats) if o.kind == "person"]

    def open_seats(self) -> list[int]:
        return [s for s, o in enumerate(self.seats) if o.kind == "open"]

    def next_free(self) -> int | None:
        """The seat the next person to join takes, or ``None`` when the table is full."""
        for step in JOIN_ORDER:
            seat = (self.host_seat + step) & 3
            if self.seats[seat].kind == "open":
                return seat
        return None
