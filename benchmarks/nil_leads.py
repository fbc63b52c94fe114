"""What the defence's early lead against a nil is worth; prints ONE JSON document.

    python benchmarks/nil_leads.py F.jsonl [G.jsonl ...] [--tricks 3] [--from-trick 0]
                                   [--layouts 96] [--continuation 8] [--seed 1] [--limit N]

Reads ``strength.py --details`` files.  A *position* is a lead by a defender, in the first
``--tricks`` tricks (from trick ``--from-trick`` on, 0 the opening lead), against a nil (not
blind) that has taken no trick yet and that a defence seeing every card could still break,
where some of the leader's distinct cards keep it breakable and others do not (the compiled
solver's proof after each card, as ``details.py --nil-turns`` asks it).  Such a card is
*good* in the perfect-play sense.

For each position the lead is chosen six ways, and the share of good choices is reported:

- ``random``: any distinct legal card (the mean share of good cards);
- ``table``: the card the player at the table led;
- ``normal``: the card Normal's rules lead;
- ``search``: today's Hard at ``--layouts`` fixed layouts, seeded by ``--seed``;
- ``true_layout_normal`` / ``true_layout_hard``: the card with the best hand value when each
  candidate is played out on the *actual* deal, every seat then playing as Normal does, or the
  defenders as Hard at ``--continuation`` layouts while the nil is alive (0 skips it).  Hard's
  search values its cards by such playouts in layouts it imagines; here it is given the true
  one, so these say how far a better guess of the hidden cards could take it.

Beside them, how often the nil was broken after good and after other leads in those playouts:
what a good lead is worth to a defence that plays as Normal, or as Hard, from there.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # the working tree's varaq, not an installed one
sys.path.insert(0, str(ROOT / "benchmarks"))

from details import _breakable, _nils_at_first_lead  # noqa: E402
from varaq import Game  # noqa: E402
from varaq.bots.hard import HardBot, candidate_for, hand_value, play_candidates  # noqa: E402
from varaq.bots.knowledge import Knowledge  # noqa: E402
from varaq.bots.normal import choose_play  # noqa: E402
from varaq.engine import PLAY  # noqa: E402
from varaq.scoring import HandScore  # noqa: E402
from varaq.solver import SolverLimit  # noqa: E402

#: The ways of choosing a lead that do not look at the actual deal.
CHOOSERS = ("random", "table", "normal", "search")


@dataclass
class Position:
    """A defender's lead against a live, breakable nil, with each distinct card judged."""

    game: Game
    nil: int
    #: Distinct legal cards (one per run of equivalent cards) -> keeps the nil breakable.
    good: dict[int, bool]
    #: The card led at the table.
    table: int


def _same_run(game: Game, card: int, candidates: list[int]) -> int:
    """The candidate standing for ``card``, as the player on turn in ``game`` sees the cards."""
    view = game.view(game.turn)
    found = candidate_for(view, Knowledge.from_view(view), candidates, card)
    if found < 0:
        raise ValueError(f"card {card} stands for none of {candidates}")
    return found


def positions(path: str, tricks: int = 3, first: int = 0) -> Iterator[Position]:
    """Every position of a details file (see the module docstring) from trick ``first`` (0 the
    opening lead), in file order."""
    for t, nil, g in _nils_at_first_lead(path):
        for card in t["plays"][:4 * tricks]:
            if g.taken[nil]:
                break
            if not g.trick and (g.turn & 1) != (nil & 1) and len(g.tricks) >= first:
                try:
                    if not _breakable(g, nil):
                        break  # nothing left for a lead to keep
                    found = _judge(g, nil, card)
                except SolverLimit:
                    break
                if found is not None:
                    yield found
            g.apply(card)


def _judge(g: Game, nil: int, card: int) -> Position | None:
    """The position at this lead of a breakable nil, or None when every distinct card keeps
    it breakable, or none does."""
    candidates = play_candidates(g.view(g.turn))
    if len(candidates) < 2:
        return None
    good = {}
    for c in candidates:
        after = g.copy()
        after.apply(c)
        good[c] = _breakable(after, nil)
    if all(good.values()) or not any(good.values()):
        return None
    return Position(g.copy(), nil, good, _same_run(g, card, candidates))


def _play_out(g: Game, nil: int, defender: Callable[[Game], int] | None) -> HandScore:
    """Finish the hand: the defenders by ``defender`` while the nil is alive, otherwise (and
    everyone else) as Normal."""
    side = 1 - (nil & 1)
    while g.phase == PLAY:
        legal = g.legal_actions()
        if len(legal) == 1:
            g.apply(legal[0])
        elif defender is not None and (g.turn & 1) == side and not g.taken[nil]:
            g.apply(defender(g))
        else:
            g.apply(choose_play(g.view(g.turn)).action)
    return g.log[-1].result


