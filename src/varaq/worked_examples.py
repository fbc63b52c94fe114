"""The worked examples of the rules, as data run through the engine.

``docs/rules.md`` and the ``/rules`` page explain the scoring with examples.  Their numbers are
never typed by hand: each example here holds only what happened at the table (the rules, the
score before, the bids and each seat's tricks), and :func:`work_out` plays it through
:class:`~varaq.engine.Game` as a score-sheet hand and reads the points, bags and totals off the
engine.  The explanation of each score (``contract 7 made +70, 1 overtrick +1``) is built from
the engine's :class:`~varaq.scoring.HandScore` and checked to add up to the engine's own total,
so a wrong line fails loudly instead of teaching a wrong rule.

``python -m varaq.worked_examples --write docs/rules.md`` rewrites the generated parts of that
file (between ``<!-- generated:NAME -->`` and ``<!-- end:NAME -->``); a test checks they are
current.

>>> ex = work_out(EXAMPLES[0])
>>> ex["hands"][0]["sides"]["NS"]["score"], ex["hands"][0]["sides"]["NS"]["bags"]
(71, 1)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .actions import BID, BLIND_NIL, LOOK, action_text
from .engine import BIDDING, BLIND, Game, IllegalAction
from .rules import Rules, signed
from .scoring import HandScore
from .seats import SEAT_LETTERS, SEAT_NAMES, SIDE_NAMES, W, parse_seat

__all__ = ["Example", "Hand", "EXAMPLES", "work_out", "worked_examples", "examples_markdown",
           "write_generated", "generated_blocks"]

Bid = int | str  # 0-13, "nil" or "blind"


@dataclass(frozen=True, slots=True)
class Hand:
    """One hand of an example: bids by seat letter and, for a scored hand, tricks by seat.

    Without ``tricks`` the example stops after the bids given: it shows the refusal of the last
    one, or what the next player may bid.
    """

    bids: Mapping[str, Bid]
    tricks: Mapping[str, int] | None = None


@dataclass(frozen=True, slots=True)
class Example:
    """What happened at the table; everything else is worked out by the engine."""

    key: str
    title: str
    #: A sentence on what the example shows, without numbers (they are generated).
    note: str
    rules: str | Mapping[str, Any]
    hands: tuple[Hand, ...]
    total: tuple[int, int] = (0, 0)
    bags: tuple[int, int] = (0, 0)
    #: The sides whose score the example explains.
    sides: tuple[str, ...] = ("NS",)


_CLASSIC_BIDS = {"N": 4, "E": 2, "S": 3, "W": 2}

#: The examples, in the order the rules page gives them.
EXAMPLES: tuple[Example, ...] = (
    Example(
        "contract-made", "A contract made",
        "Partners add their bids into one contract; each trick over it scores a point and "
        "is a bag.",
        "classic", (Hand(_CLASSIC_BIDS, {"N": 5, "E": 3, "S": 3, "W": 2}),)),
    Example(
        "contract-set", "A contract set",
        "One trick short: the side loses ten points for every trick it bid, and the tricks it "
        "did take score nothing.",
        "classic", (Hand(_CLASSIC_BIDS, {"N": 3, "E": 4, "S": 3, "W": 3}),)),
    Example(
        "overtricks", "Overtricks",
        "The same contract made with two tricks to spare.",
        "classic", (Hand(_CLASSIC_BIDS, {"N": 5, "E": 2, "S": 4, "W": 2}),)),
    Example(
        "all-thirteen", "Every trick, without a Boston bonus",
        "Taking all thirteen tricks scores like any made contract unless the table plays a "
        "Boston bonus.",
        "classic", (Hand({"N": 5, "E": 2, "S": 4, "W": 2}, {"N": 7, "E": 0, "S": 6, "W": 0}),)),
    Example(
        "bag-penalty", "Bags reach the limit",
        "The side had bags left over from earlier hands; this hand's overtricks take the count "
        "to the limit, so it pays the penalty and keeps the rest.",
        "classic", (Hand({"N": 3, "E": 2, "S": 2, "W": 2}, {"N": 4, "E": 3, "S": 4, "W": 2}),),
        bags=(8, 0)),
    Example(
        "nil-made-varaq", "A nil made",
        "North bids nil and takes nothing; South's bid is the side's whole contract.",
        "varaq", (Hand({"N": "nil", "E": 3, "S": 4, "W": 3}, {"N": 0, "E": 4, "S": 5, "W": 4}),)),
    Example(
        "nil-failed-varaq", "A nil broken (Varaq)",
        "North's nil fails, and North's tricks do not help South, whose contract is set. At a "
        "Varaq table a nil bidder's tricks still score a point each.",
        "varaq", (Hand({"N": "nil", "E": 3, "S": 4, "W": 3}, {"N": 2, "E": 4, "S": 3, "W": 4}),)),
    Example(
        "nil-failed-classic", "A nil broken (Classic)",
        "The same hand at a Classic table, where a nil bidder's tricks are bags but score "
        "nothing.",
        "classic",
        (Hand({"N": "nil", "E": 3, "S": 4, "W": 3}, {"N": 2, "E": 4, "S": 3, "W": 4}),)),
    Example(
        "blind-nil", "Blind nil",
        "North-South are far enough behind, so North bids nil before looking at the cards.",
        "classic",
        (Hand({"N": "blind", "E": 3, "S": 5, "W": 3}, {"N": 0, "E": 4, "S": 6, "W": 3}),),
        total=(180, 320)),
    Example(
        "blind-nil-refused", "Blind nil refused",
        "Not far enough behind: the engine refuses the blind nil, and North may still look at "
        "the cards and bid nil in the ordinary way.",
        "classic", (Hand({"N": "blind"}),), total=(250, 320)),
    Example(
        "both-nil-classic", "Both partners bid nil (Classic)",
        "With two nil bids the side has no contract; each nil is scored on its own.",
        "classic",
        (Hand({"N": "nil", "E": 5, "S": "nil", "W": 5}, {"N": 0, "E": 6, "S": 1, "W": 6}),)),
    Example(
        "both-nil-varaq", "Both partners bid nil (Varaq)",
        "The same hand at a Varaq table, where the broken nil's trick scores a point.",
        "varaq",
        (Hand({"N": "nil", "E": 5, "S": "nil", "W": 5}, {"N": 0, "E": 6, "S": 1, "W": 6}),)),
    Example(
        "finish", "Both sides pass the target",
        "Both sides reach the target in the same hand: the higher total wins.",
        "classic", (Hand({"N": 3, "E": 2, "S": 3, "W": 2}, {"N": 4, "E": 3, "S": 4, "W": 2}),),
        total=(460, 470), sides=("NS", "EW")),
    Example(
        "tie-at-target", "A tie on the target",
        "Both sides finish a hand on exactly the same total at or over the target: there are "
        "no draws, so another hand is played.",
        "classic",
        (Hand({"N": 4, "E": 3, "S": 3, "W": 3}, {"N": 4, "E": 3, "S": 3, "W": 3}),
         Hand({"N": 3, "E": 3, "S": 3, "W": 3}, {"N": 4, "E": 3, "S": 3, "W": 3})),
        total=(430, 440), sides=("NS", "EW")),
    Example(
        "two-bag-penalties", "Two bag penalties in one hand",
        "A broken nil and a low contract bring in so many bags that the count passes the limit "
        "twice: the penalty is paid twice.",
        "classic", (Hand({"N": "nil", "E": 3, "S": 2, "W": 3}, {"N": 4, "E": 0, "S": 9, "W": 0}),),
        bags=(9, 0)),
    Example(
        "boston", "A Boston with the bonus",
        "The all-thirteen hand again, at a table that pays a Boston bonus.",
        {"preset": "classic", "boston_bonus": 200},
        (Hand({"N": 5, "E": 2, "S": 4, "W": 2}, {"N": 7, "E": 0, "S": 6, "W": 0}),)),
    Example(
        "mercy", "Mercy",
        "At a table with a mercy rule, a side whose total falls below the line loses at once.",
        {"preset": "classic", "mercy": -200},
        (Hand({"N": 6, "E": 3, "S": 6, "W": 3}, {"N": 3, "E": 3, "S": 3, "W": 4}),),
        total=(-100, 0), sides=("NS", "EW")),
    Example(
        "board", "Minimum team bid (board)",
        "North opens low; South, the second partner to bid, may only bid enough to bring the "
        "side's contract up to the board, or nil.",
        {"preset": "classic", "min_team_bid": 4}, (Hand({"N": 1, "E": 2}),)),
)


# -- working an example out ----------------------------------------------------------------


def _bid_action(game: Game, wanted: Bid) -> int:
    if game.phase == BLIND:
        return BLIND_NIL if wanted == "blind" else LOOK
    if wanted == "blind":
        return BLIND_NIL
    return BID + (0 if wanted == "nil" else int(wanted))


def _bid_word(value: int, blind: bool) -> str:
    return "blind nil" if blind else "nil" if value == 0 else str(value)


def _score_lines(rules: Rules, h: HandScore, side: int) -> list[tuple[str, int]]:
    """The parts of one side's score, in words, each with its points."""
    lines: list[tuple[str, int]] = []
    for seat in (side, side + 2):
        if h.nil_made[seat] is None:
            continue
        who = SEAT_NAMES[seat]
        kind = "blind nil" if h.blind[seat] else "nil"
        value = rules.blind_nil_value if h.blind[seat] else rules.nil_value
        if h.nil_made[seat]:
            lines.append((f"{who}'s {kind} made", value))
        else:
            lines.append((f"{who}'s {kind} broken", -value))
            if rules.nil_bags_score:
                n = h.tricks[seat]
                lines.append((f"{who}'s {n} trick{'s' * (n != 1)} as a nil bidder", n))
    contract = h.contract[side]
    if contract:
        if h.made[side]:
            lines.append((f"contract {contract} made", 10 * contract))
            taken = sum(h.tricks[s] for s in (side, side + 2) if h.bids[s])
            over = taken - contract
            if over:
                lines.append((f"{over} overtrick{'s' * (over != 1)}", over))
        else:
            lines.append((f"contract {contract} set", -10 * contract))
    if h.boston[side] and rules.boston_bonus:
        lines.append(("Boston bonus", rules.boston_bonus))
    if h.penalties[side]:
        times = h.penalties[side]
        lines.append((f"bag penalty{f' ×{times}' if times > 1 else ''}",
                      -rules.bag_penalty * times))
    total = sum(points for _, points in lines)
    if total != h.score[side]:
        raise AssertionError(f"the explanation adds up to {total}, the engine says "
                             f"{h.score[side]}")
    return lines


