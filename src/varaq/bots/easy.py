"""The Easy computer player: a beginner who knows the rules and a few rules of thumb.

It plays legal, plausible cards: it follows high when it can win cheaply and low otherwise,
cuts an opponent's trick when it is void, and protects its own nil by playing under.  It makes
the mistakes beginners make — it bids roughly (aces, kings and long spades, give or take one),
cashes its aces at the first chance, and often forgets to stop taking tricks once the contract
is made — but never absurd ones: it never cuts a trick its partner has surely won and never
bids nil holding the top spade or a handful of high cards.

Its mistakes come from the seeded random generator, so the same view and seed still give the
same decision.
"""

from __future__ import annotations

import random

from ..actions import BID, BLIND_NIL, LOOK
from ..cards import RANK_OF, SPADE_MASK, SPADES, SUIT_MASKS, SUIT_OF, card_list, card_name
from ..view import View
from . import Decision
from .bidding import suit_lengths, top_trump
from .knowledge import POWER, Knowledge, highest, lowest

__all__ = ["EasyBot", "rough_tricks"]

#: How often Easy forgets that its contract is made and keeps winning tricks (bags).
FORGETS_BAGS = 0.6
#: How often Easy leads an ace as soon as it has the lead, cover or not.
CASHES_EARLY = 0.5


def _name(card: int) -> str:
    return card_name(card).lower()


def rough_tricks(hand: int, jokers: bool) -> float:
    """A beginner's count: every ace and king, the high spades, and spades beyond the third.

    It is optimistic the way beginners are: a bare king or a king behind a missing ace counts
    as a trick, and a long spade suit is counted on top of its high spades.
    """
    lengths = suit_lengths(hand)
    tricks = 0.0
    for card in card_list(hand):
        suit = SUIT_OF[card]
        rank = RANK_OF[card]
        if card >= 52 or (suit == SPADES and rank >= 10):
            tricks += 1.0  # jokers, A♠, K♠, Q♠
        elif rank == 12:
            tricks += 1.0
        elif rank == 11:
            tricks += 0.8 if lengths[suit] >= 2 else 0.5
    tricks += max(0, lengths[SPADES] - (4 if jokers else 3))
    return tricks


