"""The Normal computer player: a strong rule-based Spades player.

It plays the way a good club player explains their play, one rule at a time, and every
decision carries that rule as its reason.  It sees only its :class:`~varaq.view.View`; all its
card counting goes through :class:`~varaq.bots.knowledge.Knowledge`.

Its priorities, in order:

1. its own nil: never win a trick it can lose; shed high cards under the winning card (a
   high spade under a higher cut too);
2. its partner's nil: win the tricks the nil bidder would otherwise be forced to take; lead
   a master spade (the nil sheds a high spade under it), then into the nil bidder's voids,
   then other masters and strength;
3. an opposing nil: lead the card the nil bidder is least likely to hold a lower one of (not
   into a suit its partner can cut, and not the lowest of a suit not yet played), play under
   the nil bidder, and in front of it stay under the winning card, never overtaking partner
   or cutting partner's card, keeping its lowest card of the suit for a later lead;
4. the contract: take the tricks it still needs; once made, duck (bags cost ten points each
   when they reach the limit) unless the opponents can still be set;

and always: never cut or overtake a partner's trick that will hold, count the spades out, cash
masters before they can be cut.

The player is deterministic: the random generator breaks no ties, so a position always gets
the same answer (the Hard player's playouts rely on that being cheap and repeatable).
The functions :func:`choose_bid`, :func:`choose_play`, :func:`choose_pass` and
:func:`choose_blind` are the policy itself, usable without a bot object.
"""

from __future__ import annotations

import random

from ..actions import BID
from ..cards import (
    RANK_OF,
    SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    card_list,
    card_name,
)
from ..view import View
from . import Decision
from .bidding import estimate_tricks, nil_danger, suit_lengths, top_trump
from .blind import BLIND_POLICIES, choose_blind
from .knowledge import (
    ABOVE,
    NON_SPADE_SUITS,
    ORDER,
    POWER,
    Knowledge,
    highest,
    lowest,
)

__all__ = [
    "NormalBot", "choose_blind", "choose_bid", "choose_pass", "choose_play", "NIL_DANGER_MAX",
    "bid_for",
]

#: A nil is bid only when :func:`~varaq.bots.bidding.nil_danger` is below this.
NIL_DANGER_MAX = 0.75


class NormalBot:
    """The Normal computer player (see the module docstring).

    ``blind_nil``: how it chooses blind nil, ``"estimate"`` (weigh the odds against the match
    score, see :mod:`varaq.bots.blind`), ``"race"`` (also in the race to the target, where it
    costs points), or ``"never"`` and ``"always"``, which exist to measure the others against.
    """

    name = "normal"

    def __init__(self, blind_nil: str = "estimate", **options: object) -> None:
        if options:
            raise ValueError(f"the normal bot takes no options but blind_nil, not "
                             f"{', '.join(options)}")
        if blind_nil not in BLIND_POLICIES:
            raise ValueError(f"blind_nil must be one of {', '.join(BLIND_POLICIES)}, "
                             f"not {blind_nil!r}")
        self.blind_nil = blind_nil

    def decide(self, view: View, rng: random.Random) -> Decision:
        if not view.legal:
            raise ValueError("it is not this seat's turn: there is nothing to decide")
        phase = view.phase
        if phase == "play":
            return choose_play(view)
        if phase == "bid":
            return choose_bid(view)
        if phase == "exchange":
            return choose_pass(view)
        if phase == "blind":
            return choose_blind(view, self.blind_nil)
        raise ValueError(f"nothing to decide in the {phase} phase")

    def act(self, view: View, rng: random.Random) -> int:
        return self.decide(view, rng).action


# -- bidding ----------------------------------------------------------------------------------


def _nil_sound(hand: int, jokers: bool) -> tuple[bool, float]:
    """Whether the hand may bid nil at all, and its danger."""
    if hand >> top_trump(jokers) & 1:
        return False, 9.0
    if jokers and hand & ((1 << 52) | (1 << 39)):  # little joker or the promoted 2♠
        return False, 9.0
    spades = (hand & SPADE_MASK).bit_count()
    if spades >= 4:
        return False, 9.0
    danger = nil_danger(hand, jokers)
    return True, danger


