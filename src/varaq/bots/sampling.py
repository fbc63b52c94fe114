"""Dealing the unseen cards: full layouts consistent with what one seat knows.

The Hard player cannot see the other hands, so it imagines them: it deals the cards it has not
seen to the other three seats many times, each deal (a *layout*) obeying everything its view
proves, and searches each one as if the cards were face up.  The better the layouts match the
real table, the better that search; so they honour

- the cards played and each seat's count of cards left;
- known voids (a seat that did not follow a suit has none of it; a seat that led a spade
  before spades were broken held only spades) — read by
  :class:`~varaq.bots.knowledge.Knowledge`;
- the exchange: the cards this seat passed to its partner are still there until played;
- the bids, as evidence: a seat that bid 5 probably holds about five tricks' worth of cards, a
  nil bidder rarely holds the top spade or naked honours.  Layouts are drawn uniformly among
  all those the hard constraints above allow (:meth:`Sampler.deal` counts them, so none is
  favoured and none is abandoned half-way) and then accepted with a probability that measures
  how well each hand fits its bid (rejection sampling), so the accepted layouts follow the
  bids without any layout that breaks a hard constraint;
- the cards chosen, as evidence too (:class:`PlayEvidence`): players do not throw a high card
  under a trick they cannot win while holding a lower one of the suit, and the last to play
  wins as cheaply as they can.  A layout that would make an earlier play such a waste (a
  lower card of the same effect in that seat's hand at the time) is taken
  as less likely by :data:`WASTE_FIT` for each such play.  A nil bidder plays the other way
  round: under a trick already won above it, it ducks with its highest safe card, so a layout
  in which a live nil ducked while holding a higher card that was still safe (below the
  winner), with a card still out between the two, is less likely by :data:`NIL_DUCK_FIT` for
  each such play; and a live nil that went over the winner with nobody of its side still to
  play had no card that would have stayed under it (:data:`NIL_OVER_FIT`).

The bid is judged on the hand as it was when it was bid: the cards the seat holds in the layout
plus the cards it has played since.

>>> from varaq import Game
>>> g = Game("classic", seed=4); _ = g.deal()
>>> view = g.view(g.turn)
>>> layouts = Sampler(view).layouts(random.Random(1), 5)
>>> all(l.hands[view.seat] == view.hand for l in layouts)
True
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from dataclasses import dataclass
from math import comb

from ..cards import JOKER_DECK, STANDARD_DECK, SUIT_MASKS, SUIT_OF
from ..view import View
from .bidding import estimate_tricks, nil_danger, top_trump
from .knowledge import ABOVE, ORDER, POWER, Knowledge

__all__ = ["Layout", "Sampler", "SamplingError", "bid_fit", "PlayEvidence", "WASTE_FIT",
           "NIL_DUCK_FIT", "NIL_OVER_FIT", "cards_between", "nil_alternatives",
           "kept_a_higher_safe_card"]

#: How far (in tricks) a bid usually sits from the hand's estimated tricks.
BID_SPREAD = 1.1
#: How many tricks above its bid the number fit centres a bidder's hand, by
#: :func:`~varaq.bots.bidding.estimate_tricks`.  Tables bid what they are sure of, and centred
#: on the bid the layouts make bidders a little weaker than they are: ranked among a defender's
#: layouts, the real hands of seed 11's 200 deals sit at 0.558 and 0.583 (0.5 reads right),
#: and at 0.6 at 0.506 and 0.537 (``benchmarks/bid_evidence.py --bid-shift``).  Yet the truer
#: reading did not play better: both trees on the same fresh deals against Hard 0.2, the
#: change read +6.78 [-0.08, +13.63] on seed 11's 200 and -2.95 [-10.83, +4.93] on seed 12's
#: (BENCHMARKS.md, "Hard 0.3", thirty-first and thirty-second passes).  So the fit stays on
#: the bid; the knob stays for the benchmark to read other centres with.
BID_SHIFT = 0.0
#: Fit of a bid of :data:`HONOUR_BID` or more by a hand without any of the three top trumps:
#: such bids nearly always rest on spade honours.
NO_HONOUR_FIT = 0.35
HONOUR_BID = 4
#: How much nil danger a nil bidder usually accepts: the width of the nil fit.  It is wider
#: than the nils a table bids.  Ranked among the layouts a defender deals at the first lead,
#: Hard 0.2's real nil hands sit low (a mean rank of 0.35 of 225 nils; 0.48, as a true
#: reading would, at a width of 0.45) and today's Hard's lower still (0.11 of 80), so the
#: layouts put too many high cards in a nil hand (``benchmarks/bid_evidence.py``).  Yet the
#: layouts that read them right played worse: at 0.45 Hard lost 13 and 21 points a nil deal
#: against Hard 0.2 on two seeds' first 51 each, its defence letting more nils hold, and at
#: 1.0 it changed nothing measurable on a fresh seed (BENCHMARKS.md, "Hard 0.3", thirtieth
#: pass).  A defence that imagines a nil in more danger keeps attacking it.
NIL_SPREAD = 0.7
#: Fit of a nil bid by a hand holding the top trump (it always wins a trick): nearly never.
TOP_TRUMP_NIL_FIT = 0.02


#: How much likelier a layout is in which an earlier play was not a waste than one in which
#: it was (a high card thrown under the trick, or a dear winner, with a cheaper card of the
#: same effect in that hand).  Players make such plays now and then (to unblock, to mislead),
#: so it is a weight, not a rule.
WASTE_FIT = 0.05


#: How much likelier a layout is in which a live nil's duck under a trick already won was its
#: highest safe card of the suit than one in which it kept a higher card that was safe too.
#: Good nil players shed their high cards while it is safe, so that the low ones are left for
#: when it is not; some keep a middle card on purpose, so the weight is milder than
#: :data:`WASTE_FIT`.  Over seed 7's first 181 duplicate deals (``details.py --follows``)
#: Hard 0.2's live nils kept a higher safe card in 23 % of 407 ducks with a choice, today's
#: Hard's in 15 % of 165: odds of about 0.30 and 0.18 against, this weight between them.
NIL_DUCK_FIT = 0.25


#: Every card of either deck, the jokers too.
_DECK = STANDARD_DECK | JOKER_DECK


#: How much likelier a layout is in which a live nil that went over the trick's winner, nobody
#: of its side still to play, held no card that would have stayed under it than one in which
#: it did.  With its partner already played, a card under the winner is a safe duck, so this
#: is nearly a rule.  Over 179 of seed 8's duplicate deals (``details.py --follows``) 4 of
#: 65 such cards of both Hards' nils were played with a card under the winner in hand, each
#: of the four taking the trick: a nil given up, after which nothing more is read of its cards.
NIL_OVER_FIT = 0.02


#: A group's possible splits among its seats, with the running totals of complete deals.
_Choices = tuple[list[int], list[tuple[int, ...]]]


class SamplingError(RuntimeError):
    """No layout fits the view's hard constraints (only a corrupt view can cause it)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """One imagined deal: every seat's current holding, and how well it fitted the bids."""

    hands: tuple[int, int, int, int]
    #: Likelihood of the bids given these hands, relative to a perfect fit (0..1].
    fit: float


def bid_fit(hand_as_bid: int, bid: int, blind: bool, jokers: bool) -> float:
    """How likely a player holding ``hand_as_bid`` was to bid ``bid`` (1.0 = a typical bid).

    Not a calibrated probability: a smooth score that is 1 when the hand's estimated tricks
    are :data:`BID_SHIFT` above the bid (or, for nil, when the hand is a safe nil) and falls
    off with distance.
    A blind nil was bid without seeing the cards, so it says nothing about them.
    """
    if blind:
        return 1.0
    if bid == 0:
        if hand_as_bid >> top_trump(jokers) & 1:
            return TOP_TRUMP_NIL_FIT
        danger = nil_danger(hand_as_bid, jokers)
        return math.exp(-0.5 * (danger / NIL_SPREAD) ** 2)
    gap = bid + BID_SHIFT - estimate_tricks(hand_as_bid, jokers)
    fit = math.exp(-0.5 * (gap / BID_SPREAD) ** 2)
    if bid >= HONOUR_BID and not hand_as_bid & _HONOURS[jokers]:
        fit *= NO_HONOUR_FIT
    return fit


def _top_three(jokers: bool) -> int:
    order = ORDER[jokers]
    spades = sorted((c for c in range(54) if SUIT_OF[c] == 3 and (jokers or c < 52)),
                    key=lambda c: -order[c])
    return sum(1 << c for c in spades[:3])


#: The three top trumps (A♠ K♠ Q♠, or the jokers and the 2♠ in the joker game).
_HONOURS = {j: _top_three(j) for j in (False, True)}


@dataclass(frozen=True, slots=True)
class PlayEvidence:
    """One card another seat chose to play, and what it says about that seat's hand then.

    ``later`` holds the cards that seat played from this card on (the card included): with
    the seat's current holding in a layout, its hand at the moment of the play.  ``cheaper``
    are the cards of the played card's suit that would have done the same job for less (below
    it, and for a winning play, still above the trick's winner); for a live nil's duck, the
    cards it would rather have shed (above it, still below the winner), which weighs
    :data:`NIL_DUCK_FIT` rather than :data:`WASTE_FIT`; for a live nil's card over the winner
    (``over``), the cards that would have stayed under it, weighing :data:`NIL_OVER_FIT`.
    """

    seat: int
    card: int
    later: int
    cheaper: int
    #: For a nil's duck (empty for any other play): the cards above it and below the winner,
    #: lowest first, and every card played before it (see :func:`kept_a_higher_safe_card`).
    between: tuple[int, ...] = ()
    gone: int = 0
    #: A live nil's card that went over the trick's winner (``cheaper``: the cards that would
    #: have stayed under it).
    over: bool = False

    @property
    def nil(self) -> bool:
        """Whether this is a live nil's duck."""
        return bool(self.between)

    @property
    def weight(self) -> float:
        """How much less likely a layout is that makes this play a waste."""
        if self.nil:
            return NIL_DUCK_FIT
        return NIL_OVER_FIT if self.over else WASTE_FIT

    def wasted(self, holding_now: int) -> bool:
        """Whether, with ``holding_now``, the play threw away a card dearer than needed (for
        a nil's duck: kept a higher safe card).

        Touching cards count too: players win with the lowest of equal cards and follow with
        their lowest, so a king that wins last in the trick denies the queen.  A nil's duck
        does not deny the cards touching it: with the ten and nine of a suit, which the cards
        out cannot tell apart, a nil may drop either.
        """
        hand = holding_now | self.later
        if not hand & self.cheaper:
            return False
        return not self.nil or kept_a_higher_safe_card(self.between, hand, self.gone)


