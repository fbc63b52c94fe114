"""Double-dummy solver speed: the compiled core, the pure Python search and DDS, in one run.

Prints ONE JSON document (progress on standard error)::

    python benchmarks/solver.py [--deals 20] [--cards 4,6,8,10,13] [--mid-trick 8,13]
                                [--python-cards 4,6,8,10] [--python-node-limit 3000000]
                                [--no-dds] [--worst 0] [--first-seed 0]

The same positions go to every solver.  A position with N cards per hand comes from a seeded
classic deal that Normal bids and plays until every hand holds N cards (13: the deal itself),
with spades then counted as broken: that is the game DDS (Bo Haglund's bridge solver, through
``endplay``) solves with spades as trumps, so its answers and times are comparable.  The rows
of ``--mid-trick`` (row name ``"N mid-trick"``) are the same deals with one to three more cards
of the next trick played (seed 0: one, seed 1: two, seed 2: three, and so on).  The answers are
checked against each other as they are timed.

Two tasks per position, each from scratch:

- ``solve``: the tricks for the side to play and one best card (DDS ``SolveBoard`` with
  ``solutions=1``; Varaq ``solve``);
- ``all_cards``: the tricks after every legal card (DDS ``solutions=3``; Varaq
  ``card_values``), what ``varaq analyse`` and the Hard player ask.

"From scratch" holds for DDS too: DDS keeps its transposition table from one call to the next
when the deal is the same (or similar), so before each timed DDS call an unrelated small deal
is solved, untimed, which empties it.  (Without that, ``all_cards`` would be timed on the table
``solve`` had just filled: about half its time on full deals.)

Times are CPU seconds of this process (``time.process_time``), so a busy shared machine
inflates them less than wall time; every ratio compares times measured in the same run (of
the medians, ``c_over_dds_*``, and of the totals, ``c_over_dds_*_total``).  Node counts do not
depend on the load: each row gives the core's total nodes for ``solve`` and ``all_cards`` and
their ratio (``c_all_cards_over_solve_nodes``: what every card's value costs beyond one best
card), and ``--worst N`` lists the N positions where the core's ``all_cards`` took longest, with
both node counts and DDS's time, to show where the tail is.  The pure Python
search runs only at ``--python-cards`` and gives up after ``--python-node-limit`` nodes
(counted as unsolved, slower than every solved position in the medians).
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
from varaq.solver import Solver, SolverLimit, card_values, default_backend, solve


def position(seed: int, cards: int, in_trick: int = 0) -> tuple[list[int], int, list[int]]:
    """(hands, leader, trick) of a classic hand played by Normal until every hand holds
    ``cards``, then ``in_trick`` more cards of the next trick."""
    g = Game("classic", seed=seed)
    g.deal()
    bot = NormalBot()
    rng = random.Random(seed)
    while g.phase_name != "play" or g.trick or g.hands[g.turn].bit_count() > cards:
        if g.phase_name in ("deal", "over"):
            raise RuntimeError("the hand ended before the position was reached")
        g.apply(bot.act(g.view(g.turn), rng))
    for _ in range(in_trick):
        g.apply(bot.act(g.view(g.turn), rng))
    return list(g.hands), g.leader, list(g.trick)


# -- DDS through endplay ---------------------------------------------------------------------


def _dds() -> Any:
    try:
        from endplay.dds.solve import SolveMode, solve_board
        from endplay.types import Card, Deal, Denom, Player
    except ImportError:
        return None
    players = (Player.north, Player.east, Player.south, Player.west)

    def board(hands: list[int], leader: int, trick: list[int]) -> Any:
        full = list(hands)
        for k, card in enumerate(trick):  # DDS takes the deal before the trick, then its cards
            full[(leader + k) & 3] |= 1 << card
        groups = []
        for h in full:
            groups.append(".".join(
                "".join(RANK_LETTERS[r] for r in range(12, -1, -1) if h >> (s * 13 + r) & 1)
                for s in (3, 2, 1, 0)
            ))
        deal = Deal.from_pbn("N:" + " ".join(groups))
        deal.trump = Denom.spades
        deal.first = players[leader]
        for card in trick:
            text = card_text(card)
            deal.play(Card(text[1] + text[0]))
        return deal

    # Two cards a hand, nothing like a benchmark deal: solving it empties DDS's table.
    other = board([1 << 0 | 1 << 1, 1 << 2 | 1 << 3, 1 << 4 | 1 << 5, 1 << 6 | 1 << 7], 0, [])

    def run(
        hands: list[int], leader: int, trick: list[int], all_cards: bool,
    ) -> tuple[float, dict[int, int]]:
        """(CPU ms, {card: tricks}) of one call from an empty table, building the deal included."""
        solve_board(other, SolveMode.OptimalOne)  # untimed: empties DDS's table
        started = time.process_time()
        answer = solve_board(board(hands, leader, trick),
                             SolveMode.Default if all_cards else SolveMode.OptimalOne)
        out = {}
        for card, tricks in answer:
            name = str(card)
            out[parse_card(("T" if name[1:] == "10" else name[1:]) + name[0])] = tricks
        return (time.process_time() - started) * 1000, out

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
        "total_ms_solved": round(sum(solved), 1),
        "median_ms": q(0.5),
        "p95_ms": q(0.95),
        "max_ms_solved": round(max(solved), 2) if solved else None,
        "median_nodes": int(statistics.median(nodes)) if nodes else None,
        "total_nodes": sum(nodes) if nodes else None,
    }


def _timed(task: Callable[[], Any]) -> tuple[float, Any]:
    started = time.process_time()
    answer = task()
    return (time.process_time() - started) * 1000, answer


def _core_values(
    hands: list[int], leader: int, trick: list[int],
) -> tuple[dict[int, int], int]:
    """Every legal card's value by the core from an empty table, and the nodes it took."""
    solver = Solver(((leader + len(trick)) & 3) & 1, backend="c")
    return card_values(hands, leader, trick, True, solver=solver), solver.nodes