def bid_for(view: View) -> tuple[int, str]:
    """The bid Normal makes in this position (0 = nil) and why, before legality checks."""
    r = view.rules
    jokers = r.jokers
    hand = view.hand
    seat = view.seat
    side = seat & 1
    mate = view.bids[seat ^ 2]
    estimate = estimate_tricks(hand, jokers)
    ours, theirs = view.totals[side], view.totals[1 - side]
    bags = view.bags[side]
    target = r.target

    if r.nil and mate != 0:
        allowed, danger = _nil_sound(hand, jokers)
        limit = NIL_DANGER_MAX
        if mate is not None and mate >= 4:
            limit += 0.2  # a strong partner can cover
        if theirs - ours >= 150:
            limit += 0.2  # behind: the 100 points are worth the risk
        if allowed and danger < limit and estimate < 3.0:
            return 0, "Nil: no high spade and every high card has low cards to hide behind"

    value = estimate
    reason = f"Bid {{n}}: the hand is worth about {estimate:.1f} tricks"
    if mate == 0:
        value += 0.4
        reason = f"Bid {{n}}: about {estimate:.1f} tricks, and partner's nil needs our tricks"
    if theirs >= target - 100 and theirs - ours >= 100:
        value += 0.6
        reason = f"Bid {{n}}: about {estimate:.1f} tricks, bidding up because we are far behind"
    elif ours >= target - 60 and ours > theirs:
        value -= 0.5
        reason = f"Bid {{n}}: about {estimate:.1f} tricks, bidding safe so near the target"
    elif bags >= r.bag_limit - 3 and r.bag_penalty:
        # Near the penalty every trick counts twice: being set loses the bid, and the ducking
        # that keeps bags away needs a contract that is sure.  (Measured over 600 duplicate
        # matches, shading down here beats bidding up.)
        value -= 0.3
        reason = f"Bid {{n}}: about {estimate:.1f} tricks, bidding safe with {bags} bags"
    n = int(value)
    others = [b for s, b in enumerate(view.bids) if s != seat and b is not None]
    if len(others) == 3:
        # Last to bid: the table's total shows whether spare tricks (bags) are coming.
        spare = 13 - sum(others) - n
        if spare >= 3 and value - n >= 0.5:
            n += 1
        elif spare <= -2 and value - n < 0.3 and n > 1:
            n -= 1
    n = max(1, min(13, n))
    if mate is not None and mate > 0 and mate + n > 13:
        n = max(1, 13 - mate)
    return n, reason.format(n=n)


def choose_bid(view: View) -> Decision:
    """A legal bid close to the hand's tricks (see :func:`bid_for`)."""
    n, reason = bid_for(view)
    legal = view.legal
    if BID + n in legal:
        return Decision(BID + n, reason)
    values = sorted(a - BID for a in legal if a > BID)
    if not values:
        return Decision(legal[0], "Nil: no other bid is open")
    above = [v for v in values if v >= n]
    pick = above[0] if above else values[-1]
    return Decision(BID + pick, f"Bid {pick}: the table's minimum bid forces it above {n}")


# -- the blind nil exchange ---------------------------------------------------------------------


def choose_pass(view: View) -> Decision:
    """Pass one card of the blind nil exchange.

    The blind nil bidder's partner passes its lowest cards, short suits first, which gives the
    nil bidder cards to hide behind (passing high cards would sink the nil).  The nil bidder
    passes back its most dangerous cards: top spades first, then the highest side cards.
    """
    jokers = view.rules.jokers
    hand = view.hand & ~view.passing
    legal = 0
    for a in view.legal:
        legal |= 1 << a
    hand &= legal
    if view.bids[view.seat] == 0:
        order = ORDER[jokers]
        # Spades rank above side cards here: any spade from the eight up can win a trick.
        card = max(
            card_list(hand), key=lambda c: order[c] + 5 if SUIT_OF[c] == SPADES else order[c]
        )
        return Decision(card, f"Pass back the {_name(card)}: my most dangerous card")
    lengths = suit_lengths(view.hand)
    plain = hand & ~SPADE_MASK
    pool = plain if plain else hand
    card = min(card_list(pool), key=lambda c: (RANK_OF[c], lengths[SUIT_OF[c]]))
    return Decision(card, f"Pass the {_name(card)}: a low card helps partner's blind nil")


