"""Why a card in a player's hand cannot be played now, in the words that player reads.

The engine alone decides what is legal (``View.legal``); this module only explains the cards
it left out, so that a client can dim them and say why when one is tapped ("You must follow
diamonds") without ever deciding a rule itself.  The reasons are the engine's own
(:meth:`varaq.engine.Game.why_illegal` gives them to the API in the third person); a test
holds the two to the same reason for every refused card of many random games.

>>> from varaq import Game, Rules
>>> g = Game(Rules.named("varaq"), seed=3)
>>> _ = g.deal(dealer=1)
>>> sorted(set(why_not(g.view(0)).values()))
['Cards are played after the bidding']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import SUIT_NAMES, SUIT_OF, card_text, cards_of

if TYPE_CHECKING:
    from .view import View

__all__ = ["why_not"]

WAIT = "Wait for your turn"


def why_not(view: View) -> dict[str, str]:
    """Each card the viewer holds but may not play (or pass) now, with the reason."""
    legal = set(view.legal)
    out: dict[str, str] = {}
    for card in cards_of(view.hand):
        if card not in legal:
            out[card_text(card)] = _reason(view, card)
    return out


def _reason(view: View, card: int) -> str:
    phase = view.phase
    if phase == "over":
        return "The match is over"
    if phase == "deal":
        return "The hand is over"
    if phase in ("blind", "bid"):
        return "Cards are played after the bidding"
    if view.turn != view.seat:
        return WAIT
    if phase == "exchange":
        return "You have already picked this card to pass"
    if view.trick:
        return f"You must follow {SUIT_NAMES[SUIT_OF[view.trick[0][1]]]}"
    if not view.tricks and view.rules.two_clubs_leads:
        return "The 2♣ leads the first trick"
    return "Spades are not broken yet"