def measure(
    cards: int, deals: int, dds: Any, python: bool, python_limit: int, mid_trick: bool = False,
    worst: int = 0, first_seed: int = 0,
) -> dict[str, Any]:
    times: dict[str, list[float]] = {}
    nodes: dict[str, list[int]] = {}

    def record(name: str, ms: float, n: int | None = None) -> None:
        times.setdefault(name, []).append(ms)
        if n is not None:
            nodes.setdefault(name, []).append(n)

    disagreements = []
    each: list[dict[str, Any]] = []
    for seed in range(first_seed, first_seed + deals):
        hands, leader, trick = position(seed, cards, 1 + seed % 3 if mid_trick else 0)
        ms, result = _timed(lambda h=hands, ld=leader, t=trick: solve(h, ld, t, True, backend="c"))
        record("c/solve", ms, result.nodes)
        ms, (values, all_nodes) = _timed(
            lambda h=hands, ld=leader, t=trick: _core_values(h, ld, t))
        record("c/all_cards", ms, all_nodes)
        seen = {"seed": seed, "c_all_cards_ms": round(ms, 1), "c_all_cards_nodes": all_nodes,
                "c_solve_nodes": result.nodes}
        each.append(seen)
        if max(values.values()) != result.tricks or values[result.best_card] != result.tricks:
            disagreements.append(f"seed {seed}: solve and card_values differ")
        if dds is not None:
            ms, best = dds(hands, leader, trick, False)
            record("dds/solve", ms)
            ms, every = dds(hands, leader, trick, True)
            record("dds/all_cards", ms)
            seen["dds_all_cards_ms"] = round(ms, 1)
            if every != values or max(best.values()) != result.tricks:
                disagreements.append(f"seed {seed}: DDS differs "
                                     f"({ {card_text(c): v for c, v in every.items()} })")
        if python:
            try:
                ms, slow = _timed(lambda h=hands, ld=leader, t=trick: solve(
                    h, ld, t, True, backend="python", node_limit=python_limit))
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
            # the ratio of the medians, and of the total times (every position, same run)
            row[f"c_over_dds_{task}"] = round(c["median_ms"] / d["median_ms"], 2)
            row[f"c_over_dds_{task}_total"] = round(
                c["total_ms_solved"] / d["total_ms_solved"], 2)
    c_solve, c_all = row["c/solve"]["total_nodes"], row["c/all_cards"]["total_nodes"]
    if c_solve:
        row["c_all_cards_over_solve_nodes"] = round(c_all / c_solve, 2)
    if worst:
        row["worst"] = sorted(each, key=lambda x: -x["c_all_cards_ms"])[:worst]
    row["disagreements"] = disagreements
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20, help="positions per row (default 20)")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="the first deal's seed (default 0; the move order was tuned on "
                             "deals 0-199, so 200 on measures it on deals it never saw)")
    parser.add_argument("--cards", default="4,6,8,10,13",
                        help="cards per hand, comma-separated (default 4,6,8,10,13)")
    parser.add_argument("--mid-trick", default="8,13",
                        help="cards per hand of the rows also measured in the middle of a trick "
                             "(default 8,13; '' for none)")
    parser.add_argument("--python-cards", default="4,6,8,10",
                        help="rows where the pure Python search runs too (default 4,6,8,10)")
    parser.add_argument("--python-node-limit", type=int, default=3_000_000,
                        help="the Python search gives up after this many nodes (3000000)")
    parser.add_argument("--no-dds", action="store_true", help="leave DDS out")
    parser.add_argument("--worst", type=int, default=0,
                        help="list this many positions per row where the core's all_cards took "
                             "longest, with node counts (default 0)")
    args = parser.parse_args(argv)
    if default_backend() != "c":
        print("the compiled solver is not built (or VARAQ_SOLVER=python): nothing to compare",
              file=sys.stderr)
        return 2
    dds = None if args.no_dds else _dds()
    python_rows = {int(x) for x in args.python_cards.split(",") if x.strip()}
    mid_rows = {int(x) for x in args.mid_trick.split(",") if x.strip()}
    rows = {}
    for text in args.cards.split(","):
        cards = int(text)
        for mid in (False, True) if cards in mid_rows else (False,):
            name = f"{cards} mid-trick" if mid else str(cards)
            rows[name] = measure(cards, args.deals, dds, cards in python_rows,
                                 args.python_node_limit, mid, args.worst, args.first_seed)
            print(f"{name} cards: {json.dumps(rows[name])}", file=sys.stderr)
    out = {
        "benchmark": "solver",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "clock": "process CPU time",
        "dds": "endplay (DDS)" if dds is not None else None,
        "game": "classic deals played by Normal to N cards a hand (mid-trick: and 1-3 cards of "
                "the next trick), then spades counted as broken",
        "dds_table": "emptied before every timed DDS call",
        "python_node_limit": args.python_node_limit,
        "first_seed": args.first_seed,
        "by_cards_per_hand": rows,
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