# -- play -------------------------------------------------------------------------------------


def _name(card: int) -> str:
    """A card's name inside a sentence: ``king of hearts``."""
    return card_name(card).lower()


class _Table:
    """The facts one play decision needs, computed once."""

    __slots__ = (
        "bag_limit", "bags", "jokers", "k", "keep_lowest", "led", "left", "legal", "mate",
        "mate_nil", "me_nil", "need", "opp_need", "opp_nil", "penalty", "pos", "seat", "side",
        "view",
    )

    def __init__(self, view: View, k: Knowledge, keep_lowest: bool = True) -> None:
        self.view = view
        self.keep_lowest = keep_lowest
        self.k = k
        self.jokers = k.jokers
        self.seat = view.seat
        self.mate = view.seat ^ 2
        self.side = view.seat & 1
        legal = 0
        for a in view.legal:
            legal |= 1 << a
        self.legal = legal
        self.led = k.led
        self.pos = len(view.trick)
        self.need = k.need(self.side)
        self.opp_need = k.need(1 - self.side)
        self.left = k.tricks_left
        self.bags = view.bags[self.side]
        self.bag_limit = view.rules.bag_limit
        self.penalty = view.rules.bag_penalty
        self.me_nil = k.nil_alive[self.seat]
        self.mate_nil = k.nil_alive[self.mate]
        self.opp_nil = k.their_live_nils

    def beats_winner(self, card: int) -> bool:
        k = self.k
        if k.winning_card < 0:
            return True
        power = POWER[self.jokers][self.led]
        return power[card] > power[k.winning_card]

    def winners(self) -> int:
        """Legal cards that would win the trick as it stands."""
        out = 0
        for c in card_list(self.legal):
            if self.beats_winner(c):
                out |= 1 << c
        return out

    def holds(self, card: int) -> bool:
        """Whether ``card`` would hold against the opponents still to play."""
        return self.k.likely_holds(card)

    def want_tricks(self) -> tuple[bool, str]:
        """Whether this side wants more tricks now, and the reason in words."""
        # A nil bidder's tricks never count for the contract: once its nil is broken it only
        # takes tricks to set the opponents, and leaves the rest to its partner.
        broken_nil = self.view.bids[self.seat] == 0
        if 0 < self.need <= self.left and not broken_nil:
            if self.need == self.left:
                return True, "we need every trick left for the contract"
            return True, f"we still need {self.need} for the contract"
        # Tricks only matter now if they can still set the opponents' contract.
        opp_contract = self.k.contract[1 - self.side]
        if opp_contract and 0 < self.opp_need <= self.left:
            to_set = self.left - self.opp_need + 1
            # A side already set collects no bags, so only then is bag room no concern.
            lost = self.need > self.left and not broken_nil
            bag_room = self.bag_limit - self.bags if self.penalty and not lost else 99
            if to_set <= 2 or bag_room > to_set:
                return True, f"the opponents still need {self.opp_need} and can be set"
        if self.need > self.left and not broken_nil:
            return False, "our contract is lost and the opponents cannot be set"
        if self.penalty and self.bags >= self.bag_limit - 3:
            return False, f"we have {self.bags} bags and the contract is safe"
        return False, "the contract is made and overtricks are bags"


def choose_play(view: View, k: Knowledge | None = None, *, keep_lowest: bool = True) -> Decision:
    """The card Normal plays (see the module docstring for its priorities).

    ``keep_lowest=False``: lead against a nil without keeping back the lowest card of a suit
    not yet played (:func:`_kept_for_later`), as the Hard player does."""
    if len(view.legal) == 1:
        card = view.legal[0]
        return Decision(card, f"Play the {_name(card)}: the only legal card")
    if k is None:
        k = Knowledge.from_view(view)
    t = _Table(view, k, keep_lowest)
    if t.me_nil:
        return _play_own_nil(t)
    if t.mate_nil:
        return _play_cover(t)
    if t.opp_nil and t.need < t.left:
        # Setting a nil is worth more than most contracts: attack it unless the contract
        # needs every trick left.
        decision = _play_against_nil(t)
        if decision is not None:
            return decision
    return _play_contract(t)


