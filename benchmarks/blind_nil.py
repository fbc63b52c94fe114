"""Blind nil: the odds the computer players decide by, and what deciding by them is worth;
prints ONE JSON document.

    python benchmarks/blind_nil.py [--matches 1000] [--rules classic] [--policies estimate,race]
                                   [--also-always] [--jobs 2]
    python benchmarks/blind_nil.py --spots [--deals 1000] [--rules JSON]
    python benchmarks/blind_nil.py --table [--deals 2000] [--jobs 2]
    python benchmarks/blind_nil.py --branch 16 [--matches 4000] [--policies estimate]
                                   [--minutes M] [--rules JSON]

Issue 7: Normal and Hard bid blind nil whenever the table allowed it.  Now they bid it when
their estimate (``varaq.bots.blind``) says it pays at the score.  This script measures:

- by default, **the decision in matches**: Normal deciding by the estimate (side a) against
  Normal that never bids blind nil (side b), in whole matches (classic, or ``--rules``) played
  in duplicate (the same deals both ways), so the difference is the blind nil decisions and
  what follows from them.  ``--policies`` names the policies that meet the never-blind player,
  one arena each (``race``: blind nil wherever a made one reaches the target, the plain rule
  the estimate refines); ``--also-always`` adds blind nil whenever allowed.  Reported per side:
  blind nils bid and made (with a Wilson interval on the made rate), points per match and per
  hand, match wins; the paired difference a - b in points per match and per hand with 95%
  intervals; and, since what a blind nil is for is the match, the paired difference in match
  wins (a's win rate minus b's, t interval over the pairs), an exact sign test on the pairs
  won 2-0 by either side, and the same difference over the pairs where a bid a blind nil
  (only those can differ when a and b play alike otherwise).
- with ``--spots``, **the model against play**: from a few scores, North chooses blind nil
  or looks at the first deal and Normal plays the match out (never bidding blind nil again),
  ``--deals`` seeded times each way; the share of matches won both ways beside what
  ``match_chances`` predicted;
- with ``--branch K``, **the decision in matches, measured where it is taken**: the same
  difference in match wins as the default (a policy against never), with far less noise.
  Each seeded match is played by Normal at every seat, side a (North-South in even matches,
  East-West in odd ones) looking as never would, until side a's first blind choice where the
  policy bids blind nil.  A match that never reaches one is won the same way under either
  policy, so its difference is exactly 0.  Where it does, the match is branched: K times it is
  finished with the blind nil (side a then following the policy), and K times with a look (side
  a then never bidding one), the K continuations of each branch dealt the same later hands
  (common random numbers).  The match's difference is the blind branches' win share minus the
  looking ones'; the mean over all matches, with its t interval, is the policy's gain in win
  rate over never.  It is the arena's quantity without the noise of the matches in which the
  decision never came up, and of the deals both branches share.
- with ``--table``, **the odds**: ``varaq.bots.blind.measure_odds`` for every exchange size
  (0-4) with and without jokers, the figures ``ODDS`` in ``src/varaq/bots/blind.py`` holds.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # the working tree's varaq, not an installed one

from engine import machine  # noqa: E402  (benchmarks/engine.py: cores, CPU, load, commit)
from varaq import Game  # noqa: E402
from varaq.actions import BLIND_NIL, LOOK  # noqa: E402
from varaq.arena import ArenaConfig, ArenaResult, run_arena  # noqa: E402
from varaq.bots import blind as blind_policy  # noqa: E402  (RACE_BAG_ROOM, set per run)
from varaq.bots.blind import (  # noqa: E402
    BLIND_POLICIES,
    match_chances,
    measure_odds,
    odds_for,
)
from varaq.bots.normal import NormalBot  # noqa: E402
from varaq.engine import BLIND, DEAL, OVER  # noqa: E402
from varaq.rules import Rules  # noqa: E402
from varaq.stats import mean_ci95, wilson_ci95  # noqa: E402


def _measure(job: tuple[int, bool, int, int]) -> dict[str, Any]:
    exchange, jokers, deals, seed = job
    rules = Rules.named("classic").with_options(exchange=exchange, jokers=jokers)
    started = time.perf_counter()
    odds = measure_odds(rules, deals, seed)
    print(f"exchange {exchange}, jokers {jokers}: {time.perf_counter() - started:.0f} s",
          file=sys.stderr)
    return {"exchange": exchange, "jokers": jokers, **asdict(odds)}


def table(deals: int, seed: int, jobs: int) -> dict[str, Any]:
    keys = [(ex, jokers, deals, seed) for jokers in (False, True) for ex in range(5)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        rows = pool.map(_measure, keys, chunksize=1)
    return {"benchmark": "blind_nil_odds", "deals": deals, "seed": seed, "odds": rows}


#: The scores ``--spots`` starts from: (North-South, East-West), North-South behind: the
#: opponents near the target, North-South short of it by more or less than a blind nil's 200.
SPOTS = (
    (200, 400), (250, 400), (300, 400), (200, 450), (250, 450), (300, 450), (350, 450),
    (200, 475), (250, 475), (300, 475), (350, 475), (250, 490), (300, 490), (350, 490),
    (375, 490), (0, 450),
)


def _spot(job: tuple[Rules, int, int, int, int]) -> dict[str, Any]:
    rules, ours, theirs, deals, seed = job
    never = NormalBot(blind_nil="never")
    rng = random.Random(seed)  # Normal never draws from it
    won = {}
    for first in (BLIND_NIL, LOOK):
        wins = 0
        for i in range(deals):
            game = Game(rules, seed=f"{seed}:spot:{i}", totals=(ours, theirs), dealer=3)
            chosen = False
            while game.phase != OVER and game.hand_no < 100:
                if game.phase == DEAL:
                    game.deal()
                elif game.phase == BLIND and not chosen and game.turn == 0:
                    game.apply(first)
                    chosen = True
                else:
                    game.apply(never.act(game.view(game.turn), rng))
            wins += game.winner == 0
        won[first] = wins
    look, blind = match_chances(odds_for(rules), rules, ours, theirs)
    row: dict[str, Any] = {"ours": ours, "theirs": theirs, "deals": deals}
    for name, first, model in (("blind", BLIND_NIL, blind), ("look", LOOK, look)):
        low, high = wilson_ci95(won[first], deals)
        row[name] = {"model": round(model, 3), "played": round(won[first] / deals, 3),
                     "played_ci95": [round(low, 3), round(high, 3)]}
    return row


def spots(rules: Rules, deals: int, seed: int, jobs: int) -> dict[str, Any]:
    jobs_list = [(rules, ours, theirs, deals, seed) for ours, theirs in SPOTS]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        rows = pool.map(_spot, jobs_list, chunksize=1)
    return {"benchmark": "blind_nil_spots", "rules": rules.to_spec(), "seed": seed,
            "spots": rows}


def _finish(game: Game, side_a: int, a_bot: NormalBot, b_bot: NormalBot) -> None:
    """Play ``game`` to the end of the match, side ``side_a`` with ``a_bot``."""
    rng = random.Random(0)  # Normal never draws from it
    while game.phase != OVER and game.hand_no < 100:
        if game.phase == DEAL:
            game.deal()
            continue
        bot = a_bot if game.turn & 1 == side_a else b_bot
        game.apply(bot.act(game.view(game.turn), rng))


def _branch_match(job: tuple[Rules, str, int, int, int]) -> dict[str, Any]:
    """One seeded match, branched at side a's first blind nil by ``policy`` (see the module
    docstring, ``--branch``)."""
    rules, policy, index, seed, k = job
    chooser, never = NormalBot(blind_nil=policy), NormalBot(blind_nil="never")
    rng = random.Random(0)
    side_a = index & 1
    game = Game(rules, seed=f"{seed}:branch:{index}")
    while game.phase != OVER and game.hand_no < 100:
        if game.phase == DEAL:
            game.deal()
            continue
        view = game.view(game.turn)
        if game.phase == BLIND and game.turn & 1 == side_a and \
                chooser.act(view, rng) == BLIND_NIL:
            wins, margins = {}, {}
            for first, a_bot in ((BLIND_NIL, chooser), (LOOK, never)):
                won = margin = 0
                for j in range(k):
                    g = game.copy()
                    g.seed = f"{seed}:branch:{index}:{j}"  # the later deals of continuation j
                    g.apply(first)
                    _finish(g, side_a, a_bot, never)
                    won += g.winner == side_a
                    margin += g.totals[side_a] - g.totals[1 - side_a]
                wins[first], margins[first] = won, margin
            side = game.totals[side_a], game.totals[1 - side_a]
            bags = game.bags[side_a], game.bags[1 - side_a]
            return {"index": index, "diverged": True, "totals": side, "bags": bags,
                    "blind_wins": wins[BLIND_NIL], "look_wins": wins[LOOK],
                    "difference": (wins[BLIND_NIL] - wins[LOOK]) / k,
                    "points": (margins[BLIND_NIL] - margins[LOOK]) / k}
        game.apply(never.act(view, rng))
    return {"index": index, "diverged": False, "difference": 0.0, "points": 0.0}


def branch(
    policy: str, rules: Rules, matches: int, seed: int, k: int, jobs: int,
    minutes: float | None,
) -> dict[str, Any]:
    """``policy`` against never, branched where the policy bids (``--branch``)."""
    started = time.perf_counter()
    deadline = None if minutes is None else started + 60 * minutes
    rows: list[dict[str, Any]] = []
    jobs_list = [(rules, policy, i, seed, k) for i in range(matches)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for row in pool.imap_unordered(_branch_match, jobs_list, chunksize=4):
            rows.append(row)
            if len(rows) % 200 == 0:
                print(f"{policy}: {len(rows)} matches", file=sys.stderr)
            if deadline is not None and time.perf_counter() > deadline:
                pool.terminate()
                break
    diffs = [r["difference"] for r in rows]
    spots_rows = [r for r in rows if r["diverged"]]
    ci = mean_ci95(diffs)
    out: dict[str, Any] = {
        "a": f"normal, blind nil: {policy}", "b": "normal, blind nil: never",
        "matches": len(rows), "continuations_per_branch": k,
        "matches_with_a_blind_nil": len(spots_rows),
        "difference_match_wins_per_match": {
            "mean": round(ci.mean, 5), "ci95": [round(ci.low, 5), round(ci.high, 5)],
            "se": round(ci.se, 5)},
    }
    # The final margin (a's total minus b's), blind branch minus looking one: the points the
    # policy costs or brings in a whole match.
    points = mean_ci95([r["points"] for r in rows])
    out["difference_final_margin_per_match"] = {
        "mean": round(points.mean, 2), "ci95": [round(points.low, 2), round(points.high, 2)]}
    if len(spots_rows) > 1:
        at = mean_ci95([r["difference"] for r in spots_rows])
        out["difference_match_wins_where_bid"] = {
            "mean": round(at.mean, 4), "ci95": [round(at.low, 4), round(at.high, 4)]}
        # The same gain split by the opponents' bags at the spot, at race_pays's own room (2
        # when the run turns it off): where a penalty is near, the trailing side has more time.
        room = blind_policy.RACE_BAG_ROOM if blind_policy.RACE_BAG_ROOM is not None else 2
        near = f"opponents {rules.bag_limit - room}+ bags"
        by_bags: dict[str, list[float]] = {}
        for r in spots_rows:
            key = near if r["bags"][1] >= rules.bag_limit - room else "fewer"
            by_bags.setdefault(key, []).append(r["difference"])
        out["where_bid_by_opponents_bags"] = {}
        for key, v in sorted(by_bags.items()):
            part = mean_ci95(v)
            out["where_bid_by_opponents_bags"][key] = {
                "spots": len(v), "mean": round(part.mean, 4),
                "ci95": [round(part.low, 4), round(part.high, 4)]}
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def _side(result: ArenaResult, which: str) -> dict[str, Any]:
    t = result.tally(which)
    matches = 2 * len(result.pairs)
    low, high = wilson_ci95(t.blind_nil_made, t.blind_nil_bid)
    return {
        "blind_nil_bid": t.blind_nil_bid,
        "blind_nil_made": t.blind_nil_made,
        "blind_nil_made_rate": round(t.blind_nil_made / t.blind_nil_bid, 4)
        if t.blind_nil_bid else None,
        "blind_nil_made_rate_ci95": [round(low, 4), round(high, 4)],
        "blind_nil_points": t.blind_nil_points,
        "points": t.points,
        "points_per_match": round(t.points / matches, 1),
        "points_per_hand": round(t.points / max(1, t.hands), 2),
        "match_wins": t.match_wins,
        "hands": t.hands,
    }


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven between pairs
    that favour a and pairs that favour b if either were equally likely (ties left out)."""
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(better, worse) + 1))
    return min(1.0, 2 * tail / 2**n)