def _side_json(rules: Rules, h: HandScore, side: int, bags_before: int,
               total: int) -> dict[str, Any]:
    seats = (side, side + 2)
    taken = sum(h.tricks[s] for s in seats if h.bids[s])
    return {
        "contract": h.contract[side],
        "taken": taken,
        "made": h.made[side],
        "lines": [{"words": words, "points": points}
                  for words, points in _score_lines(rules, h, side)],
        "score": h.score[side],
        "bags_before": bags_before,
        "new_bags": h.new_bags[side],
        "penalties": h.penalties[side],
        "bags": h.bags[side],
        "total": total,
    }


def work_out(example: Example) -> dict[str, Any]:
    """Play ``example`` through the engine; every number in the answer comes from it."""
    rules = Rules.from_spec(dict(example.rules) if isinstance(example.rules, Mapping)
                            else example.rules)
    game = Game(rules, seed=1, totals=example.total, bags=example.bags, dealer=W)
    hands: list[dict[str, Any]] = []
    for hand in example.hands:
        totals_before = tuple(game.totals)
        bags_before = tuple(game.bags)
        game.deal_unknown()
        bids = {parse_seat(k): v for k, v in hand.bids.items()}
        out: dict[str, Any] = {
            "bids": {}, "tricks": None, "sides": {}, "refused": None, "next": None,
            "total_before": dict(zip(SIDE_NAMES, totals_before, strict=True)),
        }
        while game.phase in (BLIND, BIDDING) and game.turn in bids:
            seat = game.turn
            try:
                game.apply(_bid_action(game, bids[seat]))
            except IllegalAction as refusal:
                out["refused"] = str(refusal)
                break
            if game.bids[seat] >= 0:
                out["bids"][SEAT_LETTERS[seat]] = _bid_word(game.bids[seat], game.blind[seat])
        if hand.tricks is None:
            if out["refused"] is None:
                out["next"] = {
                    "seat": SEAT_LETTERS[game.turn],
                    "legal": [action_text(a) for a in game.legal_actions()],
                }
            hands.append(out)
            break
        game.score_tricks([hand.tricks[letter] for letter in SEAT_LETTERS])
        result = game.history[-1]
        out["tricks"] = {SEAT_LETTERS[s]: result.tricks[s] for s in range(4)}
        out["sides"] = {
            name: _side_json(rules, result, side, bags_before[side], game.totals[side])
            for side, name in enumerate(SIDE_NAMES)
        }
        out["total"] = {name: game.totals[side] for side, name in enumerate(SIDE_NAMES)}
        out["winner"] = None if game.winner is None else SIDE_NAMES[game.winner]
        out["over"] = game.is_over
        hands.append(out)
    return {
        "key": example.key,
        "title": example.title,
        "note": example.note,
        "rules": rules.to_spec(),
        "label": rules.label,
        "badges": rules.badges(),
        "target": rules.target,
        "mercy": rules.mercy,
        "start": {"total": dict(zip(SIDE_NAMES, example.total, strict=True)),
                  "bags": dict(zip(SIDE_NAMES, example.bags, strict=True))},
        "sides": list(example.sides),
        "hands": hands,
        "before": _before_words(example),
        "text": _example_text(example, rules, hands),
    }