# -- own nil


def _play_own_nil(t: _Table) -> Decision:
    k, jokers = t.k, t.jokers
    if t.pos == 0:
        return _lead_for_nil(t)
    under = t.legal & ~t.winners()
    if under:
        # Shed the highest card that still loses: it is the one that would hurt later.
        if t.led >= 0 and under & SUIT_MASKS[t.led]:
            card = highest(under, jokers)
            return Decision(card, f"Play the {_name(card)} under the winner to protect my nil")
        # Void: throw the most dangerous card that still loses, a spade under a higher cut
        # included (a king of spades under the ace is gone for good).
        card = _most_dangerous(t, under)
        if SUIT_OF[card] == SPADES and t.led != SPADES:
            return Decision(card, f"Play the {_name(card)} under the winning spade: my most "
                                  f"dangerous card for the nil")
        return Decision(card, f"Discard the {_name(card)}, my most dangerous card for the nil")
    # Every legal card wins as things stand: hope a later player overtakes.
    if not k.after:
        card = highest(t.legal, jokers)
        return Decision(card, f"Forced to win: take it with the {_name(card)} and shed it")
    card = lowest(t.legal, jokers)
    return Decision(card, f"Play the {_name(card)}, my lowest, hoping someone overtakes")


def _most_dangerous(t: _Table, mask: int) -> int:
    """The card of ``mask`` most likely to win a trick later: fewest higher cards out, then
    fewest lower cards of its suit in hand to hide behind, then the highest rank."""
    k = t.k
    best, best_key = -1, (99, 99, 99)
    for c in card_list(mask):
        suit_mask = SUIT_MASKS[SUIT_OF[c]]
        cover = (k.hand & suit_mask & ~ABOVE[t.jokers][c]).bit_count() - 1
        key = (k.higher_out(c), cover, -ORDER[t.jokers][c])
        if key < best_key:
            best, best_key = c, key
    return best


def _lead_for_nil(t: _Table) -> Decision:
    """Lead the card most likely to be beaten: low, with many higher cards still out."""
    k = t.k
    best, best_key = -1, (-99, -99)
    for c in card_list(t.legal):
        higher = (ABOVE[t.jokers][c] & k.unseen).bit_count()
        key = (higher, 0 if SUIT_OF[c] == SPADES else 1)
        if key > best_key:
            best, best_key = c, key
    return Decision(best, f"Lead the {_name(best)}: {best_key[0]} higher cards are still out")


# -- partner's nil


def _play_cover(t: _Table) -> Decision:
    k, jokers, mate = t.k, t.jokers, t.mate
    if t.pos == 0:
        return _lead_for_cover(t)
    mate_played = any(s == mate for s, _ in t.view.trick)
    if mate_played:
        if k.winning_seat == mate:
            over = t.winners()
            if over:
                card = lowest(over, jokers)
                return Decision(card, f"Cover partner's nil with the {_name(card)}")
            return _follow_low(t, "nothing of mine beats partner's card")
        # Partner is already beaten: the nil is safe this trick.
        return _play_contract(t)
    # Partner plays after me: win as high as I can so partner can play under.
    over = t.winners()
    if over:
        card = highest(over, jokers)
        if SUIT_OF[card] == SPADES and t.led != SPADES:
            card = lowest(over, jokers)  # a low cut wins as well as a high one
        return Decision(card, f"Play the {_name(card)} high so partner's nil can duck under it")
    return _follow_low(t, "an opponent is winning, so partner's nil can duck under")


def _lead_for_cover(t: _Table) -> Decision:
    masters = [c for c in card_list(t.legal) if t.k.is_master(c)]
    # A master spade first: partner sheds its highest spade under it, and spades are the
    # suit a nil cannot be covered in by a card of another suit.
    trumps = [c for c in masters if SUIT_OF[c] == SPADES]
    if trumps:
        card = max(trumps, key=lambda c: RANK_OF[c])
        return Decision(card, f"Lead the {_name(card)}, a sure winner: partner can shed a "
                              f"high spade under it")
    into_void = _lead_into_void(t)
    if into_void is not None:
        return into_void
    # Then a master of another suit: partner discards or plays under it.  (After the voids:
    # a master kept is the cover for when the opponents lead its suit.)
    if masters:
        card = max(masters, key=lambda c: RANK_OF[c])
        return Decision(card, f"Lead the {_name(card)}, a sure winner, to keep partner safe")
    return _lead_strongest(t)


