"""The strength ladder of issue 3, measured through the duplicate arena.

Prints ONE JSON document on standard output (progress bars go to standard error)::

    python benchmarks/strength.py [--deals 500] [--hard-deals 500] [--matches 100]
                                  [--rules classic] [--seed 1] [--jobs N] [--budget S | --samples N]
                                  [--hard-minutes M] [--fixed 12] [--table-bids] [--first K]
                                  [--v02-bid-samples N] [--details deals.jsonl]
                                  [--replay-nils|--replay-bids BASE.jsonl | --nil-deals]
                                  [--nil-side a|b|either]
                                  [--legs normal-easy,hard-normal,hard-matches,hard-cheater,
                                          hard-classic,hard-v02,cardplay-gap,bidding-gap,
                                          v02-ceiling,hard-ceiling,normal-v02]

(The last six legs are left out unless asked for.)

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
  the last 4 cards of its layouts): what solving earlier buys (issue 12);
- ``hard-v02``: Hard against the Hard of version 0.2 frozen in ``benchmarks/hard_v02.py``
  (issue 17: simulated bids, inference from the plays), both with ``--fixed`` layouts a
  decision (default 12) so the result does not depend on the machine's load; with
  ``--table-bids`` today's Hard bids as a table asks it (``BID_SAMPLES`` layouts, the bid the
  table, the Hint and the review give) and only its cards get the fixed layouts; with
  ``--v02-bid-samples N`` Hard 0.2's bids get N layouts and its cards the fixed number (its
  budget gave its bids about 108 layouts at a table, its cards about 250: the two counts
  apart make a yardstick at the table's counts);
- ``cardplay-gap``: a side that bids as Hard and then plays every card seeing all four hands,
  against Hard (both with ``--fixed`` layouts): what is left to gain in card play;
- ``bidding-gap``: a side that bids the par of the actual deal (the cheater's bid) and plays
  as Hard, against Hard: what is left to gain in bidding;
- ``v02-ceiling``: the cheater, which bids and plays seeing every card, against the Hard of
  version 0.2 with ``--fixed`` layouts: how much room any player has above that yardstick
  (an honest player's margin over Hard 0.2 can only come out of this one);
- ``hard-ceiling``: the cheater against today's Hard with ``--fixed`` layouts, on the same
  deals, so the two ceiling legs pair deal by deal with ``hard-v02``;
- ``normal-v02``: Normal against Normal with the card play of version 0.2 (``normal_v02.py``,
  the play Hard 0.2's layouts keep) over ``--deals`` deals: what Normal's play has learned.

``--replay-nils BASE.jsonl`` measures a change that acts only while a nil is alive for a
quarter of the machine time: every player of the fixed legs decides the same way in the same
position (the arena seeds each decision from the position), so such a change plays the very
same cards on every deal where nobody bid nil.  Only BASE's deals with a nil (by side a, side
b or either, ``--nil-side``) are played again, by the varaq Python imports (set
``PYTHONPATH=TREE/src`` to try another tree's), and the ``--details`` file gets all of BASE's
deals with those replaced: ``details.py BASE.jsonl SPLICED.jsonl`` then gives the paired change
over every deal.  BASE must come from the same leg, ``--seed``, ``--rules``, ``--fixed`` and
bid options (the dealt cards are checked before any is played; the rest is the caller's care).
``--nil-deals`` does the same without a base file: each of the fixed legs' deals is bid first
(no card played), and only those where ``--nil-side`` bid nil are played; run once with each
tree, ``details.py BEFORE.jsonl AFTER.jsonl`` pairs the two over those deals (the others would
be the same), the change per deal of those, not per deal of the seed.
``--replay-bids BASE.jsonl`` is the same splice for a change to the bids alone: each of BASE's
deals is bid first with this tree (no card played), and only those where a bid differs from
BASE's are played again (the card play being the same, so are the deals bid the same).

Hard thinks for up to its budget on every decision, so its legs are slow; ``--hard-deals`` and
``--hard-minutes`` (a time box per leg) let a run fit the time there is, and each leg's JSON says
how many deals or matches its figures rest on (``deals``/``matches`` beside ``requested``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from varaq import arena
from varaq.arena import (
    ArenaConfig,
    ArenaError,
    ArenaResult,
    PairResult,
    play_deal,
    run_arena,
)
from varaq.engine import Game
from varaq.rules import Rules

#: The legs played with ``--fixed`` layouts a decision, deal by deal (``--details``).
FIXED_LEGS = ("hard-v02", "cardplay-gap", "bidding-gap", "v02-ceiling", "hard-ceiling")
LEGS = ("normal-easy", "hard-normal", "hard-matches", "hard-cheater", "hard-classic",
        *FIXED_LEGS, "normal-v02")
#: A fixed leg's player: a bot's arena name, or a class that builds it.
Player = str | Callable[[], Any]
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


def _one_deal(job: tuple[ArenaConfig, int, bool]) -> tuple[PairResult, dict[str, Any] | None]:
    config, index, details = job
    if not details:
        return play_deal(config, index), None
    # The arena's own deal, with both tables kept so each hand's record can be written out.
    tables = arena._deal_tables(config, index)
    return arena._pair(index, tables), {
        "deal": index, "tables": [_hand_record(t.a_side, t.game.log[-1]) for t in tables],
    }


def _hand_record(a_side: int, hand: Any) -> dict[str, Any]:
    """One table's hand as plain data: who sat where, the cards dealt, the bids and results
    (seat-indexed lists; ``a_side`` is the side of player a at this table)."""
    r = hand.result
    return {
        "a_side": a_side, "dealer": hand.dealer, "dealt": list(hand.dealt or ()),
        "bids": list(r.bids), "blind": list(r.blind), "tricks": list(r.tricks),
        "made": list(r.made), "nil_made": list(r.nil_made), "new_bags": list(r.new_bags),
        "score": list(r.score), "plays": list(hand.plays),
    }


def nil_deals(records: list[dict[str, Any]], side: str = "either") -> list[int]:
    """The deals of a ``--details`` file where a nil (blind or not) was bid by player a's
    side, player b's side, or ``either``."""
    found = []
    for record in records:
        for table in record["tables"]:
            for seat, bid in enumerate(table["bids"]):
                if bid != 0:
                    continue
                mine = (seat & 1) == table["a_side"]
                if side == "either" or mine == (side == "a"):
                    found.append(record["deal"])
                    break
            else:
                continue
            break
    return found