def _true_layout_values(pos: Position, defender: Callable[[Game], int] | None
                        ) -> dict[int, tuple[float, bool]]:
    """Each candidate's hand value for the leader's side when played on the actual deal and
    the hand finished (:func:`_play_out`), and whether the nil was broken."""
    game = pos.game
    view = game.view(game.turn)
    out = {}
    for c in pos.good:
        g = game.copy()
        g.apply(c)
        result = _play_out(g, pos.nil, defender)
        out[c] = (hand_value(view.rules, game.turn & 1, result, view.totals),
                  not result.nil_made[pos.nil])
    return out


def _best(values: dict[int, tuple[float, bool]]) -> int:
    """The card of the highest value (the first of equals, in candidate order)."""
    return max(values, key=lambda c: values[c][0])


@dataclass
class _Defender:
    """A defender of the true-layout playouts that decides as Hard does, from its own view."""

    bot: HardBot
    rng: random.Random

    def __call__(self, g: Game) -> int:
        return self.bot.decide(g.view(g.turn), self.rng).action


def study(paths: list[str], tricks: int = 3, layouts: int = 96, continuation: int = 8,
          seed: int = 1, limit: int | None = None, first: int = 0) -> dict[str, Any]:
    """The shares of good leads each way; the nil's fate after good and other leads in the
    playouts on the actual deal; and each way's points below the best lead there."""
    hard = HardBot(samples=layouts)
    helper = HardBot(samples=continuation) if continuation else None
    judges = ("true_layout_normal", "true_layout_hard") if helper else ("true_layout_normal",)
    ways = (*CHOOSERS, *judges)
    rng = random.Random(seed)
    good = dict.fromkeys(ways, 0.0)
    broke = {j: {True: [0, 0], False: [0, 0]} for j in judges}
    below = {j: dict.fromkeys(ways, 0.0) for j in judges}
    n = 0
    found = chain.from_iterable(positions(path, tricks, first) for path in paths)
    for pos in islice(found, limit):
        n += 1
        game = pos.game
        view = game.view(game.turn)
        candidates = list(pos.good)
        picks = {
            "table": pos.table,
            "normal": _same_run(game, choose_play(view).action, candidates),
            "search": _same_run(game, hard.decide(view, random.Random(rng.random())).action,
                                candidates),
        }
        values = {"true_layout_normal": _true_layout_values(pos, None)}
        if helper is not None:
            defend = _Defender(helper, random.Random(rng.random()))
            values["true_layout_hard"] = _true_layout_values(pos, defend)
        for judge, vals in values.items():
            picks[judge] = _best(vals)
            for c, (_, broken) in vals.items():
                broke[judge][pos.good[c]][0] += broken
                broke[judge][pos.good[c]][1] += 1
        good["random"] += sum(pos.good.values()) / len(candidates)
        for way, card in picks.items():
            good[way] += pos.good[card]
        for judge, vals in values.items():
            top = max(v for v, _ in vals.values())
            below[judge]["random"] += top - sum(v for v, _ in vals.values()) / len(vals)
            for way, card in picks.items():
                below[judge][way] += top - vals[card][0]
    return {
        "positions": n,
        "good_lead_share": {w: round(good[w] / n, 3) if n else None for w in ways},
        "nil_broken_after": {
            j: {("good lead" if g else "other lead"): {
                "leads": broke[j][g][1],
                "broken": round(broke[j][g][0] / broke[j][g][1], 3) if broke[j][g][1] else None}
                for g in (True, False)}
            for j in judges},
        "points_below_best_lead": {
            j: {w: round(below[j][w] / n, 1) if n else None for w in ways} for j in judges},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--tricks", type=int, default=3, help="leads in the first N tricks (3)")
    p.add_argument("--from-trick", type=int, default=0,
                   help="only leads from this trick on, 0 the opening lead (0)")
    p.add_argument("--layouts", type=int, default=96, help="Hard's layouts a lead (96)")
    p.add_argument("--continuation", type=int, default=8,
                   help="layouts of the Hard defenders of the true-layout playouts (8; 0 skips)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--limit", type=int, default=None, help="stop after N positions")
    args = p.parse_args(argv)
    if not 1 <= args.tricks <= 13:
        p.error("--tricks must be between 1 and 13")
    if not 0 <= args.from_trick < args.tricks:
        p.error("--from-trick must be from 0 to one below --tricks")
    if args.layouts < 1 or args.continuation < 0:
        p.error("--layouts must be at least 1 and --continuation at least 0")
    try:
        found = study(args.files, args.tricks, args.layouts, args.continuation, args.seed,
                      args.limit, args.from_trick)
    except (OSError, ValueError) as exc:
        p.error(f"cannot read the details files: {exc}")
    out = {"benchmark": "nil_leads", "files": args.files, "tricks": args.tricks,
           "from_trick": args.from_trick,
           "layouts": args.layouts, "continuation": args.continuation, "seed": args.seed,
           **found}
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