def _lead_into_void(t: _Table) -> Decision | None:
    """A side suit partner is void in, if I hold one: partner simply discards."""
    for suit in NON_SPADE_SUITS:
        mine = t.legal & SUIT_MASKS[suit]
        if mine and t.k.is_void(t.mate, suit):
            card = highest(mine, t.jokers)
            return Decision(card, f"Lead {SUIT_NAMES[suit]}: partner is void and can discard")
    return None


def _lead_strongest(t: _Table) -> Decision:
    """My strongest card (fewest higher cards out), so partner's nil goes under it."""
    k, jokers = t.k, t.jokers
    card = min(card_list(t.legal), key=lambda c: (k.higher_out(c), -ORDER[jokers][c]))
    return Decision(card, f"Lead the {_name(card)}, my strongest, for partner's nil to go under")


# -- an opponent's nil


def _play_against_nil(t: _Table) -> Decision | None:
    k, jokers = t.k, t.jokers
    nil_seats = t.opp_nil
    if t.pos == 0:
        return _lead_against_nil(t, nil_seats[0])
    played = {s for s, _ in t.view.trick}
    if k.winning_seat in nil_seats:
        under = t.legal & ~t.winners()
        if under:
            card = highest(under & ~SPADE_MASK if under & ~SPADE_MASK else under, jokers)
            return Decision(card, f"Play the {_name(card)} under the nil bidder's card")
        return None
    nil_after = any(s in nil_seats for s in k.after) and not any(s in played for s in nil_seats)
    if nil_after and k.led >= 0 and t.legal & SUIT_MASKS[k.led]:
        # The nil bidder plays after me and must go under the trick's winning card.  Winning
        # high over its partner only gives it a higher card to duck, and partner's card needs
        # no help (once partner is winning, only the nil is left to beat it: that breaks it).
        # Any card under the winner leaves the nil the same card to go under, so play the
        # highest small one and keep the lowest for a later lead.
        spare = _spare_under(t)
        if spare >= 0:
            return Decision(spare, f"Play the {_name(spare)} under the winning card: the nil "
                                   f"must still go under it, and my lowest stays to lead later")
        card = lowest(t.legal, jokers)
        return Decision(card, f"Play the low {_name(card)}: the nil must go under it")
    if (nil_after and k.led >= 0 and k.winning_seat == t.mate
            and t.legal & ~SPADE_MASK):
        # Void, with partner's card winning and only the nil bidder to come: a cut would let
        # the nil throw anything, while partner's card is one the nil must still go under.
        card = _discard(t)
        return Decision(card, f"Discard the {_name(card)} rather than cut: the nil bidder must "
                              f"still go under partner's card")
    return None


#: The highest rank (``RANK_OF``: 0 is the two) a defender spends under the winning card in
#: front of a nil to keep its lowest: the nine.  A ten or higher may still win a trick for
#: the contract.  (Normal against the Normal before, 20,000 duplicate deals a seed: beside the
#: lead below, up to the nine +0.81, +0.60 and +0.49 points a hand on three seeds, up to the
#: ten +0.63 on the first; without it, on that seed, up to the seven +0.18, the nine +0.32,
#: the ten +0.18, the jack +0.01.)
SPARE_MAX_RANK = 7