def cards_between(power: tuple[int, ...], low: int, high: int, suit: int) -> tuple[int, ...]:
    """The cards of ``suit`` (a mask) that rank above ``low`` and below ``high`` by ``power``,
    lowest first: the safe cards above a nil's duck under the winner ``high``."""
    return tuple(sorted((c for c in _cards(suit) if power[low] < power[c] < power[high]),
                        key=lambda c: power[c]))


def kept_a_higher_safe_card(between: tuple[int, ...], hand: int, gone: int) -> bool:
    """Whether a nil that ducked with a card below the winner, holding ``hand`` then, kept a
    higher card that was safe as well and not equivalent to it: one of ``between`` (the cards
    above the duck and below the winner, lowest first) with a card still out, neither in
    ``hand`` nor ``gone``, between the two."""
    split = False
    for c in between:
        bit = 1 << c
        if hand & bit:
            if split:
                return True
        elif not gone & bit:
            split = True
    return False


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def play_evidence(view: View) -> list[PlayEvidence]:
    """The plays by other seats that say something about their hands (see the module)."""
    jokers = view.rules.jokers
    above = ABOVE[jokers]
    tricks: list[tuple[int, tuple[int, ...]]] = [(t.leader, tuple(t.cards)) for t in view.tricks]
    if view.trick:
        tricks.append((view.trick[0][0], tuple(c for _, c in view.trick)))
    plays: list[tuple[int, int]] = []  # (seat, card) in the order played
    for leader, cards in tricks:
        for i, card in enumerate(cards):
            plays.append(((leader + i) & 3, card))
    out: list[PlayEvidence] = []
    index = 0
    nil_seats = {s for s in range(4) if view.bids[s] == 0}
    broken: set[int] = set()  # nil bidders that have taken a trick so far
    gone = 0  # the cards played before the one looked at
    for leader, cards in tricks:
        led = SUIT_OF[cards[0]]
        power = POWER[jokers][led]
        winner, winning = cards[0], 0
        for i, card in enumerate(cards):
            seat = (leader + i) & 3
            if i and seat != view.seat:
                suit = SUIT_MASKS[SUIT_OF[card]]
                below = suit & ~above[card] & ~(1 << card)
                cheaper = 0
                between: tuple[int, ...] = ()
                if seat in nil_seats:
                    if seat not in broken:
                        between, cheaper = nil_alternatives(power, card, winner, led, i == 1)
                elif power[card] <= power[winner] and SUIT_OF[card] == led:
                    cheaper = below  # a loser: any lower card of the suit loses as well
                elif power[card] > power[winner] and i == 3:
                    # The last to play wins with the cheapest card that beats the trick.
                    cheaper = below & ~_at_most(power, winner, suit)
                if cheaper:
                    later = 0
                    for s, c in plays[index:]:
                        if s == seat:
                            later |= 1 << c
                    over = seat in nil_seats and not between
                    out.append(PlayEvidence(seat, card, later, cheaper, between, gone, over))
            if power[card] > power[winner]:
                winner, winning = card, i
            gone |= 1 << card
            index += 1
        if len(cards) == 4:
            broken.add((leader + winning) & 3)
    return out


