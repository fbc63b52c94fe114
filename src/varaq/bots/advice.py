"""The bid advisor's words: where a hand's tricks come from, as a player would count them.

The Hint during bidding says what bid the Hard player would make, and why, in two parts: where
the hand's tricks come from, the way a player counts them ("4: two sure spade tricks (A♠ K♠),
the A♦, and one likely club ruff"), and what the Hard player's simulation found for that bid
("expected score +31 for our side; we make the contract in 88% of 20 layouts, where perfect
play gives our side about 7.4 tricks", :class:`~.simbid.BidStudy`).  The counting is
:func:`~.bidding.estimate_parts`, the same arithmetic the computer players start from, and the
expected score is the very number the bid was chosen by, so the words never disagree with the
bid.

>>> from varaq.cards import parse_hand
>>> trick_reasons(parse_hand("AS KS 5S 4S AD 7D 6D 3H 9H 8H 2H QC 4C"), jokers=False)
'two sure spade tricks (A♠ K♠), the A♦, and one long-spade trick'
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from ..cards import JOKER_DECK, RANK_OF, STANDARD_DECK, SUIT_NAMES, SUIT_OF, card_unicode
from ..view import View
from . import Decision, make_bot
from .bidding import Part, estimate_parts, estimate_tricks
from .knowledge import ABOVE

__all__ = [
    "trick_reasons", "bid_advice", "CountLine", "count_lines", "hard_bid", "bid_seed",
    "BID_SAMPLES", "decision_seed",
]

#: Layouts the Hard player deals for a bid asked of :func:`hard_bid`: a fixed number, not a time
#: budget, so the answer does not depend on how busy the machine is.  About what Hard gets
#: through in a table's 0.6 s of thought: each layout is a whole deal solved double dummy.
BID_SAMPLES = 20

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


@dataclass(frozen=True, slots=True)
class CountLine:
    """One line of a hand's count: the card it rests on, what it is worth, and why."""

    #: The card (for low spades working together, the lowest; for the number of spades, the
    #: lowest spade); ``None`` only for the number of spades of a hand without any.
    card: int | None
    tricks: float
    words: str


def count_lines(hand: int, jokers: bool) -> list[CountLine]:
    """The bots' estimate of this hand (:func:`~.bidding.estimate_parts`), one line for each of
    its reasons, in the words and with the thresholds of :func:`trick_reasons`.

    The bidding lesson shows these lines, so a lesson counts a hand exactly as the Hint and
    the computer players do; the lines add up to the estimate (before it is kept within 0 to
    13 tricks).  Spade winners come first, then side winners from the best down, then what the
    low spades do.
    """
    parts = estimate_parts(hand, jokers)
    out = (JOKER_DECK if jokers else STANDARD_DECK) & ~hand
    above = ABOVE[jokers]
    winners = [p for p in parts if p.kind == "trump"]
    winners += sorted((p for p in parts if p.kind == "side"), key=lambda p: -p.tricks)
    lines = [CountLine(p.cards[0], p.tricks, _winner_words(p, above[p.cards[0]] & out))
             for p in winners]
    for p in parts:
        if p.kind in ("trump", "side"):
            continue
        # The length of the suit is shown on its lowest spade, the card it adds to the count.
        shown = p.cards[-1 if p.kind == "spade_count" else 0] if p.cards else None
        lines.append(CountLine(shown, p.tricks, _spade_words(p)))
    return lines


def _winner_words(part: Part, higher: int) -> str:
    """Why a spade or a side-suit card is worth what the count says (``higher``: the cards of
    its suit above it that others may hold)."""
    card = part.cards[0]
    suit = SUIT_NAMES[SUIT_OF[card]].rstrip("s")
    above = [c for c in range(54) if higher >> c & 1]
    named = f"the {_cards(above)}"
    verb = "is" if len(above) == 1 else "are"
    if part.tricks >= SURE:
        if not above:
            return f"no higher {suit} is out: a sure trick"
        return f"only {named} {verb} higher: a sure trick"
    if part.tricks >= LIKELY:
        gone = "has" if len(above) == 1 else "have"
        return f"probably a trick: it wins once {named} {gone} gone"
    if not above:
        return f"a long {suit} suit: often cut before it wins"
    return f"{named} {verb} higher: rarely a trick"