def _lead_against_nil(t: _Table, nil: int) -> Decision | None:
    """The card the nil bidder is least likely to get under, in a suit it still holds.

    A low card is not enough: the question is how many cards of its suit below it the nil
    bidder may still hold, so the card with the fewest such cards is led (a 6 is the better
    lead when the 2-5 are gone, a 3 is not when the 2 is out).  A suit the nil's partner is
    void in and may cut is led last: the cut covers the nil.  Then the lower rank, spades
    last.  (Against Normal's lowest-rank lead, Normal against Normal over 20,000 duplicate
    deals: +0.45 and +0.43 points a hand on two seeds.)

    The lowest card of a suit not yet played is kept back while another card can be led
    (:func:`_kept_for_later`).
    """
    k = t.k
    partner = nil ^ 2
    above = ABOVE[t.jokers]
    partner_cuts = bool(k.possible[partner] & SPADE_MASK)
    kept = _kept_for_later(t) if t.keep_lowest else 0
    best, best_key = -1, (2, 2, 99, 99, 2)
    for c in card_list(t.legal):
        suit = SUIT_OF[c]
        if k.is_void(nil, suit):
            continue
        cut = 1 if suit != SPADES and partner_cuts and k.is_void(partner, suit) else 0
        below = SUIT_MASKS[suit] & ~above[c] & ~(1 << c)
        key = (kept >> c & 1, cut, (below & k.possible[nil]).bit_count(),
               RANK_OF[c] if c < 52 else 15, 1 if suit == SPADES else 0)
        if key < best_key:
            best, best_key = c, key
    if best < 0:
        return None
    held_back = kept & SUIT_MASKS[SUIT_OF[best]] & ~(1 << best)
    if held_back:
        return Decision(best, f"Lead the {_name(best)} to make the nil bidder win it, keeping "
                              f"the {_name(lowest(held_back, t.jokers))} for a later round")
    return Decision(best, f"Lead the low {_name(best)} to make the nil bidder win it")


def _kept_for_later(t: _Table) -> int:
    """My lowest card of each suit none of whose cards has been played yet, where I hold two
    or more of it: a defence against a nil opens a suit with another card and keeps its lowest.

    On a suit's first round the nil's partner still has its high cards and covers whatever is
    led, so a second-lowest card does the lowest's work there, and the lowest, kept, is still
    there on a later round, when it may be the card the nil cannot get under, or a lead that
    gives nothing away.  Measured (Normal against Normal, 20,000 duplicate deals a seed): +0.41,
    +0.65, +0.80 and +1.22 points a hand on four seeds, most of it in the defence's own
    contracts (on seeds 1 and 13 it was set 163 and 303 times fewer in 40,000 hands) and little
    in nils (15 more and 60 fewer of some 15,800 held against it); kept on every round, not
    only the first, -0.44.  The Hard player leads without it (see
    :data:`varaq.bots.hard.KEEP_LOWEST`).  "Played" is the view's own record of the hand's
    cards: judged as neither unseen nor held, a suit with a card outside the deck (the jokers
    in spades, the 2♣ and 2♥ with them) counted as played from the start, and with jokers the
    rule never reached clubs or hearts (+0.49 and +0.55 points a hand, 20,000 deals on seeds 1
    and 7, once it did; classic +0.01).
    """
    kept = 0
    for suit in range(4):
        mine = t.legal & SUIT_MASKS[suit]
        if mine.bit_count() >= 2 and not t.view.played & SUIT_MASKS[suit]:
            kept |= 1 << lowest(mine, t.jokers)
    return kept


def _spare_under(t: _Table) -> int:
    """A card of the led suit under the trick's winner that a defence against a nil can spare:
    not my lowest of the suit (the card to lead at the nil later), not a master, a nine or
    lower; the highest such, or -1."""
    k = t.k
    suit = SUIT_MASKS[t.led]
    under = t.legal & suit & ~t.winners()
    mine = k.hand & suit
    if mine:
        under &= ~(1 << lowest(mine, t.jokers))
    spare = [c for c in card_list(under)  # a joker's rank (13, 14) is above any spare's
             if RANK_OF[c] <= SPARE_MAX_RANK and not k.is_master(c)]
    return max(spare, key=lambda c: RANK_OF[c]) if spare else -1


# -- the contract


def _play_contract(t: _Table) -> Decision:
    want, why = t.want_tricks()
    if t.pos == 0:
        return _lead(t, want, why)
    if want:
        return _follow_to_win(t, why)
    return _follow_to_duck(t, why)


def _follow_low(t: _Table, why: str) -> Decision:
    """Play the cheapest card; when void, throw a loser from the shortest side suit."""
    jokers = t.jokers
    if t.led >= 0 and t.legal & SUIT_MASKS[t.led]:
        card = lowest(t.legal, jokers)
        return Decision(card, f"Play low with the {_name(card)}: {why}")
    card = _discard(t)
    return Decision(card, f"Discard the {_name(card)}: {why}")