def nil_alternatives(
    power: tuple[int, ...], card: int, winner: int, led: int, partner_to_come: bool,
) -> tuple[tuple[int, ...], int]:
    """What a live nil's ``card``, played to a trick led in ``led`` and won so far by
    ``winner``, says about its hand: the safe cards above a duck (see
    :func:`kept_a_higher_safe_card`) and the cards it would rather have played.  A nil that
    ducked would rather have shed a higher safe card.  One that went over the winner with
    nobody of its side still to play would rather have stayed under it, with a lower card of
    the led suit if it followed, with any card of another suit if it cut.  Second to a trick,
    its partner still to come, a nil goes over a low lead on purpose (the third hand and its
    partner will go higher, and its lowest card stays back as a way out): in 179 of seed 8's
    duplicate deals 35 of 197 such cards of both Hards' nils were played with a card under the
    lead in hand (``benchmarks/details.py --follows``; see :data:`NIL_OVER_FIT` for the
    third and fourth hands)."""
    followed = SUIT_OF[card] == led
    if followed and power[card] < power[winner]:
        between = cards_between(power, card, winner, SUIT_MASKS[led])
        return between, sum(1 << c for c in between)
    if power[card] > power[winner] and not partner_to_come:
        allowed = SUIT_MASKS[led] if followed else _DECK & ~SUIT_MASKS[led]
        return (), _at_most(power, winner, allowed) & ~(1 << winner)
    return (), 0


