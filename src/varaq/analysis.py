"""``varaq analyse RECORD``: which cards of a played hand cost tricks against perfect play.

For every finished hand of a record that has its cards, the hand is replayed card by card and,
once every hand holds at most ``--cards`` cards, the position before each card is solved double
dummy (:mod:`varaq.solver`): the card played is compared with the best card for the player's
side, and the difference in tricks is that card's cost.  It is a post-mortem with all cards
face up — a cost means "with the cards as they lay, this card gave away a trick", not that the
player could have known.

Kept modest on purpose:

- with the solver's compiled core every card of the hand is priced (``--cards 13``, the
  default); with only the pure Python search, full 13-card positions take too long, so the
  default is the last 6 tricks;
- the solver counts a side's tricks, which is not what a nil bidder or its partner plays for;
  while a nil is alive, a card is judged on the nil alone: a card of the nil side after which
  the defence can force the nil bidder to take a trick (when it could not before), or a card
  of the defence that lets a nil it could have set escape.

Exit status 2 with one line on standard error for a record that cannot be read, like
``varaq replay``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from typing import Any

from .cards import card_text
from .engine import Game
from .record import RecordError, load_record, parse_record
from .review import HandFacts, positions, reviewable_hands
from .seats import SEAT_LETTERS
from .solver import Solver, card_values, default_backend

__all__ = ["add_arguments", "run", "CardCost", "HandAnalysis", "analyse_hand", "analyse_game"]

BAD_RECORD = 2
#: Solve from the point where every hand holds at most this many cards: every card with the
#: compiled solver, the last 6 tricks with the pure Python one.
DEFAULT_CARDS = 13 if default_backend() == "c" else 6


@dataclass(frozen=True, slots=True)
class CardCost:
    """One card that cost its side against double-dummy best play."""

    trick: int
    seat: str
    played: str
    #: A better card ("" when the cost is a nil and any other card would have done).
    best: str
    #: Tricks the player's side lost by this card, with perfect play afterwards (0 for a nil).
    cost: int
    #: For a nil position: the nil bidder whose nil this card decided, and what it did
    #: (``"set"``: the nil side's card let the defence force a trick on the nil bidder;
    #: ``"escaped"``: the defence's card let a nil that could be set get away).
    nil_seat: str = ""
    nil: str = ""


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    hand: int
    #: Positions solved (one per card played from the point the solving starts).
    solved: int
    #: Positions where a nil was still alive: judged on the nil alone, not on tricks.
    nil_positions: int
    costly: tuple[CardCost, ...]


def analyse_hand(facts: HandFacts, cards: int = DEFAULT_CARDS) -> HandAnalysis:
    """Solve the positions of one finished hand with cards (see the module docstring).

    The positions are the engine's own, hand by hand from the hand's actions
    (:func:`varaq.review.positions`): the hands after any blind nil exchange, who leads, who
    won each trick are never worked out here a second time."""
    rules = facts.rules
    solvers = (Solver(0, jokers=rules.jokers), Solver(1, jokers=rules.jokers))
    # For each nil bidder: the defence maximising the tricks that bidder alone takes.
    nil_solvers = [Solver.nil_defence(s, jokers=rules.jokers) for s in range(4)]
    nil = [facts.bids[s] == 0 for s in range(4)]
    solved = nil_positions = 0
    costly: list[CardCost] = []
    for pos in positions(facts):
        if pos.cards_left > cards:
            continue
        i, seat, card, hands = pos.index, pos.seat, pos.card, list(pos.hands)
        trick = list(pos.trick)
        live = [s for s in range(4) if nil[s] and pos.taken[s] == 0]
        if live:
            nil_positions += 1
            for s in live:
                cost = _nil_cost(nil_solvers[s], hands, pos.leader, trick, pos.broken, card,
                                 seat, s)
                if cost:
                    costly.append(CardCost(
                        trick=i // 4 + 1, seat=SEAT_LETTERS[seat], played=card_text(card),
                        best="", cost=0, nil_seat=SEAT_LETTERS[s], nil=cost,
                    ))
        else:
            side = seat & 1
            values = card_values(hands, pos.leader, trick, pos.broken, rules, side,
                                 first_trick_two_clubs=pos.two_clubs, solver=solvers[side])
            solved += 1
            best_value = max(values.values())
            if values[card] < best_value:
                best = min(c for c, v in values.items() if v == best_value)
                costly.append(CardCost(
                    trick=i // 4 + 1, seat=SEAT_LETTERS[seat], played=card_text(card),
                    best=card_text(best), cost=best_value - values[card],
                ))
    return HandAnalysis(facts.number, solved, nil_positions, tuple(costly))


def _nil_cost(
    solver: Solver, hands: list[int], leader: int, trick: list[int], broken: bool, card: int,
    seat: int, nil_seat: int,
) -> str:
    """What ``card`` did to ``nil_seat``'s nil under perfect play: "set", "escaped" or ""."""
    could_set = solver.at_least(hands, leader, trick, broken, 1)
    can_set = solver.at_least_after(hands, leader, trick, broken, card, 1)
    if (seat & 1) == (nil_seat & 1):
        return "set" if can_set and not could_set else ""
    return "escaped" if could_set and not can_set else ""


def analyse_game(game: Game, cards: int = DEFAULT_CARDS) -> list[HandAnalysis]:
    """Analyse every finished hand of a replayed record that has its cards."""
    return [analyse_hand(HandFacts.from_game(game, number), cards)
            for number in reviewable_hands(game)]


# -- the command -------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="RECORD", help="a varaq-record/1 JSON file, or - for stdin")
    parser.add_argument(
        "--cards", type=int, default=DEFAULT_CARDS, metavar="N",
        help=f"solve once every hand holds at most N cards (1-13, default {DEFAULT_CARDS}; "
             "more is slower)",
    )
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.cards <= 13:
        return _refuse(f"--cards must be between 1 and 13, not {args.cards}")
    try:
        text = sys.stdin.buffer.read() if args.file == "-" else _read(args.file)
        game = load_record(parse_record(text))
    except RecordError as e:
        return _refuse(str(e))
    results = analyse_game(game, args.cards)
    if args.json:
        print(json.dumps({"hands": [_hand_json(h) for h in results]}, indent=2))
        return 0
    if not results:
        print("no finished hand with cards to analyse")
        return 0
    for h in results:
        print(_hand_text(h, args.cards))
    return 0


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror or e}") from None


def _refuse(message: str) -> int:
    print(" ".join(message.split()), file=sys.stderr)
    return BAD_RECORD


def _hand_json(h: HandAnalysis) -> dict[str, Any]:
    return {
        "hand": h.hand,
        "solved": h.solved,
        "nil_positions": h.nil_positions,
        "costly": [asdict(c) for c in h.costly],
    }


def _hand_text(h: HandAnalysis, cards: int) -> str:
    lines = [f"Hand {h.hand}: {h.solved} positions solved (last {cards} tricks)"]
    if h.nil_positions:
        lines[0] += f", {h.nil_positions} judged on a live nil"
    if (h.solved or h.nil_positions) and not h.costly:
        lines.append("  every card solved was a best card")
    for c in h.costly:
        if c.nil == "set":
            what = f"after which the defence can set {c.nil_seat}'s nil"
        elif c.nil == "escaped":
            what = f"letting {c.nil_seat}'s nil escape"
        else:
            tricks = "trick" if c.cost == 1 else "tricks"
            what = f"losing {c.cost} {tricks} (best: {c.best})"
        lines.append(f"  trick {c.trick}: {c.seat} played {c.played}, {what}")
    return "\n".join(lines)