def worked_examples() -> list[dict[str, Any]]:
    """Every example worked out (what ``GET /api/rules/examples`` answers)."""
    return [work_out(example) for example in EXAMPLES]


# -- in words ------------------------------------------------------------------------------


def _points(n: int) -> str:
    return f"+{n}" if n > 0 else signed(n)


def _bags_words(side: dict[str, Any], rules: Rules) -> str:
    new = side["new_bags"]
    if not new and not side["bags_before"]:
        return "no bags"
    words = f"{new} bag{'s' * (new != 1)}"
    if side["bags_before"]:
        words += f" on top of {side['bags_before']} carried"
    if side["penalties"]:
        words += (f", {side['bags']} left after the "
                  f"{'penalties' if side['penalties'] > 1 else 'penalty'}")
    elif side["bags"] != new:
        words += f", {side['bags']} in all"
    return words


def _deal_words(hand: dict[str, Any], raw: Hand) -> str:
    """``North bids 4 and takes 5, East …`` from the engine's record of the hand."""
    parts = []
    for letter in "NESW":
        if letter not in hand["bids"] and letter not in raw.bids:
            continue
        name = SEAT_NAMES[SEAT_LETTERS.index(letter)]
        bid = hand["bids"].get(letter)
        if bid is None:  # the refused bid: what was asked for
            asked = raw.bids[letter]
            bid_text = "blind nil" if asked == "blind" else str(asked)
            parts.append(f"{name} asks to bid {bid_text}")
            continue
        said = f"{name} bids {bid}"
        if hand["tricks"] is not None:
            n = hand["tricks"][letter]
            said += f" and takes {n}"
        parts.append(said)
    return ", ".join(parts) + "."


