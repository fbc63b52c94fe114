"""How well the layouts' reading of the bids fits the hands actually bid.  Prints ONE JSON document.

    python benchmarks/bid_evidence.py DETAILS.jsonl[+MORE.jsonl ...] [--layouts 200] [--deals N]
                                      [--seed 5] [--nil-spread X] [--bid-spread X] [--bid-shift X]

Hard weighs every layout it deals by how likely each seat was to bid what it bid with the hand
the layout gives it (:func:`varaq.bots.sampling.bid_fit`): a nil by the hand's nil danger
(:data:`~varaq.bots.sampling.NIL_SPREAD`), a number by how far it sits from the hand's
estimated tricks (:data:`~varaq.bots.sampling.BID_SPREAD`, centred
:data:`~varaq.bots.sampling.BID_SHIFT` above the bid).  If that reading is right, the hand
a bidder really held looks like one drawn from the layouts.  This script checks it on the
tables of ``strength.py --details`` files: for every bid of a table without a blind nil, at the
first lead, the bidder's left-hand opponent deals ``--layouts`` layouts (bids weighing them, as
Hard's do; in one draw, where Hard draws one layout at a time, so the fallback to the
best-fitting rejected layouts comes in less often than in Hard's), and the bidder's real hand
is ranked among the layouts' hands for that seat by the statistic the fit reads (nil danger for
a nil, estimated tricks for a number): the share of layouts below it, ties counted half (a
probability integral transform).  Well read, these ranks spread evenly: a mean near 0.5, a
fifth in each quintile.  A mean below 0.5 says the real hands are lower than the layouts make
them (nils safer, bids from weaker hands), above 0.5 higher.  For nils it also gives how often
the layouts put each kind of high card in the nil hand against how often the nil hand held it.

Reported by who bid, side a and side b of the run (in ``hard-v02``, today's Hard and Hard
0.2), since players bid nils of different danger.  ``--nil-spread`` and ``--bid-spread``
try another width of the fit, ``--bid-shift`` another centre of the number fit (the module's
values otherwise), to find the one that reads a table's bids best before measuring what it
does to the play.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable
from itertools import islice
from typing import Any

import varaq.bots.sampling as sampling
from varaq.bots.bidding import estimate_tricks, nil_danger
from varaq.cards import RANK_OF, SUIT_OF

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from details import first_lead_tables, records

#: High cards whose place in a nil hand is reported: (name, is a spade, rank index 0-12).
HIGH_CARDS = (("side aces", False, 12), ("side kings", False, 11), ("side queens", False, 10),
              ("spade kings", True, 11), ("spade queens", True, 10), ("spade jacks", True, 9))


def rank_among(actual: float, drawn: list[float]) -> float:
    """The share of ``drawn`` below ``actual``, ties counted half."""
    below = sum(x < actual for x in drawn)
    ties = sum(x == actual for x in drawn)
    return (below + 0.5 * ties) / len(drawn)


class _Group:
    """The ranks, the layouts' means and the real values of one kind of bid by one side."""

    def __init__(self) -> None:
        self.ranks: list[float] = []
        self.drawn: list[float] = []
        self.actual: list[float] = []
        #: High card -> [layouts' share summed, held summed, chances].
        self.cards: dict[str, list[float]] = {}

    def add(self, rank: float, drawn_mean: float, actual: float) -> None:
        self.ranks.append(rank)
        self.drawn.append(drawn_mean)
        self.actual.append(actual)

    def summary(self) -> dict[str, Any]:
        n = len(self.ranks)
        quintiles = [0] * 5
        for r in self.ranks:
            quintiles[min(4, int(r * 5))] += 1
        out: dict[str, Any] = {
            "bids": n,
            "mean_rank": round(sum(self.ranks) / n, 3),
            "quintiles": quintiles,
            "layouts_mean": round(sum(self.drawn) / n, 3),
            "actual_mean": round(sum(self.actual) / n, 3),
        }
        if self.cards:
            out["high_cards_in_the_nil_hand"] = {
                name: {"layouts": round(s / c, 3), "held": round(h / c, 3), "chances": int(c)}
                for name, (s, h, c) in self.cards.items()}
        return out


