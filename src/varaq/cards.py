"""Cards, decks and hands as bit masks.

A card is an ``int`` from 0 to 53 so that the engine's hot paths stay on integer arithmetic:
``suit * 13 + rank`` for the 52 ordinary cards (suits clubs, diamonds, hearts, spades; ranks
2 to ace as 0 to 12), then ``LJ`` (52) and ``BJ`` (53).  A set of cards — a hand, the cards
played, a suit — is an ``int`` bit mask with bit ``card`` set.

The jokers are spades for every purpose (following, leading, breaking), so they belong to
``SUIT_MASKS[SPADES]``.  Their order among the trumps, and the promotion of the 2♠ above the
ace in the Big Joker Little Joker game, is a property of the rules, so it lives in
:func:`trump_order` rather than in the card numbers.

>>> parse_card("10d") == parse_card("TD")
True
>>> card_text(parse_card("q♠"))
'QS'
>>> hand_text(parse_hand("AS KS 2C"))
'AS KS 2C'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = [
    "CLUBS", "DIAMONDS", "HEARTS", "SPADES", "SUITS", "SUIT_LETTERS", "SUIT_NAMES",
    "RANK_LETTERS", "RANK_NAMES", "LJ", "BJ", "TWO_CLUBS", "TWO_HEARTS", "TWO_SPADES",
    "ACE_SPADES", "SUIT_OF", "RANK_OF", "SUIT_MASKS", "SPADE_MASK", "STANDARD_DECK",
    "JOKER_DECK", "CARD_WORDS", "CardError", "parse_card", "card_text", "card_unicode", "card_name",
    "parse_hand", "hand_text", "cards_of", "mask_of", "count", "trump_order", "sort_key",
    "trick_power", "card_list",
]

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_LETTERS = "23456789TJQKA"
RANK_NAMES = (
    "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten",
    "Jack", "Queen", "King", "Ace",
)

LJ = 52
BJ = 53
TWO_CLUBS = 0
TWO_HEARTS = 2 * 13
TWO_SPADES = 3 * 13
ACE_SPADES = 3 * 13 + 12

#: Suit of each card number; the jokers are spades.
SUIT_OF: tuple[int, ...] = tuple([c // 13 for c in range(52)] + [SPADES, SPADES])
#: Rank 0 (two) to 12 (ace) of each card; the jokers rank above the ace (13 little, 14 big).
RANK_OF: tuple[int, ...] = tuple([c % 13 for c in range(52)] + [13, 14])

_SUIT_BITS = (1 << 13) - 1
SUIT_MASKS: tuple[int, ...] = (
    _SUIT_BITS,
    _SUIT_BITS << 13,
    _SUIT_BITS << 26,
    (_SUIT_BITS << 39) | (1 << LJ) | (1 << BJ),
)
SPADE_MASK = SUIT_MASKS[SPADES]
STANDARD_DECK = (1 << 52) - 1
#: Big Joker Little Joker: the 2♣ and 2♥ leave, the two jokers come in; still 52 cards.
JOKER_DECK = (STANDARD_DECK & ~(1 << TWO_CLUBS) & ~(1 << TWO_HEARTS)) | (1 << LJ) | (1 << BJ)

#: Every way a rank, a suit and a joker may be written on input, by the card number part it
#: stands for: ranks as letters or digits in either case (``10`` for ``T``), suits as letters in
#: either case or as a filled or open symbol.
_RANK_WORDS = {
    **{letter: rank for rank, letter in enumerate(RANK_LETTERS)},
    **{letter.lower(): rank for rank, letter in enumerate(RANK_LETTERS)},
    "10": RANK_LETTERS.index("T"),
}
_SUIT_WORDS = {
    **{letter: suit for suit, letter in enumerate(SUIT_LETTERS)},
    **{letter.lower(): suit for suit, letter in enumerate(SUIT_LETTERS)},
    **{symbol: suit for suit, symbol in enumerate(SUIT_SYMBOLS)},
    **{symbol: suit for suit, symbol in enumerate("♧♢♡♤")},
}
_JOKER_WORDS = {a + b: joker for joker, word in ((BJ, "BJ"), (LJ, "LJ"))
                for a in (word[0], word[0].lower()) for b in ("J", "j")}
#: Card text -> card number for every accepted spelling (about 300 words), so that reading a
#: card is one dictionary lookup: a record of a long match reads a million cards.
CARD_WORDS: dict[str, int] = {
    **{rank_word + suit_word: suit * 13 + rank
       for rank_word, rank in _RANK_WORDS.items()
       for suit_word, suit in _SUIT_WORDS.items()},
    **_JOKER_WORDS,
}


class CardError(ValueError):
    """Raised for text that does not name a card (or names one twice)."""


def trump_order(jokers: bool) -> tuple[int, ...]:
    """Strength of each card as a trump: 0 for non-spades, 1 upwards for spades.

    Standard deck: 2♠ (1) … A♠ (13).  Jokers deck: 3♠ (2) … A♠ (13), 2♠ (14), LJ (15), BJ (16).
    """
    order = [0] * 54
    for rank in range(13):
        order[TWO_SPADES + rank] = rank + 1
    if jokers:
        order[TWO_SPADES] = 14
        order[LJ] = 15
        order[BJ] = 16
    return tuple(order)


def trick_power(jokers: bool) -> tuple[tuple[int, ...], ...]:
    """``power[led][card]``: how strong ``card`` is in a trick led in suit ``led``.

    Trumps (100 and up) beat everything, a card of the led suit (1-13) beats the off-suit cards
    (0), which never win.  One table per led suit turns "who won the trick" into four lookups;
    the engine and the solver share it so they can never disagree about a trick.
    """
    trump = trump_order(jokers)
    tables = []
    for led in range(4):
        row = []
        for card in range(54):
            if trump[card]:
                row.append(100 + trump[card])
            elif SUIT_OF[card] == led:
                row.append(1 + RANK_OF[card])
            else:
                row.append(0)
        tables.append(tuple(row))
    return tuple(tables)


def parse_card(text: str) -> int:
    """Read one card: ``AS``, ``td``, ``10D``, ``Q♠``, ``BJ`` or ``LJ``.

    Raises :class:`CardError` with a one-line reason for anything else.
    """
    card = CARD_WORDS.get(text)
    if card is None:
        card = CARD_WORDS.get(text.strip())
        if card is None:
            raise CardError(f"unknown card {text.strip()!r}")
    return card


def card_text(card: int) -> str:
    """The canonical two-letter text of a card (``T`` for ten, upper case)."""
    if card == BJ:
        return "BJ"
    if card == LJ:
        return "LJ"
    return RANK_LETTERS[card % 13] + SUIT_LETTERS[card // 13]


def card_unicode(card: int) -> str:
    """A card with its suit symbol, for people: ``10♥``, ``A♠``, ``BJ``."""
    if card >= 52:
        return card_text(card)
    rank = RANK_LETTERS[card % 13]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // 13]


def card_name(card: int) -> str:
    """The spoken name of a card, used for accessible labels: ``Queen of hearts``."""
    if card == BJ:
        return "Big joker"
    if card == LJ:
        return "Little joker"
    return f"{RANK_NAMES[card % 13]} of {SUIT_NAMES[card // 13]}"


def cards_of(mask: int) -> Iterator[int]:
    """The cards of a mask, lowest card number first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def card_list(mask: int) -> list[int]:
    """The cards of a mask as a list, lowest card number first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    """The mask holding ``cards``."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def count(mask: int) -> int:
    """How many cards a mask holds."""
    return mask.bit_count()


def sort_key(card: int) -> tuple[int, int]:
    """Display order: spades, hearts, clubs, diamonds (colours alternate), high to low."""
    suit_rank = {SPADES: 0, HEARTS: 1, CLUBS: 2, DIAMONDS: 3}[SUIT_OF[card]]
    return (suit_rank, -RANK_OF[card])


def parse_hand(text: str) -> int:
    """Read space-separated cards into a mask; a card named twice is an error."""
    mask = 0
    for word in text.replace(",", " ").split():
        card = parse_card(word)
        if mask >> card & 1:
            raise CardError(f"card {card_text(card)} appears twice")
        mask |= 1 << card
    return mask


def hand_text(mask: int) -> str:
    """Cards of a mask as text in display order (spades first, high to low)."""
    return " ".join(card_text(c) for c in sorted(cards_of(mask), key=sort_key))
