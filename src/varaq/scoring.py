"""Scoring a hand and deciding a match.

These are pure functions of bids and tricks, not of cards, so the engine, the score-sheet form of
a record (tricks without cards) and the tests all share one implementation.

>>> r = score_hand(Rules.named("classic"), bids=(4, 2, 3, 2), blind=(False,) * 4,
...                tricks=(5, 3, 3, 2), bags_before=(0, 0))
>>> r.score, r.bags
((71, 41), (1, 1))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple, cast

from .rules import Rules

__all__ = [
    "HandScore", "ScorePart", "score_hand", "score_parts", "decisive_part", "match_winner", "NIL",
]

#: A bid of 0 is nil.
NIL = 0


@dataclass(frozen=True, slots=True)
class HandScore:
    """What one hand did to both sides; indexed by side (0 = NS, 1 = EW) or seat."""

    bids: tuple[int, int, int, int]
    blind: tuple[bool, bool, bool, bool]
    tricks: tuple[int, int, int, int]
    #: Sum of each side's non-nil bids (0: both partners bid nil, no contract).
    contract: tuple[int, int]
    #: True made, False set, None when the side had no contract.
    made: tuple[bool | None, bool | None]
    #: Per seat: True nil made, False nil failed, None not a nil bidder.
    nil_made: tuple[bool | None, bool | None, bool | None, bool | None]
    #: Bags this hand (overtricks plus nil bidders' tricks).
    new_bags: tuple[int, int]
    #: How many times each side paid the bag penalty this hand.
    penalties: tuple[int, int]
    #: Points this hand, penalties and bonuses included.
    score: tuple[int, int]
    #: Bags carried after the penalties.
    bags: tuple[int, int]
    #: Whether each side took all 13 tricks.
    boston: tuple[bool, bool]
    #: The rules the hand was scored by, so its points can be spelled out (:func:`score_parts`).
    rules: Rules | None = field(default=None, compare=False, repr=False)


def score_hand(
    rules: Rules,
    bids: tuple[int, ...],
    blind: tuple[bool, ...],
    tricks: tuple[int, ...],
    bags_before: tuple[int, int],
) -> HandScore:
    """Score one hand for both sides.

    Each side is worked out by :func:`_score_side` and the two are written straight into the
    result's slots: the engine scores every hand through here, the computer players score
    thousands of imagined hands, and ``varaq replay`` a whole record, so this stays lean.
    """
    b0, b1, b2, b3 = bids[0], bids[1], bids[2], bids[3]
    t0, t1, t2, t3 = tricks[0], tricks[1], tricks[2], tricks[3]
    l0, l1, l2, l3 = blind[0], blind[1], blind[2], blind[3]
    ns = _score_side(rules, b0, b2, l0, l2, t0, t2, bags_before[0])
    ew = _score_side(rules, b1, b3, l1, l3, t1, t3, bags_before[1])
    hand = _new_hand(HandScore)
    _set_bids(hand, (b0, b1, b2, b3))
    _set_blind(hand, (l0, l1, l2, l3))
    _set_tricks(hand, (t0, t1, t2, t3))
    _set_contract(hand, (ns[0], ew[0]))
    _set_made(hand, (ns[1], ew[1]))
    _set_nil_made(hand, (ns[2], ew[2], ns[3], ew[3]))
    _set_new_bags(hand, (ns[4], ew[4]))
    _set_penalties(hand, (ns[5], ew[5]))
    _set_score(hand, (ns[6], ew[6]))
    _set_bags(hand, (ns[7], ew[7]))
    _set_boston(hand, (ns[8], ew[8]))
    _set_rules(hand, rules)
    return hand

#: Building a :class:`HandScore` through its frozen ``__init__`` goes through
#: ``object.__setattr__`` once a field; :func:`score_hand` writes the slots directly instead
#: (about a third of its time), through the slots' own setters, taken once here.
_new_hand = object.__new__
(
    _set_bids, _set_blind, _set_tricks, _set_contract, _set_made, _set_nil_made, _set_new_bags,
    _set_penalties, _set_score, _set_bags, _set_boston, _set_rules,
) = (
    cast("Callable[[HandScore, object], None]", getattr(HandScore, name).__set__)
    for name in (
        "bids", "blind", "tricks", "contract", "made", "nil_made", "new_bags", "penalties",
        "score", "bags", "boston", "rules",
    )
)


def _score_side(
    rules: Rules, bid_a: int, bid_b: int, blind_a: bool, blind_b: bool, taken_a: int,
    taken_b: int, bags: int,
) -> tuple[int, bool | None, bool | None, bool | None, int, int, int, int, bool]:
    """One side's share of :func:`score_hand`, for partners ``a`` and ``b``: its contract,
    whether it was made, each partner's nil (``None`` when not a nil bidder), new bags,
    penalties, points, bags carried and the Boston."""
    points = 0
    new_bags = 0
    nil_a: bool | None = None
    nil_b: bool | None = None
    if bid_a == NIL or bid_b == NIL:
        contract = contract_tricks = 0
        if bid_a == NIL:
            value = rules.blind_nil_value if blind_a else rules.nil_value
            nil_a = taken_a == 0
            points += value if nil_a else -value
            # A nil bidder's tricks never help the partner's contract; they are bags.
            new_bags += taken_a
            if rules.nil_bags_score:
                points += taken_a
        else:
            contract, contract_tricks = bid_a, taken_a
        if bid_b == NIL:
            value = rules.blind_nil_value if blind_b else rules.nil_value
            nil_b = taken_b == 0
            points += value if nil_b else -value
            new_bags += taken_b
            if rules.nil_bags_score:
                points += taken_b
        else:
            contract, contract_tricks = bid_b, taken_b
    else:
        contract, contract_tricks = bid_a + bid_b, taken_a + taken_b
    made: bool | None = None
    if contract:
        if contract_tricks >= contract:
            over = contract_tricks - contract
            made = True
            points += 10 * contract + over
            new_bags += over
        else:
            made = False
            points -= 10 * contract
    boston = taken_a + taken_b == 13
    if boston:
        points += rules.boston_bonus
    bags += new_bags
    penalties = 0
    if rules.bag_penalty and bags >= rules.bag_limit:
        # docs/rules.md: each time the count reaches the limit, the limit comes off it — "take
        # off 10" at the standard limit of 10, and never below zero at a smaller limit.
        penalties, bags = divmod(bags, rules.bag_limit)
        points -= penalties * rules.bag_penalty
    return contract, made, nil_a, nil_b, new_bags, penalties, points, bags, boston


def match_winner(rules: Rules, totals: tuple[int, int] | list[int]) -> int | None:
    """The side that has won after a hand with these totals, or ``None`` to play on.

    The match ends when a side reaches the target, or (with mercy) falls below the mercy
    line; the higher total wins and exactly equal totals play another hand — no draws.
    """
    ns, ew = totals[0], totals[1]
    over = ns >= rules.target or ew >= rules.target
    if rules.mercy is not None and (ns < rules.mercy or ew < rules.mercy):
        over = True
    if not over or ns == ew:
        return None
    return 0 if ns > ew else 1


class ScorePart(NamedTuple):
    """One line of a side's points for a hand: what a score sheet writes beside the total.

    ``kind`` is ``"contract"`` (``number``: tricks bid, ``tricks`` taken by its bidders, ``made``),
    ``"nil"`` or ``"blind_nil"`` (``seat`` the bidder, ``tricks`` it took, ``made``), ``"bags"``
    (``number`` overtricks and nil tricks that score a point each), ``"bag_penalty"`` (``number`` of
    penalties paid) or ``"boston"`` (all 13 tricks).
    """

    kind: str
    points: int
    seat: int | None = None
    made: bool | None = None
    number: int = 0
    tricks: int = 0


def score_parts(rules: Rules, hand: HandScore) -> tuple[tuple[ScorePart, ...], ...]:
    """Each side's points for ``hand``, line by line; each side's lines add up to its score.

    :func:`score_hand` stays a single pass of arithmetic because the computer players call it
    in their searches; this spells the same result out for people (the hand summary), and a
    property test holds the two to the same totals.

    >>> rules = Rules.named("varaq")
    >>> h = score_hand(rules, bids=(0, 3, 4, 3), blind=(False,) * 4, tricks=(2, 4, 3, 4),
    ...                bags_before=(0, 0))
    >>> [(p.kind, p.points) for p in score_parts(rules, h)[0]], h.score[0]
    ([('nil', -100), ('contract', -40), ('bags', 2)], -138)
    """
    out: list[tuple[ScorePart, ...]] = []
    for side in (0, 1):
        parts: list[ScorePart] = []
        seats = (side, side + 2)
        scored_bags = 0
        contract_tricks = 0
        for seat in seats:
            taken = hand.tricks[seat]
            made = hand.nil_made[seat]
            if made is None:
                contract_tricks += taken
                continue
            blind = hand.blind[seat]
            value = rules.blind_nil_value if blind else rules.nil_value
            parts.append(ScorePart(
                "blind_nil" if blind else "nil", value if made else -value,
                seat=seat, made=made, tricks=taken,
            ))
            if rules.nil_bags_score:
                scored_bags += taken
        contract = hand.contract[side]
        made_contract = hand.made[side]
        if made_contract is not None:
            parts.append(ScorePart(
                "contract", 10 * contract if made_contract else -10 * contract,
                made=made_contract, number=contract, tricks=contract_tricks,
            ))
            if made_contract:
                scored_bags += contract_tricks - contract
        if scored_bags:
            parts.append(ScorePart("bags", scored_bags, number=scored_bags))
        if hand.penalties[side]:
            parts.append(ScorePart(
                "bag_penalty", -hand.penalties[side] * rules.bag_penalty,
                number=hand.penalties[side],
            ))
        if hand.boston[side] and rules.boston_bonus:
            parts.append(ScorePart("boston", rules.boston_bonus))
        out.append(tuple(parts))
    return tuple(out)


#: Lines that make a hand's story, beyond a contract simply made.
_NOTABLE = frozenset({"nil", "blind_nil", "bag_penalty", "boston"})


def decisive_part(parts: tuple[tuple[ScorePart, ...], ...]) -> tuple[int, ScorePart] | None:
    """The line that decided the hand, with its side: what a summary's headline names.

    A nil (made or failed), a set contract, a bag penalty or a Boston is news; the largest of
    them wins, a failure before a success of the same size.  With no news, the larger contract
    made; ``None`` for a hand with no lines at all.

    >>> decisive_part(((ScorePart("contract", 70, made=True, number=7),),
    ...                (ScorePart("contract", -60, made=False, number=6),)))
    (1, ScorePart(kind='contract', points=-60, seat=None, made=False, number=6, tricks=0))
    """
    lines = [(side, part) for side in (0, 1) for part in parts[side]]
    news = [
        (side, p) for side, p in lines
        if p.kind in _NOTABLE or (p.kind == "contract" and p.made is False)
    ]
    pool = news or [(side, p) for side, p in lines if p.kind == "contract"] or lines
    if not pool:
        return None
    return max(pool, key=lambda sp: (abs(sp[1].points), sp[1].points < 0))
