"""A table's journal: every input the engine accepted, in order, and nothing else.

Why a journal beside the ``varaq-record/1`` document?  A record is the match as people read it
(hands, bids, plays); it has no place for the seed the *next* deal will come from, nor for an
exchange stopped half-way (one card of two chosen).  The journal keeps exactly what the engine
was given — the seed, the starting score and the entries ``deal``, ``N bid 4``, ``S QS``,
``concede NS`` — so rebuilding a table is replaying it: after a restart the game resumes at the
same card and the next hand is the same deal it would have been.

The events shown to the browser are derived here too, from the engine's events and South's
view of them, so a rebuilt table shows exactly what the live one showed.

>>> j = Journal.new("varaq", seed=7)
>>> game, events = j.replay()
>>> entry = j.record_entry(game, game.deal())
>>> entry, game.phase_name
('deal', 'bid')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..actions import ActionError, action_text, parse_action
from ..engine import Game, IllegalAction
from ..events import Event
from ..record import to_record
from ..rules import Rules
from ..seats import SEAT_LETTERS, SIDE_NAMES, S
from ..view import hand_score_json

__all__ = [
    "Journal", "JournalError", "event_json", "record_of", "apply_entry", "JOURNAL_FORMAT",
]

JOURNAL_FORMAT = "varaq-journal/1"


class JournalError(ValueError):
    """A stored journal that does not replay; the message names the entry and the reason."""


@dataclass(slots=True)
class Journal:
    """The inputs that rebuild one table's game."""

    rules: str | dict[str, Any]
    seed: int
    totals: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    #: The first dealer, or None to let the seed choose (as :class:`Game` does).
    dealer: int | None = None
    entries: list[str] = field(default_factory=list)

    @classmethod
    def new(
        cls,
        rules: str | dict[str, Any] | Rules,
        seed: int,
        totals: tuple[int, int] = (0, 0),
        bags: tuple[int, int] = (0, 0),
        dealer: int | None = None,
    ) -> Journal:
        spec = Rules.from_spec(rules).to_spec()
        return cls(spec, seed, totals, bags, dealer)

    def new_game(self) -> Game:
        """The game before any entry: rules, seed, starting score, first dealer."""
        return Game(
            Rules.from_spec(self.rules), seed=self.seed, totals=self.totals, bags=self.bags,
            dealer=self.dealer,
        )

    def replay(self) -> tuple[Game, list[dict[str, Any]]]:
        """Rebuild the game and the events the browser was shown (version = index + 1)."""
        game = self.new_game()
        events = []
        for i, entry in enumerate(self.entries):
            try:
                event = apply_entry(game, entry)
            except (IllegalAction, ActionError, ValueError) as e:
                raise JournalError(f"entry {i + 1} ({entry!r}) does not replay: {e}") from None
            events.append(event_json(i + 1, event))
        return game, events

    def record_entry(self, game: Game, event: Event) -> str:
        """Append the entry for ``event`` (just applied to ``game``) and return it."""
        if event.kind == "deal":
            entry = "deal"
        elif event.kind == "concede":
            entry = f"concede {SIDE_NAMES[event.seat]}"
        else:
            entry = f"{SEAT_LETTERS[event.seat]} {action_text(event.action)}"
        self.entries.append(entry)
        return entry

    def to_json(self) -> dict[str, Any]:
        return {
            "format": JOURNAL_FORMAT,
            "rules": self.rules,
            "seed": self.seed,
            "start": {
                "total": {"NS": self.totals[0], "EW": self.totals[1]},
                "bags": {"NS": self.bags[0], "EW": self.bags[1]},
            },
            "dealer": None if self.dealer is None else SEAT_LETTERS[self.dealer],
            "entries": list(self.entries),
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Journal:
        if doc.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"not a {JOURNAL_FORMAT} document")
        start = doc.get("start") or {}
        total = start.get("total") or {}
        bags = start.get("bags") or {}
        dealer = doc.get("dealer")
        return cls(
            rules=doc["rules"],
            seed=int(doc["seed"]),
            totals=(int(total.get("NS", 0)), int(total.get("EW", 0))),
            bags=(int(bags.get("NS", 0)), int(bags.get("EW", 0))),
            dealer=None if dealer is None else SEAT_LETTERS.index(dealer),
            entries=[str(e) for e in doc.get("entries", [])],
        )


def apply_entry(game: Game, entry: str) -> Event:
    """Apply one journal entry to ``game``; the seat written in the entry must be to move."""
    if entry == "deal":
        return game.deal()
    word, _, rest = entry.partition(" ")
    if word == "concede":
        return game.concede(SIDE_NAMES.index(rest))
    if word not in SEAT_LETTERS or len(word) != 1:
        raise JournalError(f"unknown entry {entry!r}")
    return game.apply(parse_action(rest), seat=SEAT_LETTERS.index(word))


def event_json(version: int, event: Event) -> dict[str, Any]:
    """An event as South may see it.

    Everything an event carries is public (bids, cards played to a trick, scores) except the
    cards passed in a blind nil exchange: South sees only the cards it passes itself (what its
    partner passed to it shows up in its view's ``received`` once the exchange is done).
    """
    kind = event.kind
    seat: str | None = SEAT_LETTERS[event.seat]
    action: str | None = action_text(event.action) if event.action >= 0 else None
    out: dict[str, Any] = {"version": version, "kind": kind}
    if kind == "concede":
        out["side"] = SIDE_NAMES[event.seat]
        seat = None
    elif kind == "pass" and event.seat != S:
        action = None
    trick = event.trick
    out.update({
        "seat": seat,
        "action": action,
        "trick": None if trick is None else {
            "leader": SEAT_LETTERS[trick.leader],
            "cards": [action_text(c) for c in trick.cards],
            "winner": SEAT_LETTERS[trick.winner],
        },
        "hand": None if event.hand is None else hand_score_json(event.hand),
        "winner": None if event.winner is None else SIDE_NAMES[event.winner],
    })
    return out



def record_of(game: Game) -> dict[str, Any]:
    """The match as a ``varaq-record/1`` document, for the ``record`` column and downloads."""
    return to_record(game)
