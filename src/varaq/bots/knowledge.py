"""What one seat can infer from its view: the card counting every computer player relies on.

A player at a real table remembers the cards played, notices who failed to follow suit, counts
the spades still out and knows which card is now the highest of each suit.  :class:`Knowledge`
is that memory, rebuilt from a :class:`~varaq.view.View` alone, so a bot that uses it still sees
nothing it may not see.

Everything is kept as ``int`` bit masks (like the engine), so building it and asking it
questions costs a few microseconds: the Normal player builds one per decision and the Hard
player's playouts build thousands.

Inferences drawn:

- cards still out (``unseen``): neither in this seat's hand nor played;
- known voids: a seat that did not follow the led suit has none of it left; a seat that led a
  spade before spades were broken held nothing but spades;
- cards a seat surely holds: what this seat passed to its partner in a blind nil exchange and
  has not yet seen played;
- who could hold what (``possible``): the unseen cards minus the suits a seat is void in and
  minus the cards known to be elsewhere;
- the master (highest card still in play) of each suit, and whether a card in a trick can
  still be beaten by the seats yet to play: strictly (:meth:`Knowledge.holds_up`, any void
  not ruled out counts) or the way a player reads it (:meth:`Knowledge.likely_holds`, a cut
  counts only from a shown void or when few cards of the suit are out);
- each side's contract and the tricks it still needs, and which nil bids are still alive.

>>> from varaq import Game
>>> g = Game("classic", seed=5); _ = g.deal()
>>> k = Knowledge.from_view(g.view(0))
>>> k.unseen.bit_count(), k.spades_out + (k.hand & SPADE_MASK).bit_count()
(39, 13)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import (
    JOKER_DECK,
    RANK_OF,
    SPADE_MASK,
    SPADES,
    STANDARD_DECK,
    SUIT_MASKS,
    SUIT_OF,
    trump_order,
)
from ..view import View

__all__ = [
    "Knowledge", "ORDER", "ABOVE", "POWER", "beats", "lowest", "highest", "NON_SPADE_SUITS",
]

NON_SPADE_SUITS = (0, 1, 2)

#: Per 4-bit mask of void suits: the cards a seat with those voids may still hold.
_KEEP: tuple[int, ...] = tuple(
    ~sum(SUIT_MASKS[suit] for suit in range(4) if v >> suit & 1) for v in range(16)
)
#: Per seat and cards already in the trick: the seats still to play after it.
_AFTER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((seat + i) & 3 for i in range(1, 4 - played)) for played in range(4))
    for seat in range(4)
)
#: Per seat: the other three seats, in order.
_OTHERS: tuple[tuple[int, int, int], ...] = tuple(
    (a, b, c) for a, b, c in (tuple(s for s in range(4) if s != seat) for seat in range(4))
)


def _order_table(jokers: bool) -> tuple[int, ...]:
    """Strength of a card within its own suit (spades by the trump order of the deck)."""
    trump = trump_order(jokers)
    return tuple(trump[c] if SUIT_OF[c] == SPADES else RANK_OF[c] + 1 for c in range(54))


#: ``ORDER[jokers][card]``: strength within its suit; higher is stronger.
ORDER: dict[bool, tuple[int, ...]] = {j: _order_table(j) for j in (False, True)}


def _above_table(jokers: bool) -> tuple[int, ...]:
    order = ORDER[jokers]
    rows = []
    for card in range(54):
        mask = 0
        for other in range(54):
            if SUIT_OF[other] == SUIT_OF[card] and order[other] > order[card]:
                mask |= 1 << other
        rows.append(mask)
    return tuple(rows)


#: ``ABOVE[jokers][card]``: the mask of cards of the same suit that outrank ``card``.
ABOVE: dict[bool, tuple[int, ...]] = {j: _above_table(j) for j in (False, True)}


def _power_table(jokers: bool) -> tuple[tuple[int, ...], ...]:
    order = ORDER[jokers]
    return tuple(
        tuple(
            100 + order[c] if SUIT_OF[c] == SPADES else (order[c] if SUIT_OF[c] == led else 0)
            for c in range(54)
        )
        for led in range(4)
    )


#: ``POWER[jokers][led][card]``: strength of a card in a trick led in suit ``led``; a card of
#: another plain suit has power 0 and can never win.
POWER: dict[bool, tuple[tuple[int, ...], ...]] = {j: _power_table(j) for j in (False, True)}


def beats(card: int, other: int, led: int, jokers: bool) -> bool:
    """Whether ``card`` beats ``other`` in a trick led in suit ``led``."""
    power = POWER[jokers][led]
    return power[card] > power[other]


def lowest(mask: int, jokers: bool) -> int:
    """The cheapest card of a non-empty mask (plain cards before trumps, low ranks first)."""
    best = -1
    best_key = 1 << 30
    order = ORDER[jokers]
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        key = (100 if card >= 39 else 0) + order[card]
        if key < best_key:
            best, best_key = card, key
    return best


def highest(mask: int, jokers: bool) -> int:
    """The dearest card of a non-empty mask (trumps first, then high ranks)."""
    best = -1
    best_key = -1
    order = ORDER[jokers]
    while mask:
        low = mask & -mask
        card = low.bit_length() - 1
        mask ^= low
        key = (100 if card >= 39 else 0) + order[card]
        if key > best_key:
            best, best_key = card, key
    return best


@dataclass(frozen=True, slots=True)
class Knowledge:
    """One seat's inferences about the hand in play (see the module docstring)."""

    seat: int
    jokers: bool
    #: This seat's cards.
    hand: int
    #: Cards held by the other three seats (not in this hand, not played).
    unseen: int
    #: Per seat: a 4-bit mask of the suits the seat is known to be void in.
    voids: tuple[int, int, int, int]
    #: Per seat: the cards the seat may hold now (this seat: exactly its hand).
    possible: tuple[int, int, int, int]
    #: Per seat: the cards the seat surely holds now.
    known: tuple[int, int, int, int]
    #: Cards each seat holds now.
    cards_left: tuple[int, int, int, int]
    #: Per side: the sum of its non-nil bids (0 before bidding is over, or for a double nil).
    contract: tuple[int, int]
    #: Per side: tricks its non-nil bidders have taken.
    contract_taken: tuple[int, int]
    #: Per seat: a nil (or blind nil) bid that has taken no trick yet.
    nil_alive: tuple[bool, bool, bool, bool]
    #: Tricks still to be played this hand (the current one included).
    tricks_left: int
    #: The suit led to the current trick, or -1 when this seat is to lead.
    led: int
    #: The seat whose card wins the current trick so far, and that card (-1 if none).
    winning_seat: int
    winning_card: int
    #: The seats still to play to the current trick after this seat.
    after: tuple[int, ...]

    # -- building -----------------------------------------------------------------------------

    @staticmethod
    def from_view(view: View) -> Knowledge:
        """Read everything a seat may infer out of its view.

        Written for speed (the Hard player's playouts build one per simulated card): bit masks,
        table lookups and locals, with the seat loops unrolled where that saves most."""
        jokers = view.rules.jokers
        deck = JOKER_DECK if jokers else STANDARD_DECK
        seat = view.seat
        hand = view.hand
        unseen = deck & ~hand & ~view.played
        suit_of = SUIT_OF
        voids = [0, 0, 0, 0]
        broken = False
        for t in view.tricks:
            c0, c1, c2, c3 = t.cards
            leader = t.leader
            led = suit_of[c0]
            if led == SPADES and not broken:
                # Leading a spade before they are broken means holding nothing else.
                voids[leader] |= 0b0111
            if suit_of[c1] != led:
                voids[(leader + 1) & 3] |= 1 << led
            if suit_of[c2] != led:
                voids[(leader + 2) & 3] |= 1 << led
            if suit_of[c3] != led:
                voids[(leader + 3) & 3] |= 1 << led
            if not broken and (c0 >= 39 or c1 >= 39 or c2 >= 39 or c3 >= 39):
                broken = True
        trick = view.trick
        if trick:
            first_seat, first = trick[0]
            led = suit_of[first]
            if led == SPADES and not broken:
                voids[first_seat] |= 0b0111
            for s, card in trick[1:]:
                if suit_of[card] != led:
                    voids[s] |= 1 << led
        else:
            led = -1
        # Cards this seat passed to its partner are known to be there until they show up.
        mate = seat ^ 2
        known = [0, 0, 0, 0]
        known[seat] = hand
        known[mate] = view.gave & unseen
        keep = _KEEP
        possible = [0, 0, 0, 0]
        for s in range(4):
            if s == seat:
                possible[s] = hand
            elif s == mate:
                possible[s] = (unseen & keep[voids[s]]) | known[s]
            else:
                possible[s] = (unseen & keep[voids[s]] & ~known[mate]) | known[s]
        o1, o2, o3 = others = _OTHERS[seat]
        left = view.cards_left
        for _ in range(2):
            for s in others:
                # A seat with no cards left holds nothing; a seat that may hold exactly as
                # many cards as it has left holds all of them.
                if left[s] == 0:
                    possible[s] = 0
                elif possible[s].bit_count() == left[s]:
                    known[s] |= possible[s]
                elif known[s].bit_count() == left[s]:
                    possible[s] = known[s]
            # A card only one other seat can hold is surely there, and nowhere else.
            p1, p2, p3 = possible[o1], possible[o2], possible[o3]
            known[o1] |= p1 & ~(p2 | p3)
            known[o2] |= p2 & ~(p1 | p3)
            known[o3] |= p3 & ~(p1 | p2)
            k1, k2, k3 = known[o1], known[o2], known[o3]
            possible[o1] = p1 & (~(k2 | k3) | k1)
            possible[o2] = p2 & (~(k1 | k3) | k2)
            possible[o3] = p3 & (~(k1 | k2) | k3)
        # A seat that cannot hold any card of a suit is void in it, known or not.
        m0, m1, m2, m3 = SUIT_MASKS
        for s in others:
            p = possible[s]
            voids[s] |= ((not p & m0) | (not p & m1) << 1 | (not p & m2) << 2
                         | (not p & m3) << 3)
        bids = view.bids
        contract = [0, 0]
        contract_taken = [0, 0]
        nil_alive = [False, False, False, False]
        for s in range(4):
            b = bids[s]
            if b is None:
                continue
            if b == 0:
                nil_alive[s] = view.taken[s] == 0
            else:
                contract[s & 1] += b
                contract_taken[s & 1] += view.taken[s]
        winning_seat, winning_card = -1, -1
        if trick:
            power = POWER[jokers][led]
            winning_seat, winning_card = trick[0]
            for s, card in trick[1:]:
                if power[card] > power[winning_card]:
                    winning_seat, winning_card = s, card
        after = _AFTER[seat][len(trick)]
        return Knowledge(
            seat=seat,
            jokers=jokers,
            hand=hand,
            unseen=unseen,
            voids=(voids[0], voids[1], voids[2], voids[3]),
            possible=(possible[0], possible[1], possible[2], possible[3]),
            known=(known[0], known[1], known[2], known[3]),
            cards_left=view.cards_left,
            contract=(contract[0], contract[1]),
            contract_taken=(contract_taken[0], contract_taken[1]),
            nil_alive=(nil_alive[0], nil_alive[1], nil_alive[2], nil_alive[3]),
            tricks_left=13 - len(view.tricks),
            led=led,
            winning_seat=winning_seat,
            winning_card=winning_card,
            after=after,
        )

    # -- questions ----------------------------------------------------------------------------

    @property
    def partner(self) -> int:
        return self.seat ^ 2

    @property
    def their_live_nils(self) -> tuple[int, ...]:
        """The opponents whose nil is still alive, the seat after this one first."""
        return tuple(s for s in ((self.seat + 1) & 3, (self.seat + 3) & 3) if self.nil_alive[s])

    @property
    def spades_out(self) -> int:
        """Spades (jokers included) the other three seats still hold between them."""
        return (self.unseen & SPADE_MASK).bit_count()

    def need(self, side: int) -> int:
        """Tricks ``side`` still needs to make its contract (0 or less: made)."""
        return self.contract[side] - self.contract_taken[side]

    def is_void(self, seat: int, suit: int) -> bool:
        """Whether ``seat`` is known (or, for this seat, seen) to hold no card of ``suit``."""
        if seat == self.seat:
            return not self.hand & SUIT_MASKS[suit]
        return bool(self.voids[seat] >> suit & 1)

    def master(self, suit: int) -> int:
        """The highest card of ``suit`` still in play (held by anyone), or -1 if none is."""
        live = (self.hand | self.unseen) & SUIT_MASKS[suit]
        return highest(live, self.jokers) if live else -1

    def is_master(self, card: int) -> bool:
        """No card still out ranks ``card`` in its suit."""
        return not ABOVE[self.jokers][card] & self.unseen

    def higher_out(self, card: int) -> int:
        """How many cards still out (not in this hand) outrank ``card`` in its suit."""
        return (ABOVE[self.jokers][card] & self.unseen).bit_count()

    def could_beat(self, seat: int, card: int, led: int) -> bool:
        """Whether ``seat`` may hold a card that would beat ``card`` in a trick led in ``led``.

        It beats by following with a higher card of the led suit, or — when it may be void in
        the led suit — by cutting with a higher spade.
        """
        possible = self.possible[seat]
        power = POWER[self.jokers][led]
        target = power[card]
        follow = possible & SUIT_MASKS[led]
        mask = follow
        while mask:
            low = mask & -mask
            if power[low.bit_length() - 1] > target:
                return True
            mask ^= low
        if led != SPADES and not self.known[seat] & SUIT_MASKS[led]:
            spades = possible & SPADE_MASK
            while spades:
                low = spades & -spades
                if power[low.bit_length() - 1] > target:
                    return True
                spades ^= low
        return False

    def may_be_void(self, seat: int, suit: int) -> bool:
        """Whether ``seat`` plausibly holds no card of ``suit``: it showed a void, or so few
        cards of the suit are out that it may well have none.  A player reads an opponent
        this way before cutting a trick; :meth:`could_beat` is the strict version."""
        if self.voids[seat] >> suit & 1:
            return True
        if self.known[seat] & SUIT_MASKS[suit]:
            return False
        return (self.unseen & SUIT_MASKS[suit]).bit_count() < 4

    def likely_beats(self, seat: int, card: int, led: int) -> bool:
        """Like :meth:`could_beat`, but counting a cut only where :meth:`may_be_void`."""
        possible = self.possible[seat]
        power = POWER[self.jokers][led]
        target = power[card]
        candidates = possible & SUIT_MASKS[led]
        if led != SPADES and self.may_be_void(seat, led):
            candidates |= possible & SPADE_MASK
        while candidates:
            low = candidates & -candidates
            if power[low.bit_length() - 1] > target:
                return True
            candidates ^= low
        return False

    def likely_holds(self, card: int, seats: tuple[int, ...] | None = None) -> bool:
        """Whether ``card`` should win the current trick, reading voids as
        :meth:`may_be_void` does (default seats: the opponents still to play)."""
        led = self.led if self.led >= 0 else SUIT_OF[card]
        for s in self.opponents_after() if seats is None else seats:
            if self.likely_beats(s, card, led):
                return False
        return True

    def holds_up(self, card: int, seats: tuple[int, ...] | None = None) -> bool:
        """Whether ``card`` would win the current trick against the seats still to play
        (``seats``, default: every seat after this one) as far as this seat can tell."""
        led = self.led if self.led >= 0 else SUIT_OF[card]
        for s in self.after if seats is None else seats:
            if self.could_beat(s, card, led):
                return False
        return True

    def opponents_after(self) -> tuple[int, ...]:
        """Opponents still to play to the current trick after this seat."""
        side = self.seat & 1
        return tuple(s for s in self.after if s & 1 != side)