def _at_most(power: tuple[int, ...], winner: int, suit: int) -> int:
    """The cards of ``suit`` (a mask) that do not beat ``winner``."""
    return sum(1 << c for c in _cards(suit) if power[c] <= power[winner])


class Sampler:
    """Deals layouts for one view; build once per decision, draw as many layouts as wanted."""

    def __init__(self, view: View, knowledge: Knowledge | None = None, use_bids: bool = True):
        self.view = view
        k = Knowledge.from_view(view) if knowledge is None else knowledge
        self.knowledge = k
        self.seat = view.seat
        self.jokers = view.rules.jokers
        others = [s for s in range(4) if s != view.seat]
        self.others = others
        # Cards each seat has played this hand: added back to judge the hand it bid with.
        played_by = [0, 0, 0, 0]
        for t in view.tricks:
            for i, card in enumerate(t.cards):
                played_by[(t.leader + i) & 3] |= 1 << card
        for s, card in view.trick:
            played_by[s] |= 1 << card
        self.played_by = played_by
        self.evidence = [
            s for s in others
            if use_bids and view.bids[s] is not None and not view.blind[s]
        ]
        self.plays = play_evidence(view) if use_bids else []
        # Hard constraints: cards surely held, and the free cards each seat may take.
        self.known = [k.known[s] if s != view.seat else 0 for s in range(4)]
        fixed = 0
        for s in others:
            fixed |= self.known[s]
        free = k.unseen & ~fixed
        self.need = [
            view.cards_left[s] - self.known[s].bit_count() if s != view.seat else 0
            for s in range(4)
        ]
        if any(n < 0 for n in self.need) or sum(self.need) != free.bit_count():
            raise SamplingError("the view's card counts do not add up")
        # Free cards grouped by which seats may hold them (most constrained dealt first).
        groups: dict[tuple[int, ...], list[int]] = {}
        mask = free
        while mask:
            low = mask & -mask
            card = low.bit_length() - 1
            mask ^= low
            seats = tuple(s for s in others if k.possible[s] & low)
            if not seats:
                raise SamplingError("a card out cannot be held by anyone")
            groups.setdefault(seats, []).append(card)
        self.groups = sorted(groups.items(), key=lambda kv: len(kv[0]))
        self._rooms = (self.need[0], self.need[1], self.need[2], self.need[3])
        self._choices: dict[tuple[int, tuple[int, ...]], _Choices] = {}

    def deal(self, rng: random.Random) -> tuple[int, int, int, int]:
        """One layout meeting the hard constraints (voids, counts, known cards), every such
        layout equally likely.

        Each group of cards (those the same seats may hold) is split among its seats with
        the chance of that split among all complete deals: the ways to deal the group so,
        times the ways to deal the groups after it into the room left (counted once per
        decision and kept).  So no deal is ever abandoned half-way, and a seat whose voids
        leave it few choices is not starved by the cards dealt before."""
        if not self._count(0, self._rooms):
            raise SamplingError("no layout fits the voids and card counts")
        hands = list(self.known)
        hands[self.seat] = self.view.hand
        rooms = self._rooms
        for i, (seats, cards) in enumerate(self.groups):
            totals, splits = self._split_choices(i, rooms)
            split = splits[bisect_right(totals, rng.randrange(totals[-1]))]
            pool = cards[:]
            rng.shuffle(pool)
            at = 0
            left = list(rooms)
            for s, x in zip(seats, split, strict=True):
                for c in pool[at:at + x]:
                    hands[s] |= 1 << c
                at += x
                left[s] -= x
            rooms = (left[0], left[1], left[2], left[3])
        return (hands[0], hands[1], hands[2], hands[3])

    def _splits(self, i: int, rooms: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        """Every way to share group ``i``'s cards among its seats within ``rooms``, as
        (cards per seat, ways to choose which cards)."""
        seats, cards = self.groups[i]
        n = len(cards)
        caps = [rooms[s] for s in seats]
        out: list[tuple[tuple[int, ...], int]] = []

        def share(k: int, left: int, taken: tuple[int, ...], ways: int) -> None:
            if k == len(seats) - 1:
                if left <= caps[k]:
                    out.append(((*taken, left), ways))
                return
            for x in range(min(left, caps[k]) + 1):
                share(k + 1, left - x, (*taken, x), ways * comb(left, x))

        share(0, n, (), 1)
        return out

    def _count(self, i: int, rooms: tuple[int, ...]) -> int:
        """How many complete deals of groups ``i`` on fill ``rooms`` exactly."""
        if i == len(self.groups):
            return 0 if any(rooms) else 1
        totals, _ = self._split_choices(i, rooms)
        return totals[-1] if totals else 0

    def _split_choices(self, i: int, rooms: tuple[int, ...]) -> _Choices:
        """Group ``i``'s possible splits and their running totals of complete deals (each
        split's ways times the complete deals of the groups after it), counted once."""
        key = (i, rooms)
        if key not in self._choices:
            seats = self.groups[i][0]
            totals: list[int] = []
            splits: list[tuple[int, ...]] = []
            running = 0
            for split, ways in self._splits(i, rooms):
                after = list(rooms)
                for s, x in zip(seats, split, strict=True):
                    after[s] -= x
                n = ways * self._count(i + 1, (after[0], after[1], after[2], after[3]))
                if n:
                    running += n
                    totals.append(running)
                    splits.append(split)
            self._choices[key] = (totals, splits)
        return self._choices[key]

    def fit(self, hands: tuple[int, int, int, int], floor: float = 0.0) -> float:
        """How well a layout explains the bids made so far (product over the bidders) and the
        cards chosen (:data:`WASTE_FIT` for each play the layout makes a waste,
        :data:`NIL_DUCK_FIT` for each duck of a live nil's that kept a higher safe card,
        :data:`NIL_OVER_FIT` for each card of a live nil's over the winner that had one to
        stay under it: each play's :attr:`PlayEvidence.weight`).

        Every factor is at most 1, so a part of the product bounds the whole: once a part is
        down to ``floor`` the count stops and returns that part (:meth:`layouts` rejects such
        a layout whatever the rest would say, and it rejects most).  The plays' factors are
        cheap and looked at first; the product itself is always taken in the same order, so
        a layout's fit does not depend on ``floor``."""
        factors = [e.weight for e in self.plays if e.wasted(hands[e.seat])]
        if factors and floor > 0.0:
            bound = 1.0
            for f in factors:
                bound *= f
            if bound <= floor:
                return bound
        out = 1.0
        bids = self.view.bids
        for s in self.evidence:
            bid = bids[s]
            assert bid is not None
            out *= bid_fit(hands[s] | self.played_by[s], bid, False, self.jokers)
            if out <= floor:
                return out
        for f in factors:
            out *= f
        return out

    def layouts(self, rng: random.Random, n: int, max_tries: int | None = None) -> list[Layout]:
        """``n`` layouts, accepted in proportion to how well they fit the bids.

        After ``max_tries`` draws (default ``30 * n``) without enough acceptances, the best
        rejected layouts fill the gap, so the call always returns ``n`` layouts.
        """
        tries = 30 * n if max_tries is None else max_tries
        weighed = bool(self.evidence or self.plays)
        out: list[Layout] = []
        # Rejected layouts with a bound on their fit (the part :meth:`fit` stopped at).
        spare: list[tuple[float, tuple[int, int, int, int]]] = []
        for _ in range(tries):
            if len(out) >= n:
                break
            hands = self.deal(rng)
            draw = rng.random()
            fit = self.fit(hands, floor=draw) if weighed else 1.0
            if draw < fit:
                out.append(Layout(hands, fit))
            else:
                spare.append((fit, hands))
        if len(out) < n:
            out.extend(self._best_rejected(spare, n - len(out)))
        return out

    def _best_rejected(
        self, spare: list[tuple[float, tuple[int, int, int, int]]], k: int,
    ) -> list[Layout]:
        """The ``k`` rejected layouts of best fit (earlier first among equals), counting whole
        fits only where a layout's bound could still place it: the fallback comes in about a
        third of Hard's one-layout draws, and most bounds are far below the best fits."""
        order = sorted(range(len(spare)), key=lambda i: -spare[i][0])
        counted: list[tuple[float, int]] = []
        for i in order:
            bound, hands = spare[i]
            if len(counted) >= k and bound < counted[k - 1][0]:
                break  # this bound and every later one are below the k-th best fit
            counted.append((self.fit(hands), i))
            counted.sort(key=lambda fi: (-fi[0], fi[1]))
        return [Layout(spare[i][1], fit) for fit, i in counted[:k]]
