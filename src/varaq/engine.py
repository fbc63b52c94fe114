"""The Spades state machine: one :class:`Game` is a whole match, hand after hand.

Everything in Varaq goes through the same few verbs:

- :meth:`Game.legal_actions` — the actions (small ints, see :mod:`varaq.actions`) open now;
- :meth:`Game.apply` — do one, get an :class:`~varaq.events.Event`, or an
  :class:`IllegalAction` whose message says why not (``W cannot play 9S: must follow hearts``);
- :meth:`Game.view` — exactly what one seat may know; bots and clients get nothing else;
- :meth:`Game.copy` — an independent copy, for search.

A match moves through phases: ``deal`` (waiting for cards) → ``blind`` (eligible players choose
blind nil or look, before seeing their cards) → ``bid`` → ``exchange`` (after a blind nil, when
the rules pass cards) → ``play`` → back to ``deal``, until ``over``.

>>> g = Game(Rules.named("varaq"), seed=7)
>>> _ = g.deal()
>>> g.phase_name
'bid'
>>> while not g.is_over and g.phase_name != "deal":
...     _ = g.apply(g.legal_actions()[0])
>>> len(g.history)
1
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .actions import (
    BID,
    BLIND_NIL,
    CLAIM,
    CONCEDE,
    DEAL_GIVEN,
    DEAL_HAND,
    LOOK,
    TRICKS_GIVEN,
    UNDO,
    UNDO_LIMIT,
    ActionError,
    action_text,
    parse_action,
)
from .cards import (
    BJ,
    JOKER_DECK,
    LJ,
    SPADE_MASK,
    STANDARD_DECK,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    TWO_CLUBS,
    card_text,
    cards_of,
    hand_text,
    trick_power,
)
from .events import Event, TrickResult
from .phases import BIDDING, BLIND, DEAL, EXCHANGE, OVER, PHASE_NAMES, PLAY, Phase
from .rules import Rules
from .scoring import HandScore, match_winner, score_hand
from .seats import SEAT_LETTERS, SIDE_NAMES
from .view import View, build_view

__all__ = [
    "Game", "IllegalAction", "HandLog", "PHASE_NAMES",
    "DEAL", "BLIND", "BIDDING", "EXCHANGE", "PLAY", "OVER", "Phase", "View",
]



class IllegalAction(ValueError):
    """An action the rules refuse; ``str()`` is a one-line reason naming the seat and card."""


_POWER = {False: trick_power(False), True: trick_power(True)}
#: Each deck's cards in card-number order: the order a seeded deal shuffles from.
_DECK_CARDS = {False: tuple(cards_of(STANDARD_DECK)), True: tuple(cards_of(JOKER_DECK))}


def _slice_table(first: int, width: int) -> list[tuple[int, ...]]:
    """``table[bits]``: the cards of a ``width``-bit slice of a mask whose lowest bit is card
    ``first``, lowest card first.

    ``legal_actions`` turns a mask into a list of cards at every decision; indexing one table
    per suit replaces a loop over the cards (about twice as fast for a whole hand).  Built by
    doubling: the patterns with bit ``b`` set are those without it, plus card ``first + b``.
    """
    table: list[tuple[int, ...]] = [()]
    for bit in range(width):
        card = (first + bit,)
        table += [cards + card for cards in table]
    return table


#: Where each suit's bits start in a mask (spades run on into the two jokers, bits 52 and 53).
_SUIT_SHIFT = (0, 13, 26, 39)
_SUIT_BITS = (1 << 13) - 1
_NOT_SPADES = ~SPADE_MASK
#: ``1 << card``, made once: above bit 30 each shift would allocate a new int.
_BIT = tuple(1 << card for card in range(54))
#: One table per suit (8192 patterns each, about 3 MB in all, built in a few milliseconds).
_CLUB_CARDS, _DIAMOND_CARDS, _HEART_CARDS, _SPADE_CARDS = _SUIT_CARDS = tuple(
    _slice_table(shift, 13) for shift in _SUIT_SHIFT
)


def _allow_jokers() -> None:
    """Grow the spade table to 15 bits (2**15 patterns) so it also covers LJ and BJ.

    Done on the first joker game only, since most processes never deal one.  The new patterns
    are built aside and added in one ``extend``, so a game in another thread never sees a
    half-grown table (at worst two threads both add them; the spare copy is never indexed).
    """
    if len(_SPADE_CARDS) == 1 << 13:
        table = _SPADE_CARDS[:]
        for joker in ((LJ,), (BJ,)):
            table += [cards + joker for cards in table]
        _SPADE_CARDS.extend(table[1 << 13:])


def _card_list(mask: int) -> list[int]:
    """The cards of ``mask`` as a new list, lowest card number first (= ``list(cards_of())``)."""
    return [
        *_CLUB_CARDS[mask & _SUIT_BITS],
        *_DIAMOND_CARDS[mask >> 13 & _SUIT_BITS],
        *_HEART_CARDS[mask >> 26 & _SUIT_BITS],
        *_SPADE_CARDS[mask >> 39],
    ]


def _shuffle_and_deal(seed: str, cards: tuple[int, ...], first: int) -> list[int]:
    """Shuffle ``cards`` with a generator seeded by ``seed`` and deal them one at a time
    clockwise from seat ``first``; returns the four hands as masks.

    This is exactly ``random.Random(seed).shuffle`` (Fisher–Yates from the top, each draw by
    rejection from ``getrandbits``) written out, for two reasons: the deal of a seed is then
    fixed by this code, not by the standard library's internals, and each position is dealt
    as soon as the shuffle settles it, which saves a second pass (a deal is a quarter of a
    random hand's cost in the engine benchmark).
    """
    deck = list(cards)
    getrandbits = random.Random(seed).getrandbits
    hands = [0, 0, 0, 0]
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        bits = _BIT_LENGTH[n]
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        card = deck[j]
        deck[j] = deck[i]
        hands[(first + i) & 3] |= _BIT[card]
    hands[first & 3] |= _BIT[deck[0]]
    return hands


#: ``_BID_ACTIONS[nil][lowest]``: the bid actions open when nil is (not) played and the lowest
#: other bid allowed is ``lowest`` (1 unless a minimum team bid raises it).
_BID_ACTIONS = tuple(
    tuple(tuple(([BID] if nil else []) + [BID + b for b in range(max(low, 1), 14)])
          for low in range(15))
    for nil in (False, True)
)
_BIT_LENGTH = tuple(n.bit_length() for n in range(55))
_NO_SEAT = -1
#: Builds a NamedTuple from all its fields at C speed, skipping the generated ``__new__`` (a
#: Python function): used for the 13 trick results and events of every hand.
_new_tuple = tuple.__new__
if Event._fields != ("kind", "seat", "action", "trick", "hand", "winner") or (
    TrickResult._fields != ("leader", "cards", "winner")
):  # pragma: no cover - a guard for whoever changes events.py
    raise ImportError("varaq.engine builds Event and TrickResult field by field: update it")
# Shared events for plays and bids that finish nothing (see events.py).
_PLAY_EVENTS = tuple(tuple(Event("play", s, c) for c in range(54)) for s in range(4))
_DEAL_EVENTS = tuple(Event("deal", d, -1) for d in range(4))
_BID_EVENTS = tuple(tuple(Event("bid", s, BID + b) for b in range(14)) for s in range(4))
#: The seats in bidding (and dealing) order after each dealer: from the dealer's left.
_ORDER_AFTER = tuple(tuple((dealer + i) & 3 for i in (1, 2, 3, 4)) for dealer in range(4))


@dataclass(slots=True)
class HandLog:
    """A finished (or score-sheet) hand as a record keeps it."""

    dealer: int
    #: The cards as dealt, before any exchange; ``None`` for a score-sheet hand.
    dealt: tuple[int, int, int, int] | None
    bids: tuple[int, int, int, int]
    blind: tuple[bool, bool, bool, bool]
    #: Cards each seat gave in a blind nil exchange (mask per seat).
    exchanged: tuple[int, int, int, int]
    #: Cards in the order played; empty for a score-sheet hand.
    plays: tuple[int, ...]
    result: HandScore
    #: The seat whose accepted claim ended the hand (the cards after ``plays`` were never
    #: played), or -1.
    claim: int = -1
    #: Each undo in the hand: how many moves stood before it, and the moves it took back.
    undos: tuple[tuple[int, tuple[int, ...]], ...] = ()


class Game:
    """A Spades match under one set of :class:`~varaq.rules.Rules`.

    Create it, call :meth:`deal`, then alternate :meth:`legal_actions` and :meth:`apply`;
    after each hand the phase returns to ``deal`` until the match is over.
    """

    __slots__ = (
        "rules", "seed", "_power", "_deck", "_deck_cards", "totals", "bags", "start_totals",
        "start_bags", "log", "hand_no", "dealer", "first_dealer", "phase", "turn", "hands",
        "dealt", "bids", "blind", "blind_queue", "exchange_queue", "passing", "exchanged",
        "trick", "leader", "tricks", "taken", "broken", "played", "winner", "conceded", "sheet",
        "actions",
    )

    def __init__(
        self,
        rules: Rules | str = "classic",
        seed: int | str | None = None,
        *,
        totals: Sequence[int] = (0, 0),
        bags: Sequence[int] = (0, 0),
        dealer: int | None = None,
    ) -> None:
        self.rules = Rules.from_spec(rules) if not isinstance(rules, Rules) else rules
        if seed is None:
            # Imported here: it brings hashlib, hmac and base64, about 5 ms of the start of
            # every process that imports the engine, and only an unseeded game needs it.
            import secrets

            seed = secrets.randbits(48)
        self.seed: int | str = seed
        self._power = _POWER[self.rules.jokers]
        self._deck = JOKER_DECK if self.rules.jokers else STANDARD_DECK
        self._deck_cards = _DECK_CARDS[self.rules.jokers]
        if self.rules.jokers:
            _allow_jokers()
        self.totals = [int(totals[0]), int(totals[1])]
        self.bags = [int(bags[0]), int(bags[1])]
        self.start_totals = (self.totals[0], self.totals[1])
        self.start_bags = (self.bags[0], self.bags[1])
        self.log: list[HandLog] = []
        self.hand_no = 0
        if dealer is None:
            dealer = random.Random(f"{self.seed}:dealer").randrange(4)
        self.first_dealer = dealer
        self.dealer = dealer
        self.phase = DEAL
        self.turn = _NO_SEAT
        self.hands = [0, 0, 0, 0]
        self.dealt = (0, 0, 0, 0)
        self.bids = [-1, -1, -1, -1]
        self.blind = [False, False, False, False]
        self.blind_queue: list[int] = []
        self.exchange_queue: list[tuple[int, int]] = []
        self.passing = 0
        self.exchanged = [0, 0, 0, 0]
        self.trick: list[int] = []
        self.leader = _NO_SEAT
        self.tricks: list[TrickResult] = []
        self.taken = [0, 0, 0, 0]
        self.broken = False
        self.played = 0
        self.winner: int | None = None
        self.conceded: int | None = None
        self.sheet = False
        #: Every input the match accepted, in order (see :mod:`varaq.actions`): the one history
        #: from which a table's journal and its stored rows are written.
        self.actions: list[int] = []

    # -- reading the state ------------------------------------------------------------------

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def history(self) -> list[HandScore]:
        """The scores of the finished hands, oldest first."""
        return [h.result for h in self.log]

    def plays(self) -> list[int]:
        """Cards played so far this hand, in order."""
        out: list[int] = []
        for t in self.tricks:
            out.extend(t.cards)
        out.extend(self.trick)
        return out

    def trick_seats(self) -> list[int]:
        """Who played each card of the current trick."""
        return [(self.leader + i) & 3 for i in range(len(self.trick))]

    def blind_eligible(self, seat: int) -> str:
        """Why ``seat`` may not bid blind nil at this deal, or ``""`` if it may."""
        r = self.rules
        if not r.blind_nil:
            return "blind nil is not played at this table"
        side = seat & 1
        trail = self.totals[1 - side] - self.totals[side]
        if trail < r.blind_nil_trail:
            return f"{SIDE_NAMES[side]} trails by {trail}, needs {r.blind_nil_trail}"
        if self.blind[seat ^ 2]:
            return f"{SIDE_NAMES[side]} already has a blind nil this hand"
        return ""

    # -- dealing ----------------------------------------------------------------------------

    def deal(self, hands: Sequence[int] | None = None, dealer: int | None = None) -> Event:
        """Start the next hand.  Without ``hands`` the cards come from the game's seed, so a
        seed and a hand number always give the same deal (the daily deal relies on it)."""
        if self.phase != DEAL:
            raise IllegalAction(
                "the match is over" if self.phase == OVER else "the current hand is not finished"
            )
        dealer = self._next_dealer(dealer)
        if hands is None:
            hands = _shuffle_and_deal(f"{self.seed}:{self.hand_no}", self._deck_cards, dealer + 1)
            self.actions.append(DEAL_HAND)
        else:
            self._check_deal(hands)
            self.actions.append(DEAL_GIVEN)
        self._start_hand(dealer, tuple(hands), sheet=False)  # type: ignore[arg-type]
        return _DEAL_EVENTS[dealer]

    def deal_unknown(self, dealer: int | None = None) -> Event:
        """Start a score-sheet hand: bids are made as usual, but no cards are known; finish it
        with :meth:`score_tricks`.  For people playing with real cards."""
        if self.phase != DEAL:
            raise IllegalAction(
                "the match is over" if self.phase == OVER else "the current hand is not finished"
            )
        dealer = self._next_dealer(dealer)
        self.actions.append(DEAL_GIVEN)
        self._start_hand(dealer, (0, 0, 0, 0), sheet=True)
        return _DEAL_EVENTS[dealer]

    def _next_dealer(self, dealer: int | None) -> int:
        expected = self.first_dealer if self.hand_no == 0 else (self.dealer + 1) & 3
        if dealer is not None and self.hand_no and dealer != expected:
            raise IllegalAction(
                f"dealer must be {SEAT_LETTERS[expected]}, the previous dealer's left"
            )
        if dealer is not None and not self.hand_no:
            self.first_dealer = dealer
            return dealer
        return expected

    def _check_deal(self, hands: Sequence[int]) -> None:
        if len(hands) != 4:
            raise IllegalAction("a deal needs four hands")
        seen = 0
        for seat, hand in enumerate(hands):
            letter = SEAT_LETTERS[seat]
            if hand & ~self._deck:
                extra = hand_text(hand & ~self._deck)
                raise IllegalAction(f"{letter}'s hand has cards not in this deck: {extra}")
            if hand & seen:
                raise IllegalAction(f"{letter}'s hand repeats {hand_text(hand & seen)}")
            if hand.bit_count() != 13:
                raise IllegalAction(f"{letter} was dealt {hand.bit_count()} cards, not 13")
            seen |= hand
        if seen != self._deck:
            raise IllegalAction(f"the deal is missing {hand_text(self._deck & ~seen)}")

    def _start_hand(self, dealer: int, hands: tuple[int, int, int, int], sheet: bool) -> None:
        self.dealer = dealer
        self.sheet = sheet
        self.dealt = hands
        self.hands = list(hands)
        self.bids = [-1, -1, -1, -1]
        self.blind = [False, False, False, False]
        self.exchange_queue = []
        self.passing = 0
        self.exchanged = [0, 0, 0, 0]
        self.trick = []
        self.tricks = []
        self.taken = [0, 0, 0, 0]
        self.broken = False
        self.played = 0
        self.leader = _NO_SEAT
        order = _ORDER_AFTER[dealer]
        if self.rules.blind_nil:
            self.blind_queue = [s for s in order if not self.blind_eligible(s)]
        else:
            self.blind_queue = []
        if self.blind_queue:
            self.phase = BLIND
            self.turn = self.blind_queue[0]
        else:
            self.phase = BIDDING
            self.turn = order[0]

    # -- legal actions ----------------------------------------------------------------------

    def legal_play_mask(self) -> int:
        """The cards the player to move may play, as a mask (play phase only)."""
        hand = self.hands[self.turn]
        trick = self.trick
        if trick:
            follow = hand & SUIT_MASKS[SUIT_OF[trick[0]]]
            return follow if follow else hand
        if not self.tricks and self.rules.two_clubs_leads:
            return 1 << TWO_CLUBS
        if not self.broken:
            plain = hand & _NOT_SPADES
            if plain:
                return plain
        return hand

    def legal_bids(self) -> list[int]:
        """Bid values (0 = nil) open to the player to bid."""
        return [action - BID for action in _BID_ACTIONS[self.rules.nil][self._lowest_bid()]]

    def _lowest_bid(self) -> int:
        """The lowest non-nil bid open to the player to bid: 1, unless the partner has bid
        and the side must reach the minimum team bid (a partner's nil waives it)."""
        need = self.rules.min_team_bid
        if need:
            mate = self.bids[self.turn ^ 2]
            if mate > 0:
                return max(1, need - mate)
        return 1

    def legal_actions(self) -> list[int]:
        """Every action open now, for the player whose turn it is (``[]`` between hands)."""
        phase = self.phase
        if phase == PLAY:
            trick = self.trick
            if trick:
                # legal_play_mask's follow rule, inlined: this is the commonest call of all.
                hand = self.hands[self.turn]
                suit = SUIT_OF[trick[0]]
                follow = hand & SUIT_MASKS[suit]
                if follow:
                    return [*_SUIT_CARDS[suit][follow >> _SUIT_SHIFT[suit]]]
                return _card_list(hand)
            if self.sheet:  # a score-sheet hand has no cards (and never a trick)
                return []
            return _card_list(self.legal_play_mask())
        if phase == BIDDING:
            return list(_BID_ACTIONS[self.rules.nil][self._lowest_bid()])
        if phase == BLIND:
            return [BLIND_NIL, LOOK]
        if phase == EXCHANGE:
            return list(cards_of(self.hands[self.turn] & ~self.passing))
        return []

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    # -- applying actions -------------------------------------------------------------------

    def apply(self, action: int, seat: int | None = None) -> Event:
        """Do ``action`` for the player to move (checked against ``seat`` when given).

        Raises :class:`IllegalAction` with the reason, and then nothing has changed.  The typed
        API takes the ``int`` actions of :mod:`varaq.actions`; untyped callers may also pass text
        (``"QS"``, ``"bid 4"``), and anything else is refused in one line, never a ``TypeError``.

        Playing a card is written out here in full, legality check included, because it is
        the hottest path in Varaq: every card of every layout the Hard player simulates comes
        through it, and each call saved is about 3% of a random hand.  The follow rule is
        the one :meth:`legal_play_mask` states; leads still ask it.
        """
        if seat is not None and seat != self.turn:
            raise IllegalAction(self._not_your_turn(seat))
        try:
            phase = self.phase
            if phase == PLAY and 0 <= action < 54 and not self.sheet:
                trick = self.trick
                turn = self.turn
                hands = self.hands
                if trick:
                    hand = hands[turn]
                    legal = hand & SUIT_MASKS[SUIT_OF[trick[0]]] or hand  # follow if you can
                else:
                    legal = self.legal_play_mask()
                bit = _BIT[action]
                if legal & bit:
                    self.actions.append(action)
                    hands[turn] ^= bit
                    self.played |= bit
                    trick.append(action)
                    if action >= 39:  # every spade and joker is numbered 39 or above
                        self.broken = True
                    if len(trick) < 4:
                        self.turn = (turn + 1) & 3
                        return _PLAY_EVENTS[turn][action]
                    return self._end_trick(turn, action)
            elif phase == BIDDING and BID <= action <= BID + 13:
                value = action - BID
                if value >= self._lowest_bid() or (value == 0 and self.rules.nil):
                    return self._bid(value)
            elif phase == BLIND and action in (BLIND_NIL, LOOK):
                return self._decide_blind(action)
            elif (
                phase == EXCHANGE and 0 <= action < 54
                and (self.hands[self.turn] & ~self.passing) >> action & 1
            ):
                return self._pass(action)
        except TypeError:
            # Only a non-int action gets here (comparisons with it fail): read text such as
            # "QS" or "bid 4"; anything else is refused in one line.  Zero cost for ints.
            if isinstance(action, int):
                raise
            if not isinstance(action, str):
                raise IllegalAction(f"unknown action {action!r}") from None
            try:
                parsed = parse_action(action)
            except ActionError as error:
                raise IllegalAction(str(error)) from None
            return self.apply(parsed, seat)
        raise IllegalAction(self.why_illegal(action))

    def _end_trick(self, seat: int, card: int) -> Event:
        """Settle the trick ``card`` (played by ``seat``) completed; maybe the hand too."""
        c0, c1, c2, c3 = self.trick
        power = self._power[SUIT_OF[c0]]
        # Unrolled: on a tie of power the earlier card stays best (ties never happen, as
        # every card has its own power within a trick, but this keeps the first wins rule).
        best, top = 0, power[c0]
        if power[c1] > top:
            best, top = 1, power[c1]
        if power[c2] > top:
            best, top = 2, power[c2]
        if power[c3] > top:
            best = 3
        leader = self.leader
        winner = (leader + best) & 3
        result = _new_tuple(TrickResult, (leader, (c0, c1, c2, c3), winner))
        self.tricks.append(result)
        self.taken[winner] += 1
        self.trick = []
        self.turn = winner
        self.leader = winner
        if len(self.tricks) < 13:
            return _new_tuple(Event, ("play", seat, card, result, None, None))
        hand = self._finish_hand()
        return Event("play", seat, card, result, hand, self.winner)

    def _bid(self, value: int) -> Event:
        seat = self.turn
        self.actions.append(BID + value)
        self.bids[seat] = value
        self._next_bidder()
        return _BID_EVENTS[seat][value]

    def _next_bidder(self) -> None:
        bids = self.bids
        for seat in _ORDER_AFTER[self.dealer]:
            if bids[seat] < 0:
                self.turn = seat
                return
        self._end_bidding()

    def _end_bidding(self) -> None:
        if self.rules.exchange and not self.sheet:
            for seat in _ORDER_AFTER[self.dealer]:
                if self.blind[seat]:
                    self.exchange_queue += [(seat ^ 2, seat), (seat, seat ^ 2)]
        if self.exchange_queue:
            self.phase = EXCHANGE
            self.turn = self.exchange_queue[0][0]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        lead = (self.dealer + 1) & 3
        if self.rules.two_clubs_leads and not self.sheet:
            lead = next(s for s in range(4) if self.hands[s] >> TWO_CLUBS & 1)
        self.turn = lead
        self.leader = lead

    def _decide_blind(self, action: int) -> Event:
        seat = self.blind_queue.pop(0)
        self.actions.append(action)
        if action == BLIND_NIL:
            self.blind[seat] = True
            self.bids[seat] = 0
            # At most one blind nil per side: the partner's choice is gone.
            self.blind_queue = [s for s in self.blind_queue if s != seat ^ 2]
        if self.blind_queue:
            self.turn = self.blind_queue[0]
        else:
            self.phase = BIDDING
            self._next_bidder()
        return Event("blind_nil" if action == BLIND_NIL else "look", seat, action)

    def _pass(self, card: int) -> Event:
        giver, receiver = self.exchange_queue[0]
        self.actions.append(card)
        self.passing |= 1 << card
        if self.passing.bit_count() == self.rules.exchange:
            self.hands[giver] &= ~self.passing
            self.hands[receiver] |= self.passing
            self.exchanged[giver] = self.passing
            self.passing = 0
            self.exchange_queue.pop(0)
            if self.exchange_queue:
                self.turn = self.exchange_queue[0][0]
            else:
                self._start_play()
        return Event("pass", giver, card)

    def score_tricks(self, tricks: Sequence[int]) -> Event:
        """Finish a score-sheet hand (see :meth:`deal_unknown`) with each seat's tricks."""
        if not (self.sheet and self.phase == PLAY):
            raise IllegalAction("tricks can be given only for a score-sheet hand after bidding")
        if len(tricks) != 4 or any(not isinstance(t, int) or not 0 <= t <= 13 for t in tricks):
            raise IllegalAction("tricks must be four whole numbers from 0 to 13")
        if sum(tricks) != 13:
            raise IllegalAction(f"tricks add up to {sum(tricks)}, not 13")
        self.taken = list(tricks)
        self.actions.append(TRICKS_GIVEN)
        hand = self._finish_hand()
        return Event("tricks", self.dealer, -1, None, hand, self.winner)

    def _finish_hand(self, claim: int = -1) -> HandScore:
        r = self.rules
        bids = (self.bids[0], self.bids[1], self.bids[2], self.bids[3])
        blind = (self.blind[0], self.blind[1], self.blind[2], self.blind[3])
        taken = (self.taken[0], self.taken[1], self.taken[2], self.taken[3])
        result = score_hand(r, bids, blind, taken, (self.bags[0], self.bags[1]))
        self.totals[0] += result.score[0]
        self.totals[1] += result.score[1]
        self.bags = [result.bags[0], result.bags[1]]
        self.log.append(HandLog(
            self.dealer,
            None if self.sheet else self.dealt,
            bids, blind,
            (self.exchanged[0], self.exchanged[1], self.exchanged[2], self.exchanged[3]),
            tuple(self.plays()),
            result,
            claim,
            # Only a match with an undo pays for the walk (max() runs at C speed).
            self.undos() if self.actions and max(self.actions) > UNDO else (),
        ))
        self.hand_no += 1
        self.winner = match_winner(r, self.totals)
        self.phase = OVER if self.winner is not None else DEAL
        self.turn = _NO_SEAT
        return result

    def push(self, action: int) -> Event:
        """Apply one entry of a history (:attr:`actions`): a player's action, a deal from the
        seed or a concession.  Pushing a game's ``actions`` one by one into a new game with the
        same rules, seed, starting score and first dealer rebuilds it exactly; a table's stored
        journal is nothing more than that."""
        if action == DEAL_HAND:
            return self.deal()
        if action in (CONCEDE, CONCEDE + 1):
            return self.concede(action - CONCEDE)
        if CLAIM <= action < CLAIM + 4:
            return self.claim(action - CLAIM)
        if UNDO < action <= UNDO + UNDO_LIMIT:
            return self.undo(action - UNDO)
        if action in (DEAL_GIVEN, TRICKS_GIVEN):
            raise IllegalAction(
                f"{action_text(action)}: the cards or tricks were given, not dealt; "
                "rebuild this game from its record"
            )
        return self.apply(action)

    def concede(self, side: int) -> Event:
        """``side`` gives up: the other side wins at once."""
        if self.phase == OVER:
            raise IllegalAction("the match is over")
        if side not in (0, 1):
            raise IllegalAction(f"unknown side {side!r}")
        self.actions.append(CONCEDE + side)
        self.conceded = side
        self.winner = 1 - side
        self.phase = OVER
        self.turn = _NO_SEAT
        return Event("concede", side, -1, winner=self.winner)


    # -- undo and claims --------------------------------------------------------------------

    def _hand_start(self) -> int:
        """Where the hand in progress begins in :attr:`actions` (just after its deal)."""
        for i in range(len(self.actions) - 1, -1, -1):
            if self.actions[i] in (DEAL_HAND, DEAL_GIVEN):
                return i + 1
        return len(self.actions)

    def _walk_hand(self) -> tuple[list[int], list[tuple[int, tuple[int, ...]]]]:
        """(moves standing, undos) of the latest hand: its players' moves with every undo
        applied, and each undo as (moves standing before it, the moves it took back)."""
        moves: list[int] = []
        undos: list[tuple[int, tuple[int, ...]]] = []
        for action in self.actions[self._hand_start():]:
            if UNDO < action <= UNDO + UNDO_LIMIT:
                n = action - UNDO
                undos.append((len(moves) - n, tuple(moves[-n:])))
                del moves[-n:]
            elif action < DEAL_HAND:
                moves.append(action)
        return moves, undos

    def hand_moves(self) -> list[tuple[int, int, Phase]]:
        """(seat, action, phase) of every move standing in the hand in progress, oldest
        first: the blind nil choices, bids, passes and cards, without those an undo took back
        (the phase tells a card passed from a card played)."""
        if self.phase in (DEAL, OVER) or self.sheet:
            return []
        moves, _ = self._walk_hand()
        g = self._hand_at_start()
        out = []
        for action in moves:
            out.append((g.turn, action, g.phase))
            g.apply(action)
        return out

    def undos(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """The undos of the hand in progress (or the one just finished): for each, how many
        moves stood before it and the moves it took back, for the record."""
        return tuple(self._walk_hand()[1])

    def _hand_at_start(self) -> Game:
        """A copy of this game as the hand in progress was dealt (nothing bid or played)."""
        g = self.copy()
        g._start_hand(self.dealer, self.dealt, sheet=False)
        return g

    def undo(self, count: int) -> Event:
        """Take back the last ``count`` moves of the hand in progress.

        The hand is rebuilt from its deal by applying the moves that stay, so the position is
        exactly the one those moves made (the engine's own rules, no bookkeeping in reverse);
        the history keeps the moves taken back and ends with ``UNDO + count``, so pushing the
        history into a new game rebuilds this one, undos and all.  A hand that is finished
        (its score is in the totals) or a score-sheet hand cannot be taken back.  The event's
        seat is the one whose turn it is again.
        """
        if self.phase in (DEAL, OVER) or self.sheet:
            why = ("the match is over" if self.phase == OVER else
                   "a score-sheet hand has no moves" if self.sheet else
                   "the hand is over: a scored hand cannot be taken back")
            raise IllegalAction(f"nothing to undo: {why}")
        moves, _ = self._walk_hand()
        if not isinstance(count, int) or not 1 <= count <= min(len(moves), UNDO_LIMIT):
            raise IllegalAction(
                f"cannot take back {count!r} moves: {len(moves)} stand in this hand"
            )
        g = self._hand_at_start()
        for action in moves[:-count]:
            g.apply(action)
        history = [*self.actions, UNDO + count]
        for name in Game.__slots__:
            setattr(self, name, getattr(g, name))
        self.actions = history
        return Event("undo", self.turn, UNDO + count)

    def claim_seat(self, seat: int) -> int:
        """The seat credited with the tricks ``seat`` claims: itself, or its partner when
        ``seat`` bid nil and the partner did not (a nil bidder claims for the partner)."""
        if self.bids[seat] == 0 and self.bids[seat ^ 2] != 0:
            return seat ^ 2
        return seat

    def claim(self, seat: int) -> Event:
        """``seat`` claims every remaining trick for its side, and the claim is checked.

        The check is double dummy, on the true cards (see :func:`varaq.claims.why_wrong`): the
        claim holds only if the side takes every trick left whatever the defence does; if not,
        :class:`IllegalAction` says why and nothing changes.  An accepted claim credits the
        tricks left (the one in progress included) to :meth:`claim_seat` and ends the hand,
        which is scored as usual.
        """
        from .claims import why_wrong  # the solver sits above the engine

        why = why_wrong(self, seat)
        if why:
            raise IllegalAction(why)
        credited = self.claim_seat(seat)
        self.actions.append(CLAIM + seat)
        self.taken[credited] += 13 - len(self.tricks)
        hand = self._finish_hand(claim=seat)
        return Event("claim", seat, CLAIM + seat, None, hand, self.winner)

    # -- reasons ----------------------------------------------------------------------------

    def _not_your_turn(self, seat: int) -> str:
        who = SEAT_LETTERS[seat] if 0 <= seat < 4 else repr(seat)
        if self.turn == _NO_SEAT:
            return f"it is nobody's turn: {self._idle_reason()}"
        verb = {BLIND: "choose", BIDDING: "bid", EXCHANGE: "pass", PLAY: "play"}[self.phase]
        return f"not {who}'s turn: {SEAT_LETTERS[self.turn]} is to {verb}"

    def _idle_reason(self) -> str:
        if self.phase == OVER:
            return "the match is over"
        if self.phase == PLAY and self.sheet:
            return "this score-sheet hand waits for its tricks"
        return "the hand is over; the next hand has not been dealt"

    def why_illegal(self, action: int) -> str:
        """The reason ``action`` is refused now (``""`` if it is legal)."""
        if action in self.legal_actions():
            return ""
        if not isinstance(action, int) or not (0 <= action < 54 or BID <= action <= LOOK):
            return f"unknown action {action!r}"
        if self.turn == _NO_SEAT or (self.phase == PLAY and self.sheet):
            verb = f"play {action_text(action)}" if 0 <= action < 54 else action_text(action)
            return f"cannot {verb}: {self._idle_reason()}"
        who = SEAT_LETTERS[self.turn]
        text = action_text(action)
        phase = self.phase
        if action == BLIND_NIL and phase != BLIND:
            why = self.blind_eligible(self.turn) if phase == BIDDING else ""
            if not why:
                why = "blind nil is chosen before looking at the cards"
            return f"blind nil by {who} refused: {why}"
        if phase == BLIND:
            return f"{who} must first choose blind nil or look at the cards, not {text}"
        if phase == BIDDING:
            if not BID <= action <= BID + 13:
                return f"{who} must bid now, not {text}"
            value = action - BID
            if value == 0:
                return f"{who} cannot bid nil: nil is not played at this table"
            mate = self.bids[self.turn ^ 2]
            need = self.rules.min_team_bid
            return (
                f"{who} cannot bid {value}: {SIDE_NAMES[self.turn & 1]}'s bid must reach {need}"
                f" (partner bid {mate})"
            )
        if not 0 <= action < 54:
            verb = "pass" if phase == EXCHANGE else "play"
            return f"{who} must {verb} a card now, not {text}"
        card = card_text(action)
        hand = self.hands[self.turn]
        if not hand >> action & 1:
            return f"{who} does not hold {card}"
        if phase == EXCHANGE:
            return f"{who} has already chosen {card} to pass"
        if self.trick:
            led = SUIT_OF[self.trick[0]]
            return f"{who} cannot play {card}: must follow {SUIT_NAMES[led]}"
        if not self.tricks and self.rules.two_clubs_leads:
            return f"{who} cannot lead {card}: the 2C leads the first trick"
        return f"{who} cannot lead {card}: spades are not broken"

    # -- copies and views -------------------------------------------------------------------

    def copy(self) -> Game:
        """An independent copy: changing one never changes the other."""
        g = Game.__new__(Game)
        g.rules = self.rules
        g.seed = self.seed
        g._power = self._power
        g._deck = self._deck
        g._deck_cards = self._deck_cards
        g.totals = self.totals[:]
        g.bags = self.bags[:]
        g.start_totals = self.start_totals
        g.start_bags = self.start_bags
        g.log = self.log[:]
        g.hand_no = self.hand_no
        g.dealer = self.dealer
        g.first_dealer = self.first_dealer
        g.phase = self.phase
        g.turn = self.turn
        g.hands = self.hands[:]
        g.dealt = self.dealt
        g.bids = self.bids[:]
        g.blind = self.blind[:]
        g.blind_queue = self.blind_queue[:]
        g.exchange_queue = self.exchange_queue[:]
        g.passing = self.passing
        g.exchanged = self.exchanged[:]
        g.trick = self.trick[:]
        g.leader = self.leader
        g.tricks = self.tricks[:]
        g.taken = self.taken[:]
        g.broken = self.broken
        g.played = self.played
        g.winner = self.winner
        g.conceded = self.conceded
        g.sheet = self.sheet
        g.actions = self.actions[:]
        return g

    def view(self, seat: int) -> View:
        """What ``seat`` may know now, and nothing more."""
        return build_view(self, seat)

    @classmethod
    def from_view(cls, view: View, hands: Sequence[int]) -> Game:
        """A game in the same public position as ``view`` with the given current holdings.

        This is how a bot "deals out" the cards it cannot see to try a layout: ``hands`` holds
        all four seats' cards now (the viewer's own must match the view).  Only the bid and play
        phases can be rebuilt; the exchange is decided without search.
        """
        if view.phase not in ("bid", "play"):
            raise IllegalAction(f"cannot rebuild a game in the {view.phase} phase")
        if hands[view.seat] != view.hand:
            raise IllegalAction("the layout changes the viewer's own cards")
        g = cls(view.rules, seed=0, totals=view.totals, bags=view.bags, dealer=view.dealer)
        g.hand_no = view.hand_no - 1
        g.phase = BIDDING if view.phase == "bid" else PLAY
        g.turn = view.turn if view.turn is not None else _NO_SEAT
        g.hands = list(hands)
        g.bids = [-1 if b is None else b for b in view.bids]
        g.blind = list(view.blind)
        g.tricks = list(view.tricks)
        g.taken = list(view.taken)
        g.trick = [card for _, card in view.trick]
        g.leader = view.leader if view.leader is not None else _NO_SEAT
        g.broken = view.broken
        g.played = view.played
        g.dealt = (hands[0], hands[1], hands[2], hands[3])
        return g

