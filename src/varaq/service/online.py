"""What a table of people needs beyond the game: presence, timers, offers and phrases.

A table with people at it (a private table, a quick match) keeps, beside its game and seats:

- **presence**: how many sockets each seated *person* has open — counted by person, never by
  seat, so a socket kept open by someone who left says nothing about whoever sits there now.
  A person whose last socket closes keeps the seat and is shown as reconnecting, with a
  countdown (``drop_seconds``).
  When it runs out a computer player plays for them — each card it plays is marked ``auto`` in
  the journal and the events — until they come back; they take over at their next turn.
- **the turn timer** (a table option: off, 30 or 60 seconds): when a person's time runs out, a
  computer player plays that one turn for them.
- **the next hand**: dealt when every present person has asked for it, or after
  ``next_hand_seconds`` — nobody can hold a table hostage on the summary.
- **a concession** needs the partner's agreement when the partner is a person who is there.
- **quick phrases**: a handful of fixed sentences, never free text.

None of this is stored: after a restart nobody is connected, and the countdowns start again
when they reconnect.  What *is* stored (seats, the game) goes through the table's journal.

With several server processes, the table's owner keeps this state: other processes tell it
how many sockets each person has open with them (:meth:`Online.remote_presence`, repeated every
second, so a process that dies stops counting within a few seconds), and receive a
:meth:`Online.snapshot` after every change to show their readers.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..engine import DEAL, OVER
from ..seats import SEAT_LETTERS
from .errors import Refusal

if TYPE_CHECKING:
    from .table import Table

__all__ = ["Online", "PHRASES", "TURN_TIMERS"]

#: The quick phrases people can send, by id.
PHRASES = {
    "hello": "Hello!",
    "gg": "Good game",
    "nice": "Nice play",
    "well_bid": "Well bid",
    "sorry": "Sorry, partner",
    "thanks": "Thanks",
    "oops": "Oops",
    "hurry": "Your turn",
}
#: Turn timers a table may choose (seconds; 0 = off).
TURN_TIMERS = (0, 30, 60)
#: Seconds between two phrases from one seat.
PHRASE_GAP = 1.5
#: Seconds a concession offer waits for the partner.
OFFER_SECONDS = 60.0


@dataclass(slots=True)
class Online:
    table: Table
    #: Open sockets per person in other processes: node -> (when told, user id -> sockets).
    remote: dict[str, tuple[float, dict[int, int]]] = field(default_factory=dict)
    #: Seats present when last looked (to see who just arrived or left).
    seen: set[int] = field(default_factory=set)
    #: A follower's copy of the owner's state (its own fields are then not used).
    mirror: dict[str, Any] | None = None
    #: Seat -> wall-clock time (epoch seconds) when a computer player takes over, while the
    #: person is away and the countdown runs.
    away_until: dict[int, float] = field(default_factory=dict)
    #: Seats a computer player plays for until their person returns.
    auto: set[int] = field(default_factory=set)
    #: (version, seat) whose turn ran out: a computer player plays that one turn.
    timed_out: tuple[int, int] | None = None
    #: Wall-clock deadline of the current turn, when the turn timer runs.
    turn_deadline: float | None = None
    #: People who asked for the next hand.
    ready: set[int] = field(default_factory=set)
    next_hand_at: float | None = None
    #: Seat that offered to concede, and until when.
    offer: tuple[int, float] | None = None
    #: A claim the solver upheld, put to the people on the other side: (the claiming seat,
    #: until when, the version it was made at); and the seats still to accept it.
    claim: tuple[int, float, int] | None = None
    claim_waits: set[int] = field(default_factory=set)
    last_phrase: dict[int, float] = field(default_factory=dict)
    #: Watchers counted when last looked: a change is told to the other processes, whose Live
    #: tables repeat this count.
    counted: int = 0
    _timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)

    # -- reading ---------------------------------------------------------------------------------

    def is_present(self, seat: int) -> bool:
        """Whether the person in ``seat`` has a socket open here or in another process."""
        if self.mirror is not None:
            return seat in self.mirror["present"]
        user = self.table.seating.seats[seat].user_id
        if user is None:
            return False
        return bool(self.table.fanout.people().get(user)) or any(
            people.get(user) for _, people in self.remote.values())

    def seat_json(self, seat: int) -> dict[str, Any]:
        """What the seats list shows of one seat's presence."""
        if self.mirror is not None:
            return dict(self.mirror["seats"][seat])
        person = self.table.seating.seats[seat].is_person
        away = seat in self.away_until
        return {
            "present": self.is_present(seat) if person else None,
            "away": away,
            "takeover": int(self.away_until[seat] * 1000) if away else None,
            "auto": seat in self.auto,
        }

    def watchers(self) -> int:
        """How many sockets read this table without a seat (Live tables shows the count).

        The owner counts its own sockets and the signed-in watchers other processes tell it
        of (:meth:`remote_presence` is counted by person); a follower repeats the owner's
        count.  A signed-out watcher on another process is not counted: nothing tells the
        owner of them."""
        if self.mirror is not None:
            return int(self.mirror.get("watchers", 0))
        table = self.table
        here = sum(1 for listener in table.fanout.listeners
                   if table.reader_of(listener.asker) is None)
        elsewhere = sum(n for _, people in self.remote.values() for user, n in people.items()
                        if table.seating.seat_of(user) is None)
        return here + elsewhere

    def snapshot(self) -> dict[str, Any]:
        """The owner's presence and timers, for the other processes to show."""
        return {
            "watchers": self.watchers(),
            "present": sorted(s for s in range(4) if self.is_present(s)),
            "seats": [self.seat_json(s) for s in range(4)],
            "state": self.state_json(),
            "auto": sorted(self.auto),
            "timed_out": self.timed_out,
        }

    def load(self, snapshot: dict[str, Any]) -> None:
        """A follower takes the owner's snapshot as its own."""
        self.mirror = snapshot

    def state_json(self) -> dict[str, Any]:
        if self.mirror is not None:
            return dict(self.mirror["state"])
        t = self.table
        return {
            "turn_timer": t.info.options.get("turn_timer", 0),
            "turn_deadline": None if self.turn_deadline is None else int(self.turn_deadline * 1000),
            "next_hand_at": None if self.next_hand_at is None else int(self.next_hand_at * 1000),
            "ready": [SEAT_LETTERS[s] for s in sorted(self.ready)],
            "offer": None if self.offer is None else {
                "kind": "concede", "seat": SEAT_LETTERS[self.offer[0]],
                "until": int(self.offer[1] * 1000),
            },
            "claim": None if self.claim is None else {
                "seat": SEAT_LETTERS[self.claim[0]], "until": int(self.claim[1] * 1000),
                "waiting": [SEAT_LETTERS[s] for s in sorted(self.claim_waits)],
            },
        }

    def plays_for(self, seat: int) -> bool:
        """Whether a computer player chooses for ``seat`` now (a person's seat)."""
        if self.mirror is not None:
            return seat in self.mirror["auto"] or (
                self.mirror["timed_out"] is not None
                and tuple(self.mirror["timed_out"]) == (self.table.version, seat))
        if seat in self.auto:
            return True
        return self.timed_out == (self.table.version, seat)

    # -- presence --------------------------------------------------------------------------------

    def remote_presence(self, node: str, people: dict[int, int]) -> None:
        """Another process's open sockets at this table by person (all, every second)."""
        self.remote[node] = (time.monotonic(), {u: n for u, n in people.items() if n})
        self.look()

    def forget_silent(self, older_than: float = 3.5) -> None:
        """Stop counting the sockets of processes not heard from lately (one may have died)."""
        cutoff = time.monotonic() - older_than
        silent = [node for node, (when, _) in self.remote.items() if when < cutoff]
        for node in silent:
            del self.remote[node]
        if silent:
            self.look()

    def look(self) -> None:
        """Compare who is present now with before: a person who left starts a countdown, one
        who came back plays again."""
        if self.mirror is not None:
            return
        t = self.table
        people = {s for s in t.seating.people()}
        now = {s for s in people if self.is_present(s)}
        if now == self.seen & people:
            self.seen = now
            self._count_watchers()
            return
        for seat in now - self.seen:
            self.away_until.pop(seat, None)
            self.auto.discard(seat)
            self._cancel(f"drop:{seat}")
        for seat in (self.seen & people) - now:
            if t.seating.started and not t.game.is_over:
                seconds = t.tables.settings.drop_seconds
                self.away_until[seat] = time.time() + seconds
                self._later(f"drop:{seat}", seconds, self._take_over, seat)
            self.ready.discard(seat)
        self.seen = now
        self.counted = self.watchers()
        self.changed()

    def _count_watchers(self) -> None:
        """Someone began or stopped watching: with several processes, the owner tells the
        others (their Live tables show the count); nobody at the table needs to hear it."""
        watchers = self.watchers()
        if watchers != self.counted:
            self.counted = watchers
            if self.table.role == "owner":
                self.table.push_presence()

    def _take_over(self, seat: int) -> None:
        if seat in self.away_until:
            del self.away_until[seat]
            self.auto.add(seat)
            self.changed()
            self.table.wake()

    # -- after every change ----------------------------------------------------------------------

    def after_commit(self) -> None:
        """Start or stop the turn timer and the next-hand timer for the new position."""
        t = self.table
        game = t.game
        self.timed_out = None
        self.turn_deadline = None
        self._cancel("turn")
        if self.offer is not None and (game.is_over or self.offer[1] < time.time()):
            self.offer = None
        if self.claim is not None and self.claim[2] != t.version:
            self.drop_claim()  # a move was made (or the claim was accepted): play goes on
        if game.phase == DEAL and t.seating.started and not game.is_over:
            if self.next_hand_at is None:
                seconds = t.tables.settings.next_hand_seconds
                self.next_hand_at = time.time() + seconds
                self._later("next", seconds, self._deal_now)
        else:
            self.next_hand_at = None
            self.ready.clear()
            self._cancel("next")
        seconds = t.info.options.get("turn_timer", 0) * t.tables.settings.turn_second
        seat = game.turn
        if (seconds and game.phase not in (DEAL, OVER) and seat >= 0 and t.seating.started
                and t.seating.seats[seat].is_person and not self.plays_for(seat)):
            self.turn_deadline = time.time() + seconds
            self._later("turn", seconds, self._time_out, t.version, seat)

    def _time_out(self, version: int, seat: int) -> None:
        t = self.table
        if t.version == version and t.game.turn == seat:
            self.timed_out = (version, seat)
            self.turn_deadline = None
            t.wake()

    def ask_next(self, seat: int) -> bool:
        """A person is ready for the next hand; whether everyone present now is."""
        self.ready.add(seat)
        people = [s for s in self.table.seating.people() if self.is_present(s)]
        self.changed()
        return all(s in self.ready for s in people)

    def _deal_now(self) -> None:
        self.table.spawn(self.table.deal_if_due())

    # -- concessions -----------------------------------------------------------------------------

    def concede_needs_partner(self, seat: int) -> bool:
        """Whether ``seat``'s partner must agree: a person who is at the table, and who has not
        offered to concede already."""
        mate = seat ^ 2
        t = self.table
        if not t.seating.seats[mate].is_person or not self.is_present(mate) or mate in self.auto:
            return False
        return not (self.offer is not None and self.offer[0] == mate
                    and self.offer[1] >= time.time())

    def offer_concession(self, seat: int) -> None:
        self.offer = (seat, time.time() + OFFER_SECONDS)
        self.changed()

    def decline(self, seat: int) -> None:
        if self.offer is None or self.offer[0] != seat ^ 2:
            raise Refusal(409, "there is no offer to concede from your partner")
        self.offer = None
        self.changed()

    # -- claims ----------------------------------------------------------------------------------

    def claim_askers(self, seat: int) -> set[int]:
        """The people on the other side of ``seat`` who must accept its claim: those at the
        table and playing their own cards (a computer player accepts a claim that holds)."""
        seats = self.table.seating.seats
        return {s for s in (seat ^ 1, seat ^ 3)
                if seats[s].is_person and self.is_present(s) and s not in self.auto}

    def offer_claim(self, seat: int, askers: set[int]) -> None:
        self.claim = (seat, time.time() + OFFER_SECONDS, self.table.version)
        self.claim_waits = set(askers)
        self._later("claim", OFFER_SECONDS, self._claim_lapsed, self.table.version)
        self.changed()

    def accept_claim(self, seat: int) -> int | None:
        """``seat`` accepts the claim put to it; the claiming seat once nobody else is asked."""
        claim = self._claim_for(seat)
        self.claim_waits.discard(seat)
        if self.claim_waits:
            self.changed()
            return None
        return claim[0]

    def decline_claim(self, seat: int) -> None:
        self._claim_for(seat)
        self.drop_claim()
        self.changed()

    def _claim_for(self, seat: int) -> tuple[int, float, int]:
        claim = self.claim
        if claim is None or seat not in self.claim_waits or claim[1] < time.time():
            raise Refusal(409, "there is no claim waiting for your answer")
        return claim

    def drop_claim(self) -> None:
        """Play goes on: the computer players, who held their cards while it waited, move."""
        self.claim = None
        self.claim_waits = set()
        self._cancel("claim")
        self.table.driver.wake()

    def _claim_lapsed(self, version: int) -> None:
        if self.claim is not None and self.claim[2] == version:
            self.drop_claim()
            self.changed()

    # -- phrases ---------------------------------------------------------------------------------

    def phrase(self, seat: int, phrase_id: str) -> dict[str, Any]:
        text = PHRASES.get(phrase_id)
        if text is None:
            raise Refusal(400, f"unknown phrase (choose from {', '.join(PHRASES)})")
        now = time.monotonic()
        if now - self.last_phrase.get(seat, -PHRASE_GAP) < PHRASE_GAP:
            raise Refusal(429, "one phrase at a time: wait a moment")
        self.last_phrase[seat] = now
        message = {"type": "phrase", "seat": SEAT_LETTERS[seat], "phrase": phrase_id,
                   "text": text}
        self.table.fanout.to_all(message)
        return message

    # -- plumbing --------------------------------------------------------------------------------

    def changed(self) -> None:
        """Tell every reader the seats and timers changed (not an event: nothing is stored)."""
        self.table.push_presence()

    def _later(self, name: str, seconds: float, fn: Any, *args: Any) -> None:
        self._cancel(name)
        loop = asyncio.get_running_loop()
        self._timers[name] = loop.call_later(seconds, fn, *args)

    def _cancel(self, name: str) -> None:
        handle = self._timers.pop(name, None)
        if handle is not None:
            handle.cancel()

    def close(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
