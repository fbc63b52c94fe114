"""Double-dummy solver speed, by cards left in each hand.  Prints ONE JSON document.

    python benchmarks/solver.py [--deals 6] [--cards 13,10,8,6,4] [--node-limit 3000000]

Positions come from real-looking hands: a seeded deal, Normal's bids, and Normal's play up to
the trick boundary where every hand holds the wanted number of cards.  Each position is solved
from scratch (a fresh table): the exact number of tricks for the side on lead and a best card.

Times are CPU seconds of this process (``time.process_time``), so a busy shared machine does
not inflate them much.  A position that needs more than ``--node-limit`` search nodes is
counted as unsolved rather than waited for; the medians then treat it as slower than every
solved one (and say ``null`` when more than half are unsolved).

The reference is the bridge solver DDS (C++, with decades of bridge-specific pruning): about
10-16 ms for a full 13-trick deal, as issue 3 quotes it.
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
from varaq.solver import SolverLimit, solve_game


def position(seed: int, cards: int) -> Game:
    """A classic hand played by Normal until every hand holds ``cards`` cards."""
    g = Game("classic", seed=seed)
    g.deal()
    bot = NormalBot()
    rng = random.Random(seed)
    while g.phase_name != "play" or g.trick or g.hands[g.turn].bit_count() > cards:
        if g.phase_name in ("deal", "over"):
            raise RuntimeError("the hand ended before the position was reached")
        g.apply(bot.act(g.view(g.turn), rng))
    return g


def _quantile(values: list[float], q: float) -> float | None:
    """The q-quantile, with ``inf`` for unsolved positions; None if it falls on one."""
    ordered = sorted(values)
    value = ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return None if value == float("inf") else round(value, 2)


def measure(cards: int, deals: int, node_limit: int) -> dict[str, Any]:
    times_ms: list[float] = []
    nodes: list[int] = []
    solved_ms: list[float] = []
    unsolved = 0
    for seed in range(deals):
        g = position(seed, cards)
        started = time.process_time()
        try:
            result = solve_game(g, node_limit=node_limit)
        except SolverLimit:
            unsolved += 1
            times_ms.append(float("inf"))
            continue
        ms = (time.process_time() - started) * 1000
        times_ms.append(ms)
        solved_ms.append(ms)
        nodes.append(result.nodes)
    return {
        "positions": deals,
        "solved": deals - unsolved,
        "median_ms": _quantile(times_ms, 0.5),
        "p95_ms": _quantile(times_ms, 0.95),
        "max_ms_solved": round(max(solved_ms), 2) if solved_ms else None,
        "median_nodes_solved": int(statistics.median(nodes)) if nodes else None,
        "nodes_per_second": (
            int(sum(nodes) / (sum(solved_ms) / 1000)) if solved_ms and sum(solved_ms) else None
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=6, help="positions per row (default 6)")
    parser.add_argument("--cards", default="13,10,8,6,4",
                        help="cards left per hand, comma-separated (default 13,10,8,6,4)")
    parser.add_argument("--node-limit", type=int, default=3_000_000,
                        help="give up on a position after this many nodes (default 3000000)")
    args = parser.parse_args(argv)
    rows = {}
    for text in args.cards.split(","):
        cards = int(text)
        rows[str(cards)] = measure(cards, args.deals, args.node_limit)
        print(f"{cards} cards: {rows[str(cards)]}", file=sys.stderr)
    out = {
        "benchmark": "solver",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "clock": "process CPU time",
        "node_limit": args.node_limit,
        "by_cards_left": rows,
        "reference": {"dds_cpp_full_deal_ms": [10, 16]},
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