def _discard(t: _Table) -> int:
    """A loser to throw: the lowest card of the shortest side suit, keeping guarded honours."""
    jokers = t.jokers
    plain = t.legal & ~SPADE_MASK
    if not plain:
        return lowest(t.legal, jokers)
    best, best_key = -1, (99, 99, 99)
    for c in card_list(plain):
        suit = SUIT_OF[c]
        length = (t.k.hand & SUIT_MASKS[suit]).bit_count()
        is_master = t.k.is_master(c)
        key = (1 if is_master else 0, length, RANK_OF[c])
        if key < best_key:
            best, best_key = c, key
    return best


def _follow_to_win(t: _Table, why: str) -> Decision:
    k, jokers = t.k, t.jokers
    if k.winning_seat == t.mate and t.holds(k.winning_card):
        return _follow_low(t, "partner's card wins this trick")
    over = t.winners()
    if not over:
        return _follow_low(t, "I cannot win this trick")
    sure = [c for c in card_list(over) if t.holds(c)]
    if k.winning_seat == t.mate:
        # Partner's card may still be beaten: take over only with a sure winner, and never
        # cut a master of partner's (the only danger to it is a cut, and a spade spent on it
        # is a trick thrown away when the cut does not come).
        if k.is_master(k.winning_card) and SUIT_OF[k.winning_card] == t.led:
            sure = [c for c in sure if SUIT_OF[c] == t.led]
        if sure:
            card = min(sure, key=lambda c: POWER[jokers][t.led][c])
            verb = "Cut" if SUIT_OF[card] == SPADES and t.led != SPADES else "Overtake"
            return Decision(
                card, f"{verb} with the {_name(card)}: partner's card could be beaten, mine holds"
            )
        following = [c for c in card_list(over) if SUIT_OF[c] == t.led and t.led != SPADES]
        if following and t.pos == 2 and not k.is_master(k.winning_card):
            # Third hand high: make the last opponent spend a high card to beat us.
            card = max(following, key=lambda c: ORDER[jokers][c])
            return Decision(card, f"Play the {_name(card)}, third hand high over partner: {why}")
        return _follow_low(t, "partner is winning and I will not cut a partner")
    if sure:
        card = min(sure, key=lambda c: POWER[jokers][t.led][c])
        return Decision(card, f"Win with the {_name(card)}: {why}")
    if not k.after:
        card = lowest(over, jokers)
        return Decision(card, f"Win with the {_name(card)}, the cheapest winner: {why}")
    cutting = t.led >= 0 and not t.legal & SUIT_MASKS[t.led]
    if cutting:
        card = lowest(over, jokers)
        return Decision(card, f"Cut with the {_name(card)}: {why}")
    if t.mate in k.after and t.pos == 1:
        # Second hand low: partner still plays after the opponents.
        return _follow_low(t, "second hand low, partner plays last")
    card = highest(over, jokers)
    return Decision(card, f"Play the {_name(card)} high to force out their winner: {why}")


def _follow_to_duck(t: _Table, why: str) -> Decision:
    k, jokers = t.k, t.jokers
    if k.winning_seat == t.mate:
        return _follow_low(t, "partner is winning this trick")
    under = t.legal & ~t.winners()
    if under:
        if t.led >= 0 and under & SUIT_MASKS[t.led]:
            card = highest(under, jokers)
            return Decision(card, f"Duck with the {_name(card)}: {why}")
        # Void: throw a high side card that could win later, never a spade.
        plain = under & ~SPADE_MASK
        card = highest(plain, jokers) if plain else lowest(under, jokers)
        return Decision(card, f"Throw the {_name(card)} away: {why}")
    if not k.after:
        card = highest(t.legal, jokers)
        return Decision(card, f"Forced to win: use the {_name(card)}, a later winner anyway")
    card = lowest(t.legal, jokers)
    return Decision(card, f"Play the {_name(card)}, my lowest, hoping to be overtaken: {why}")