def _legal_words(legal: list[str]) -> str:
    numbers = sorted(int(a.split()[1]) for a in legal if a.startswith("bid "))
    words = ["nil"] if "nil" in legal else []
    if numbers:
        low, high = numbers[0], numbers[-1]
        if numbers == list(range(low, high + 1)):
            words.append(f"{low} to {high}" if high > low else str(low))
        else:
            words.extend(str(n) for n in numbers)
    return " or ".join(words)


def _before_words(example: Example) -> str:
    """The score and bags before the first hand, when the example starts from any."""
    start = []
    if any(example.total):
        ns, ew = example.total
        start.append(f"North-South have {signed(ns)}, East-West {signed(ew)}")
    if any(example.bags):
        ns_bags, ew_bags = example.bags
        carried = [f"{who} carry {n} bag{'s' * (n != 1)}"
                   for who, n in (("North-South", ns_bags), ("East-West", ew_bags)) if n]
        start.append(" and ".join(carried))
    return "Before the hand: " + "; ".join(start) + "." if start else ""


def _example_text(example: Example, rules: Rules, hands: list[dict[str, Any]]) -> list[str]:
    """The example as sentences for docs/rules.md.  Each hand and side also keeps its own
    sentences (``deal_words``, ``words``, ``bags_words``, ``result_words``) for the page."""
    before = _before_words(example)
    lines = [before] if before else []
    for number, (hand, raw) in enumerate(zip(hands, example.hands, strict=False), 1):
        prefix = f"Hand {number}: " if len(example.hands) > 1 else ""
        hand["deal_words"] = _deal_words(hand, raw)
        lines.append(prefix + hand["deal_words"])
        for name in example.sides if not (hand["refused"] or hand["next"]) else ():
            side = hand["sides"][name]
            parts = ", ".join(f"{line['words']} {_points(line['points'])}"
                              for line in side["lines"]) or "nothing to score"
            side["bags_words"] = _bags_words(side, rules)
            lines.append(f"{_side_words(name)}: {parts}: **{_points(side['score'])}**; "
                         f"{side['bags_words']}.")
        if hand["refused"]:
            hand["result_words"] = f"The engine refuses it: “{hand['refused']}”."
        elif hand["next"]:
            seat = SEAT_NAMES[SEAT_LETTERS.index(hand["next"]["seat"])]
            hand["result_words"] = f"{seat} may bid {_legal_words(hand['next']['legal'])}."
        else:
            hand["result_words"] = _outcome_words(hand, rules)
        lines.append(hand["result_words"])
    return lines