def _bids_of(job: tuple[ArenaConfig, int]) -> dict[str, Any]:
    config, index = job
    return {"deal": index, "tables": arena.deal_bids(config, index)}


def bid_deals(config: ArenaConfig, indices: list[int], jobs: int) -> list[dict[str, Any]]:
    """How each of the deals ``indices`` is bid at its two tables, no card played, on ``jobs``
    processes: records like a ``--details`` file's, with only ``a_side`` and ``bids``."""
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(_bids_of, [(config, i) for i in indices], chunksize=1)


def deals_bid_otherwise(config: ArenaConfig, base: list[dict[str, Any]], jobs: int) -> list[int]:
    """``--replay-bids``: the deals of ``base`` where this tree's players bid otherwise than
    ``base`` records, at either table (each deal bid, no card played)."""
    records = bid_deals(config, [r["deal"] for r in base], jobs)
    was = {r["deal"]: [t["bids"] for t in r["tables"]] for r in base}
    found = [r["deal"] for r in records if [t["bids"] for t in r["tables"]] != was[r["deal"]]]
    print(f"{len(found)} of {len(records)} deals bid otherwise", file=sys.stderr, flush=True)
    return found


def deals_with_nils(config: ArenaConfig, first: int, side: str, jobs: int) -> list[int]:
    """``--nil-deals``: the deals ``first .. first + config.deals - 1`` in which ``side`` bid
    nil at either table, found by bidding each (no card played; Hard 0.2's simulated bids at
    the fixed layouts make it about 6 s a deal).  A change that acts only while a nil is alive
    plays the same cards on every other deal, so two runs of it, before and after, pair over
    these deals alone (``details.py A B``), on seeds no earlier run has a file of."""
    records = bid_deals(config, list(range(first, first + config.deals)), jobs)
    found = nil_deals(records, side)
    print(f"{len(found)} of {len(records)} deals with a nil bid by side {side}",
          file=sys.stderr, flush=True)
    return found