def study(path: str, layouts: int, seed: int, deals: int | None = None) -> dict[str, Any]:
    """Every bid's rank among its layouts (see the module docstring), by kind and side."""
    rng = random.Random(seed)
    groups: dict[tuple[str, str], _Group] = {}
    for t, g in first_lead_tables(islice(records(path), deals)):
        for seat in range(4):
            bid = t["bids"][seat]
            kind = "nil" if bid == 0 else "number"
            measure: Callable[[int], float] = nil_danger if bid == 0 else estimate_tricks
            reader = (seat + 1) & 3
            view = g.view(reader)
            hands = [lay.hands[seat]
                     for lay in sampling.Sampler(view).layouts(rng, layouts)]
            drawn = [measure(h) for h in hands]
            actual_hand = t["dealt"][seat]
            actual = measure(actual_hand)
            who = "a" if (seat & 1) == t["a_side"] else "b"
            group = groups.setdefault((kind, who), _Group())
            group.add(rank_among(actual, drawn), sum(drawn) / len(drawn), actual)
            if bid == 0:
                for name, spade, rank in HIGH_CARDS:
                    for c in range(52):
                        if (SUIT_OF[c] == 3) != spade or RANK_OF[c] != rank \
                                or view.hand >> c & 1:
                            continue  # only the cards the reader cannot see
                        tally = group.cards.setdefault(name, [0.0, 0.0, 0.0])
                        tally[0] += sum(h >> c & 1 for h in hands) / len(hands)
                        tally[1] += actual_hand >> c & 1
                        tally[2] += 1
    return {kind: {who: groups[(kind, who)].summary()
                   for who in ("a", "b") if (kind, who) in groups}
            for kind in ("nil", "number")}


#: The fit's settings a run may change, each the lower-case name of its ``sampling`` constant.
_SETTINGS = ("nil_spread", "bid_spread", "bid_shift")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file", help="a strength.py --details file; A.jsonl+B.jsonl joins runs")
    p.add_argument("--layouts", type=int, default=200, help="layouts a bid (200)")
    p.add_argument("--deals", type=int, default=None, help="read only the first N deals")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--nil-spread", type=float, default=None,
                   help=f"width of the nil fit (the module's {sampling.NIL_SPREAD})")
    p.add_argument("--bid-spread", type=float, default=None,
                   help=f"width of the number fit (the module's {sampling.BID_SPREAD})")
    p.add_argument("--bid-shift", type=float, default=None,
                   help=f"tricks above the bid the number fit centres on "
                        f"(the module's {sampling.BID_SHIFT})")
    args = p.parse_args(argv)
    if args.layouts < 1:
        p.error(f"--layouts must be at least 1, not {args.layouts}")
    if args.deals is not None and args.deals < 1:
        p.error(f"--deals must be at least 1, not {args.deals}")
    for name in ("nil_spread", "bid_spread"):
        value = getattr(args, name)
        if value is not None and not 0 < value <= 10:
            p.error(f"--{name.replace('_', '-')} must be above 0 and at most 10, not {value}")
    if args.bid_shift is not None and not -3 <= args.bid_shift <= 3:
        p.error(f"--bid-shift must be between -3 and 3 tricks, not {args.bid_shift}")
    for part in args.file.split("+"):
        if not os.path.isfile(part):
            p.error(f"no such file {part}")
    for name in _SETTINGS:  # each names the module's constant it stands for
        if getattr(args, name) is not None:
            setattr(sampling, name.upper(), getattr(args, name))
    try:
        found = study(args.file, args.layouts, args.seed, args.deals)
    except (ValueError, KeyError, TypeError, IndexError) as e:
        p.error(f"{args.file} is not a strength.py --details file ({type(e).__name__}: {e})")
    out = {"benchmark": "bid_evidence", "file": args.file, "layouts": args.layouts,
           "deals": args.deals, "seed": args.seed,
           **{name: getattr(sampling, name.upper()) for name in _SETTINGS}, **found}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
