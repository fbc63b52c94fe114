"""How long the Hard player takes per decision.  Prints ONE JSON document.

    python benchmarks/hard_speed.py [--decisions 200] [--budget 0.6] [--rules classic] [--seed 1]
                                    [--bot hard|expert|hard-v02] [--solver-cards N] [--samples N]
                                    [--bid-samples 20] [--bids-only] [--max-samples N]
                                    [--positions DETAILS.jsonl [--from-trick N] [--against-nil]]

Hard (or Expert, ``--bot expert``, or the Hard of version 0.2 frozen in ``hard_v02.py``,
``--bot hard-v02``, to compare how many layouts each deals in the same budget) sits North and
South with its default settings (or ``--budget``) against Normal; Hard's bids are asked as a
table asks them (a fixed ``BID_SAMPLES`` layouts, seeded by ``bid_seed``: issue 17; Hard 0.2's
in its budget, as then), everything else in its budget; classic
matches are played from seeded deals until Hard has made ``--decisions`` decisions.  Every
decision counts, the forced ones (a single legal card) included, because a player waits for all
of them; the figures for the decisions Hard actually searched are given beside them.
``--solver-cards`` moves where Hard starts solving its layouts and ``--samples`` fixes their
number (the strength legs' ``--fixed``), to time a change before measuring its strength; the
layouts each searched card play and each searched bid got are reported too (Hard 0.2 bid in
its budget, so ``--bot hard-v02`` says what its bids got at a table).  ``--bid-samples``
changes the layouts of Hard's table bids (``BID_SAMPLES``), and ``--bids-only`` times nothing
but those bids, all four seats' of each new deal, to see what a bid priced over more layouts
would cost.
``--positions FILE`` times Hard at the card plays of a ``strength.py --details`` file instead
of fresh games: every position where the table's new player (side a) was to play, the
recorded card then played so the hand goes on as it went (tables with a blind nil are left
out: their exchange is not replayed).  ``--from-trick N`` keeps the positions from N tricks
played, and ``--against-nil`` only those where an opponent's nil is alive and the player's own
side has none: the late defence against a nil (``hard.PROOF_LEADS_FROM``) is rare in fresh
games against Normal, so this is how its cost is timed.
``--max-samples`` moves the cap on a decision's layouts (Hard's 1,000, Expert's 3,000; 300 and
600 before), to see how many layouts the budget alone would allow; the share of searched card
plays that stopped at the cap is reported beside the layouts.

Times are wall-clock seconds (``time.perf_counter``): the goal of issue 3 is what a player
feels, ≤ 1.0 s at the 95th percentile on one core of this 2-core machine.  Run it on a quiet
machine, or read the figures as an upper bound.

Beside it, the speed of dealing layouts (:mod:`varaq.bots.sampling`) in the same positions:
layouts per second with the bids weighing them (rejection sampling) and without.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Iterator
from typing import Any

from varaq import Game
from varaq.bots.advice import BID_SAMPLES, bid_seed
from varaq.bots.hard import ExpertBot, HardBot
from varaq.bots.knowledge import Knowledge
from varaq.bots.normal import NormalBot
from varaq.bots.sampling import Sampler
from varaq.engine import DEAL
from varaq.view import View

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from details import first_lead_tables, records


def _stats(times: list[float]) -> dict[str, Any]:
    if not times:
        return {"n": 0}
    ordered = sorted(times)
    return {
        "n": len(ordered),
        "p50_s": round(statistics.median(ordered), 3),
        "p95_s": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "max_s": round(ordered[-1], 3),
        "mean_s": round(statistics.fmean(ordered), 3),
    }


def defends_live_nil(view: View) -> bool:
    """Whether an opponent's nil is alive and the seat's own side has none (the position
    Hard's defence against a nil acts in)."""
    k = Knowledge.from_view(view)
    return bool(k.their_live_nils) and not (k.nil_alive[view.seat]
                                            or k.nil_alive[view.seat ^ 2])


def recorded_views(path: str, from_trick: int = 0, against_nil: bool = False
                   ) -> Iterator[View]:
    """The card plays of side a (the new player) in a ``strength.py --details`` file, from
    ``from_trick`` tricks played, only those defending a live nil with ``against_nil``;
    the recorded card is played after each so the hand goes on as it went."""
    for t, g in first_lead_tables(records(path)):
        for card in t["plays"]:
            if (g.turn & 1) == t["a_side"] and len(g.tricks) >= from_trick:
                view = g.view(g.turn)
                if not against_nil or defends_live_nil(view):
                    yield view
            g.apply(card)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--budget", type=float, default=None,
                        help="Hard's time budget in seconds (default: Hard's own default)")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot", choices=("hard", "expert", "hard-v02"), default="hard")
    parser.add_argument("--solver-cards", type=int, default=None,
                        help="solve the layouts from this many cards a hand (default: the bot's)")
    parser.add_argument("--samples", type=int, default=None,
                        help="exactly this many layouts a decision instead of the budget")
    parser.add_argument("--bid-samples", type=int, default=BID_SAMPLES,
                        help=f"layouts of Hard's table bids ({BID_SAMPLES})")
    parser.add_argument("--bids-only", action="store_true",
                        help="time only Hard's table bids, every seat's, deal after deal")
    parser.add_argument("--max-samples", type=int, default=None,
                        help="cap on a decision's layouts (default: the bot's own)")
    parser.add_argument("--positions", metavar="FILE", default=None,
                        help="time the card plays of a strength.py --details file")
    parser.add_argument("--from-trick", type=int, default=None,
                        help="with --positions: only from this many tricks played (0-12)")
    parser.add_argument("--against-nil", action="store_true",
                        help="with --positions: only while an opponent's nil is alive")
    args = parser.parse_args(argv)
    if args.positions is None and (args.from_trick is not None or args.against_nil):
        parser.error("--from-trick and --against-nil choose among --positions; give a file")
    if args.positions is not None:
        if args.bids_only:
            parser.error("--bids-only times the bids of fresh deals; --positions times "
                         "recorded card plays")
        if not os.path.isfile(args.positions):
            parser.error(f"--positions: no such file {args.positions}")
        if args.from_trick is not None and not 0 <= args.from_trick <= 12:
            parser.error(f"--from-trick must be 0 to 12, not {args.from_trick}")
        try:  # the whole file replayed first: a bad one is refused before any timing
            views = list(recorded_views(args.positions, args.from_trick or 0, args.against_nil))
        except (ValueError, KeyError, TypeError, IndexError) as e:
            parser.error(f"--positions: {args.positions} is not a strength.py --details file "
                         f"({type(e).__name__}: {e})")
    if args.bids_only and args.bot != "hard":
        parser.error("--bids-only times Hard's table bids: it needs --bot hard")
    if args.max_samples is not None and args.bot == "hard-v02":
        parser.error("--max-samples moves today's players' cap; Hard 0.2 is frozen")
    kind: Any = {"hard": HardBot, "expert": ExpertBot}.get(args.bot)
    if kind is None:
        from hard_v02 import HardV02Bot

        kind = HardV02Bot
    options: dict[str, Any] = {"samples": args.samples, "solver_cards": args.solver_cards}
    if args.budget is not None:
        options["time_budget"] = args.budget
    if args.max_samples is not None:
        options["max_samples"] = args.max_samples
    hard = kind(**options)
    # A table asks Hard's bids with a fixed number of layouts (advice.decision_seed).
    # Hard 0.2's bids were asked in its budget, as its other decisions.
    table_bids = HardBot(samples=args.bid_samples) if args.bot == "hard" else None
    normal = NormalBot()
    times: list[float] = []
    searched: list[float] = []
    sampled = {True: [0, 0.0], False: [0, 0.0]}  # use_bids -> [layouts, seconds]
    by_phase: dict[str, list[float]] = {}
    by_turn: dict[str, list[float]] = {}
    play_layouts: list[int] = []
    bid_layouts: list[int] = []

    def measure(view: View, rng: random.Random) -> int:
        """Time one decision of Hard's (a table bid as a table asks it) and return it."""
        started = time.perf_counter()
        if table_bids is not None and view.phase == "bid":
            decision = table_bids.decide(view, random.Random(bid_seed(view)))
        else:
            decision = hard.decide(view, rng)
        spent = time.perf_counter() - started
        times.append(spent)
        by_phase.setdefault(view.phase, []).append(spent)
        if view.phase == "play":
            by_turn.setdefault("follow" if view.trick else "lead", []).append(spent)
        if "layouts" in decision.reason:
            searched.append(spent)
            counted = re.search(r"of (\d+) layouts", decision.reason)
            if counted:
                (play_layouts if view.phase == "play" else bid_layouts).append(
                    int(counted.group(1)))
            for use_bids in (True, False):
                started = time.perf_counter()
                Sampler(view, use_bids=use_bids).layouts(random.Random(0), 50)
                sampled[use_bids][0] += 50
                sampled[use_bids][1] += time.perf_counter() - started
        return decision.action

    if args.positions is not None:
        for i, view in enumerate(views[:args.decisions]):
            measure(view, random.Random(f"{args.seed}:{i}"))
    game_no = 0
    while args.positions is None and len(times) < args.decisions:
        g = Game(args.rules, seed=f"{args.seed}:{game_no}")
        game_no += 1
        rng = random.Random(f"{args.seed}:{game_no}")
        while not g.is_over and len(times) < args.decisions and g.hand_no < 3:
            if g.phase == DEAL:
                g.deal()
                continue
            view = g.view(g.turn)
            if args.bids_only and view.phase != "bid":
                break  # the bids of this deal are all timed: on to the next deal
            if g.turn & 1 and not args.bids_only:
                g.apply(normal.act(view, rng))
                continue
            g.apply(measure(view, rng))
    out = {
        "benchmark": "hard_speed",
        "bot": args.bot,
        "python": platform.python_version(),
        "rules": args.rules,
        "time_budget_s": hard.time_budget,
        "samples": hard.samples,
        "solver_cards": hard.solver_cards,
        "max_samples": hard.max_samples,
        "bid_samples": args.bid_samples if table_bids is not None else None,
        "bids_only": args.bids_only,
        "positions": args.positions,
        "from_trick": args.from_trick,
        "against_nil": args.against_nil,
        "positions_available": len(views) if args.positions is not None else None,
        "all_decisions": _stats(times),
        "searched_decisions": _stats(searched),
        "by_phase": {phase: _stats(ts) for phase, ts in sorted(by_phase.items())},
        "card_plays_by_turn": {turn: _stats(ts) for turn, ts in sorted(by_turn.items())},
        "layouts_per_searched_play": (
            {"min": min(play_layouts), "p50": statistics.median(play_layouts),
             "mean": round(statistics.mean(play_layouts), 1),
             "at_cap": round(sum(n >= hard.max_samples for n in play_layouts)
                             / len(play_layouts), 2)} if play_layouts else None),
        "layouts_per_searched_bid": (
            {"min": min(bid_layouts), "p50": statistics.median(bid_layouts),
             "mean": round(statistics.mean(bid_layouts), 1)} if bid_layouts else None),
        "layouts_per_second": {
            "weighed_by_bids": int(sampled[True][0] / sampled[True][1]) if sampled[True][1] else 0,
            "constraints_only": (
                int(sampled[False][0] / sampled[False][1]) if sampled[False][1] else 0
            ),
        },
        "goal": {"p95_s": 2.5 if args.bot == "expert" else 1.0},
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
