"""Actions as small integers, with text forms.

The engine's hot path wants ``int`` actions (a legal-action list is a list of ints, and a card
action is the card number itself), while people and records want words.  This module is the
only place that knows the encoding.

- ``0``–``53``: a card — played in the play phase, passed in the exchange phase.
- ``BID + n`` (64–77): bid ``n`` tricks; ``BID + 0`` is nil.
- ``BLIND_NIL`` (80): bid blind nil before looking at the cards.
- ``LOOK`` (81): look at the cards, giving up blind nil for this hand.

A match's history (:attr:`varaq.engine.Game.actions`) also holds what is not a player's choice:

- ``DEAL_HAND`` (96): the next hand was dealt from the game's seed;
- ``DEAL_GIVEN`` (97): the next hand was dealt from given cards (a record, a puzzle), or was a
  score-sheet hand with no cards;
- ``TRICKS_GIVEN`` (98): a score-sheet hand was finished with each seat's tricks;
- ``CONCEDE + side`` (100, 101): NS or EW conceded;
- ``CLAIM + seat`` (104–107): that seat claimed every remaining trick for its side, and the
  claim was accepted (see :mod:`varaq.claims`);
- ``UNDO + n`` (129–255): the last ``n`` moves of the hand in progress were taken back (see
  :meth:`varaq.engine.Game.undo`).

>>> action_text(bid(4)), action_text(NIL_BID), action_text(parse_action("qs"))
('bid 4', 'nil', 'QS')
"""

from __future__ import annotations

from .cards import CardError, card_text, parse_card

__all__ = [
    "BID", "NIL_BID", "BLIND_NIL", "LOOK", "bid", "is_card", "is_bid", "bid_value",
    "action_text", "parse_action", "ActionError", "quoted", "DEAL_HAND", "DEAL_GIVEN",
    "TRICKS_GIVEN", "CONCEDE", "CLAIM", "UNDO", "UNDO_LIMIT",
]

BID = 64
NIL_BID = BID
BLIND_NIL = 80
LOOK = 81
DEAL_HAND = 96
DEAL_GIVEN = 97
TRICKS_GIVEN = 98
CONCEDE = 100
CLAIM = 104
UNDO = 128
#: The most moves one undo may take back (a hand has at most 13 tricks, bids and passes).
UNDO_LIMIT = 127


class ActionError(ValueError):
    """Text that does not name an action."""


def bid(n: int) -> int:
    """The action of bidding ``n`` tricks (0 = nil)."""
    return BID + n


def is_card(action: int) -> bool:
    return 0 <= action < 54


def is_bid(action: int) -> bool:
    return BID <= action <= BID + 13


def bid_value(action: int) -> int:
    return action - BID


def action_text(action: int) -> str:
    """Words for an action: ``AS``, ``bid 4``, ``nil``, ``blind nil``, ``look``."""
    if 0 <= action < 54:
        return card_text(action)
    if action == NIL_BID:
        return "nil"
    if BID < action <= BID + 13:
        return f"bid {action - BID}"
    if action == BLIND_NIL:
        return "blind nil"
    if action == LOOK:
        return "look"
    if action == DEAL_HAND:
        return "deal"
    if action == DEAL_GIVEN:
        return "deal given"
    if action == TRICKS_GIVEN:
        return "tricks given"
    if action in (CONCEDE, CONCEDE + 1):
        return "concede " + ("NS", "EW")[action - CONCEDE]
    if CLAIM <= action < CLAIM + 4:
        return "claim " + "NESW"[action - CLAIM]
    if UNDO < action <= UNDO + UNDO_LIMIT:
        return f"undo {action - UNDO}"
    return f"action {action}"


def parse_action(text: str) -> int:
    """Read an action from words: a card, ``bid 4``, ``4``, ``nil``, ``blind``, ``look``.

    Anything else is an :class:`ActionError` whose one-line message quotes at most the start
    of the text, however long it is.
    """
    t = " ".join(text.strip().lower().split())
    if t in ("nil", "bid nil", "bid 0", "0"):
        return NIL_BID
    if t in ("blind", "blind nil", "bid blind nil"):
        return BLIND_NIL
    if t in ("look", "show", "show cards"):
        return LOOK
    if t.startswith("bid "):
        t = t[4:]
    if t.isdigit():
        # str.isdigit also says yes to "²" (which int() refuses) and "３" (which int() reads
        # as 3), and int() gives up on thousands of digits: only 0-9 make a bid.
        if not t.isascii():
            raise ActionError(f"unknown action {quoted(text)}: a bid is written with 0-9")
        value = t.lstrip("0") or "0"
        if len(value) > 2 or int(value) > 13:
            shown = value if len(value) <= 6 else f"of {len(value)} digits"
            raise ActionError(f"bid {shown} is out of range 0-13")
        return BID + int(value)
    try:
        return parse_card(t)
    except CardError:
        raise ActionError(f"unknown action {quoted(text)}") from None


def quoted(text: str, limit: int = 24) -> str:
    """``repr`` of what a person typed, cut short: a refusal stays one readable line."""
    text = text.strip()
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"
