"""Normal's card play as the frozen Hard 0.2 plays its layouts out (``hard_v02.py``).

Normal has learned five things about nils since version 0.2: a defender in front of the nil
bidder plays low (never overtaking partner, never winning high over the nil's partner, never
cutting partner's card), it leads against a nil the card with the fewest lower cards the nil
may hold, away from its partner's cuts (0.2: the lowest rank), it attacks a nil unless its
contract needs every trick left (0.2: all but one), a nil bidder void in the led suit sheds a
high spade under a higher cut, and the nil's partner on lead cashes a master spade, then leads
into the nil's voids, before its other masters (0.2: any master first, the side suits' before
the spades).  Hard 0.2 played its layouts out with Normal, so those lessons would have made
the yardstick stronger too.  This module plays exactly as Normal did before them: the
decisions that changed are answered the old way, everything else is Normal's own code.
"""

from __future__ import annotations

from varaq.bots import Decision, normal
from varaq.bots.knowledge import Knowledge, highest, lowest
from varaq.cards import RANK_OF, SPADE_MASK, SPADES, SUIT_MASKS, SUIT_OF, card_list
from varaq.view import View

__all__ = ["choose_play"]


def choose_play(view: View, k: Knowledge | None = None) -> Decision:
    """The card Normal 0.2 played (the same order of priorities as today's Normal)."""
    if len(view.legal) == 1:
        return normal.choose_play(view)
    if k is None:
        k = Knowledge.from_view(view)
    t = normal._Table(view, k)
    if t.me_nil:
        return _own_nil(t)
    if t.mate_nil:
        return _lead_for_cover(t) if t.pos == 0 else normal._play_cover(t)
    if t.opp_nil and t.need < t.left - 1:
        decision = _against_nil(t)
        if decision is not None:
            return decision
    return normal._play_contract(t)


def _own_nil(t: normal._Table) -> Decision:
    """Void in the led suit, 0.2 discarded from the side suits first, a spade only when it
    had nothing else that lost."""
    under = t.legal & ~t.winners()
    following = t.led >= 0 and bool(under & SUIT_MASKS[t.led])
    if t.pos == 0 or not under or following:
        return normal._play_own_nil(t)
    plain = under & ~SPADE_MASK
    card = normal._most_dangerous(t, plain) if plain else highest(under, t.jokers)
    return Decision(card, "the nil's discard of version 0.2")


def _lead_for_cover(t: normal._Table) -> Decision:
    """On lead for partner's nil, 0.2 cashed any master first (a side suit's before a spade),
    then led into the nil's voids, then its strongest card."""
    masters = [c for c in card_list(t.legal) if t.k.is_master(c)]
    if masters:
        card = max(masters, key=lambda c: (SUIT_OF[c] != SPADES, RANK_OF[c]))
        return Decision(card, "the cover's master of version 0.2")
    return normal._lead_into_void(t) or normal._lead_strongest(t)


def _against_nil(t: normal._Table) -> Decision | None:
    """In front of the nil bidder, 0.2 played low only when it did not beat an opponent's
    card and partner's contract no longer needed the trick; otherwise it played for the
    contract (overtaking, winning high, cutting)."""
    k = t.k
    played = {s for s, _ in t.view.trick}
    nil_after = (any(s in t.opp_nil for s in k.after)
                 and not any(s in played for s in t.opp_nil))
    if t.pos == 0:
        return _lead_against_nil(t)
    if k.winning_seat in t.opp_nil or not nil_after:
        return normal._play_against_nil(t)
    if k.led >= 0 and t.legal & SUIT_MASKS[k.led]:
        partner_winning = k.winning_seat == t.mate
        if not partner_winning or t.need <= 0:
            card = lowest(t.legal, t.jokers)
            if not t.beats_winner(card) or partner_winning:
                return Decision(card, "the nil defence of version 0.2")
    return None


def _lead_against_nil(t: normal._Table) -> Decision | None:
    """0.2 led the lowest rank it held in a suit the nil bidder still followed, spades last
    on a tie (today's Normal counts the nil's possible lower cards, and avoids its partner's
    cuts)."""
    nil = t.opp_nil[0]
    best, best_key = -1, (99, 99)
    for c in card_list(t.legal):
        suit = SUIT_OF[c]
        if t.k.is_void(nil, suit):
            continue
        key = (RANK_OF[c] if c < 52 else 15, 1 if suit == SPADES else 0)
        if key < best_key:
            best, best_key = c, key
    if best < 0:
        return None
    return Decision(best, "the lead against a nil of version 0.2")
