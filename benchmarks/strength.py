"""The strength ladder of issue 3, measured through the duplicate arena.

Prints ONE JSON document on standard output (progress bars go to standard error)::

    python benchmarks/strength.py [--deals 500] [--hard-deals 500] [--matches 100]
                                  [--rules classic] [--seed 1] [--jobs N] [--budget S | --samples N]
                                  [--hard-minutes M]
                                  [--legs normal-easy,hard-normal,hard-matches,hard-cheater,
                                          hard-classic]

Why: the computer players are the product, and "stronger" only means something as a number with
an error bar.  Every leg is a duplicate arena (each deal played both ways on the same cards), so
the figures are paired differences in points per hand with a 95% interval.  The legs:

- ``normal-easy``: Normal against Easy over ``--deals`` deals (goal: +40 points per hand);
- ``hard-normal``: Hard against Normal over ``--hard-deals`` deals (goal: +15, interval above
  zero), which also gives Hard's nil made rate (goal: ≥ 70%) and its side's set rate (< 15%);
- ``hard-matches``: Hard against Normal over ``--matches`` whole matches to the target, played
  both ways (goal: Hard wins ≥ 75%);
- ``hard-cheater``: Hard against the cheater, which sees every card: how far below the ceiling;
- ``hard-classic``: Hard against the Hard of version 0.1 (``hard-classic``, which solved only
  the last 4 cards of its layouts): what solving earlier buys (issue 12).

Hard thinks for up to its budget on every decision, so its legs are slow; ``--hard-deals`` and
``--hard-minutes`` (a time box per leg) let a run fit the time there is, and each leg's JSON says
how many deals or matches its figures rest on (``deals``/``matches`` beside ``requested``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
from typing import Any

from varaq.arena import ArenaConfig, ArenaError, run_arena
from varaq.rules import Rules

LEGS = ("normal-easy", "hard-normal", "hard-matches", "hard-cheater", "hard-classic")
#: The players that take ``--budget`` / ``--samples``.
THINKERS = ("hard", "hard-classic")


def leg(
    a: str, b: str, rules: Rules, seed: int, jobs: int, *, deals: int = 0, matches: int = 0,
    budget: float | None = None, samples: int | None = None, minutes: float | None = None,
) -> dict[str, Any]:
    """One arena run, summarised; a bot that cannot be built is reported, not fatal."""
    options: tuple[tuple[str, Any], ...] = ()
    if budget is not None:
        options = (("budget", budget),)
    if samples is not None:
        options = (("samples", samples),)
    config = ArenaConfig(
        a=a, b=b, rules=rules, seed=seed, deals=deals, matches=matches,
        a_options=options if a in THINKERS else (), b_options=options if b in THINKERS else (),
    )
    try:
        result = run_arena(config, jobs=jobs, progress=sys.stderr.isatty(), minutes=minutes)
        return result.to_json()
    except ArenaError as exc:
        return {"a": {"bot": a}, "b": {"bot": b}, "skipped": str(exc)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=500, help="deals for Normal vs Easy (500)")
    p.add_argument("--hard-deals", type=int, default=500,
                   help="deals for each leg with Hard (500)")
    p.add_argument("--matches", type=int, default=100,
                   help="whole matches for Hard vs Normal (100)")
    p.add_argument("--rules", default="classic")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--budget", type=float, default=None,
                   help="Hard's seconds per decision (its default if unset)")
    p.add_argument("--samples", type=int, default=None,
                   help="Hard evaluates exactly this many layouts per decision instead")
    p.add_argument("--hard-minutes", type=float, default=None,
                   help="time box for each leg with Hard: as many deals or matches as fit")
    p.add_argument("--legs", default=",".join(LEGS),
                   help=f"comma-separated subset of {','.join(LEGS)}")
    args = p.parse_args()
    legs = [x.strip() for x in args.legs.split(",") if x.strip()]
    unknown = [x for x in legs if x not in LEGS]
    if unknown:
        p.error(f"unknown legs {unknown} (choose from {', '.join(LEGS)})")
    rules = Rules.from_spec(json.loads(args.rules) if args.rules.startswith("{") else args.rules)

    out: dict[str, Any] = {
        "benchmark": "strength",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "rules": rules.to_spec(),
        "seed": args.seed,
        "jobs": args.jobs,
        "budget": args.budget,
        "samples": args.samples,
        "hard_minutes": args.hard_minutes,
        "legs": {},
    }
    common: dict[str, Any] = {"rules": rules, "seed": args.seed, "jobs": args.jobs}
    hard = {"budget": args.budget, "samples": args.samples, "minutes": args.hard_minutes}
    if "normal-easy" in legs:
        out["legs"]["normal-easy"] = leg("normal", "easy", deals=args.deals, **common)
    if "hard-normal" in legs:
        out["legs"]["hard-normal"] = leg(
            "hard", "normal", deals=args.hard_deals, **hard, **common
        )
    if "hard-matches" in legs:
        out["legs"]["hard-matches"] = leg(
            "hard", "normal", matches=args.matches, **hard, **common
        )
    if "hard-cheater" in legs:
        out["legs"]["hard-cheater"] = leg(
            "hard", "cheater", deals=args.hard_deals, **hard, **common
        )
    if "hard-classic" in legs:
        out["legs"]["hard-classic"] = leg(
            "hard", "hard-classic", deals=args.hard_deals, **hard, **common
        )
    out["goals"] = goals(out["legs"])
    print(json.dumps(out, indent=2))
    return 0


def goals(legs: dict[str, Any]) -> dict[str, Any]:
    """Issue 3's targets beside the measured figures: each as value, goal and whether met."""
    found: dict[str, Any] = {}

    def diff(name: str) -> dict[str, Any] | None:
        data = legs.get(name)
        return None if data is None or "skipped" in data else data

    if (ne := diff("normal-easy")) is not None:
        d = ne["difference"]
        found["normal_beats_easy_by"] = {
            "value": d["mean"], "ci95": d["ci95"], "goal": ">= 40", "met": d["mean"] >= 40,
        }
    if (hn := diff("hard-normal")) is not None:
        d = hn["difference"]
        found["hard_beats_normal_by"] = {
            "value": d["mean"], "ci95": d["ci95"], "goal": ">= 15, ci95 above 0",
            "met": d["mean"] >= 15 and d["ci95"][0] > 0,
        }
        hard = hn["a"]
        found["hard_nil_made_rate"] = {
            "value": hard["nil_made_rate"], "bid": hard["nil_bid"], "goal": ">= 0.70",
            "met": hard["nil_made_rate"] is not None and hard["nil_made_rate"] >= 0.70,
        }
        found["hard_set_rate"] = {
            "value": hard["set_rate"], "contracts": hard["made"] + hard["set"],
            "goal": "< 0.15", "met": hard["set_rate"] < 0.15,
        }
    if (hm := diff("hard-matches")) is not None:
        m = hm["match"]
        found["hard_match_win_rate"] = {
            "value": m["a_win_rate"], "ci95": m["a_win_rate_ci95"], "goal": ">= 0.75",
            "met": m["a_win_rate"] is not None and m["a_win_rate"] >= 0.75,
        }
    if (hc := diff("hard-cheater")) is not None:
        d = hc["difference"]
        found["hard_below_cheater_by"] = {
            "value": -d["mean"], "ci95": [-d["ci95"][1], -d["ci95"][0]],
            "goal": "report only",
        }
    if (hk := diff("hard-classic")) is not None:
        d = hk["difference"]
        found["hard_beats_hard_classic_by"] = {
            "value": d["mean"], "ci95": d["ci95"], "goal": "report (CI above 0 wanted)",
        }
    return found


if __name__ == "__main__":
    sys.exit(main())