def _side_words(name: str) -> str:
    return {"NS": "North-South", "EW": "East-West"}[name]


def _outcome_words(hand: dict[str, Any], rules: Rules) -> str:
    ns, ew = hand["total"]["NS"], hand["total"]["EW"]
    totals = f"Totals: North-South {signed(ns)}, East-West {signed(ew)}"
    winner = hand["winner"]
    if winner is not None:
        loser = "EW" if winner == "NS" else "NS"
        if rules.mercy is not None and hand["total"][loser] < rules.mercy:
            why = f"{_side_words(loser)} are below the mercy line of {signed(rules.mercy)}"
        else:
            why = f"the target of {rules.target} is reached"
        return f"{totals}: {why}, and {_side_words(winner)} win the match."
    if max(ns, ew) >= rules.target:
        return f"{totals}: the target is reached, but the totals are equal: another hand."
    return f"{totals}."


# -- docs/rules.md -------------------------------------------------------------------------


def examples_markdown() -> str:
    """The worked examples section of docs/rules.md."""
    out = []
    for number, example in enumerate(worked_examples(), 1):
        out.append(f"#### {number}. {example['title']}")
        out.append("")
        badges = ", ".join(example["badges"])
        out.append(f"*{badges}.* {example['note']}")
        out.append("")
        out.extend(f"- {line}" for line in example["text"])
        out.append("")
    return "\n".join(out).rstrip() + "\n"


#: Writers of the generated blocks of docs/rules.md, by block name.
def generated_blocks() -> dict[str, Callable[[], str]]:
    from .rulebook import options_markdown, presets_markdown

    return {"options": options_markdown, "presets": presets_markdown,
            "examples": examples_markdown}


_BLOCK = re.compile(r"(<!-- generated:(\w+) -->\n)(.*?)(<!-- end:\2 -->)", re.S)


def write_generated(text: str) -> str:
    """``text`` with every generated block written afresh; an unknown block is an error."""
    writers = generated_blocks()

    def fill(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in writers:
            raise ValueError(f"unknown generated block {name!r}")
        return f"{match.group(1)}\n{writers[name]()}\n{match.group(4)}"

    return _BLOCK.sub(fill, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m varaq.worked_examples",
        description="Print the worked examples, or rewrite the generated parts of a rules doc.")
    parser.add_argument("--write", metavar="FILE", help="rewrite the generated blocks of FILE")
    args = parser.parse_args(argv)
    if args.write:
        path = Path(args.write)
        before = path.read_text(encoding="utf-8")
        after = write_generated(before)
        if after != before:
            path.write_text(after, encoding="utf-8")
        print(f"{path}: {'updated' if after != before else 'already current'}")
        return 0
    sys.stdout.write(examples_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
