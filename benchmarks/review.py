"""Hand review speed: how far back a review gets, and how fast.  Prints ONE JSON document.

    python benchmarks/review.py [--deals 4] [--seconds 90] [--nodes 1000000] [--rules classic]

Each deal is a seeded hand bid and played by the Normal player, then reviewed step by step as
the web server does (:func:`varaq.review.plan`: the last five tricks, the bids, each earlier
trick back to the first, par), in this process, with the server's node limit per position and
its time budget per review.  For each hand: the CPU seconds of each kind of step, the earliest
trick from which every card is priced, whether par was reached, and the flags found.  The
summary gives the medians.

Times are CPU seconds of this process (``time.process_time``), so a busy shared machine does not
inflate them much; the review's own budget is counted the same way.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from typing import Any

from varaq import Game
from varaq.bots.normal import NormalBot
from varaq.review import HandFacts, HandSolvers, Review, plan, run_step


def played_hand(seed: int, rules: str) -> HandFacts:
    """A hand dealt from ``seed``, bid and played by Normal at all four seats."""
    game = Game(rules, seed=seed, dealer=seed % 4)
    game.deal()
    bot = NormalBot()
    rng = random.Random(seed)
    while game.phase_name in ("blind", "bid", "exchange", "play"):
        game.apply(bot.act(game.view(game.turn), rng))
    return HandFacts.from_game(game, 1)


def review_one(facts: HandFacts, seconds: float, nodes: int) -> dict[str, Any]:
    review = Review(facts)
    solvers = HandSolvers(facts.rules.jokers)
    spent = {"last_tricks": 0.0, "bids": 0.0, "earlier_tricks": 0.0, "par": 0.0}
    started = time.process_time()
    for i, step in enumerate(plan(facts)):
        out_of_time = time.process_time() - started > seconds
        if (review.stopped or out_of_time) and step.kind != "bids":
            continue
        clock = time.process_time()
        review.add(run_step(facts, step, solvers, nodes))
        kind = step.kind if step.kind != "price" else ("last_tricks" if i == 0 else
                                                       "earlier_tricks")
        spent[kind] += time.process_time() - clock
    flags = [p.flag for p in review.priced.values() if p.flag]
    return {
        "bids": list(facts.bids),
        "seconds": {k: round(v, 2) for k, v in spent.items()},
        "total_seconds": round(time.process_time() - started, 2),
        "from_trick": review.first_trick,
        "stopped": review.stopped,
        "par": list(review.par) if review.par else None,
        "flags": {"?": flags.count("?"), "??": flags.count("??")},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=4, help="hands to review (default 4)")
    parser.add_argument("--seconds", type=float, default=90.0,
                        help="time budget of one review, as the server's (default 90)")
    parser.add_argument("--nodes", type=int, default=1_000_000,
                        help="search nodes per position, as the server's (default 1000000)")
    parser.add_argument("--rules", default="classic", help="preset (default classic)")
    args = parser.parse_args(argv)
    hands = []
    for seed in range(args.deals):
        row = review_one(played_hand(seed, args.rules), args.seconds, args.nodes)
        print(f"deal {seed}: {row}", file=sys.stderr)
        hands.append(row)
    reached = [h["from_trick"] or 14 for h in hands]
    out = {
        "benchmark": "review",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "clock": "process CPU time",
        "options": {"deals": args.deals, "seconds": args.seconds, "nodes": args.nodes,
                    "rules": args.rules},
        "median": {
            "last_five_tricks_s": statistics.median(h["seconds"]["last_tricks"] for h in hands),
            "bids_s": statistics.median(h["seconds"]["bids"] for h in hands),
            "total_s": statistics.median(h["total_seconds"] for h in hands),
            "first_trick_priced": statistics.median(reached),
        },
        "par_found": sum(h["par"] is not None for h in hands),
        "hands": hands,
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
