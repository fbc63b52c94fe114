"""Read ``strength.py --details`` files; prints ONE JSON document.

    python benchmarks/details.py FIRST.jsonl [SECOND.jsonl ...] [--bag-cost 10] [--counts]
                                 [--by-nil] [--nil-proofs] [--nil-calibration] [--nil-turns]
                                 [--nil-sides] [--follows] [--tricks]

For each file, side a's points a hand minus side b's (both tables of a deal, halved, as the
arena counts them) with a t interval over the deals all files share, plainly and with every new
bag charged ``--bag-cost`` points (a hand from 0-0 never pays a bag penalty, while in a match
each bag brings a tenth of one); for each later file, its paired change against the first.  A
file may be several runs joined with ``+`` (``S4.jsonl+S5.jsonl``, other seeds of the same
leg): their deals count as one run's, and two such lists pair run by run, deal by deal, so a
change over several seeds gets one interval from all their deals.  With ``--counts``, each
side's contracts without a nil are tabled by the side's bid minus the perfect-play count of the
actual deal from the opening lead (the compiled solver) and by tricks taken minus bid: where
the contracts are made or set.  With ``--by-nil``, each side's cards of a deal (played once by
each player, at the two tables) are a pair: a's score with them minus b's, grouped by who bid
nil on them, with each group's share of the margin.  With ``--nil-proofs``, each side's nils
(not blind) are tabled by whether a defence seeing every card could break them from the opening
lead (the compiled solver's proof, within :data:`PROOF_NODES` nodes) and whether they held: a
nil no defence could break that failed was lost by its own side's play.  With
``--nil-calibration``, each side's nils are tabled by the bidder's nil danger
(:func:`varaq.bots.bidding.nil_danger`, classic deck) beside how often they held and the chance
Hard's bidding model gave them.  With ``--nil-turns``, the nils whose fate went against that
proof are replayed to the first card after which the proof changed (:func:`nil_turns`): where
the defence let a nil go, or a nil's side lost it.  With ``--nil-sides``, the counts Hard's
bidding model gives a nil's partner and the tricks it took, and the nils by how many tricks
their defence could spare (:func:`nil_sides`). With ``--follows``, each side's follows that
lose the trick, where the player held two or more cards of the led suit that would lose, are
tabled by whether a nil was alive and how the player stood to it, beside the share in which the
card played was not the player's lowest: how far the rule the Sampler reads plays by (players
follow with their lowest losing card, :data:`varaq.bots.sampling.WASTE_FIT`) holds for the
players of the file; and a live nil's own ducks under the winner, beside the share that kept a
higher safe card (the nil's rule, :data:`varaq.bots.sampling.NIL_DUCK_FIT`), and its cards
that went over the winner, beside the share that held a card to stay under it
(:data:`varaq.bots.sampling.NIL_OVER_FIT`).  With
``--tricks``, on the deals where nobody bid nil, each player's bid, tricks, bags and sets with
the same cards (:func:`tricks`): where a margin in contracts comes from.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))  # the working tree's varaq, not an installed one

from varaq import Game  # noqa: E402
from varaq.actions import BID  # noqa: E402
from varaq.bots.bidding import nil_danger  # noqa: E402
from varaq.bots.knowledge import POWER  # noqa: E402
from varaq.bots.sampling import kept_a_higher_safe_card, nil_alternatives  # noqa: E402
from varaq.bots.simbid import nil_hold  # noqa: E402
from varaq.cards import SUIT_MASKS, SUIT_OF  # noqa: E402
from varaq.solver import Solver, SolverLimit  # noqa: E402
from varaq.stats import mean_ci95  # noqa: E402

#: How far apart the deals of joined runs are numbered (a run never deals this many).
RUN_SPAN = 1_000_000


def records(path: str) -> Iterator[dict[str, Any]]:
    """Each deal record of ``path``; ``A.jsonl+B.jsonl`` joins runs of other seeds into one
    (their deals renumbered after one another, so A's deal 0 and B's deal 0 stay two deals).
    Joined the same way, two lists of runs pair deal by deal across all of them: the change
    over several seeds with one interval, from every deal, rather than seeds' means pooled."""
    for run, part in enumerate(path.split("+")):
        with open(part, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                deal = json.loads(line)
                deal["deal"] += run * RUN_SPAN
                yield deal


def _load(path: str, bag_cost: float) -> dict[int, tuple[float, float]]:
    out = {}
    for deal in records(path):
        raw = charged = 0.0
        for t in deal["tables"]:
            a, b = t["a_side"], 1 - t["a_side"]
            raw += t["score"][a] - t["score"][b]
            charged += t["score"][a] - t["score"][b] \
                - bag_cost * (t["new_bags"][a] - t["new_bags"][b])
        out[deal["deal"]] = (raw / 2, charged / 2)
    return out


def _ci(values: list[float]) -> dict[str, Any]:
    ci = mean_ci95(values)
    return {"mean": round(ci.mean, 2), "ci95": [round(ci.low, 2), round(ci.high, 2)]}


def counts(path: str) -> dict[str, dict[str, dict[str, int]]]:
    """Side -> "bid - perfect count" -> "tricks - bid" -> contracts (both clamped to +-2/3)."""
    table: dict[str, Counter[tuple[int, int]]] = {"a": Counter(), "b": Counter()}
    for deal in records(path):
        for t in deal["tables"]:
            if 0 in t["bids"]:
                continue
            leader = (t["dealer"] + 1) & 3
            for side in (0, 1):
                perfect = Solver(side).value(t["dealt"], leader, (), False, 6)
                bid = t["bids"][side] + t["bids"][side + 2]
                took = t["tricks"][side] + t["tricks"][side + 2]
                who = "a" if side == t["a_side"] else "b"
                table[who][(max(-2, min(2, bid - perfect)), max(-3, min(3, took - bid)))] += 1
    return {who: {f"{over:+d}": {f"{m:+d}": n for (o, m), n in sorted(c.items()) if o == over}
                  for over in sorted({o for o, _ in c})} for who, c in table.items()}


def _deals(path: str) -> Iterator[dict[int, dict[str, Any]]]:
    """Each deal's two tables by the side a sits: ``tables[side]`` is where a holds ``side``'s
    cards, ``tables[1 - side]`` where b holds them."""
    for deal in records(path):
        yield {t["a_side"]: t for t in deal["tables"]}


def by_nil(path: str) -> dict[str, dict[str, float]]:
    """Who bid nil on a side's cards -> pairs, a - b a pair, and the share of a - b a deal."""
    groups: dict[str, list[float]] = {}
    deals = 0
    for tables in _deals(path):
        deals += 1
        for side in (0, 1):
            mine, theirs = tables[side], tables[1 - side]  # a holds ``side``, then b does
            nil_a = 0 in (mine["bids"][side], mine["bids"][side + 2])
            nil_b = 0 in (theirs["bids"][side], theirs["bids"][side + 2])
            key = {(False, False): "neither", (False, True): "only b",
                   (True, False): "only a", (True, True): "both"}[(nil_a, nil_b)]
            groups.setdefault(key, []).append(mine["score"][side] - theirs["score"][side])
    # A deal's a - b is half its two pairs' sum (both tables, halved, as in :func:`_load`).
    return {key: {"pairs": len(v), "a_minus_b_a_pair": round(sum(v) / len(v), 1),
                  "share_a_deal": round(sum(v) / 2 / deals, 2)}
            for key, v in sorted(groups.items())}


def tricks(path: str) -> dict[str, dict[str, float]]:
    """On the cards of deals where nobody bid nil at either table, a side's cards as played by
    a and by b: the side's bid, tricks, overtricks (bags), contracts set, and the opponents'
    contracts it set, a side-hand's mean.  The same cards, so a difference in tricks is a
    difference of play: a player that ducks tricks it does not need takes fewer bags and
    gives them to the opponents, which a hand from 0-0 scores at a point each."""
    rows: dict[str, Counter[str]] = {"a": Counter(), "b": Counter()}
    side_hands = 0
    for tables in _deals(path):
        if any(0 in t["bids"] for t in tables.values()):
            continue
        for side in (0, 1):
            side_hands += 1
            for who, t in (("a", tables[side]), ("b", tables[1 - side])):
                bid = t["bids"][side] + t["bids"][side + 2]
                took = t["tricks"][side] + t["tricks"][side + 2]
                their_bid = t["bids"][1 - side] + t["bids"][3 - side]
                r = rows[who]
                r["bid"] += bid
                r["tricks"] += took
                r["bags"] += max(0, took - bid)
                r["set"] += took < bid
                r["sets_them"] += 13 - took < their_bid
                r["score"] += t["score"][side]
    if not side_hands:
        return {}
    return {who: {"side_hands": side_hands, **{k: round(v / side_hands, 3) for k, v in r.items()}}
            for who, r in rows.items()}


#: Nodes a nil's proof from the opening lead may take (a few tenths of a second at most on the
#: deals measured; an unsettled proof is tabled as "unsettled").
PROOF_NODES = 50_000_000


def _nils(path: str) -> Iterator[tuple[dict[str, Any], int, str]]:
    """Every nil bid (not blind) of a details file: its table, its seat, and its side ("a" or
    "b")."""
    for deal in records(path):
        for t in deal["tables"]:
            for seat in range(4):
                if t["bids"][seat] == 0 and not t["blind"][seat]:
                    yield t, seat, "a" if (seat & 1) == t["a_side"] else "b"


def nil_proofs(path: str) -> dict[str, dict[str, int]]:
    """Side -> "breakable held" etc. -> nils: each nil bid (not blind) proved from the opening
    lead, beside what happened to it at the table."""
    table: dict[str, Counter[str]] = {"a": Counter(), "b": Counter()}
    for t, seat, who in _nils(path):
        try:
            proof = "breakable" if Solver.nil_defence(seat, node_limit=PROOF_NODES).at_least(
                t["dealt"], (t["dealer"] + 1) & 3, (), False, 1) else "unbreakable"
        except SolverLimit:
            proof = "unsettled"
        table[who][f"{proof} {'held' if t['nil_made'][seat] else 'broken'}"] += 1
    return {who: dict(sorted(c.items())) for who, c in table.items()}


#: Nodes each proof of :func:`nil_turns` may take (one proof after every card of the side at
#: fault; an unsettled one ends that nil's walk, tabled as "unsettled").
TURN_NODES = 20_000_000
_POSITIONS = ("lead", "second", "third", "fourth")


def bid_table(t: dict[str, Any]) -> Game:
    """A recorded table's game, dealt and bid as recorded, at its first lead.  Only for a table
    without a blind nil: its bidding has an exchange a replay of the bids does not make."""
    g = Game("classic")
    g.deal(hands=t["dealt"], dealer=t["dealer"])
    for i in range(4):
        g.apply(BID + t["bids"][(t["dealer"] + 1 + i) & 3])
    return g


def first_lead_tables(
        deals: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], Game]]:
    """Each table without a blind nil of ``deals`` (:func:`records`), with its game dealt and
    bid as recorded (:func:`bid_table`)."""
    for deal in deals:
        for t in deal["tables"]:
            if not any(t["blind"]):
                yield t, bid_table(t)