def match_wins_difference(result: ArenaResult) -> dict[str, Any]:
    """Match wins of a minus those of b, paired by duplicate match.

    A pair is two matches on the same deals with the sides swapped, so a pair in which
    neither side's choices differed is one win each, and only a pair where side a bid a blind
    nil (or chose differently somewhere) can be won 2-0 either way.  Per pair ``d`` is (a's
    wins - b's wins) / 2, in {-1, 0, +1}: its mean is a's win rate minus b's, and its t
    interval is the paired interval on that difference; the sign test counts the pairs won
    2-0 by each side.  An unfinished match counts for neither side.
    """
    d = [(p.a.match_wins - p.b.match_wins) / 2 for p in result.pairs]
    ci = mean_ci95(d)
    better = sum(x > 0 for x in d)
    worse = sum(x < 0 for x in d)
    bid = [x for p, x in zip(result.pairs, d, strict=True) if p.a.blind_nil_bid]
    out: dict[str, Any] = {
        "difference_match_wins_per_match": {
            "mean": round(ci.mean, 4),
            "ci95": [round(ci.low, 4), round(ci.high, 4)],
            "se": round(ci.se, 4),
        },
        "pairs_won_by_a": better,
        "pairs_won_by_b": worse,
        "pairs_split": len(d) - better - worse,
        "sign_test_p": float(f"{sign_test(better, worse):.3g}"),
        "pairs_with_a_blind_nil": len(bid),
    }
    if bid:
        ci_bid = mean_ci95(bid)
        out["difference_match_wins_in_pairs_with_a_blind_nil"] = {
            "mean": round(ci_bid.mean, 4),
            "ci95": [round(ci_bid.low, 4), round(ci_bid.high, 4)],
        }
    return out


