"""A lesson's position, written as a person sets up a table, made into a real game record.

A lesson author thinks "West leads the K♥, North and East follow, you hold these cards", or
"three cards left, spades never played, you are on lead".  :class:`Setup` says exactly that —
the hands as they are now, the trick so far, the bids, the tricks each seat has taken — and
:func:`build` turns it into a ``varaq-record/1`` document that the engine replays card by card
(:func:`varaq.record.load_record`).  So every lesson position is a position the rules can
reach, and the game the learner sees is the engine's own, not a drawing of one.

Two things the author leaves out are filled in:

- **the other hands** at the first trick: the cards nobody was given are dealt round the seats
  that were not given (a seat that did not follow the suit led gets none of that suit);
- **the earlier tricks** of a later position: the cards no longer in anyone's hand are arranged
  into legal tricks whose winners match ``taken`` and end with the current leader (a small
  backward search, seeded, so the same setup always gives the same record).  A later position
  names all four hands, so that nothing the lesson talks about is left to chance.

(Issue 11 expects lesson positions to move to the one-line position format of
``varaq.position`` once it exists; until then they are kept here.)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..cards import (
    JOKER_DECK,
    SPADE_MASK,
    SPADES,
    STANDARD_DECK,
    SUIT_MASKS,
    SUIT_OF,
    card_list,
    card_text,
    hand_text,
    parse_hand,
    trick_power,
)
from ..engine import Game
from ..record import load_record
from ..rules import Rules
from ..seats import SEAT_LETTERS, parse_seat

__all__ = ["Setup", "SetupError", "build"]

#: Search nodes one attempt at arranging the earlier tricks may take, and the attempts (each
#: with other random choices) before the setup is refused.
HISTORY_NODES = 2_000
HISTORY_ATTEMPTS = 200


class SetupError(ValueError):
    """A setup that cannot be made into a legal position; the message says what is wrong."""


@dataclass(frozen=True)
class Setup:
    """A position as a lesson writes it (seats as letters, cards as text)."""

    #: A preset name or a rules spec, as in a record.
    rules: str | Mapping[str, Any] = "classic"
    dealer: str = "E"
    #: Each seat's cards now, after its card in the current trick (if any) has been played.
    hands: Mapping[str, str] = field(default_factory=dict)
    #: The bids made so far (as in a record: a number, ``"nil"`` or ``"blind"``).
    bids: Mapping[str, int | str] = field(default_factory=dict)
    #: The cards of the trick in progress, from its leader.
    trick: str = ""
    #: Who leads the trick in progress (default: the first leader, at the first trick).
    leader: str | None = None
    #: Tricks each seat won before the trick in progress.
    taken: Mapping[str, int] = field(default_factory=dict)
    #: Cards passed so far in a blind nil exchange, by seat.
    exchange: Mapping[str, str] = field(default_factory=dict)
    #: The score before the hand, as a record's ``start``.
    totals: Mapping[str, int] = field(default_factory=dict)
    bags: Mapping[str, int] = field(default_factory=dict)

    def rules_value(self) -> Rules:
        return Rules.from_spec(dict(self.rules) if isinstance(self.rules, Mapping)
                               else self.rules)


def build(setup: Setup, seed: str = "lesson") -> tuple[dict[str, Any], Game]:
    """The record of ``setup`` and the game it replays to (a :class:`SetupError` if none)."""
    rules = setup.rules_value()
    deck = JOKER_DECK if rules.jokers else STANDARD_DECK
    first_leader = (parse_seat(setup.dealer) + 1) & 3
    done = sum(setup.taken.get(s, 0) for s in SEAT_LETTERS)
    leader = parse_seat(setup.leader) if setup.leader else first_leader
    if not done and leader != first_leader:
        raise SetupError("at the first trick the leader is the dealer's left-hand player")
    trick = card_list_in_order(setup.trick)
    in_trick = [0, 0, 0, 0]
    for i, card in enumerate(trick):
        in_trick[(leader + i) & 3] = 1 << card
    hands = _given_hands(setup, in_trick, 13 - done)
    used = 0
    for mask in (*in_trick, *(h for h in hands if h is not None)):
        used |= mask
    if used & ~deck:
        raise SetupError(f"cards not in this deck: {hand_text(used & ~deck)}")
    rng = random.Random(seed)
    history: list[list[tuple[int, int]]] = []
    if done:
        if rules.two_clubs_leads:
            raise SetupError("later positions with 2♣ leads are not supported")
        known = [h for h in hands if h is not None]
        if len(known) < 4:
            raise SetupError("a position after the first trick names all four hands")
        now = [h | in_trick[s] for s, h in enumerate(known)]
        history = _history(now, deck & ~used, first_leader, leader, setup, rules, rng)
    else:
        now = _fill(hands, in_trick, deck & ~used, trick, 13, rng)
    for t in history:
        for seat, card in t:
            now[seat] |= 1 << card
    doc = _record(setup, now, [card for t in history for _, card in t] + trick)
    return doc, load_record(doc)


def _given_hands(setup: Setup, in_trick: list[int], size: int) -> list[int | None]:
    """The hands the setup names (None for the others), each checked for its size and for
    cards given twice."""
    hands: list[int | None] = [None, None, None, None]
    used = in_trick[0] | in_trick[1] | in_trick[2] | in_trick[3]
    for letter, text in setup.hands.items():
        seat = parse_seat(letter)
        hand = parse_hand(text)
        if hand & used:
            raise SetupError(f"{letter}'s cards repeat a card given elsewhere: "
                             f"{hand_text(hand & used)}")
        want = size - (1 if in_trick[seat] else 0)
        if hand.bit_count() != want:
            raise SetupError(f"{letter} holds {hand.bit_count()} cards; {want} expected here")
        hands[seat] = hand
        used |= hand
    return hands


def _record(setup: Setup, deal: list[int], plays: list[int]) -> dict[str, Any]:
    """A one-hand ``varaq-record/1`` document that stops where the setup's position is."""
    hand: dict[str, Any] = {
        "dealer": setup.dealer,
        "deal": {SEAT_LETTERS[s]: hand_text(deal[s]) for s in range(4)},
        "bids": dict(setup.bids),
    }
    if setup.exchange:
        hand["exchange"] = dict(setup.exchange)
    if plays:
        hand["plays"] = " ".join(card_text(c) for c in plays)
    doc: dict[str, Any] = {
        "format": "varaq-record/1",
        "rules": dict(setup.rules) if isinstance(setup.rules, Mapping) else setup.rules,
        "hands": [hand],
    }
    if setup.totals or setup.bags:
        doc["start"] = {"total": {"NS": 0, "EW": 0, **setup.totals},
                        "bags": {"NS": 0, "EW": 0, **setup.bags}}
    return doc


