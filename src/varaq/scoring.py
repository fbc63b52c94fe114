"""Scoring a hand and deciding a match.

These are pure functions of bids and tricks, not of cards, so the engine, the score-sheet form of
a record (tricks without cards) and the tests all share one implementation.

>>> r = score_hand(Rules.named("classic"), bids=(4, 2, 3, 2), blind=(False,) * 4,
...                tricks=(5, 3, 3, 2), bags_before=(0, 0))
>>> r.score, r.bags
((71, 41), (1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

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
    """Score one hand for both sides."""
    contract = [0, 0]
    made: list[bool | None] = [None, None]
    nil_made: list[bool | None] = [None] * 4
    new_bags = [0, 0]
    penalties = [0, 0]
    score = [0, 0]
    bags = list(bags_before)
    boston = [False, False]
    for side in (0, 1):
        seats = (side, side + 2)
        contract_tricks = 0
        points = 0
        for seat in seats:
            if bids[seat] == NIL:
                value = rules.blind_nil_value if blind[seat] else rules.nil_value
                nil_made[seat] = tricks[seat] == 0
                points += value if tricks[seat] == 0 else -value
                # A nil bidder's tricks never help the partner's contract; they are bags.
                new_bags[side] += tricks[seat]
                if rules.nil_bags_score:
                    points += tricks[seat]
            else:
                contract[side] += bids[seat]
                contract_tricks += tricks[seat]
        if contract[side]:
            if contract_tricks >= contract[side]:
                over = contract_tricks - contract[side]
                made[side] = True
                points += 10 * contract[side] + over
                new_bags[side] += over
            else:
                made[side] = False
                points -= 10 * contract[side]
        if tricks[side] + tricks[side + 2] == 13:
            boston[side] = True
            points += rules.boston_bonus
        bags[side] += new_bags[side]
        if rules.bag_penalty:
            # docs/rules.md: each time the count reaches the limit, the limit comes off it — "take
            # off 10" at the standard limit of 10, and never below zero at a smaller limit.
            while bags[side] >= rules.bag_limit:
                bags[side] -= rules.bag_limit
                penalties[side] += 1
                points -= rules.bag_penalty
        score[side] = points
    return HandScore(
        bids=(bids[0], bids[1], bids[2], bids[3]),
        blind=(blind[0], blind[1], blind[2], blind[3]),
        tricks=(tricks[0], tricks[1], tricks[2], tricks[3]),
        contract=(contract[0], contract[1]),
        made=(made[0], made[1]),
        nil_made=(nil_made[0], nil_made[1], nil_made[2], nil_made[3]),
        new_bags=(new_bags[0], new_bags[1]),
        penalties=(penalties[0], penalties[1]),
        score=(score[0], score[1]),
        bags=(bags[0], bags[1]),
        boston=(boston[0], boston[1]),
        rules=rules,
    )


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