def read_details(path: str) -> list[dict[str, Any]]:
    """The deals of a ``--details`` file, in its order."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def check_dealt(config: ArenaConfig, records: list[dict[str, Any]]) -> str | None:
    """Why ``records`` cannot be replayed with ``config`` (None if they can): each deal's
    cards, dealt again from the arena's seed, must be the ones the record holds."""
    for record in records:
        game = Game(config.rules, seed=f"{config.seed}:deal:{record['deal']}")
        game.deal()
        if list(game.hands) != record["tables"][0]["dealt"]:
            return (f"deal {record['deal']} of the base file was not dealt with this --seed "
                    f"and --rules (seed {config.seed})")
    return None


class Splice:
    """Writes ``base``'s deals to ``out`` in order, each replayed deal in place of its own, as
    the replays come in (in ``base``'s order): a replay stopped early leaves the first deals of
    ``base`` spliced, which ``details.py`` pairs with the base all the same."""

    def __init__(self, base: list[dict[str, Any]], out: TextIO) -> None:
        self.base, self.out, self.written = base, out, 0

    def __call__(self, replayed: dict[str, Any]) -> None:
        while self.base[self.written]["deal"] != replayed["deal"]:
            self._write(self.base[self.written])
        self._write(replayed)

    def finish(self) -> None:
        """The base's deals after the last replayed one."""
        while self.written < len(self.base):
            self._write(self.base[self.written])

    def _write(self, record: dict[str, Any]) -> None:
        print(json.dumps(record), file=self.out, flush=True)
        self.written += 1


