"""Double-dummy solver speed: the compiled core, the pure Python search and DDS, in one run.

Prints ONE JSON document (progress on standard error)::

    python benchmarks/solver.py [--deals 20] [--cards 4,6,8,10,13] [--python-cards 4,6,8,10]
                                [--python-node-limit 3000000] [--no-dds]

The same positions go to every solver.  A position with N cards per hand comes from a seeded
classic deal that Normal bids and plays until every hand holds N cards (13: the deal itself),
with spades then counted as broken: that is the game DDS (Bo Haglund's bridge solver, through
``endplay``) solves with spades as trumps, so its answers and times are comparable.  The answers
are checked against each other as they are timed.

Two tasks per position, each from scratch (a fresh table):

- ``solve``: the tricks for the side to play and one best card (DDS ``SolveBoard`` with
  ``solutions=1``; Varaq ``solve``);
- ``all_cards``: the tricks after every legal card (DDS ``solutions=3``; Varaq
  ``card_values``), what ``varaq analyse`` and the Hard player ask.

Times are CPU seconds of this process (``time.process_time``), so a busy shared machine
inflates them less than wall time.  The pure Python search runs only at ``--python-cards`` and
gives up after ``--python-node-limit`` nodes (counted as unsolved, slower than every solved
position in the medians).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from varaq import Game
from varaq.bots.normal import NormalBot
from varaq.cards import RANK_LETTERS, card_text, parse_card
from varaq.solver import SolverLimit, card_values, default_backend, solve


def position(seed: int, cards: int) -> tuple[list[int], int]:
    """(hands, leader) of a classic hand played by Normal until every hand holds ``cards``."""
    g = Game("classic", seed=seed)
    g.deal()
    bot = NormalBot()
    rng = random.Random(seed)
    while g.phase_name != "play" or g.trick or g.hands[g.turn].bit_count() > cards:
        if g.phase_name in ("deal", "over"):
            raise RuntimeError("the hand ended before the position was reached")
        g.apply(bot.act(g.view(g.turn), rng))
    return list(g.hands), g.leader


# -- DDS through endplay ---------------------------------------------------------------------


def _dds() -> Any:
    try:
        from endplay.dds.solve import SolveMode, solve_board
        from endplay.types import Deal, Denom, Player
    except ImportError:
        return None
    players = (Player.north, Player.east, Player.south, Player.west)

    def run(hands: list[int], leader: int, all_cards: bool) -> dict[int, int]:
        groups = []
        for h in hands:
            groups.append(".".join(
                "".join(RANK_LETTERS[r] for r in range(12, -1, -1) if h >> (s * 13 + r) & 1)
                for s in (3, 2, 1, 0)
            ))
        deal = Deal.from_pbn("N:" + " ".join(groups))
        deal.trump = Denom.spades
        deal.first = players[leader]
        mode = SolveMode.Default if all_cards else SolveMode.OptimalOne
        out = {}
        for card, tricks in solve_board(deal, mode):
            name = str(card)
            out[parse_card(("T" if name[1:] == "10" else name[1:]) + name[0])] = tricks
        return out

    return run


# -- measuring -------------------------------------------------------------------------------


def _stats(times_ms: list[float], nodes: list[int]) -> dict[str, Any]:
    ordered = sorted(times_ms)

    def q(x: float) -> float | None:
        v = ordered[min(len(ordered) - 1, int(x * len(ordered)))]
        return None if v == float("inf") else round(v, 2)

    solved = [t for t in times_ms if t != float("inf")]
    return {
        "positions": len(times_ms),
        "solved": len(solved),
        "median_ms": q(0.5),
        "p95_ms": q(0.95),
        "max_ms_solved": round(max(solved), 2) if solved else None,
        "median_nodes": int(statistics.median(nodes)) if nodes else None,
    }


def _timed(task: Callable[[], Any]) -> tuple[float, Any]:
    started = time.process_time()
    answer = task()
    return (time.process_time() - started) * 1000, answer


def measure(
    cards: int, deals: int, dds: Any, python: bool, python_limit: int,
) -> dict[str, Any]:
    times: dict[str, list[float]] = {}
    nodes: dict[str, list[int]] = {}

    def record(name: str, ms: float, n: int | None = None) -> None:
        times.setdefault(name, []).append(ms)
        if n is not None:
            nodes.setdefault(name, []).append(n)

    disagreements = []
    for seed in range(deals):
        hands, leader = position(seed, cards)
        ms, result = _timed(lambda h=hands, ld=leader: solve(h, ld, (), True, backend="c"))
        record("c/solve", ms, result.nodes)
        ms, values = _timed(lambda h=hands, ld=leader: card_values(h, ld, (), True, backend="c"))
        record("c/all_cards", ms)
        if max(values.values()) != result.tricks or values[result.best_card] != result.tricks:
            disagreements.append(f"seed {seed}: solve and card_values differ")
        if dds is not None:
            ms, best = _timed(lambda h=hands, ld=leader: dds(h, ld, False))
            record("dds/solve", ms)
            ms, every = _timed(lambda h=hands, ld=leader: dds(h, ld, True))
            record("dds/all_cards", ms)
            if every != values or max(best.values()) != result.tricks:
                disagreements.append(f"seed {seed}: DDS differs "
                                     f"({ {card_text(c): v for c, v in every.items()} })")
        if python:
            try:
                ms, slow = _timed(lambda h=hands, ld=leader: solve(
                    h, ld, (), True, backend="python", node_limit=python_limit))
            except SolverLimit:
                record("python/solve", float("inf"))
            else:
                record("python/solve", ms, slow.nodes)
                if slow.tricks != result.tricks:
                    disagreements.append(f"seed {seed}: the Python search differs")
    row: dict[str, Any] = {name: _stats(t, nodes.get(name, [])) for name, t in times.items()}
    for task in ("solve", "all_cards"):
        c, d = row.get(f"c/{task}"), row.get(f"dds/{task}")
        if c and d and c["median_ms"] and d["median_ms"]:
            row[f"c_over_dds_{task}"] = round(c["median_ms"] / d["median_ms"], 2)
    row["disagreements"] = disagreements
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20, help="positions per row (default 20)")
    parser.add_argument("--cards", default="4,6,8,10,13",
                        help="cards per hand, comma-separated (default 4,6,8,10,13)")
    parser.add_argument("--python-cards", default="4,6,8,10",
                        help="rows where the pure Python search runs too (default 4,6,8,10)")
    parser.add_argument("--python-node-limit", type=int, default=3_000_000,
                        help="the Python search gives up after this many nodes (3000000)")
    parser.add_argument("--no-dds", action="store_true", help="leave DDS out")
    args = parser.parse_args(argv)
    if default_backend() != "c":
        print("the compiled solver is not built (or VARAQ_SOLVER=python): nothing to compare",
              file=sys.stderr)
        return 2
    dds = None if args.no_dds else _dds()
    python_rows = {int(x) for x in args.python_cards.split(",") if x.strip()}
    rows = {}
    for text in args.cards.split(","):
        cards = int(text)
        rows[str(cards)] = measure(cards, args.deals, dds, cards in python_rows,
                                   args.python_node_limit)
        print(f"{cards} cards: {json.dumps(rows[str(cards)])}", file=sys.stderr)
    out = {
        "benchmark": "solver",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "clock": "process CPU time",
        "dds": "endplay (DDS)" if dds is not None else None,
        "game": "classic deals played by Normal to N cards a hand, then spades counted as broken",
        "python_node_limit": args.python_node_limit,
        "by_cards_per_hand": rows,
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