def card_list_in_order(text: str) -> list[int]:
    """Cards in the order written (``parse_hand`` would sort them)."""
    return [card_list(parse_hand(word))[0] for word in text.split()]


def _fill(hands: list[int | None], in_trick: list[int], rest: int, trick: list[int],
          size: int, rng: random.Random) -> list[int]:
    """Deal ``rest`` to the seats not given, at the first trick; returns every seat's cards at
    the start of the trick (its card in the trick included)."""
    open_seats = [s for s in range(4) if hands[s] is None]
    want = {s: size - (1 if in_trick[s] else 0) for s in open_seats}
    if sum(want.values()) != rest.bit_count():
        raise SetupError(f"{rest.bit_count()} cards are left for seats that need "
                         f"{sum(want.values())}")
    led = SUIT_OF[trick[0]] if trick else None
    # A seat that did not follow the suit led holds none of it.
    void = {s: led is not None and bool(in_trick[s]) and not in_trick[s] & SUIT_MASKS[led]
            for s in open_seats}
    cards = card_list(rest)
    rng.shuffle(cards)
    # The suit a void seat cannot take goes first, to the seats that may hold it.
    cards.sort(key=lambda c: SUIT_OF[c] != led)
    out = {s: 0 for s in open_seats}
    for card in cards:
        takers = [s for s in open_seats if out[s].bit_count() < want[s]
                  and not (void[s] and SUIT_OF[card] == led)]
        if not takers:
            raise SetupError(f"no seat can take {card_text(card)} (voids in the trick)")
        seat = min(takers, key=lambda s: (out[s].bit_count() - want[s], s))
        out[seat] |= 1 << card
    return [(out[s] if hand is None else hand) | in_trick[s] for s, hand in enumerate(hands)]


class _GiveUp(Exception):
    """One attempt of the search took too long; the next starts with other choices."""


