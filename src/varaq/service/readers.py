"""What each reader of a table is sent: the table's raw steps, filtered for one reader.

A table keeps one list of raw, versioned steps (:class:`~.journal.Step`) and nothing per
reader.  A *reader* is a seat (a person, or a computer player's view) or a watcher (``None``),
who sees only what is public.  Filtering happens here, when a message is built, the way
lichess's socket server filters one game's events for owners, players and watchers:

- bids, blind nil choices, cards played, tricks, scores, seats filling: public;
- a card passed in a blind nil exchange: only the seat that passed it (the receiver sees it in
  its view once the exchange is done);
- the cards in a hand: only that seat, through :meth:`Game.view` — which already hides a seat's
  own cards while it chooses blind nil.

Every function here is pure, so the test that a reader's messages do not depend on the cards
it may not see can call them directly.
"""

from __future__ import annotations

from typing import Any

from ..actions import action_text
from ..engine import Game
from ..seats import SEAT_LETTERS, SIDE_NAMES
from ..view import hand_score_json
from .journal import Step

__all__ = ["event_json", "view_json", "WATCHER"]

#: The reader who sits nowhere: sees the public facts only.
WATCHER: int | None = None


def event_json(version: int, step: Step, reader: int | None) -> dict[str, Any]:
    """One step as ``reader`` may see it (docs/protocol.md, EVENT)."""
    line = step.line
    kind = line.kind
    if kind in ("sit", "leave", "start", "close"):
        return {
            "version": version, "kind": kind,
            "seat": SEAT_LETTERS[line.seat] if line.seat >= 0 else None,
            "action": None, "trick": None, "hand": None, "winner": None,
        }
    event = step.event
    assert event is not None
    seat: str | None = SEAT_LETTERS[event.seat]
    action: str | None = action_text(event.action) if event.action >= 0 else None
    out: dict[str, Any] = {"version": version, "kind": event.kind}
    if event.kind == "concede":
        out["side"] = SIDE_NAMES[event.seat]
        seat = None
    elif event.kind == "pass" and event.seat != reader:
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
    if line.auto:
        out["auto"] = True
    return out


def view_json(game: Game, reader: int | None) -> dict[str, Any]:
    """The reader's view: a seat's own (:meth:`Game.view`), or a watcher's, which is any seat's
    view with the private parts taken out."""
    if reader is not None:
        return game.view(reader).to_json()
    # Only the fields named public are copied: a field added to views later stays private
    # from watchers until someone decides otherwise.
    doc = game.view(0).to_json()
    out = {key: doc[key] for key in _PUBLIC_VIEW_KEYS if key in doc}
    out.update({
        "seat": None, "hand": [], "cards_hidden": False, "legal": [], "gave": [],
        "received": [], "passing": [],
    })
    return out


_PUBLIC_VIEW_KEYS = (
    "rules", "label", "badges", "target", "exchange", "phase", "hand_no", "dealer", "turn",
    "bids", "trick", "leader", "tricks", "taken", "broken", "cards_left", "totals", "bags",
    "bag_limit", "history", "winner", "conceded",
)