def deal_by_deal(
    config: ArenaConfig, jobs: int, minutes: float | None,
    details: Callable[[dict[str, Any]], None] | None = None,
    first: int = 0, indices: list[int] | None = None,
) -> ArenaResult:
    """The arena's duplicate deals handed out one at a time (the arena sends players it does
    not know by name in chunks of up to 20 deals, too coarse for a time box of slow players);
    the deals ``first .. first + config.deals - 1`` (``first`` lets a time-boxed run be carried
    on later with the very deals it did not reach); with ``minutes``, those of them finished in
    time, in order, as the arena keeps them.  With ``details``, each deal's two hands are
    handed to it as one record (see :func:`_hand_record`), to be written out so the hands that
    lose points can be found afterwards.  ``indices``, if given, are the deals to play instead."""
    started = time.perf_counter()
    deadline = None if minutes is None else started + 60 * minutes
    results: list[PairResult] = []
    if indices is None:
        indices = list(range(first, first + config.deals))
    jobs_list = [(config, i, details is not None) for i in indices]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for result, record in pool.imap(_one_deal, jobs_list, chunksize=1):
            results.append(result)
            if details is not None and record is not None:
                details(record)
            print(f"{len(results)} of {len(indices)} deals", file=sys.stderr, flush=True)
            if deadline is not None and time.perf_counter() >= deadline:
                pool.terminate()
                break
    return ArenaResult(config, results, time.perf_counter() - started)


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
    p.add_argument("--fixed", type=int, default=12,
                   help="layouts a decision in the hard-v02, gap and ceiling legs (12)")
    p.add_argument("--table-bids", action="store_true",
                   help="today's Hard bids as a table asks it (BID_SAMPLES layouts) in the "
                        "fixed legs; only its cards get --fixed layouts")
    p.add_argument("--v02-bid-samples", type=int, default=None, metavar="N",
                   help="Hard 0.2's bids over N layouts instead of --fixed (about 108 is "
                        "what its budget gives them at a table)")
    p.add_argument("--first", type=int, default=0,
                   help="start the fixed legs at this deal (0), to carry on a time-boxed run")
    p.add_argument("--details", default=None,
                   help="write each deal of the fixed legs as a JSON line to this file "
                        "(the leg's name is added before the extension)")
    p.add_argument("--replay-nils", default=None, metavar="BASE.jsonl",
                   help="play again only the deals of this --details file (one fixed leg) "
                        "where a nil was bid, and write it to --details with them replaced")
    p.add_argument("--replay-bids", default=None, metavar="BASE.jsonl",
                   help="play again only the deals of this --details file (one fixed leg) "
                        "that this tree bids otherwise, and write it to --details with them "
                        "replaced")
    p.add_argument("--nil-side", choices=("a", "b", "either"), default="either",
                   help="with --replay-nils or --nil-deals: the deals where this side bid nil "
                        "(either)")
    p.add_argument("--nil-deals", action="store_true",
                   help="in the fixed legs, bid each of the deals first and play only those "
                        "where --nil-side bid nil")
    p.add_argument("--legs", default=",".join(LEGS[:5]),
                   help=f"comma-separated subset of {','.join(LEGS)}")
    args = p.parse_args()
    legs = [x.strip() for x in args.legs.split(",") if x.strip()]
    unknown = [x for x in legs if x not in LEGS]
    if unknown:
        p.error(f"unknown legs {unknown} (choose from {', '.join(LEGS)})")
    rules = Rules.from_spec(json.loads(args.rules) if args.rules.startswith("{") else args.rules)
    if args.v02_bid_samples is not None and args.v02_bid_samples < 1:
        p.error(f"--v02-bid-samples must be at least 1, not {args.v02_bid_samples}")
    if args.replay_nils and args.replay_bids:
        p.error("--replay-nils and --replay-bids: choose one")
    replay = args.replay_nils or args.replay_bids
    if replay and (len(legs) != 1 or legs[0] not in FIXED_LEGS or not args.details):
        option = "--replay-nils" if args.replay_nils else "--replay-bids"
        p.error(f"{option} needs exactly one of the fixed legs "
                f"({', '.join(FIXED_LEGS)}) and --details")

    if args.nil_deals and (replay or not set(legs) <= set(FIXED_LEGS)):
        p.error("--nil-deals goes with the fixed legs only "
                f"({', '.join(FIXED_LEGS)}), not with --replay-nils or --replay-bids")

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
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if "normal-v02" in legs:
        import ceiling_bots as cb

        config = ArenaConfig(a="normal", b=cb.NormalV02, rules=rules, seed=args.seed,
                             deals=args.deals)
        out["legs"]["normal-v02"] = run_arena(config, jobs=args.jobs,
                                              progress=sys.stderr.isatty()).to_json()
    fixed_legs = [x for x in FIXED_LEGS if x in legs]
    if fixed_legs:
        os.environ["VARAQ_BENCH_SAMPLES"] = str(args.fixed)
        os.environ["VARAQ_BENCH_TABLE_BIDS"] = "1" if args.table_bids else ""
        os.environ["VARAQ_BENCH_V02_BID_SAMPLES"] = str(args.v02_bid_samples or "")
        out["fixed"] = args.fixed
        out["table_bids"] = args.table_bids
        out["v02_bid_samples"] = args.v02_bid_samples
        out["first"] = args.first
        import ceiling_bots as cb

        pairs: dict[str, tuple[Player, Player]] = {
            "hard-v02": (cb.NewHard, cb.HardV02),
            "cardplay-gap": (cb.HardBidsPerfectPlay, cb.NewHard),
            "bidding-gap": (cb.ParBidsHardPlay, cb.NewHard),
            "v02-ceiling": ("cheater", cb.HardV02),
            "hard-ceiling": ("cheater", cb.NewHard),
        }
        root, ext = os.path.splitext(args.details or "")
        for name in fixed_legs:
            a, b = pairs[name]
            config = ArenaConfig(a=a, b=b, rules=rules, seed=args.seed, deals=args.hard_deals)
            if replay:
                # Not under the leg's own name: its figures cover the replayed deals only.
                what = "nil deals" if args.replay_nils else "deals bid otherwise"
                out["legs"][f"{name} ({what} replayed)"] = _replay(
                    config, replay, args.nil_side if args.replay_nils else None,
                    f"{root}-{name}{ext}", args.jobs, p)
                continue
            indices = None
            if args.nil_deals:
                indices = deals_with_nils(config, args.first, args.nil_side, args.jobs)
            if args.details:
                with open(f"{root}-{name}{ext}", "w", encoding="utf-8") as details:
                    result = deal_by_deal(config, args.jobs, args.hard_minutes,
                                          _writer(details), args.first, indices)
            else:
                result = deal_by_deal(config, args.jobs, args.hard_minutes, first=args.first,
                                      indices=indices)
            out["legs"][name] = result.to_json()
            if indices is not None:
                out["legs"][name].update(nil_side=args.nil_side, bid=config.deals,
                                         with_nils=len(indices))
    out["goals"] = goals(out["legs"])
    print(json.dumps(out, indent=2))
    return 0


