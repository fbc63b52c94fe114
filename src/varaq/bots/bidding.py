"""Trick estimation for a hand of cards: how many tricks it takes, and how risky a nil it makes.

Both numbers come from the classic hand-evaluation rules players learn, written as arithmetic
on the hand's mask so that they are cheap and explainable:

- a card wins when the cards above it that are still out can be drawn first, which needs
  enough cards below it in the same suit to wait (an ace is a trick, a king with one guard is
  about half of one, a bare king rarely is);
- a side-suit winner that needs many rounds is likely cut, so long suits are discounted;
- spades beyond the third are tricks by length; low spades also win by cutting the suits this
  hand is short in, and a spade cannot do both, so the better of the two is counted;
- a nil is risky for every high card without low cards of its suit to hide behind, every high
  spade, and every spade beyond the third.

>>> from varaq.cards import parse_hand
>>> round(estimate_tricks(parse_hand("AS KS QS AH AD AC 2H 3H 4D 5D 6C 7C 8C"), False))
6
>>> nil_danger(parse_hand("2S 3H 4H 5H 2D 6D 7D 3C 4C 8C 9C 5S 9H")) < 0.6
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..cards import JOKER_DECK, RANK_OF, SPADE_MASK, SPADES, STANDARD_DECK, SUIT_MASKS
from .knowledge import ABOVE, ORDER

__all__ = ["estimate_tricks", "estimate_parts", "Part", "nil_danger", "suit_lengths", "top_trump"]

#: Chance that a side-suit card with ``k`` higher cards out (and enough guards) wins a trick.
_HIGH_VALUE = (1.0, 0.55, 0.22)
#: Chance that a spade with ``k`` higher spades out (and enough guards) wins a trick.
_SPADE_VALUE = (1.0, 0.85, 0.6, 0.35)
#: Tricks per spade above (or below) three, on top of the card-by-card count.
_SPADE_LENGTH_WEIGHT = 0.25
#: Cuts a side suit of length 0, 1, 2, 3+ offers to a hand with spare spades.
_CUTS_BY_LENGTH = (2.0, 1.0, 0.5, 0.0)


def suit_lengths(hand: int) -> tuple[int, int, int, int]:
    """Cards held in each suit (clubs, diamonds, hearts, spades with the jokers)."""
    return (
        (hand & SUIT_MASKS[0]).bit_count(),
        (hand & SUIT_MASKS[1]).bit_count(),
        (hand & SUIT_MASKS[2]).bit_count(),
        (hand & SUIT_MASKS[3]).bit_count(),
    )


def top_trump(jokers: bool) -> int:
    """The highest trump of the deck: A♠, or the big joker."""
    return 53 if jokers else 51


@lru_cache(maxsize=1 << 17)
def _cards_high_first(mask: int, jokers: bool) -> tuple[int, ...]:
    """The cards of ``mask`` (one suit's) from the highest.  Cached: a suit has only 2^13
    holdings (2^15 for spades with the jokers), and the layouts' estimates ask for them
    hundreds of thousands of times a minute."""
    order = ORDER[jokers]
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    cards.sort(key=lambda c: -order[c])
    return tuple(cards)


@lru_cache(maxsize=8192)
def estimate_tricks(hand: int, jokers: bool = False) -> float:
    """Tricks this hand should take when its side plays for tricks (a float, not rounded).

    Cached: the Hard player's simulated bidding asks it of the same layout's hands once per
    candidate bid."""
    return max(0.0, min(sum(part.tricks for part in estimate_parts(hand, jokers)), 13.0))


@dataclass(frozen=True, slots=True)
class Part:
    """One reason in a trick estimate: what it is, the cards it rests on, what it is worth."""

    #: ``side`` (a side-suit winner), ``trump`` (a spade winning on its rank), ``length``
    #: (low spades winning by length), ``ruff`` (low spades cutting short suits), ``low``
    #: (low spades kept at their rank value), ``spade_count`` (the adjustment for how many
    #: spades the hand holds).
    kind: str
    cards: tuple[int, ...]
    tricks: float
    #: For ``ruff``: the short suits.
    suits: tuple[int, ...] = ()


def estimate_parts(hand: int, jokers: bool = False) -> list[Part]:
    """The estimate of :func:`estimate_tricks`, reason by reason (they add up to it, before
    it is kept between 0 and 13): the Hint's bid advice names them."""
    deck = JOKER_DECK if jokers else STANDARD_DECK
    out = deck & ~hand
    above = ABOVE[jokers]
    lengths = suit_lengths(hand)
    parts: list[Part] = []
    for suit in (0, 1, 2):
        length = lengths[suit]
        # Rounds the suit survives before somebody can cut it, on average.
        safe_rounds = (13 - length) / 3
        for i, card in enumerate(_cards_high_first(hand & SUIT_MASKS[suit], jokers)):
            k = (above[card] & out).bit_count()
            if k >= len(_HIGH_VALUE) or (k == 2 and length < 3):
                continue  # too many cards above it, or too few guards to wait for them
            value = _HIGH_VALUE[k]
            if k == 1 and length == 1:
                value = 0.1  # a bare king falls under the ace
            if i + 1 > safe_rounds + 0.5:
                value *= 0.3
            parts.append(Part("side", (card,), value))
    spades = _cards_high_first(hand & SPADE_MASK, jokers)
    n = len(spades)
    # A spade worth less than half a trick on its rank is a "low" spade: it wins by length or
    # by cutting instead, and each low spade is counted one way only.
    low_cards: list[tuple[float, int]] = []
    for card in spades:
        k = (above[card] & out).bit_count()
        value = _SPADE_VALUE[k] if k < len(_SPADE_VALUE) and n > k else 0.0
        if value >= 0.5:
            parts.append(Part("trump", (card,), value))
        else:
            low_cards.append((value, card))
    low_cards.sort()
    low_values = [v for v, _ in low_cards]
    low = len(low_values)
    short = tuple(s for s in (0, 1, 2) if lengths[s] < 3)
    shortness = sum(_CUTS_BY_LENGTH[min(lengths[s], 3)] for s in (0, 1, 2))
    best, how, used_best = sum(low_values), "low", 0.0
    # Length tricks start after a fair share of the deck's spades: 3 of 13, 4 of 15 (jokers).
    long_from = 4 if jokers else 3
    for kind, rate, used in (("length", 0.8, min(low, max(0, n - long_from))),
                             ("ruff", 0.75, min(float(low), shortness))):
        # The lowest spades do the length or cutting work; the others keep their rank value.
        value = rate * used + sum(low_values[int(used + 0.5):])
        if value > best:
            best, how, used_best = value, kind, used
    if low_cards:
        working = tuple(card for _, card in low_cards[:int(used_best + 0.5)])
        rest = low_cards[int(used_best + 0.5):]
        if how != "low" and working:
            parts.append(Part(how, working, best - sum(v for v, _ in rest),
                              short if how == "ruff" else ()))
        kept = [(v, c) for v, c in (low_cards if how == "low" else rest) if v > 0]
        if kept:
            parts.append(Part("low", tuple(c for _, c in kept), sum(v for v, _ in kept)))
    # Spade length decides who controls the hand beyond what the cards above count: a hand
    # short in spades sees its side winners cut, a long one makes extra tricks late.  Measured
    # on Normal's self-play, each spade above or below three is worth about a quarter trick.
    parts.append(Part("spade_count", tuple(spades),
                      _SPADE_LENGTH_WEIGHT * (n - (3.5 if jokers else 3))))
    return parts


@lru_cache(maxsize=8192)
def nil_danger(hand: int, jokers: bool = False) -> float:
    """About how many tricks this hand would be forced to take while trying to take none.

    Below ~0.6 a nil is sound; above ~1 it is a gamble.  A hand with the top trump is never a
    nil (the top trump wins whenever it is played), which callers check separately.
    """
    deck = JOKER_DECK if jokers else STANDARD_DECK
    out = deck & ~hand
    above = ABOVE[jokers]
    danger = 0.0
    lengths = suit_lengths(hand)
    for suit in (0, 1, 2):
        cards = _cards_high_first(hand & SUIT_MASKS[suit], jokers)
        length = len(cards)
        for i, card in enumerate(cards):
            lower = length - 1 - i  # cards of the suit below this one: cover to play under
            rank = RANK_OF[card]
            risk = max(0.0, (rank - 6 - 2 * lower) / 6)
            if not (above[card] & out):
                risk = max(risk, 0.35)  # a master can still be forced late in the hand
            danger += min(risk, 1.0)
    spades = _cards_high_first(hand & SPADE_MASK, jokers)
    n = lengths[SPADES]
    for card in spades:
        k = (above[card] & out).bit_count()
        danger += max(0.0, 1.0 - k / 4)
    danger += 0.6 * max(0, n - 3)
    return danger