class EasyBot:
    """The Easy computer player (see the module docstring)."""

    name = "easy"

    def __init__(self, **options: object) -> None:
        if options:
            raise ValueError(f"the easy bot takes no options, not {', '.join(options)}")

    def act(self, view: View, rng: random.Random) -> int:
        return self.decide(view, rng).action

    def decide(self, view: View, rng: random.Random) -> Decision:
        if not view.legal:
            raise ValueError("it is not this seat's turn: there is nothing to decide")
        if view.phase == "blind":
            return self._blind(view, rng)
        if view.phase == "bid":
            return self._bid(view, rng)
        if view.phase == "exchange":
            return self._pass(view)
        if view.phase == "play":
            return self._play(view, rng)
        raise ValueError(f"nothing to decide in the {view.phase} phase")

    # -- before the play

    def _blind(self, view: View, rng: random.Random) -> Decision:
        side = view.seat & 1
        trail = view.totals[1 - side] - view.totals[side]
        if BLIND_NIL in view.legal and trail >= 250 and rng.random() < 0.5:
            return Decision(BLIND_NIL, f"Blind nil: we are {trail} behind, let's gamble")
        return Decision(LOOK, "Look at my cards first")

    def _bid(self, view: View, rng: random.Random) -> Decision:
        jokers = view.rules.jokers
        hand = view.hand
        tricks = rough_tricks(hand, jokers)
        high_cards = sum(1 for c in card_list(hand) if c >= 52 or RANK_OF[c] >= 10)
        spades = (hand & SPADE_MASK).bit_count()
        can_nil = (
            BID in view.legal
            and view.bids[view.seat ^ 2] != 0
            and not hand >> top_trump(jokers) & 1
            and high_cards <= 2
            and spades <= 3
            and tricks < 1.0
        )
        if can_nil and rng.random() < 0.7:
            return Decision(BID, "Nil: my cards are all small")
        n = int(tricks + 0.5) + rng.choice((-1, 0, 0, 0, 1))
        n = max(1, min(13, n))
        values = sorted(a - BID for a in view.legal if a > BID)
        if n not in values:
            above = [v for v in values if v >= n]
            n = above[0] if above else values[-1]
        return Decision(BID + n, f"Bid {n}: I count about {tricks:.0f} tricks")

    def _pass(self, view: View) -> Decision:
        legal = 0
        for a in view.legal:
            legal |= 1 << a
        jokers = view.rules.jokers
        if view.bids[view.seat] == 0:
            card = highest(legal, jokers)
            return Decision(card, f"Pass back the {_name(card)}, my highest card")
        card = lowest(legal, jokers)
        return Decision(card, f"Pass the {_name(card)}, my lowest card, to help the nil")

    # -- play

    def _play(self, view: View, rng: random.Random) -> Decision:
        k = Knowledge.from_view(view)
        jokers = k.jokers
        legal = 0
        for a in view.legal:
            legal |= 1 << a
        if len(view.legal) == 1:
            return Decision(view.legal[0], f"Play the {_name(view.legal[0])}: the only card I can")
        me_nil = k.nil_alive[view.seat]
        if not view.trick:
            return self._lead(view, k, legal, me_nil, rng)
        power = POWER[jokers][k.led]
        winners = 0
        for c in card_list(legal):
            if power[c] > power[k.winning_card]:
                winners |= 1 << c
        losers = legal & ~winners
        following = bool(legal & SUIT_MASKS[k.led])
        if me_nil:
            if losers:
                card = highest(losers, jokers)
                return Decision(card, f"Play the {_name(card)} under the winner: I bid nil")
            card = lowest(legal, jokers)
            return Decision(card, f"Play the {_name(card)}, my lowest: I bid nil")
        side = view.seat & 1
        partner_winning = k.winning_seat == view.seat ^ 2
        if partner_winning and k.likely_holds(k.winning_card):
            card = lowest(losers or legal, jokers) if following else _throw(legal, jokers)
            return Decision(card, f"Play the {_name(card)}: partner's card wins this trick")
        made = k.contract[side] > 0 and k.need(side) <= 0
        wants = not made or rng.random() < FORGETS_BAGS
        if winners and wants and not partner_winning:
            card = lowest(winners, jokers)
            cheap = not following or RANK_OF[card] >= 9 or not k.after
            if cheap:
                verb = "Cut" if SUIT_OF[card] == SPADES and k.led != SPADES else "Win"
                return Decision(card, f"{verb} with the {_name(card)}")
        if following:
            card = lowest(legal, jokers)
            return Decision(card, f"Play low with the {_name(card)}")
        card = _throw(legal, jokers)
        return Decision(card, f"Throw away the {_name(card)}")

    def _lead(
        self, view: View, k: Knowledge, legal: int, me_nil: bool, rng: random.Random
    ) -> Decision:
        jokers = k.jokers
        plain = legal & ~SPADE_MASK
        if me_nil:
            card = lowest(plain or legal, jokers)
            return Decision(card, f"Lead the {_name(card)}, my lowest: I bid nil")
        aces = [c for c in card_list(plain) if RANK_OF[c] == 12]
        if aces and rng.random() < CASHES_EARLY:
            card = rng.choice(aces)
            return Decision(card, f"Lead the {_name(card)}: aces win tricks")
        # A beginner remembers the aces, not the rest: a king is good once its ace is out.
        kings = [
            c for c in card_list(plain)
            if RANK_OF[c] == 11 and view.played >> (c + 1) & 1
        ]
        if kings and rng.random() < 0.5:
            card = rng.choice(kings)
            return Decision(card, f"Lead the {_name(card)}: the ace is gone")
        pool = plain or legal
        suits = sorted({SUIT_OF[c] for c in card_list(pool)})
        suit = rng.choice(suits)
        card = lowest(pool & SUIT_MASKS[suit], jokers)
        return Decision(card, f"Lead the {_name(card)}")


def _throw(legal: int, jokers: bool) -> int:
    """A beginner's discard: the lowest card that is not a spade."""
    plain = legal & ~SPADE_MASK
    return lowest(plain or legal, jokers)
