"""How much a play decision loses by dealing fewer layouts; prints ONE JSON document.

    python benchmarks/layout_regret.py F.jsonl [G.jsonl ...] [--positions 120] [--seed 12]
                                       [--truth 1000] [--pool 600]
                                       [--sizes 24,48,96,192,300,600] [--repeats 60]

Hard chooses a card by its mean value over the layouts it deals (:mod:`varaq.bots.hard`), so
a decision from few layouts is a noisy guess at the card its own evaluation prefers.  This
measures that noise and nothing else: positions are drawn at random from the hands of
``strength.py --details`` files (one table, a random point of its play, a decision with two
or more distinct cards); each candidate is valued exactly as Hard values it over ``--truth``
layouts (its *own best card*), and separately over a ``--pool`` of other layouts.  A pick
from ``n`` layouts is the best card of ``n`` drawn from the pool, ``--repeats`` times; its
*regret* is how many points of hand value (Hard's measure) that card's truth falls short of
the best card's.  Normal's card (the tie-break Hard falls back on) is judged the same way.

Regret is reported for decisions while a nil is alive and for the others: it says what more
layouts buy a decision, against Hard's own evaluation, not against the real deal (that is
``nil_leads.py``'s and the strength runs' question).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from details import bid_table, records
from varaq.bots.hard import (
    HardBot,
    _normal_candidate,
    hand_value,
    play_candidates,
    play_outcomes,
)
from varaq.bots.knowledge import Knowledge
from varaq.bots.sampling import Sampler
from varaq.view import View

SIZES = (24, 48, 96, 192, 300, 600)


@dataclass(frozen=True, slots=True)
class Decision:
    """One play decision of a recorded hand, with what Hard's search needs to value it."""

    view: View
    knowledge: Knowledge
    candidates: list[int]

    @property
    def nil_alive(self) -> bool:
        return any(self.knowledge.nil_alive)


def _tables(paths: list[str]) -> list[dict[str, Any]]:
    tables = [t for path in paths for deal in records(path) for t in deal["tables"]
              if not any(t["blind"])]
    if not tables:
        raise ValueError("no table without a blind nil in the files")
    return tables


def decisions(paths: list[str], n: int, rng: random.Random) -> list[Decision]:
    """``n`` play decisions drawn at random (a table, then a point of its play)."""
    tables = _tables(paths)
    out: list[Decision] = []
    while len(out) < n:
        t = rng.choice(tables)
        g = bid_table(t)
        for card in t["plays"][:rng.randrange(0, 44)]:
            g.apply(card)
        view = g.view(g.turn)
        k = Knowledge.from_view(view)
        candidates = play_candidates(view, k)
        if len(candidates) >= 2:
            out.append(Decision(view, k, candidates))
    return out


def _values(d: Decision, sampler: Sampler, rng: random.Random, n: int,
            ) -> list[dict[int, float]]:
    """Each candidate's hand value in ``n`` layouts, as Hard's search values it."""
    view, k = d.view, d.knowledge
    side = view.seat & 1
    solve = HardBot().solves_late(view, k)
    out = []
    for _ in range(n):
        # One layout a draw, as Hard draws them (a batch falls back differently when few fit).
        layout = sampler.layouts(rng, 1)[0]
        results = play_outcomes(view, layout.hands, d.candidates, solve, k.nil_alive)
        out.append({c: hand_value(view.rules, side, r, view.totals) for c, r in results.items()})
    return out


def regrets(d: Decision, truth: int, pool: int, sizes: tuple[int, ...], repeats: int,
            seed: int) -> dict[str, float]:
    """The regret of a pick from each size of ``sizes``, and of Normal's card."""
    sampler = Sampler(d.view, d.knowledge)
    true = _values(d, sampler, random.Random(seed), truth)
    others = _values(d, sampler, random.Random(seed + 1), pool)
    mean = {c: fmean(v[c] for v in true) for c in d.candidates}
    best = max(mean.values())
    out: dict[str, float] = {}
    for n in sizes:
        draws = 1 if n >= pool else repeats
        misses = []
        for r in range(draws):
            sub = others if n >= pool else random.Random(r).sample(others, n)
            pick = max(d.candidates, key=lambda c: sum(v[c] for v in sub))
            misses.append(best - mean[pick])
        out[str(n)] = fmean(misses)
    normal = _normal_candidate(d.view, d.knowledge, d.candidates)
    out["normal"] = best - mean[normal] if normal in mean else 0.0
    return out


def study(paths: list[str], positions: int = 120, seed: int = 12, truth: int = 1000,
          pool: int = 600, sizes: tuple[int, ...] = SIZES, repeats: int = 60) -> dict[str, Any]:
    rows: dict[str, list[dict[str, float]]] = {"nil alive": [], "no live nil": []}
    for d in decisions(paths, positions, random.Random(seed)):
        rows["nil alive" if d.nil_alive else "no live nil"].append(
            regrets(d, truth, pool, sizes, repeats, seed))
    keys = [str(n) for n in sizes] + ["normal"]
    every = rows["nil alive"] + rows["no live nil"]
    table = {name: {"decisions": len(r), **{k: round(fmean(x[k] for x in r), 3) for k in keys}}
             for name, r in (*rows.items(), ("all", every)) if r}
    return {"regret_by_layouts": table}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--positions", type=int, default=120, help="decisions drawn (120)")
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--truth", type=int, default=1000, help="layouts of the truth (1000)")
    p.add_argument("--pool", type=int, default=600, help="layouts the picks draw from (600)")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)),
                   help="layouts a pick, comma-separated (24,48,96,192,300,600)")
    p.add_argument("--repeats", type=int, default=60, help="picks drawn a size (60)")
    args = p.parse_args(argv)
    try:
        sizes = tuple(int(x) for x in args.sizes.split(","))
    except ValueError:
        p.error(f"--sizes must be whole numbers separated by commas, not {args.sizes!r}")
    if min(args.positions, args.truth, args.pool, args.repeats, *sizes) < 1:
        p.error("--positions, --truth, --pool, --repeats and every size must be at least 1")
    if max(sizes) > args.pool:
        p.error(f"a size cannot exceed --pool ({args.pool})")
    try:
        found = study(args.files, args.positions, args.seed, args.truth, args.pool, sizes,
                      args.repeats)
    except (OSError, ValueError, KeyError) as exc:
        p.error(f"cannot read the details files: {exc}")
    out = {"benchmark": "layout_regret", "files": args.files, "positions": args.positions,
           "seed": args.seed, "truth": args.truth, "pool": args.pool, "sizes": list(sizes),
           "repeats": args.repeats, **found}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
