"""A seat's view: everything one player may know, and the only thing bots and clients receive.

A :class:`View` is built from the engine's state by copying public facts (bids, cards played,
scores) and the seat's own private facts (its cards, the cards it passed or received in an
exchange).  Nothing else is copied, so nothing else can leak: the tests prove a view is the same
whatever the other seats hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import action_text
from .cards import card_text, cards_of, hand_text, sort_key
from .events import TrickResult
from .phases import BLIND, DEAL, EXCHANGE, OVER, PHASE_NAMES, PLAY
from .reasons import why_not
from .rules import Rules
from .scoring import HandScore, ScorePart, decisive_part, score_parts
from .seats import SEAT_LETTERS, SIDE_NAMES

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["View", "build_view", "hand_score_json"]


@dataclass(frozen=True, slots=True)
class View:
    seat: int
    rules: Rules
    phase: str
    #: 1-based number of the hand being played (or just finished).
    hand_no: int
    dealer: int
    #: Whose turn it is, or None between hands and after the match.
    turn: int | None
    #: The seat's own cards now (0 while its blind nil decision is pending).
    hand: int
    #: True while this seat must choose blind nil or look: its cards are withheld.
    cards_hidden: bool
    #: Bids by seat; None for not yet bid; 0 is nil (blind when ``blind[seat]``).
    bids: tuple[int | None, int | None, int | None, int | None]
    blind: tuple[bool, bool, bool, bool]
    #: The current trick as (seat, card) in the order played.
    trick: tuple[tuple[int, int], ...]
    leader: int | None
    #: Finished tricks of this hand.
    tricks: tuple[TrickResult, ...]
    taken: tuple[int, int, int, int]
    broken: bool
    #: Every card played this hand (mask).
    played: int
    #: How many cards each seat holds now.
    cards_left: tuple[int, int, int, int]
    totals: tuple[int, int]
    bags: tuple[int, int]
    history: tuple[HandScore, ...]
    #: Actions open to this seat now (empty unless it is this seat's turn).
    legal: tuple[int, ...]
    #: Cards this seat gave and received in a blind nil exchange (masks; 0 if none).
    gave: int
    received: int
    #: Cards this seat has picked so far in an exchange still under way.
    passing: int
    winner: int | None
    conceded: int | None

    @property
    def is_my_turn(self) -> bool:
        return self.turn == self.seat

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for clients: cards as text, seats as letters."""
        seat = SEAT_LETTERS
        return {
            "seat": seat[self.seat],
            "rules": self.rules.to_spec(),
            "label": self.rules.label,
            "badges": self.rules.badges(),
            "target": self.rules.target,
            "exchange": self.rules.exchange if self.rules.blind_nil else 0,
            "phase": self.phase,
            "hand_no": self.hand_no,
            "dealer": seat[self.dealer],
            "turn": None if self.turn is None else seat[self.turn],
            "hand": [card_text(c) for c in sorted(cards_of(self.hand), key=sort_key)],
            "cards_hidden": self.cards_hidden,
            "bids": {
                seat[s]: (None if b is None else ("blind" if self.blind[s] else b))
                for s, b in enumerate(self.bids)
            },
            "trick": [{"seat": seat[s], "card": card_text(c)} for s, c in self.trick],
            "leader": None if self.leader is None else seat[self.leader],
            "tricks": [
                {
                    "leader": seat[t.leader],
                    "cards": [card_text(c) for c in t.cards],
                    "winner": seat[t.winner],
                }
                for t in self.tricks
            ],
            "taken": {seat[s]: n for s, n in enumerate(self.taken)},
            "broken": self.broken,
            "cards_left": {seat[s]: n for s, n in enumerate(self.cards_left)},
            "totals": {"NS": self.totals[0], "EW": self.totals[1]},
            "bags": {"NS": self.bags[0], "EW": self.bags[1]},
            "bag_limit": self.rules.bag_limit,
            "history": [hand_score_json(h) for h in self.history],
            "legal": [action_text(a) for a in self.legal],
            "why_not": why_not(self),
            "gave": hand_text(self.gave).split(),
            "received": hand_text(self.received).split(),
            "passing": hand_text(self.passing).split(),
            "winner": None if self.winner is None else SIDE_NAMES[self.winner],
            "conceded": None if self.conceded is None else SIDE_NAMES[self.conceded],
        }