def _replay(
    config: ArenaConfig, base_path: str, side: str | None, details_path: str, jobs: int,
    p: argparse.ArgumentParser,
) -> dict[str, Any]:
    """``--replay-nils`` (``side`` given) or ``--replay-bids`` (``side`` None): the nil deals of
    ``base_path``, or those this tree bids otherwise, played again and spliced into a copy of
    it at ``details_path``.  The summary covers the replayed deals only; ``details.py`` pairs
    the spliced file with the base over all of them."""
    option = "--replay-nils" if side else "--replay-bids"
    try:
        base = read_details(base_path)
    except (OSError, ValueError, KeyError) as exc:
        p.error(f"{option}: cannot read {base_path}: {exc}")
    if os.path.abspath(details_path) == os.path.abspath(base_path):
        p.error(f"{option}: --details must not be the base file")
    reason = check_dealt(config, base)
    if reason:
        p.error(f"{option}: {reason}")
    if side:
        wanted = nil_deals(base, side)
        if not wanted:
            p.error(f"{option}: no deal of {base_path} has a nil bid by side {side}")
    else:
        wanted = deals_bid_otherwise(config, base, jobs)
    with open(details_path, "w", encoding="utf-8") as out:
        splice = Splice(base, out)
        # Nothing bid otherwise: the copy is the base, and there are no pairs to sum up.
        result = deal_by_deal(config, jobs, None, splice, indices=wanted) if wanted else None
        splice.finish()
    summary = result.to_json() if result else {}
    summary.update(base=base_path, spliced=details_path, replayed=len(wanted), of=len(base))
    if side:
        summary.update(nil_side=side)
    return summary


def _writer(out: TextIO) -> Callable[[dict[str, Any]], None]:
    """Each deal's record as one JSON line of ``out``, flushed so a stopped run keeps it."""
    return lambda record: print(json.dumps(record), file=out, flush=True)


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
    if (hv := diff("hard-v02")) is not None:
        d = hv["difference"]
        found["hard_beats_hard_v02_by"] = {
            "value": d["mean"], "ci95": d["ci95"], "deals": d.get("pairs"),
            "goal": ">= 10 over >= 300 deals, ci95 above 0",
            "met": d["mean"] >= 10 and d["ci95"][0] > 0 and (d.get("pairs") or 0) >= 300,
        }
    for name, key in (("cardplay-gap", "card_play_gap"), ("bidding-gap", "bidding_gap"),
                      ("v02-ceiling", "cheater_above_hard_v02_by"),
                      ("hard-ceiling", "cheater_above_hard_by")):
        if (g := diff(name)) is not None:
            d = g["difference"]
            found[key] = {"value": d["mean"], "ci95": d["ci95"], "deals": d.get("pairs"),
                          "goal": "<= 5" if name == "cardplay-gap" else "report"}
    return found


if __name__ == "__main__":
    sys.exit(main())