def _spade_words(part: Part) -> str:
    """Why the low spades (or the number of spades) are worth what the count says."""
    whole = round(part.tricks)
    if part.kind == "length":
        noun = "trick" if whole == 1 else "tricks"
        return f"{_count(whole)} long-spade {noun}, late in the hand"
    if part.kind == "ruff":
        suits = " or ".join(SUIT_NAMES[s].rstrip("s") for s in part.suits) or "side-suit"
        noun = "ruff" if whole == 1 else "ruffs"
        return f"{_count(whole)} likely {suits} {noun} with low spades"
    if part.kind == "low":
        return "low spades: now and then one wins"
    n = len(part.cards)
    spades = f"{_count(n)} spade{'' if n == 1 else 's'} in all"
    if part.tricks > 0:
        return f"{spades}: a little more for length"
    if part.tricks < 0:
        return f"{spades}: a little less, short in trumps"
    return f"{spades}: neither long nor short"


def bid_advice(hand: int, jokers: bool, bid: int, reason: str) -> str:
    """The Hint for a bid: the number, where its tricks come from, and the bot's own reason
    (for Hard, the bid's expected score over its solved layouts).

    A nil keeps the bot's reason alone: it is about the hand's danger, not its tricks.  A bid
    away from the count says so and why before the bot's reason, so "Bid 1" never follows four
    named tricks unexplained.
    """
    if bid == 0:
        return reason
    reasons = trick_reasons(hand, jokers)
    count = round(estimate_tricks(hand, jokers))
    if bid == count:
        return f"{bid}: {reasons}. {reason}"
    played = "layouts" in reason
    if bid < count:
        why = (f"those are the cards alone; played out over the layouts, {bid} scores best "
               "for your side" if played else "bidding under the count is safer here")
        return f"{bid}, though your cards count about {count} ({reasons}): {why}. {reason}"
    why = (f"played out over the layouts, {bid} scores best for your side" if played
           else "bidding over the count pays here")
    return f"{bid}, more than your cards count ({reasons}): {why}. {reason}"



def bid_seed(view: View) -> str:
    """The seed of the Hard player's bid in ``view``: made only of what the bidder knows at that
    point of the bidding (the rules, the score, the dealer, its seat and cards, the bids so
    far), so the same cards and the same information give the same bid wherever it is asked —
    at the table, in the Hint, in a hand's review — and nothing else (the hand's number, the
    table's id) can make two of them disagree."""
    bids = ["blind" if view.blind[s] else b for s, b in enumerate(view.bids)]
    doc = [view.rules.to_spec(), list(view.totals), list(view.bags), view.dealer, view.seat,
           view.hand, bids]
    return "bid:" + json.dumps(doc, sort_keys=True, separators=(",", ":"))


def decision_seed(level: str, view: View, seed: str,
                  samples: int | None) -> tuple[str, int | None]:
    """The seed and the layouts of a computer player's decision.  A Hard bid is asked exactly
    as :func:`hard_bid` asks it (a fixed number of layouts, a seed made of what the bidder
    knows), so the table's computer players, the Hint, ``varaq play`` and the review's "Hard
    bids" column name the same bid for the same cards; anything else keeps ``seed`` and
    ``samples``."""
    if level == "hard" and view.phase == "bid":
        return bid_seed(view), BID_SAMPLES
    return seed, samples


def hard_bid(view: View, samples: int = BID_SAMPLES) -> Decision:
    """The Hard player's bid in ``view`` and its reason: the bot's own decision with a fixed
    number of layouts and the seed :func:`bid_seed`, so it is the same every time it is asked.

    The one function for "what would Hard bid here": the review's judgement of the bids calls
    it, and a table that wants its Hard players and Hint to agree with the review asks the bot
    in the same way (``bots.decide("hard", view, bid_seed(view), samples=BID_SAMPLES)``).
    It goes through :func:`~varaq.bots.make_bot`, so a change to Hard's bidding is followed."""
    if view.phase != "bid":
        raise ValueError(f"a bid is asked for in the bid phase, not the {view.phase} phase")
    bot = make_bot("hard", samples=samples)
    return bot.decide(view, random.Random(bid_seed(view)))