def hand_score_json(h: HandScore) -> dict[str, Any]:
    """A hand's score as JSON, with the words a score sheet uses.

    A hand scored by :func:`~varaq.scoring.score_hand` knows its rules, and then also gives each
    side's points line by line (``parts``, adding up to ``score``) and the line that decided
    the hand (``headline``: a part and its side).
    """
    seat, side = SEAT_LETTERS, SIDE_NAMES
    doc: dict[str, Any] = {
        "bids": {
            seat[s]: ("blind" if h.blind[s] else ("nil" if b == 0 else b))
            for s, b in enumerate(h.bids)
        },
        "tricks": {seat[s]: t for s, t in enumerate(h.tricks)},
        "contract": {side[i]: h.contract[i] for i in (0, 1)},
        "made": {side[i]: h.made[i] for i in (0, 1)},
        "nil": {seat[s]: m for s, m in enumerate(h.nil_made) if m is not None},
        "new_bags": {side[i]: h.new_bags[i] for i in (0, 1)},
        "penalties": {side[i]: h.penalties[i] for i in (0, 1)},
        "score": {side[i]: h.score[i] for i in (0, 1)},
        "bags": {side[i]: h.bags[i] for i in (0, 1)},
    }
    if h.rules is not None:
        parts = score_parts(h.rules, h)
        doc["parts"] = {side[i]: [_part_json(p) for p in parts[i]] for i in (0, 1)}
        decided = decisive_part(parts)
        doc["headline"] = (
            None if decided is None else {"side": side[decided[0]], **_part_json(decided[1])}
        )
    return doc


def _part_json(part: ScorePart) -> dict[str, Any]:
    return {
        "kind": part.kind,
        "points": part.points,
        "seat": None if part.seat is None else SEAT_LETTERS[part.seat],
        "made": part.made,
        "number": part.number,
        "tricks": part.tricks,
    }


def build_view(game: Game, seat: int) -> View:
    """Copy what ``seat`` may see out of ``game``.

    Bots build a view before every decision, so this reads each field of the game once and
    builds the small tuples directly (no generators, no helper calls).
    """
    phase = game.phase
    turn = game.turn
    hidden = phase == BLIND and seat in game.blind_queue
    queue = game.exchange_queue
    giving = phase == EXCHANGE and bool(queue) and queue[0][0] == seat
    b0, b1, b2, b3 = game.bids
    h0, h1, h2, h3 = game.hands
    t0, t1, t2, t3 = game.taken
    leader = game.leader
    exchanged = game.exchanged
    totals = game.totals
    bags = game.bags
    return View(
        seat=seat,
        rules=game.rules,
        phase=PHASE_NAMES[phase],
        hand_no=game.hand_no + (0 if phase in (DEAL, OVER) and game.hand_no else 1),
        dealer=game.dealer,
        turn=turn if turn >= 0 else None,
        hand=0 if hidden else game.hands[seat],
        cards_hidden=hidden,
        bids=(
            None if b0 < 0 else b0, None if b1 < 0 else b1,
            None if b2 < 0 else b2, None if b3 < 0 else b3,
        ),
        blind=tuple(game.blind),  # type: ignore[arg-type]
        # The trick's cards were played by the leader and the seats after it, in turn.
        trick=tuple(zip(_SEATS_FROM[leader], game.trick, strict=False)),
        leader=leader if phase == PLAY and leader >= 0 else None,
        tricks=tuple(game.tricks),
        taken=(t0, t1, t2, t3),
        broken=game.broken,
        played=game.played,
        cards_left=(h0.bit_count(), h1.bit_count(), h2.bit_count(), h3.bit_count()),
        totals=(totals[0], totals[1]),
        bags=(bags[0], bags[1]),
        history=tuple([hand.result for hand in game.log]),
        legal=tuple(game.legal_actions()) if turn == seat else (),
        gave=exchanged[seat],
        # Only a partner ever passes cards to a seat, so what the partner gave is what it got.
        received=exchanged[seat ^ 2],
        passing=game.passing if giving else 0,
        winner=game.winner,
        conceded=game.conceded,
    )


#: The seats in playing order from each leader (a trick's cards pair with them).
_SEATS_FROM = tuple(tuple((leader + i) & 3 for i in range(4)) for leader in range(4))