class _Search:
    """The backward search for earlier tricks (see the module docstring)."""

    def __init__(self, rules: Rules, first_leader: int, rng: random.Random) -> None:
        self.power = trick_power(rules.jokers)
        self.first_leader = first_leader
        self.rng = rng
        self.nodes = 0

    def run(self, hands: list[int], pool: int, winner: int, counts: list[int], t: int
            ) -> list[list[tuple[int, int]]] | None:
        """Tricks 1..t (in order) that leave ``hands`` after trick t, from the cards of
        ``pool``; trick t is won by ``winner``; ``counts`` tricks per seat are still to win."""
        if t == 0:
            return [] if not pool else None
        self.nodes += 1
        if self.nodes > HISTORY_NODES:
            raise _GiveUp
        if counts[winner] == 0:
            return None
        counts[winner] -= 1
        leaders = [self.first_leader] if t == 1 else [s for s in range(4) if counts[s]]
        self.rng.shuffle(leaders)
        for lead in leaders:
            for trick in self._tricks(hands, pool, lead, winner):
                cards = 0
                after = hands[:]
                for seat, card in trick:
                    cards |= 1 << card
                    after[seat] |= 1 << card
                earlier = self.run(after, pool & ~cards, lead, counts, t - 1)
                if earlier is not None:
                    counts[winner] += 1
                    return [*earlier, trick]
        counts[winner] += 1
        return None

    def _tricks(self, hands: list[int], pool: int, lead: int, winner: int
                ) -> Iterator[list[tuple[int, int]]]:
        """Candidate tricks led by ``lead`` and won by ``winner``, a few per suit led."""
        suits = [s for s in range(4) if pool & SUIT_MASKS[s]]
        self.rng.shuffle(suits)
        # Spades are led late (the search goes backwards, so first): the first spade of a hand
        # has to be a cut, which leaves few spades for the early tricks.
        suits.sort(key=lambda s: s != SPADES or (pool & SPADE_MASK).bit_count() < 4)
        for suit in suits:
            for card in self._pick(pool & SUIT_MASKS[suit], 2):
                trick = self._complete(hands, pool & ~(1 << card), lead, card, winner)
                if trick is None:
                    continue
                if suit == SPADES:
                    earlier = pool
                    for _, c in trick:
                        earlier &= ~(1 << c)
                    only_spades = not (hands[lead] | 1 << card) & ~SPADE_MASK
                    if not earlier & SPADE_MASK and not only_spades:
                        continue  # a spade is led only once broken, or from a spades-only hand
                yield trick

    def _complete(self, hands: list[int], pool: int, lead: int, led_card: int, winner: int
                  ) -> list[tuple[int, int]] | None:
        row = self.power[SUIT_OF[led_card]]
        led = SUIT_MASKS[SUIT_OF[led_card]]
        trick = [(lead, led_card)]
        top = row[led_card]
        for i in (1, 2, 3):
            seat = (lead + i) & 3
            # A seat may show out only if it holds none of the suit led at that time.
            options = card_list(pool & led)
            if not hands[seat] & led:
                options += card_list(pool & ~led)
            if seat == winner:
                options.sort(key=lambda c: -row[c])
                if not options or row[options[0]] <= top:
                    return None
                card = options[0]
            else:
                under = [c for c in options if row[c] < top]
                if not under:
                    return None
                card = self.rng.choice(under[:3])
            top = max(top, row[card])
            pool &= ~(1 << card)
            trick.append((seat, card))
        return trick if self._wins(trick, winner) else None

    def _wins(self, trick: list[tuple[int, int]], winner: int) -> bool:
        row = self.power[SUIT_OF[trick[0][1]]]
        return max(trick, key=lambda sc: row[sc[1]])[0] == winner

    def _pick(self, mask: int, n: int) -> list[int]:
        cards = card_list(mask)
        self.rng.shuffle(cards)
        return cards[:n]


def _history(now: list[int], pool: int, first_leader: int, leader: int, setup: Setup,
             rules: Rules, rng: random.Random) -> list[list[tuple[int, int]]]:
    counts = [setup.taken.get(SEAT_LETTERS[s], 0) for s in range(4)]
    done = sum(counts)
    if pool.bit_count() != 4 * done:
        raise SetupError(f"{pool.bit_count()} cards were played before, not {4 * done}")
    for _ in range(HISTORY_ATTEMPTS):
        search = _Search(rules, first_leader, rng)
        try:
            found = search.run(now[:], pool, leader, counts[:], done)
        except _GiveUp:
            continue
        if found is not None:
            return found
    raise SetupError("no legal earlier tricks found for this position")