def _nils_at_first_lead(path: str) -> Iterator[tuple[dict[str, Any], int, Game]]:
    """Every nil of a table without a blind nil, with that table's game dealt and bid as
    recorded (:func:`bid_table`)."""
    for t, seat, _ in _nils(path):
        if not any(t["blind"]):
            yield t, seat, bid_table(t)


def _breakable(g: Game, seat: int) -> bool:
    """Whether the defence of ``seat``'s nil can still force a trick on it (a nil that has
    taken one is broken already)."""
    if g.taken[seat]:
        return True
    defence = Solver.nil_defence(seat, node_limit=TURN_NODES)
    return defence.at_least(g.hands, g.leader, tuple(g.trick), g.broken, 1)


def nil_turns(path: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Where a side's play turned a nil's fate against the proof from the opening lead.

    A nil the defence could break but that held was let go by the defence; a nil no defence
    could break that was broken, by its own side.  The hand is replayed card by card and, after
    each card of the side at fault, the proof is asked again; the first card after which it
    changed is that side's turn (in the perfect-play sense: a player who cannot see the cards
    may have had no way to know).  Side at fault -> which of the two -> nils, and their turning
    cards by position in the trick, by the player's seat, and by trick.  Tables with a blind
    nil are left out (their bidding has an exchange this replay does not make).
    """
    kinds = {True: "let a breakable nil hold", False: "let an unbreakable nil break"}
    out: dict[str, dict[str, dict[str, Any]]] = {"a": {}, "b": {}}
    for t, seat, g in _nils_at_first_lead(path):
        try:
            breakable = _breakable(g, seat)
        except SolverLimit:
            continue
        if breakable != bool(t["nil_made"][seat]):
            continue  # broken as it could be, or held as it had to
        fault = 1 - (seat & 1) if breakable else seat & 1
        at_fault = "a" if fault == t["a_side"] else "b"
        row = out[at_fault].setdefault(kinds[breakable], {
            "nils": 0, "unsettled": 0, "by_position": Counter(), "by_seat": Counter(),
            "by_trick": Counter()})
        row["nils"] += 1
        for card in t["plays"]:
            mover, position, trick = g.turn, len(g.trick), len(g.tricks)
            g.apply(card)
            if mover & 1 != fault:
                continue
            try:
                turned = _breakable(g, seat) != breakable
            except SolverLimit:
                row["unsettled"] += 1
                break
            if turned:
                if breakable:
                    role = "before the nil" if mover == (seat + 3) & 3 else "after the nil"
                else:
                    role = "the nil bidder" if mover == seat else "its partner"
                row["by_position"][_POSITIONS[position]] += 1
                row["by_seat"][role] += 1
                row["by_trick"]["1-3" if trick < 3 else "4-6" if trick < 6 else "7-13"] += 1
                break
    return {side: {kind: {name: dict(sorted(v.items())) if isinstance(v, Counter) else v
                          for name, v in row.items()}
                   for kind, row in rows.items()} for side, rows in out.items()}


#: Upper ends of the nil-danger bands of :func:`nil_calibration`.
DANGER_BANDS = (0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 99.0)


def nil_calibration(path: str, jokers: bool = False) -> dict[str, dict[str, dict[str, Any]]]:
    """Side -> band of the bidder's nil danger -> nils bid (not blind), how many held, and the
    chance Hard's bidding model (:func:`varaq.bots.simbid.nil_hold`) gave them on average: where
    the model is too hopeful or too gloomy about the nils a table actually plays."""
    groups: dict[str, dict[str, list[tuple[bool, float]]]] = {"a": {}, "b": {}}
    for t, seat, who in _nils(path):
        hand = t["dealt"][seat]
        danger = nil_danger(hand, jokers)
        top = next(x for x in DANGER_BANDS if danger < x)
        low = ([0.0, *DANGER_BANDS])[DANGER_BANDS.index(top)]
        band = f"{low:.2f}-{top:.2f}" if top < 99 else f"{low:.2f}+"
        groups[who].setdefault(band, []).append(
            (bool(t["nil_made"][seat]), nil_hold(hand, jokers)))
    return {who: {band: {"nils": len(v), "held": round(sum(m for m, _ in v) / len(v), 2),
                         "model": round(sum(h for _, h in v) / len(v), 2)}
                  for band, v in sorted(bands.items())}
            for who, bands in groups.items()}


#: Nodes each whole-deal count of :func:`nil_sides` may take (a deal past it is left out).
SIDE_NODES = 3_000_000


def _slack_band(slack: int) -> str:
    return "0 or less" if slack <= 0 else "3 or more" if slack >= 3 else str(slack)


def nil_sides(path: str) -> dict[str, Any]:
    """What Hard's bidding model assumes of a nil's two sides, beside what the table did.

    For each nil (not blind) whose partner bid a contract: the side's perfect-play count from
    the opening lead (what the model gives the partner when the nil holds), the count of the
    partner's own tricks alone (the nil's cards only helping it), and the tricks the partner and
    the nil took, by side and by the nil's fate.  And, where the defence bid two contracts, the
    nils by the defence's slack (its perfect count minus its bids: tricks it can give away to
    break the nil), how often they held, their mean nil danger and the model's mean chance
    (:func:`varaq.bots.simbid.nil_hold`, which ignores the slack).
    """
    fates: dict[str, dict[str, list[tuple[int, int, int, int]]]] = {"a": {}, "b": {}}
    slack: dict[str, list[tuple[bool, float, float]]] = {}
    for t, seat, who in _nils(path):
        mate, side = seat ^ 2, seat & 1
        if any(t["blind"]) or t["bids"][mate] == 0:
            continue
        hands, leader = t["dealt"], (t["dealer"] + 1) & 3
        try:
            whole = Solver(side, node_limit=SIDE_NODES).value(hands, leader, (), False)
            alone = Solver(side, counted=[s == mate for s in range(4)],
                           node_limit=SIDE_NODES).value(hands, leader, (), False)
        except SolverLimit:
            continue
        held = bool(t["nil_made"][seat])
        fates[who].setdefault("held" if held else "broken", []).append(
            (whole, alone, t["tricks"][mate], t["tricks"][seat]))
        if t["bids"][1 - side] and t["bids"][3 - side]:
            room = 13 - whole - t["bids"][1 - side] - t["bids"][3 - side]
            slack.setdefault(_slack_band(room), []).append(
                (held, nil_danger(hands[seat]), nil_hold(hands[seat], False)))

    def mean(rows: Sequence[tuple[float, ...]], i: int) -> float:
        return round(sum(r[i] for r in rows) / len(rows), 2)

    return {
        "counts": {who: {fate: {"nils": len(rows), "side_perfect_count": mean(rows, 0),
                                "partner_alone_perfect_count": mean(rows, 1),
                                "partner_took": mean(rows, 2), "nil_took": mean(rows, 3)}
                         for fate, rows in sorted(by_fate.items())}
                   for who, by_fate in fates.items()},
        "by_defence_slack": {band: {"nils": len(rows),
                                    "held": round(sum(r[0] for r in rows) / len(rows), 2),
                                    "danger": mean(rows, 1), "model": mean(rows, 2)}
                             for band, rows in sorted(slack.items())},
    }


def _follow_context(seat: int, winning: int, live: list[int]) -> str:
    """How a player following to a trick stands to the nils alive in it."""
    if not live:
        return "no live nil"
    if winning in live:
        return "a live nil is winning the trick"
    if seat ^ 2 in live:
        return "partner of a live nil"
    return "defending a live nil"


#: The contexts of :func:`follows` that count a live nil's own cards.
NIL_DUCK = "the nil's own duck"
NIL_OVER = "the nil goes over the winner"
NIL_OVER_COVERED = "the nil goes over the winner, its partner to come"


def follows(path: str) -> dict[str, dict[str, dict[str, Any]]]:
    """Side -> context (:func:`_follow_context`) -> losing follows with a choice of losing
    cards, and the share of them that were not the player's lowest.  A live nil's own ducks
    under the trick's winner (context ``"the nil's own duck"``) are counted the other way: the
    share that kept a higher safe card not equivalent to the one played (a card still out
    between them), the rule the Sampler reads a nil's plays by
    (:data:`varaq.bots.sampling.NIL_DUCK_FIT`).  And a live nil's cards that went over the
    winner third or fourth (``"the nil goes over the winner"``, whether it had a card to play
    or not), with the share that held a card which would have stayed under it
    (:data:`varaq.bots.sampling.NIL_OVER_FIT`); second to the trick, its partner still to
    play, the same count apart (the Sampler reads nothing from those)."""
    tally: dict[str, Counter[tuple[str, bool]]] = {"a": Counter(), "b": Counter()}
    for deal in records(path):
        for t in deal["tables"]:
            hands, bids, plays = list(t["dealt"]), t["bids"], t["plays"]
            taken = [0, 0, 0, 0]
            leader = (t["dealer"] + 1) & 3
            gone = 0
            for first in range(0, len(plays), 4):
                cards = plays[first:first + 4]
                led = SUIT_OF[cards[0]]
                power = POWER[False][led]
                live = [s for s in range(4) if bids[s] == 0 and not taken[s]]
                win = 0
                for i, card in enumerate(cards):
                    seat = (leader + i) & 3
                    top = cards[win]
                    nil = seat in live
                    who = "a" if (seat & 1) == t["a_side"] else "b"
                    if i and nil and power[card] > power[top]:
                        # Asked as if nobody of its side were to come, to count both cases.
                        _, under = nil_alternatives(power, card, top, led, False)
                        context = NIL_OVER_COVERED if i == 1 else NIL_OVER
                        tally[who][(context, bool(hands[seat] & under))] += 1
                    # (A card of the led suit other than the winner never ties with it.)
                    if i and (bids[seat] != 0 or nil) and SUIT_OF[card] == led \
                            and power[card] < power[top]:
                        losers = [c for c in range(52) if hands[seat] >> c & 1
                                  and SUIT_MASKS[led] >> c & 1 and power[c] <= power[top]]
                        if len(losers) >= 2:
                            if nil:
                                between, _ = nil_alternatives(power, card, top, led, i == 1)
                                context = NIL_DUCK
                                odd = kept_a_higher_safe_card(between, hands[seat], gone)
                            else:
                                context = _follow_context(seat, (leader + win) & 3, live)
                                odd = card != min(losers)
                            tally[who][(context, odd)] += 1
                    if power[card] > power[top]:
                        win = i
                    hands[seat] &= ~(1 << card)
                    gone |= 1 << card
                leader = (leader + win) & 3
                taken[leader] += 1
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for who, c in tally.items():
        out[who] = {}
        for context in sorted({context for context, _ in c}):
            total = c[(context, False)] + c[(context, True)]
            share = {NIL_DUCK: "kept_higher", NIL_OVER: "held_one_under",
                     NIL_OVER_COVERED: "held_one_under"}.get(context, "not_lowest")
            out[who][context] = {"follows": total, share: round(c[(context, True)] / total, 2)}
    return out


#: The optional tables: the option that asks for one, its key in a file's row, and what
#: computes it from the file.
ANALYSES: tuple[tuple[str, str, Callable[[str], Any]], ...] = (
    ("counts", "contracts_by_bid_minus_perfect_count", counts),
    ("by-nil", "pairs_by_who_bid_nil", by_nil),
    ("nil-proofs", "nils_by_proof", nil_proofs),
    ("nil-calibration", "nils_by_danger", nil_calibration),
    ("nil-turns", "nil_turns", nil_turns),
    ("nil-sides", "nil_sides", nil_sides),
    ("follows", "losing_follows", follows),
    ("tricks", "tricks_without_nils", tricks),
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--bag-cost", type=float, default=10.0)
    for option, _, _ in ANALYSES:
        p.add_argument(f"--{option}", action="store_true")
    args = p.parse_args(argv)
    try:
        return _report(args)
    except (OSError, ValueError) as exc:
        p.error(f"cannot read the details files: {exc}")


def _report(args: argparse.Namespace) -> int:
    data = [_load(f, args.bag_cost) for f in args.files]
    common = sorted(set.intersection(*(set(d) for d in data)))
    out: dict[str, Any] = {"benchmark": "strength_details", "deals": len(common),
                           "bag_cost": args.bag_cost, "files": {}}
    for path, d in zip(args.files, data, strict=True):
        row = {"a_minus_b": _ci([d[k][0] for k in common]),
               "a_minus_b_bags_charged": _ci([d[k][1] for k in common])}
        if d is not data[0]:
            row["change"] = _ci([d[k][0] - data[0][k][0] for k in common])
            row["change_bags_charged"] = _ci([d[k][1] - data[0][k][1] for k in common])
        for option, key, table in ANALYSES:
            if getattr(args, option.replace("-", "_")):
                row[key] = table(path)
        out["files"][path] = row
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