def duel(
    a_policy: str, rules: Rules, matches: int, seed: int, jobs: int, minutes: float | None
) -> dict[str, Any]:
    """``a_policy`` against never-blind Normal over ``matches`` duplicate matches."""
    config = ArenaConfig(
        a="normal", b="normal", rules=rules, seed=seed, matches=matches,
        a_options=(("blind_nil", a_policy),), b_options=(("blind_nil", "never"),),
    )
    result = run_arena(config, jobs=jobs, progress=sys.stderr.isatty(), minutes=minutes)
    # Per pair: a's points minus b's over the pair's two tables, halved: points per match.
    per_match = [(p.a.points - p.b.points) / 2 for p in result.pairs]
    d_match = mean_ci95(per_match)
    d_hand = mean_ci95(result.differences)
    a_wins, b_wins = result.tally("a").match_wins, result.tally("b").match_wins
    low, high = wilson_ci95(a_wins, a_wins + b_wins)
    wins = match_wins_difference(result)
    return {
        "a": f"normal, blind nil: {a_policy}",
        "b": "normal, blind nil: never",
        "matches": 2 * len(result.pairs),
        "pairs": len(result.pairs),
        "unfinished": sum(p.unfinished for p in result.pairs),
        "side_a": _side(result, "a"),
        "side_b": _side(result, "b"),
        "difference_points_per_match": {
            "mean": round(d_match.mean, 1),
            "ci95": [round(d_match.low, 1), round(d_match.high, 1)],
        },
        "difference_points_per_hand": {
            "mean": round(d_hand.mean, 2),
            "ci95": [round(d_hand.low, 2), round(d_hand.high, 2)],
        },
        "a_win_rate": round(a_wins / (a_wins + b_wins), 4) if a_wins + b_wins else None,
        "a_win_rate_ci95": [round(low, 4), round(high, 4)],
        **wins,
        "seconds": round(result.seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--table", action="store_true", help="measure the odds table instead")
    p.add_argument("--spots", action="store_true",
                   help="compare the model's win chances with matches played out instead")
    p.add_argument("--branch", type=int, default=0, metavar="K",
                   help="measure the policy in matches branched where it bids, K "
                        "continuations a branch (see the module docstring)")
    p.add_argument("--race-bag-room", default=None, metavar="N|off",
                   help="set varaq.bots.blind.RACE_BAG_ROOM for this run (the estimate "
                        "skips the race's blind nil with the opponents N bags or fewer short "
                        "of the limit; off: bags not weighed)")
    p.add_argument("--deals", type=int, default=2000,
                   help="deals per table entry or per spot and choice (2000)")
    p.add_argument("--matches", type=int, default=1000,
                   help="duplicate pairs of classic matches (1000)")
    p.add_argument("--rules", default="classic", metavar="PRESET|JSON",
                   help='the table, e.g. \'{"preset": "classic", "exchange": 0}\' (classic)')
    p.add_argument("--policies", default="estimate", metavar="NAME,...",
                   help="blind nil policies of side a, one arena each (estimate)")
    p.add_argument("--also-always", action="store_true",
                   help="also measure the old rule (blind nil whenever allowed)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--minutes", type=float, default=None,
                   help="time box for each arena: the matches finished by then")
    args = p.parse_args(argv)
    if args.race_bag_room is not None:
        room = args.race_bag_room
        blind_policy.RACE_BAG_ROOM = None if room == "off" else int(room)
    spec = json.loads(args.rules) if args.rules.lstrip().startswith("{") else args.rules
    rules = Rules.from_spec(spec)
    if args.table:
        out = table(args.deals, args.seed, args.jobs)
    elif args.spots:
        out = spots(rules, args.deals, args.seed, args.jobs)
    else:
        out = {"benchmark": "blind_nil", "rules": rules.to_spec(), "seed": args.seed}
        policies = [name.strip() for name in args.policies.split(",") if name.strip()]
        unknown = [name for name in policies if name not in BLIND_POLICIES]
        if unknown or not policies:
            p.error(f"--policies takes names from {', '.join(BLIND_POLICIES)}, "
                    f"not {args.policies!r}")
        if args.also_always and "always" not in policies:
            policies.append("always")
        for policy in policies:
            if args.branch:
                out[f"{policy}_vs_never_branched"] = branch(
                    policy, rules, args.matches, args.seed, args.branch, args.jobs,
                    args.minutes)
                continue
            out[f"{policy}_vs_never"] = duel(policy, rules, args.matches, args.seed, args.jobs,
                                             args.minutes)
    out["race_bag_room"] = blind_policy.RACE_BAG_ROOM
    out["machine"] = machine()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
