"""The bid advisor's words: where a hand's tricks come from, as a player would count them.

The Hint during bidding says what bid the Hard player would make, and why — not as a search
statistic but the way a player counts a hand: "4: two sure spade tricks (A♠ K♠), the A♦, and
one likely club ruff".  The counting is :func:`~.bidding.estimate_parts`, the same arithmetic
the computer players bid from, so the words never disagree with the numbers.

>>> from varaq.cards import parse_hand
>>> trick_reasons(parse_hand("AS KS 5S 4S AD 7D 6D 3H 9H 8H 2H QC 4C"), jokers=False)
'two sure spade tricks (A♠ K♠), the A♦, and one long-spade trick'
"""

from __future__ import annotations

from ..cards import RANK_OF, SUIT_NAMES, card_unicode
from .bidding import Part, estimate_parts

__all__ = ["trick_reasons", "bid_advice"]

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
#: A card is "sure" at this share of a trick, "likely" from the second.
SURE, LIKELY = 0.85, 0.45


def _count(n: int) -> str:
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def _cards(cards: list[int]) -> str:
    return " ".join(card_unicode(c) for c in sorted(cards, key=lambda c: -RANK_OF[c]))


def _join(phrases: list[str]) -> str:
    if len(phrases) <= 2:
        return " and ".join(phrases)
    return ", ".join(phrases[:-1]) + ", and " + phrases[-1]


def trick_reasons(hand: int, jokers: bool) -> str:
    """Where this hand's tricks come from, in a phrase (its biggest reasons first)."""
    parts = estimate_parts(hand, jokers)
    phrases: list[str] = []
    trumps = [p for p in parts if p.kind == "trump"]
    sure = [p.cards[0] for p in trumps if p.tricks >= SURE]
    if sure:
        noun = "trick" if len(sure) == 1 else "tricks"
        phrases.append(f"{_count(len(sure))} sure spade {noun} ({_cards(sure)})")
    sides = [p for p in parts if p.kind == "side"]
    for p in sorted(sides, key=lambda p: -p.tricks):
        if p.tricks >= SURE:
            phrases.append(f"the {card_unicode(p.cards[0])}")
    likely = [p.cards[0] for p in [*trumps, *sides] if LIKELY <= p.tricks < SURE]
    if likely:
        phrases.append(f"probably the {' and the '.join(card_unicode(c) for c in likely)}")
    for p in parts:
        whole = round(p.tricks)
        if p.kind == "ruff" and whole >= 1:
            suits = " or ".join(SUIT_NAMES[s].rstrip("s") for s in p.suits) or "side-suit"
            noun = "ruff" if whole == 1 else "ruffs"
            phrases.append(f"{_count(whole)} likely {suits} {noun}")
        elif p.kind == "length" and whole >= 1:
            noun = "trick" if whole == 1 else "tricks"
            phrases.append(f"{_count(whole)} long-spade {noun}")
    counted = _counted(parts)
    rest = sum(p.tricks for p in parts) - counted
    if rest >= 0.75:
        small = [c for p in parts if p.kind in ("side", "low", "trump") and p.tricks < LIKELY
                 for c in p.cards]
        source = f"the {_cards(small[:1])} and low spades" if small else "the small cards"
        phrases.append(f"about {_count(round(rest))} more from {source}")
    elif rest <= -0.75:
        phrases.append("less for a short spade suit")
    return _join(phrases) or "no sure tricks"


def _counted(parts: list[Part]) -> float:
    """Tricks the phrases of :func:`trick_reasons` name one by one."""
    total = 0.0
    for p in parts:
        if p.kind in ("trump", "side") and p.tricks >= LIKELY:
            total += 1.0 if p.tricks >= SURE else p.tricks
        elif p.kind in ("ruff", "length") and round(p.tricks) >= 1:
            total += round(p.tricks)
    return total


def bid_advice(hand: int, jokers: bool, bid: int, reason: str) -> str:
    """The Hint for a bid: the number, where its tricks come from, and the bot's own reason.

    A nil keeps the bot's reason alone: it is about the hand's danger, not its tricks.
    """
    if bid == 0:
        return reason
    return f"{bid}: {trick_reasons(hand, jokers)}. {reason}"