def _lead(t: _Table, want: bool, why: str) -> Decision:
    k, jokers = t.k, t.jokers
    legal = t.legal
    if not want:
        # Lead the card most likely to lose: many higher cards out, held by players not void.
        best, best_key = -1, (-99, -99)
        for c in card_list(legal):
            higher = (ABOVE[jokers][c] & k.unseen).bit_count()
            key = (min(higher, 4), -RANK_OF[c] if c < 52 else -15)
            if SUIT_OF[c] == SPADES:
                key = (key[0] - 2, key[1])
            if key > best_key:
                best, best_key = c, key
        return Decision(best, f"Lead the low {_name(best)}: {why}")
    opps = (t.seat ^ 1, t.seat ^ 3)
    spades_out = k.spades_out
    my_spades = (k.hand & SPADE_MASK).bit_count()
    # Draw trumps with master spades when I hold most of the spades left.
    spade_masters = [c for c in card_list(legal & SPADE_MASK) if k.is_master(c)]
    if spade_masters and spades_out and my_spades * 2 >= spades_out:
        card = highest(legal & SPADE_MASK, jokers)
        return Decision(card, f"Lead the {_name(card)} to draw the spades still out: {why}")
    # Cash side-suit masters while the opponents can still follow.
    best, best_key = -1, (-1, -1)
    for suit in NON_SPADE_SUITS:
        mine = legal & SUIT_MASKS[suit]
        if not mine:
            continue
        top = highest(mine, jokers)
        if not k.is_master(top):
            continue
        cut_risk = any(k.is_void(o, suit) and k.possible[o] & SPADE_MASK for o in opps)
        if cut_risk:
            continue
        out = (k.unseen & SUIT_MASKS[suit]).bit_count()
        if out == 0:
            continue  # nobody can follow: the card may be cut
        key = (out, RANK_OF[top])
        if key > best_key:
            best, best_key = top, key
    if best >= 0:
        return Decision(best, f"Cash the {_name(best)}, the master of its suit: {why}")
    if spade_masters:
        card = highest(legal & SPADE_MASK, jokers)
        return Decision(card, f"Lead the {_name(card)}, the top spade left: {why}")
    # A suit partner can cut and the opponents can follow.
    mate = t.mate
    if k.possible[mate] & SPADE_MASK:
        for suit in NON_SPADE_SUITS:
            mine = legal & SUIT_MASKS[suit]
            if mine and k.is_void(mate, suit) and not any(k.is_void(o, suit) for o in opps):
                card = lowest(mine, jokers)
                return Decision(card, f"Lead {SUIT_NAMES[suit]} for partner to cut: {why}")
    # Pull the opponents' spades when I hold most of those left, so my side winners stand.
    low_spades = legal & SPADE_MASK
    if low_spades and my_spades >= 3 and my_spades + 1 >= spades_out > 0:
        card = lowest(low_spades, jokers)
        return Decision(card, f"Lead the {_name(card)} to pull the spades still out: {why}")
    # A short side suit, to cut it later, when I have spades to spare.
    if my_spades >= 2:
        for suit in NON_SPADE_SUITS:
            mine = legal & SUIT_MASKS[suit]
            if mine.bit_count() == 1 and not k.is_master(highest(mine, jokers)):
                card = lowest(mine, jokers)
                if RANK_OF[card] < 11:
                    return Decision(card, f"Lead my singleton {_name(card)} to cut it later")
    # Otherwise lead low from the longest side suit, not away from a guarded king, and not
    # into an opponent who has shown a void and may cut.
    cut_by = [
        suit in NON_SPADE_SUITS
        and any(k.is_void(o, suit) and k.possible[o] & SPADE_MASK for o in opps)
        for suit in range(4)
    ]
    best, best_key = -1, (-99, 0)
    for c in card_list(legal):
        suit = SUIT_OF[c]
        mine = k.hand & SUIT_MASKS[suit]
        length = mine.bit_count()
        guarded_honour = any(
            k.higher_out(h) == 1 and RANK_OF[h] >= 10 for h in card_list(mine) if h != c
        ) and length <= 3
        score = length - (3 if guarded_honour else 0) - (4 if suit == SPADES else 0)
        key = (score - (6 if cut_by[suit] else 0), -RANK_OF[c])
        if key > best_key:
            best, best_key = c, key
    return Decision(best, f"Lead the {_name(best)} from my longest suit: {why}")
